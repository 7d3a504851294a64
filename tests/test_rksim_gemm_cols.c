/* SPDX-License-Identifier: MIT */
/* The fp16 matmul's GEMM (rksim_gemm_cols) on every path the CPU has (portable C, AVX2 with
 * FMA, AVX-512, NEON), against the loop that defines it written out here: per result one fp32
 * fmaf chain over k = 0..K-1 from +0. Bit for bit (NaN as NaN), over edge shapes (M and N
 * around the kernel's 16-row blocks and 8-column groups, K of 1), and with what the zero-row
 * skip must respect:
 *   - trailing weight rows of +0 and -0 (a padded K slice) are left out (live_k) and the
 *     results stay those of the whole chain, a result of exactly +0 included;
 *   - an Inf or NaN feature element in those rows keeps them (pack_a's finite bound): the
 *     column's results are NaN as 0 x Inf gives;
 *   - Inf and NaN weights anywhere propagate as the chain gives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rksim/matmul.h"

static uint64_t rng = 88172645463325252ull;
static float small_value(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    /* fp16 values (11 significant bits) of exponents -12..3, never 0 (the zero rows are the
     * case's): exact products, sums that round, so that another order shows */
    const int v = (int)(rng % 2048) - 1024;
    return ldexpf((float)(v ? v : 1), (int)(rng >> 40) % 16 - 22);
}

enum { TAIL_NONE, TAIL_ZERO, TAIL_ZERO_INF_A, SPECIAL_WEIGHTS, ALL_ZERO };

static bool same(float x, float y)
{
    return (x != x && y != y) || memcmp(&x, &y, sizeof x) == 0;
}

/* One shape and case on the current path; the count of results unlike the chain's. */
static size_t run_case(uint32_t m, uint32_t k, uint32_t n, int kind, uint32_t *live_out)
{
    const size_t ld = k + 3; /* columns apart by more than K, as the decode lays them */
    float *a = malloc(sizeof *a * m * k), *b = calloc((size_t)n * ld, sizeof *b);
    float *at = malloc(sizeof *at * rksim_gemm_cols_a_floats(m, k));
    float *c = malloc(sizeof *c * m * n);
    size_t bad = 0;
    if (!a || !b || !at || !c) {
        CHECK(!"out of memory");
        goto done;
    }
    const uint32_t tail = kind == ALL_ZERO ? k : kind == TAIL_NONE || kind == SPECIAL_WEIGHTS ? 0
                                                                                              : k / 3;
    for (size_t i = 0; i < (size_t)m * k; i++)
        a[i] = small_value();
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t p = 0; p < k; p++)
            b[j * ld + p] = p >= k - tail ? (j % 2 ? -0.0f : 0.0f) : small_value();
    if (kind == TAIL_ZERO_INF_A && tail)
        a[(size_t)(m - 1) * k + k - 1] = INFINITY; /* last row, last (zero-weight) k */
    if (kind == SPECIAL_WEIGHTS) {
        b[0 * ld + k / 2] = INFINITY;
        b[(size_t)(n - 1) * ld + 0] = NAN;
        if (n > 2)
            b[2 * ld + k - 1] = -INFINITY;
    }
    const uint32_t finite = rksim_gemm_cols_pack_a(a, m, k, at);
    const uint32_t live = rksim_gemm_cols_live_k(b, ld, n, k);
    const uint32_t kk = live > finite ? live : finite;
    *live_out = kk;
    rksim_gemm_cols(at, m, k, kk, b, ld, n, c, n);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (uint32_t p = 0; p < k; p++)
                acc = fmaf(a[(size_t)i * k + p], b[j * ld + p], acc);
            bad += !same(c[(size_t)i * n + j], acc);
        }
    if (kind == TAIL_ZERO_INF_A && tail) /* 0 x Inf: the last row is NaN throughout */
        for (uint32_t j = 0; j < n; j++)
            bad += c[(size_t)(m - 1) * n + j] == c[(size_t)(m - 1) * n + j];
    if (kind == ALL_ZERO) /* +0 exactly, never -0 */
        for (size_t i = 0; i < (size_t)m * n; i++)
            bad += c[i] != 0.0f || signbit(c[i]);
done:
    free(a), free(b), free(at), free(c);
    return bad;
}

static void check_path(rksim_gemm_cols_path want)
{
    rksim_gemm_cols_force(want);
    const rksim_gemm_cols_path used = rksim_gemm_cols_path_used();
    if (used != want) {
        printf("path %d not on this CPU (runs as %d)\n", (int)want, (int)used);
        return;
    }
    static const uint32_t ms[] = {1, 15, 16, 17, 32, 33, 50};
    static const uint32_t ns[] = {1, 7, 8, 9, 24};
    static const uint32_t ks[] = {1, 31, 96};
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                for (int kind = TAIL_NONE; kind <= ALL_ZERO; kind++) {
                    uint32_t live = 0;
                    const size_t bad = run_case(ms[mi], ks[ki], ns[ni], kind, &live);
                    if (bad)
                        fprintf(stderr, "path %d %ux%ux%u case %d: %zu results differ\n",
                                (int)used, ms[mi], ks[ki], ns[ni], kind, bad);
                    CHECK_EQ(bad, 0);
                    /* the skip happens: a third of K left out with a finite feature, none
                     * with an Inf in the left-out rows */
                    const uint32_t k = ks[ki];
                    if (kind == TAIL_ZERO && k >= 3)
                        CHECK_EQ(live, k - k / 3);
                    if (kind == TAIL_ZERO_INF_A && k >= 3)
                        CHECK_EQ(live, k);
                    if (kind == ALL_ZERO)
                        CHECK_EQ(live, 0);
                }
}

int main(void)
{
    check_path(RKSIM_GEMM_COLS_PORTABLE);
    check_path(RKSIM_GEMM_COLS_AVX2);
    check_path(RKSIM_GEMM_COLS_AVX512);
    check_path(RKSIM_GEMM_COLS_NEON);
    rksim_gemm_cols_force(RKSIM_GEMM_COLS_AUTO);
    return check_done();
}
