/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* setenv */
/* npk_rk_pool2d on the simulated PDP against the CPU reference: max and min bit-exact, average
 * within the fp16 rounding and the PDP's 17-bit reciprocals; kernel = input, stride > kernel,
 * channels that are not a multiple of the atom, padding with and without counting it, a global
 * pool in one stage and in two; the PDP's register values against the spec's maxpool capture;
 * on the rocket kernel max/min refused naming why and an average run as a depthwise conv; bad
 * input named with its limit. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "npukit/rk_regs.h"
#include "rk/check/rk_reference_conv.h"
#include "rk/program/rk_op_synth.h"
#include "rk/program/rk_pool.h"

static uint64_t seed = 5;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

static void run(npk_rk *rt, npk_rk_pool2d_args a)
{
    uint32_t oh = 0, ow = 0;
    CHECK_EQ(npk_rk_pool2d_shape(&a, &oh, &ow), NPK_OK);
    const size_t in_n = (size_t)a.n * a.c * a.h * a.w, out_n = (size_t)a.n * a.c * oh * ow;
    uint16_t *in = malloc(in_n * 2);
    for (size_t i = 0; i < in_n; i++)
        in[i] = npk_f32_to_f16((float)((int)(rnd() % 2001) - 1000) / 64.0f);
    a.input = in;
    a.output = malloc(out_n * 2);
    double *ref = malloc(out_n * sizeof *ref);
    CHECK_EQ(npk_rk_reference_pool2d(&a, ref), NPK_OK);
    npk_status s = npk_rk_pool2d(rt, &a, NULL);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "pool2d: %s\n", npk_last_error());
    size_t bad = 0;
    for (size_t i = 0; s == NPK_OK && i < out_n; i++) {
        double got = npk_f16_to_f32(a.output[i]);
        /* the average: fp16 rounding of the result (2^-11), the reciprocals' 10 mantissa bits
         * (2^-11 each) and a rescale of a border window (one more rounding) */
        bool ok = a.method == NPK_RK_POOL2D_AVG ? fabs(got - ref[i]) <= 3e-3 * fabs(ref[i]) + 2e-3
                                                : npk_f32_to_f16((float)ref[i]) == a.output[i];
        if (!ok && bad++ < 3)
            fprintf(stderr, "  [%zu] got %g want %g\n", i, got, ref[i]);
    }
    CHECK_EQ(bad, 0);
    free(in), free(a.output), free(ref);
}

static npk_rk_pool2d_args pool(npk_rk_pool2d_method m, uint32_t c, uint32_t h, uint32_t w, uint32_t k,
                               uint32_t s, uint32_t pad)
{
    return (npk_rk_pool2d_args){.method = m, .n = 1, .c = c, .h = h, .w = w, .k_h = k, .k_w = k,
                                .stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad,
                                .pad_bottom = pad, .pad_right = pad};
}

static void test_shapes(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    for (int m = 0; m < NPK_RK_POOL2D_METHOD_COUNT; m++) {
        run(rt, pool(m, 64, 16, 16, 2, 2, 0)); /* the spec's capture shape */
        run(rt, pool(m, 5, 7, 7, 7, 1, 0));    /* kernel = input */
        run(rt, pool(m, 13, 11, 9, 2, 3, 0));  /* stride > kernel, C past one atom */
        run(rt, pool(m, 9, 10, 10, 3, 2, 1));  /* padded */
    }
    npk_rk_pool2d_args a = pool(NPK_RK_POOL2D_AVG, 4, 9, 9, 3, 2, 1);
    a.count_include_pad = true;
    run(rt, a);
    a = pool(NPK_RK_POOL2D_AVG, 20, 7, 7, 1, 1, 0); /* MobileNet's head: global 7x7 */
    a.global = true;
    run(rt, a);
    a = pool(NPK_RK_POOL2D_AVG, 3, 56, 48, 1, 1, 0); /* two stages: 56 = 14*4, 48 = 16*3 */
    a.global = true;
    a.n = 2;
    run(rt, a);
    a.method = NPK_RK_POOL2D_MAX;
    run(rt, a);
    npk_rk_close(rt);
}

