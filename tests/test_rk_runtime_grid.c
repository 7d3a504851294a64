/* SPDX-License-Identifier: MIT */
/* The runtime against the CPU reference over the edge shapes of every limit, on the faithful
 * simulator: M in {1, 3, 64, 353, 2049}, K in {32, 100, 2048, 10752, 10784, 20000}, N in
 * {16, 17, 8192, 8193, 20000}, 1 and 3 cores, every dtype. Each axis is swept with the other two
 * small, plus corner combinations; a full cross product would be hours of CPU reference.
 *
 * Operands are multiples of 1/8 in [-1, 1] for fp16, so every fp32 sum is exact and the result
 * must equal the reference bit for bit; int8 (full range) and int4 ([-8, 7]) are exact by
 * construction. Every result must also pass the documented bound (npk_rk_check_matmul); one
 * extra case uses non-dyadic fp16 values, where only the bound applies. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"

static uint64_t state = 7;
static uint32_t rnd(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 33);
}

static void *make(npk_rk_prec p, size_t count, bool dyadic)
{
    if (p == NPK_PREC_FP16) {
        uint16_t *v = malloc(count * 2);
        for (size_t i = 0; i < count; i++)
            v[i] = npk_f32_to_f16(dyadic ? (float)((int)(rnd() % 17) - 8) / 8.0f
                                         : (float)rnd() / 4294967296.0f * 2.0f - 1.0f);
        return v;
    }
    int8_t *v = malloc(count);
    for (size_t i = 0; i < count; i++)
        v[i] = p == NPK_PREC_INT8 ? (int8_t)(rnd() & 0xff) : (int8_t)((int)(rnd() % 16) - 8);
    return v;
}

static int failures;

static void run(npk_rk *rt, npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k, uint32_t n,
                unsigned cores, bool dyadic)
{
    void *a = make(in, (size_t)m * k, dyadic), *b = make(in, (size_t)k * n, dyadic);
    size_t ob = out == NPK_PREC_FP16 ? 2 : 4;
    void *c = calloc((size_t)m * n, ob);
    npk_rk_weights *w = NULL;
    npk_rk_stats st;
    bool ok = false;
    npk_rk_verdict e = {0};
    if (npk_rk_set_cores(rt, cores) == NPK_OK &&
        npk_rk_weights_pack(rt, in, k, n, b, m, &w) == NPK_OK &&
        npk_rk_matmul(rt, w, m, a, out, c, &st) == NPK_OK &&
        npk_rk_check_matmul(in, out, m, k, n, a, b, c, &e) == NPK_OK) {
        /* exact sums must be bit-equal; any data must be within the bound */
        ok = e.outside == 0 && (dyadic || in != NPK_PREC_FP16 ? e.mismatches == 0 : true);
    }
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL %s->%s %ux%ux%u cores %u: %s mismatches %llu outside %llu max abs %g (%s)\n",
                npk_rk_prec_name(in), npk_rk_prec_name(out), m, k, n, cores,
                dyadic ? "dyadic" : "random", (unsigned long long)e.mismatches, (unsigned long long)e.outside, e.max_abs,
                npk_last_error());
    }
    CHECK(ok);
    npk_rk_weights_free(rt, w);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    static const uint32_t ms[] = {1, 3, 64, 353, 2049};
    static const uint32_t ks[] = {32, 100, 2048, 10752, 10784, 20000};
    static const uint32_t ns[] = {16, 17, 8192, 8193, 20000};
    static const struct {
        npk_rk_prec in, out;
    } types[] = {{NPK_PREC_FP16, NPK_PREC_FP32},
                 {NPK_PREC_FP16, NPK_PREC_FP16},
                 {NPK_PREC_INT8, NPK_PREC_INT32},
                 {NPK_PREC_INT4, NPK_PREC_INT32}};
    npk_rk *rt;
    if (npk_rk_open("sim", &rt) != NPK_OK) {
        fprintf(stderr, "open: %s\n", npk_last_error());
        return 1;
    }
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        npk_rk_prec in = types[t].in, out = types[t].out;
        for (unsigned cores = 1; cores <= 3; cores += 2) {
            for (size_t i = 0; i < 5; i++)
                run(rt, in, out, ms[i], 100, 17, cores, true);
            for (size_t i = 0; i < 6; i++)
                run(rt, in, out, 3, ks[i], 17, cores, true);
            for (size_t i = 0; i < 5; i++)
                run(rt, in, out, 3, 100, ns[i], cores, true);
        }
        /* Corners: every limit at once, within a CPU-reference budget. */
        run(rt, in, out, 2049, 2048, 64, 3, true);
        run(rt, in, out, 64, 10784, 300, 3, true);
        run(rt, in, out, 353, 100, 8193, 3, true);
        run(rt, in, out, 1, 10784, 8193, 3, true);
    }
    run(rt, NPK_PREC_FP16, NPK_PREC_FP32, 64, 10784, 333, 3, false);
    run(rt, NPK_PREC_FP16, NPK_PREC_FP16, 64, 2048, 333, 3, false);
    npk_rk_close(rt);
    printf("%d shapes failed\n", failures);
    return check_done();
}
