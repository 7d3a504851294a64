/* SPDX-License-Identifier: MIT */
/* npk_rk_matmul_f32 and batch items with a_fp32: A given as floats, rounded to fp16 while it is
 * packed. Checked on both front ends (rknpu, where the cores share one address space and a
 * call's tiles are packed once for all of them; rocket, where they are packed once into a
 * buffer with a copy in each core's own address space), on 1 and 3 cores, several chains
 * (one job or several per core), the feature pitch and K that is not a multiple of 32:
 *   - C is bit for bit what npk_rk_matmul gives on A converted by the scalar npk_f32_to_f16,
 *     on floats that round (ties, subnormals, both signs);
 *   - on floats that round to multiples of 1/8, C equals the CPU reference exactly;
 *   - A changed in place between calls (same pointer) gives the new product;
 *   - a batch mixing float and fp16 items gives each its own product;
 *   - int8 weights with a float A are refused, naming both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk_operands_testlib.h"

/* Floats that round: a random sign, exponent over fp16's range and mantissa. */
static float *rounding_floats(size_t n)
{
    float *a = malloc(n * sizeof *a);
    for (size_t i = 0; a && i < n; i++) {
        const uint32_t u = (rk_test_rnd() & 0x80000000u) | (127 - 20 + rk_test_rnd() % 24) << 23 |
                           (rk_test_rnd() & 0x7fffff);
        memcpy(&a[i], &u, sizeof u);
    }
    return a;
}

/* Floats j/8 (|j| <= 8) moved by less than half an fp16 step: they round back to j/8, so the
 * product's sums are exact in any order. */
static float *eighths(size_t n)
{
    float *a = malloc(n * sizeof *a);
    for (size_t i = 0; a && i < n; i++)
        a[i] = (float)((int)(rk_test_rnd() % 17) - 8) / 8.0f * (1.0f + 1.0f / 8192);
    return a;
}

static uint16_t *to_fp16(const float *a, size_t n)
{
    uint16_t *h = malloc(n * sizeof *h);
    for (size_t i = 0; h && i < n; i++)
        h[i] = npk_f32_to_f16(a[i]);
    return h;
}

/* One shape: the float call against the fp16 call on the converted A, and (eighths) against
 * the CPU reference; then A changed in place. */
static void one_shape(npk_rk *rt, uint32_t m, uint32_t k, uint32_t n, uint32_t hint,
                      const char *what)
{
    const size_t mk = (size_t)m * k, mn = (size_t)m * n;
    uint16_t *b = rk_test_operands(NPK_PREC_FP16, (size_t)k * n);
    float *a = rounding_floats(mk), *c = calloc(mn, sizeof *c), *ref = calloc(mn, sizeof *ref);
    CHECK(a && b && c && ref);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, hint ? hint : m, &w), NPK_OK);
    uint16_t *h = to_fp16(a, mk);
    CHECK_EQ(npk_rk_matmul(rt, w, m, h, NPK_PREC_FP32, ref, NULL), NPK_OK);
    CHECK_EQ(npk_rk_matmul_f32(rt, w, m, a, NPK_PREC_FP32, c, NULL), NPK_OK);
    const int same = memcmp(c, ref, mn * sizeof *c) == 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "  %s: %ux%ux%u differs from the converted A's product\n", what, m, k, n);
    /* the same pointer, other values: nothing of the first call's tiles is reused */
    float *e = eighths(mk);
    memcpy(a, e, mk * sizeof *a);
    free(h);
    h = to_fp16(a, mk);
    CHECK_EQ(npk_rk_matmul_f32(rt, w, m, a, NPK_PREC_FP32, c, NULL), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_FP16, NPK_PREC_FP32, m, k, n, h, b, ref), NPK_OK);
    CHECK_EQ(npk_rk_compare(NPK_PREC_FP32, c, ref, mn).mismatches, 0);
    /* and into an fp16 C */
    uint16_t *c16 = calloc(mn, 2), *r16 = calloc(mn, 2);
    CHECK_EQ(npk_rk_matmul_f32(rt, w, m, a, NPK_PREC_FP16, c16, NULL), NPK_OK);
    CHECK_EQ(npk_rk_matmul(rt, w, m, h, NPK_PREC_FP16, r16, NULL), NPK_OK);
    CHECK(memcmp(c16, r16, mn * 2) == 0);
    free(c16), free(r16), free(e), free(h);
    npk_rk_weights_free(rt, w);
    free(a), free(b), free(c), free(ref);
}

