/* SPDX-License-Identifier: MIT */
/* The simulator's arithmetic: the build's GEMM (CBLAS when CMake found OpenBLAS) and the
 * portable fallback compiled here without NPUKIT_HAVE_CBLAS agree; integer GEMM is exact
 * through both, including sums beyond 2^24 that one fp32 sum would round. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "rksim/matmul.h"

/* the fallback, under other names */
#define rksim_gemm_uses_blas fallback_uses_blas
#define rksim_sgemm_nt fallback_sgemm_nt
#define rksim_igemm_nt fallback_igemm_nt
#define rksim_igemm_fp32_exact fallback_igemm_fp32_exact
#define rksim_blas_single_begin fallback_blas_single_begin
#define rksim_blas_single_end fallback_blas_single_end
#undef NPUKIT_HAVE_CBLAS
#include "../src/rksim/gemm.c"
#undef rksim_gemm_uses_blas
#undef rksim_sgemm_nt
#undef rksim_igemm_nt
#undef rksim_igemm_fp32_exact
#undef rksim_blas_single_begin
#undef rksim_blas_single_end

bool fallback_uses_blas(void);
bool fallback_igemm_fp32_exact(uint32_t, uint32_t);
void fallback_blas_single_begin(void);
void fallback_blas_single_end(void);
void fallback_sgemm_nt(uint32_t, uint32_t, uint32_t, const float *, uint32_t, const float *,
                       uint32_t, float *, uint32_t);
void fallback_igemm_nt(uint32_t, uint32_t, uint32_t, const float *, const float *, int64_t *,
                       uint32_t, float *);

static uint32_t state = 7;
static int next(int range)
{
    state = state * 1103515245u + 12345u;
    return (int)((state >> 8) % (uint32_t)range) - range / 2;
}

int main(void)
{
    enum { M = 9, N = 70, K = 3000 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * N * K);
    float *c1 = malloc(sizeof(float) * M * N), *c2 = malloc(sizeof(float) * M * N);
    int64_t *i1 = malloc(sizeof(int64_t) * M * N), *i2 = malloc(sizeof(int64_t) * M * N);
    CHECK(!fallback_uses_blas());
    /* one fp32 GEMM is exact up to 2^24 / max^2 products: int8 1024, int4 262144 */
    CHECK(rksim_igemm_fp32_exact(1024, 128) && !rksim_igemm_fp32_exact(1025, 128));
    CHECK(rksim_igemm_fp32_exact(262144, 8) && !rksim_igemm_fp32_exact(262145, 8));
    /* int8 extremes: every product 16384, K=3000: 49,152,000 > 2^24 */
    for (int i = 0; i < M * K; i++)
        a[i] = i % 3 ? -128.0f : (float)next(256);
    for (int i = 0; i < N * K; i++)
        b[i] = i % 5 ? -128.0f : (float)next(256);
    rksim_igemm_nt(M, N, K, a, b, i1, 128, c1);
    fallback_igemm_nt(M, N, K, a, b, i2, 128, c2);
    size_t bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int64_t ref = 0;
            for (int p = 0; p < K; p++)
                ref += (int64_t)a[i * K + p] * (int64_t)b[j * K + p];
            bad += i1[i * N + j] != ref;
            bad += i2[i * N + j] != ref;
        }
    CHECK_EQ(bad, 0);
    /* fp32: small integers, so both orders of summation are exact */
    for (int i = 0; i < M * K; i++)
        a[i] = (float)next(16);
    for (int i = 0; i < N * K; i++)
        b[i] = (float)next(16);
    rksim_sgemm_nt(M, N, K, a, K, b, K, c1, N);
    fallback_sgemm_nt(M, N, K, a, K, b, K, c2, N);
    bad = 0;
    for (int i = 0; i < M * N; i++)
        bad += c1[i] != c2[i];
    CHECK_EQ(bad, 0);
    free(a), free(b), free(c1), free(c2), free(i1), free(i2);
    return check_done();
}