/* The spec's maxpool capture (in 64x16x16, k2 s2): 0x6004 = 0xE, 0x600C/0x6010 = 15,
 * 0x6014/0x6020 = 63, 0x6018/0x601C = 7, 0x6034 = 0x00110101, 0x6070 = the input, 0x60DC = 3. */
static void test_capture_registers(void)
{
    npk_rk_pool t = {.method = NPK_RK_POOL_MAX, .in_h = 16, .in_w = 16, .c = 64, .out_h = 8,
                     .out_w = 8, .k_h = 2, .k_w = 2, .stride_y = 2, .stride_x = 2,
                     .in = 0x1000, .out = 0x9000};
    npk_rk_entry body[64];
    const unsigned n = npk_rk_op_synth_of(NPK_RK_OP_POOL)->body;
    CHECK(n <= 64);
    CHECK_EQ(npk_rk_synth_pool(&t, body), NPK_OK);
    struct {
        uint16_t reg;
        uint32_t v;
    } want[] = {{0x6004, 0xE}, {0x600C, 15}, {0x6010, 15}, {0x6014, 63}, {0x6018, 7},
                {0x601C, 7},   {0x6020, 63}, {0x6034, 0x00110101}, {0x6070, 0x1000}, {0x60DC, 3}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bool seen = false;
        for (unsigned j = 0; j < n; j++)
            if (npk_rk_entry_target(body[j]) == NPK_TARGET_PPU && npk_rk_entry_reg(body[j]) == want[i].reg) {
                CHECK_EQ(npk_rk_entry_value(body[j]), want[i].v);
                seen = true;
            }
        CHECK(seen);
    }
    /* the reciprocal format: 1/2 is 30720 (exponent 30, mantissa 0), 1/7 within 2^-11 */
    CHECK_EQ(npk_rk_pool_recip(2), 30720);
    CHECK(fabs(npk_rk_pool_recip_value(npk_rk_pool_recip(7)) - 1.0 / 7) < (1.0 / 7) / 2048);
}

static void test_refused(void)
{
    npk_rk *rt;
    uint16_t buf[256] = {0};
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    npk_rk_pool2d_args a = pool(NPK_RK_POOL2D_MAX, 2, 4, 4, 2, 2, 0);
    a.input = a.output = buf;
    CHECK_EQ(npk_rk_pool2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "DPU interrupt");
    /* an average there runs as a depthwise conv (weights 1/(KH*KW)) */
    run(rt, pool(NPK_RK_POOL2D_AVG, 9, 10, 10, 3, 2, 1));
    a = pool(NPK_RK_POOL2D_AVG, 20, 7, 7, 1, 1, 0);
    a.global = true;
    run(rt, a);
    npk_rk_close(rt);
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    a = pool(NPK_RK_POOL2D_MAX, 2, 4, 4, 2, 0, 0);
    a.input = a.output = buf;
    CHECK_EQ(npk_rk_pool2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "stride 0x0");
    a = pool(NPK_RK_POOL2D_MAX, 2, 4, 4, 6, 1, 0);
    a.input = a.output = buf;
    CHECK_EQ(npk_rk_pool2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "larger than the padded input 4x4");
    a = pool(NPK_RK_POOL2D_MAX, 2, 40, 40, 17, 1, 0);
    CHECK_EQ(npk_rk_pool2d_shape(&a, &(uint32_t){0}, &(uint32_t){0}), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "exceeds 16");
    a = pool(NPK_RK_POOL2D_MAX, 2, 40, 40, 3, 1, 3);
    CHECK_EQ(npk_rk_pool2d_shape(&a, &(uint32_t){0}, &(uint32_t){0}), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "smaller than the kernel 3x3");
    a = pool(NPK_RK_POOL2D_AVG, 2, 17, 17, 1, 1, 0);
    a.global = true;
    CHECK_EQ(npk_rk_pool2d_shape(&a, &(uint32_t){0}, &(uint32_t){0}), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "global pool over 17x17");
    npk_rk_close(rt);
}

int main(void)
{
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    test_shapes();
    test_capture_registers();
    test_refused();
    return check_done();
}
