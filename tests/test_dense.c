/* SPDX-License-Identifier: MIT */
/* Batch fp16 conversions (F16C and portable paths) against the scalar conversions, bit for
 * bit, over every fp16 value, a sweep of fp32 bit patterns and every tail length; the double
 * GEMM against a plain loop on integer-valued operands (exact, so any order agrees). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "common/dense.h"
#include "npukit/fp16.h"

static void conversions(void)
{
    static uint16_t h[65536], h2[65536];
    static float f[65536];
    for (uint32_t i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    npk_f16_to_f32_n(h, f, 65536);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        float w = npk_f16_to_f32(h[i]);
        bad += memcmp(&w, &f[i], 4) != 0;
    }
    CHECK_EQ(bad, 0);
    /* fp32 patterns: a stride over all 2^32 with both signs, NaNs, Infs and subnormals */
    for (uint32_t i = 0; i < 65536; i++) {
        uint32_t u = i * 65521u + (i >> 3);
        memcpy(&f[i], &u, 4);
    }
    npk_f32_to_f16_n(f, h2, 65536);
    bad = 0;
    for (uint32_t i = 0; i < 65536; i++)
        bad += h2[i] != npk_f32_to_f16(f[i]);
    CHECK_EQ(bad, 0);
    /* every tail length, from odd offsets across the Inf/NaN codes */
    for (size_t n = 0; n < 20; n++) {
        float g[20];
        uint16_t back[20];
        npk_f16_to_f32_n(h + 0x7bf0 + n, g, n);
        npk_f32_to_f16_n(g, back, n);
        bad = 0;
        for (size_t i = 0; i < n; i++) {
            float w = npk_f16_to_f32(h[0x7bf0 + n + i]);
            bad += memcmp(&w, &g[i], 4) != 0 || back[i] != npk_f32_to_f16(g[i]);
        }
        CHECK_EQ(bad, 0);
    }
}

static void dgemm(void)
{
    enum { M = 37, K = 301, N = 45 };
    static double a[M * K], b[K * N], c[M * N], want[M * N];
    uint64_t s = 3;
    for (size_t i = 0; i < M * K; i++)
        a[i] = (double)((s = s * 6364136223846793005ull + 1) >> 56) - 128;
    for (size_t i = 0; i < K * N; i++)
        b[i] = (double)((s = s * 6364136223846793005ull + 1) >> 56) - 128;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double t = 0;
            for (size_t p = 0; p < K; p++)
                t += a[i * K + p] * b[p * N + j];
            want[i * N + j] = t;
        }
    npk_dgemm(M, N, K, a, K, b, N, c, N);
    CHECK(memcmp(c, want, sizeof c) == 0);
    npk_dgemm_plain(M, N, K, a, K, b, N, c, N);
    CHECK(memcmp(c, want, sizeof c) == 0);
    /* a sub-block through the leading dimensions */
    npk_dgemm(2, 3, K, a + K, K, b + 1, N, c, 3);
    CHECK(c[0] == want[N + 1] && c[5] == want[2 * N + 3]);
    /* the plain loop forms every product: Inf * 0 is NaN */
    double inf = INFINITY, zero = 0, r = 1;
    npk_dgemm_plain(1, 1, 1, &inf, 1, &zero, 1, &r, 1);
    CHECK(isnan(r));
    npk_dgemm(1, 1, 0, a, 1, b, 1, &r, 1);
    CHECK(r == 0);
}

int main(void)
{
    printf("fp16 conversion path: %s\n", npk_dense_f16_path());
    conversions();
    dgemm();
    if (strcmp(npk_dense_f16_path(), "portable") != 0) {
        npk_dense_force_portable(true);
        CHECK(strcmp(npk_dense_f16_path(), "portable") == 0);
        conversions();
        npk_dense_force_portable(false);
    }
    return check_done();
}
