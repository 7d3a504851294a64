/* SPDX-License-Identifier: MIT */
/* The ggml backend's int4 weight form (ggml/npg_int4.c), built here on its own: a Q4_0 block held
 * in a slice of 32 comes back exactly, with either sign of its scale; any row's int4 values
 * within half a step of the row (a step at the clamped side), every slice length and tail;
 * activation digits within half the last digit's unit, |q| <= 7; bad input refused. Then the
 * form on the simulator's per-group path (npk_rk_qweights, int4, a group per slice) on both
 * kernel front ends against a CPU integer reference: with unit scales and one digit the result
 * is the exact integer sum, and with the form's scales and digits it is the reference's
 * combination of exact int32 sums within fp32 rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ggml/npg_int4.c"
#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"

static uint64_t state = 0x2545f4914f6cdd1dull;
static uint32_t next_u32(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (uint32_t)(state >> 32);
}
static float uniform(void) { return (float)next_u32() / 4294967296.0f * 2.0f - 1.0f; }

/* Rows built as ggml's Q4_0 stores them: per block of 32, d (an fp16 value, either sign) times
 * q - 8 with q in 0..15, the block's extreme at q = 0 (ggml maps the value of largest magnitude
 * to -8). At slice 32 the int4 form holds them exactly. */
static void q4_0_blocks(void)
{
    enum { K = 32 * 9 };
    float w[K], back[K], scale[K / 32];
    int8_t q[K];
    for (int round = 0; round < 50; round++) {
        for (int b = 0; b < K / 32; b++) {
            const float d =
                npk_f16_to_f32(npk_f32_to_f16(ldexpf(1.0f + uniform(), -(int)(next_u32() % 12)))) *
                (next_u32() & 1 ? -1.0f : 1.0f);
            for (int i = 0; i < 32; i++)
                w[b * 32 + i] = d * (float)((int)(next_u32() % 16) - 8);
            w[b * 32 + (int)(next_u32() % 32)] = d * -8.0f;
        }
        CHECK(npg_int4_weights(w, K, 32, q, scale));
        npg_int4_value(q, scale, K, 32, 1, back);
        CHECK(memcmp(w, back, sizeof w) == 0);
        for (int i = 0; i < K; i++)
            CHECK(q[i] >= NPG_INT4_W_MIN && q[i] <= NPG_INT4_W_MAX);
    }
}

/* Any row: every value within half a step of its int4 value, or within a step where it was
 * clamped (the side opposite the one at -8 may reach +8 steps); a slice of zeros at scale 0. */
static void weights_any(void)
{
    enum { K = 1000 };
    static const int64_t slices[] = {1, 32, 100, 480, 999, 1000, 4096};
    float w[K], back[K], scale[K];
    int8_t q[K];
    for (size_t v = 0; v < sizeof slices / sizeof slices[0]; v++) {
        const int64_t slice = slices[v];
        for (int i = 0; i < K; i++)
            w[i] = uniform() * ldexpf(1.0f, (int)(next_u32() % 8) - 4);
        for (int i = 0; i < 40 && slice > 40; i++)
            w[i] = 0; /* a zero run: the first slice of 32 is all zero */
        CHECK(npg_int4_weights(w, K, slice, q, scale));
        npg_int4_value(q, scale, K, slice, 1, back);
        for (int i = 0; i < K; i++) {
            const float s = fabsf(scale[i / slice]);
            const bool clamped = q[i] == NPG_INT4_W_MAX && w[i] / scale[i / slice] > 7.5f;
            CHECK(q[i] >= NPG_INT4_W_MIN && q[i] <= NPG_INT4_W_MAX);
            CHECK(fabsf(w[i] - back[i]) <= (clamped ? 1.0f : 0.5f) * s * (1 + 1e-6f));
        }
    }
    for (int i = 0; i < 64; i++)
        w[i] = 0;
    CHECK(npg_int4_weights(w, 64, 32, q, scale));
    CHECK(scale[0] == 0 && scale[1] == 0 && q[0] == 0 && q[63] == 0);
    w[5] = NAN;
    CHECK(!npg_int4_weights(w, 64, 32, q, scale));
    w[5] = INFINITY;
    CHECK(!npg_int4_weights(w, 64, 32, q, scale));
    w[5] = 0;
    CHECK(!npg_int4_weights(w, 64, 0, q, scale));
}

/* Activations: D digits within half the last digit's unit of the slice's scale. */
static void digits(void)
{
    enum { K = 1000 };
    static const int64_t slices[] = {32, 480, 1000};
    float x[K], back[K], scale[K];
    int8_t q[K * NPG_INT4_MAX_DIGITS];
    for (size_t v = 0; v < sizeof slices / sizeof slices[0]; v++)
        for (int d = 1; d <= NPG_INT4_MAX_DIGITS; d++) {
            const int64_t slice = slices[v];
            for (int i = 0; i < K; i++)
                x[i] = uniform() * (i % 97 == 0 ? 20.0f : 1.0f); /* a few outlier channels */
            CHECK(npg_int4_digits(x, K, slice, d, q, scale));
            npg_int4_value(q, scale, K, slice, d, back);
            const double unit = pow(NPG_INT4_DIGIT_BASE, -(d - 1));
            for (int i = 0; i < K * d; i++)
                CHECK(q[i] >= -NPG_INT4_DIGIT_MAX && q[i] <= NPG_INT4_DIGIT_MAX);
            for (int i = 0; i < K; i++)
                CHECK(fabs((double)x[i] - back[i]) <=
                      0.5 * unit * scale[i / slice] * (1 + 1e-5) + 1e-7 * fabsf(x[i]));
        }
    CHECK(!npg_int4_digits(x, K, 32, 0, q, scale));
    CHECK(!npg_int4_digits(x, K, 32, NPG_INT4_MAX_DIGITS + 1, q, scale));
    x[3] = -INFINITY;
    CHECK(!npg_int4_digits(x, K, 32, 2, q, scale));
    for (int i = 0; i < 32; i++)
        x[i] = 0;
    CHECK(npg_int4_digits(x, 32, 32, 2, q, scale));
    CHECK(scale[0] == 0 && q[0] == 0 && q[32 + 31] == 0);
}