/* A batch of a float item and an fp16 one, each against its own single call. */
static void batch(npk_rk *rt)
{
    const uint32_t m = 24, k = 160, n = 96;
    uint16_t *b1 = rk_test_operands(NPK_PREC_FP16, (size_t)k * n);
    uint16_t *b2 = rk_test_operands(NPK_PREC_FP16, (size_t)k * n);
    float *a1 = rounding_floats((size_t)m * k);
    uint16_t *a2 = rk_test_operands(NPK_PREC_FP16, (size_t)m * k), *h1 = to_fp16(a1, (size_t)m * k);
    float *c1 = calloc((size_t)m * n, 4), *c2 = calloc((size_t)m * n, 4);
    float *r1 = calloc((size_t)m * n, 4), *r2 = calloc((size_t)m * n, 4);
    npk_rk_weights *w1 = NULL, *w2 = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b1, m, &w1), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b2, m, &w2), NPK_OK);
    npk_rk_matmul_item items[2] = {{.w = w1, .m = m, .a = a1, .c = c1, .a_fp32 = true},
                                   {.w = w2, .m = m, .a = a2, .c = c2}};
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 2, NPK_PREC_FP32, NULL), NPK_OK);
    CHECK_EQ(npk_rk_matmul(rt, w1, m, h1, NPK_PREC_FP32, r1, NULL), NPK_OK);
    CHECK_EQ(npk_rk_matmul(rt, w2, m, a2, NPK_PREC_FP32, r2, NULL), NPK_OK);
    CHECK(memcmp(c1, r1, (size_t)m * n * 4) == 0);
    CHECK(memcmp(c2, r2, (size_t)m * n * 4) == 0);
    npk_rk_weights_free(rt, w1);
    npk_rk_weights_free(rt, w2);
    free(b1), free(b2), free(a1), free(a2), free(h1), free(c1), free(c2), free(r1), free(r2);
}

static void refusals(npk_rk *rt)
{
    int8_t b[64 * 32] = {0};
    float a[64] = {0}, c[32];
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 64, 32, b, 1, &w), NPK_OK);
    CHECK_EQ(npk_rk_matmul_f32(rt, w, 1, a, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp16 weights; these are int8");
    npk_rk_matmul_item item = {.w = w, .m = 1, .a = a, .c = c, .a_fp32 = true};
    CHECK_EQ(npk_rk_matmul_batch(rt, &item, 1, NPK_PREC_INT32, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "item 0");
    CHECK_EQ(npk_rk_matmul_f32(rt, w, 1, NULL, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    npk_rk_weights_free(rt, w);
}

int main(void)
{
    static const char *const devices[] = {"sim", "sim-rocket"};
    /* one task per core; K slices shared by the cores (the last one padded); weights packed
     * for M = 1 (the whole K per task), so that M = 64 runs in tiles of a few rows, each read
     * by every core */
    static const struct {
        uint32_t m, k, n, hint;
    } shapes[] = {{1, 256, 96, 0}, {37, 300, 200, 0}, {37, 4100, 200, 0}, {64, 4096, 1200, 1}};
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
        npk_rk *rt;
        CHECK_EQ(npk_rk_open(devices[d], &rt), NPK_OK);
        static const unsigned cores[] = {1, 3}, chains[] = {64, 3};
        for (size_t ci = 0; ci < 2; ci++)
            for (size_t hi = 0; hi < 2; hi++) {
                CHECK_EQ(npk_rk_set_cores(rt, cores[ci]), NPK_OK);
                CHECK_EQ(npk_rk_set_chain(rt, chains[hi]), NPK_OK);
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                    if (cores[ci] > 1 || shapes[s].hint == 0) /* the tiles shared by cores */
                            one_shape(rt, shapes[s].m, shapes[s].k, shapes[s].n, shapes[s].hint,
                                  devices[d]);
            }
        /* rows two packed rows apart (fp16's line stride factor 2) */
        CHECK_EQ(npk_rk_set_feature_pitch(rt, 2), NPK_OK);
        one_shape(rt, 64, 4096, 1200, 1, devices[d]);
        CHECK_EQ(npk_rk_set_feature_pitch(rt, 0), NPK_OK);
        batch(rt);
        refusals(rt);
        npk_rk_close(rt);
    }
    return check_done();
}
