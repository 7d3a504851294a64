/* SPDX-License-Identifier: MIT */
/* Shared helpers of the rksim tests: random operands, CPU references, one task run through
 * the device layer on the simulator. Header-only (static), included by test_rksim_*.c. */
#ifndef NPUKIT_TESTS_RKSIM_TESTLIB_H
#define NPUKIT_TESTS_RKSIM_TESTLIB_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/fp16.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rksim.h"

static uint64_t tl_rng = 0x9e3779b97f4a7c15ull;
static inline uint32_t tl_rand(void)
{
    tl_rng ^= tl_rng << 13;
    tl_rng ^= tl_rng >> 7;
    tl_rng ^= tl_rng << 17;
    return (uint32_t)(tl_rng >> 16);
}

/* Operands and reference of one matmul. fp16 values are multiples of 1/8 in [-2, 2): their
 * products and sums are exact in fp32, so the simulator's result is exactly comparable. */
typedef struct tl_case {
    npk_rk_prec in, out;
    uint32_t m, k, n;
    void *a, *b; /* user A[M][K], B[K][N] */
    double *ref; /* exact C[M][N] */
    void *c;     /* simulator output, user layout */
} tl_case;

static inline size_t tl_in_size(npk_rk_prec p) { return p == NPK_PREC_FP16 ? 2 : 1; }

static inline double tl_in_value(npk_rk_prec p, const void *v, size_t i)
{
    if (p == NPK_PREC_FP16)
        return npk_f16_to_f32(((const uint16_t *)v)[i]);
    return ((const int8_t *)v)[i];
}

static inline void tl_fill(npk_rk_prec p, void *v, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (p == NPK_PREC_FP16)
            ((uint16_t *)v)[i] = npk_f32_to_f16((float)((int)(tl_rand() % 32) - 16) / 8.0f);
        else if (p == NPK_PREC_INT8)
            ((int8_t *)v)[i] = (int8_t)(tl_rand() & 0xff);
        else
            ((int8_t *)v)[i] = (int8_t)((int)(tl_rand() % 16) - 8);
    }
}

static inline void tl_case_init(tl_case *t, npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                                uint32_t n)
{
    memset(t, 0, sizeof *t);
    t->in = in;
    t->out = out;
    t->m = m;
    t->k = k;
    t->n = n;
    t->a = calloc((size_t)m * k, tl_in_size(in));
    t->b = calloc((size_t)k * n, tl_in_size(in));
    t->ref = calloc((size_t)m * n, sizeof *t->ref);
    t->c = calloc((size_t)m * n, 4);
    tl_fill(in, t->a, (size_t)m * k);
    tl_fill(in, t->b, (size_t)k * n);
}

static inline void tl_case_reference(tl_case *t)
{
    for (uint32_t i = 0; i < t->m; i++)
        for (uint32_t j = 0; j < t->n; j++) {
            double s = 0;
            for (uint32_t p = 0; p < t->k; p++)
                s += tl_in_value(t->in, t->a, (size_t)i * t->k + p) *
                     tl_in_value(t->in, t->b, (size_t)p * t->n + j);
            if (t->out == NPK_PREC_INT16) /* int4's accumulator saturates (facts I.1) */
                s = s > 32767 ? 32767 : s < -32767 ? -32767 : s;
            t->ref[(size_t)i * t->n + j] = s;
        }
}

static inline void tl_case_free(tl_case *t)
{
    free(t->a);
    free(t->b);
    free(t->ref);
    free(t->c);
}

/* The simulator's output element as a double. */
static inline double tl_out_value(const tl_case *t, size_t i)
{
    switch (t->out) {
    case NPK_PREC_FP32: return ((const float *)t->c)[i];
    case NPK_PREC_FP16: return npk_f16_to_f32(((const uint16_t *)t->c)[i]);
    case NPK_PREC_INT32: return ((const int32_t *)t->c)[i];
    case NPK_PREC_INT8:
    case NPK_PREC_INT16:
    case NPK_PREC_BF16:
    case NPK_PREC_INT4:
    case NPK_PREC_TF32:
    default: return ((const int16_t *)t->c)[i];
    }
}

/* Elements that differ from the reference (fp16 output: from its round-to-nearest-even). */
static inline size_t tl_mismatches(const tl_case *t)
{
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)t->m * t->n; i++) {
        double ref = t->ref[i];
        if (t->out == NPK_PREC_FP16)
            ref = npk_f16_to_f32(npk_f32_to_f16((float)ref));
        if (tl_out_value(t, i) != ref)
            bad++;
    }
    return bad;
}

/* Simulator device with hazards as given and no timeout sleep. */
static inline npk_rk_device *tl_open(uint32_t ideal_mask)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.ideal_mask = ideal_mask;
    cfg.timeout_scale = 0;
    npk_rk_device *d = NULL;
    CHECK_EQ(npk_rk_device_open_sim(&cfg, &d), NPK_OK);
    return d;
}

/* The simulator behind the rknpu or the rocket interface, no timeout sleep. */
static inline npk_rk_device *tl_open_kernel(bool rocket)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.timeout_scale = 0;
    npk_rk_device *d = NULL;
    CHECK_EQ(rocket ? npk_rk_device_open_sim_rocket(&cfg, &d) : npk_rk_device_open_sim(&cfg, &d),
             NPK_OK);
    return d;
}

/* Set every copy of a register in a device task's body; false when the body has none. */
static inline bool tl_task_set(npk_rk_devtask *t, npk_rk_reg_id id, uint32_t v)
{
    bool found = false;
    for (size_t i = 0; i < t->body_count; i++)
        if (npk_rk_reg_lookup(npk_rk_entry_target(t->body[i]), npk_rk_entry_reg(t->body[i])) ==
            npk_rk_reg_info(id)) {
            t->body[i] = npk_rk_entry_reg_write(id, v);
            found = true;
        }
    return found;
}

static inline const rksim_report *tl_report(npk_rk_device *d)
{
    return rksim_last_report(npk_rk_device_sim(d));
}

#endif