typedef struct form_case {
    int64_t m, k, n, slice;
    int digits;
} form_case;

/* The form on the device against the integer reference. unit: every scale 1 and one digit, so
 * the result is the exact integer sum over K. */
static void on_device(const char *front, const form_case *fc, bool unit)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open(front, &rt), NPK_OK);
    if (!rt)
        return;
    const int64_t m = fc->m, k = fc->k, n = fc->n, slice = fc->slice;
    const int dg = unit ? 1 : fc->digits;
    const int64_t groups = npg_int4_slices(k, slice), rows = dg * m;
    float *w = malloc((size_t)(n * k) * sizeof *w), *x = malloc((size_t)(m * k) * sizeof *x);
    int8_t *qw = malloc((size_t)(n * k)), *qx = malloc((size_t)(m * k) * NPG_INT4_MAX_DIGITS);
    int8_t *qa = malloc((size_t)(rows * k));
    float *ws = malloc((size_t)(n * groups) * sizeof *ws);
    float *xs = malloc((size_t)(m * groups) * sizeof *xs);
    float *as = malloc((size_t)(rows * groups) * sizeof *as);
    float *c = malloc((size_t)(rows * n) * sizeof *c);
    int32_t *p = malloc((size_t)(NPG_INT4_MAX_DIGITS * groups) * sizeof *p);
    for (int64_t i = 0; i < n * k; i++)
        w[i] = uniform();
    for (int64_t i = 0; i < m * k; i++)
        x[i] = uniform() * (i % 61 == 0 ? 30.0f : 1.0f);
    for (int64_t j = 0; j < n; j++)
        CHECK(npg_int4_weights(w + j * k, k, slice, qw + j * k, ws + j * groups));
    for (int64_t i = 0; i < m; i++)
        CHECK(npg_int4_digits(x + i * k, k, slice, dg, qx + i * k * dg, xs + i * groups));
    if (unit) { /* the integers alone */
        for (int64_t i = 0; i < n * groups; i++)
            ws[i] = 1;
        for (int64_t i = 0; i < m * groups; i++)
            xs[i] = 1;
    }
    for (int64_t i = 0; i < m; i++)
        npg_int4_digit_rows(qx + i * k * dg, xs + i * groups, i, m, k, groups, dg, qa, as);
    const npk_rk_qweights_desc desc = npg_int4_desc(qw, ws, k, n, slice, rows);
    npk_rk_qweights *q = NULL;
    CHECK_EQ(npk_rk_qweights_pack(rt, &desc, &q), NPK_OK);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, (uint32_t)rows, qa, as, (uint64_t)(rows * groups),
                                 NPK_PREC_FP32, c, NULL),
             NPK_OK);
    uint64_t bad = 0;
    for (int64_t i = 0; i < m && q; i++)
        for (int64_t j = 0; j < n; j++) {
            /* the reference: every slice's and digit's exact integer sum, then the scales */
            double mag = 0;
            for (int d = 0; d < dg; d++)
                for (int64_t g = 0; g < groups; g++) {
                    int32_t sum = 0;
                    for (int64_t e = g * slice; e < k && e < (g + 1) * slice; e++)
                        sum += qx[i * k * dg + d * k + e] * qw[j * k + e];
                    p[d * groups + g] = sum;
                    mag += fabs((double)sum * xs[i * groups + g] * ws[j * groups + g]);
                }
            const float ref = npg_int4_combine(p, dg, groups, xs + i * groups, ws + j * groups);
            double got = 0;
            for (int d = 0; d < dg; d++)
                got += c[(d * m + i) * n + j];
            /* unit: integers far below 2^24, exact in fp32; else fp32 rounding of each term */
            const double tol = unit ? 0 : (double)(groups + 4) * dg * 1.2e-7 * mag + 1e-30;
            if (fabs(got - ref) > tol && bad++ < 5)
                fprintf(stderr, "FAIL %s m%lld k%lld n%lld s%lld d%d: [%lld][%lld] %.9g vs %.9g\n",
                        front, (long long)m, (long long)k, (long long)n, (long long)slice, dg,
                        (long long)i, (long long)j, got, (double)ref);
        }
    CHECK_EQ(bad, 0);
    npk_rk_qweights_free(rt, q);
    npk_rk_close(rt);
    free(w), free(x), free(qw), free(qx), free(qa), free(ws), free(xs), free(as), free(c), free(p);
}

int main(void)
{
    q4_0_blocks();
    weights_any();
    digits();
    /* slices of one ggml block and of the longest the int4 accumulator allows (480 of 511,
     * whole K tiles), tails shorter than a slice, M = 1 (decode) */
    static const form_case cases[] = {
        {1, 1000, 64, 480, 3}, {5, 256, 128, 32, 3}, {3, 300, 70, 32, 2}, {2, 960, 64, 480, 4}};
    static const char *const fronts[] = {"sim", "sim-rocket"};
    for (size_t f = 0; f < 2; f++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            on_device(fronts[f], &cases[i], true);
            on_device(fronts[f], &cases[i], false);
        }
    return check_done();
}
