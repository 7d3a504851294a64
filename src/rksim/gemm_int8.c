/* SPDX-License-Identifier: MIT */
/* int8 GEMM on byte dot products (AVX-512 VNNI, chosen at run time; see matmul.h). VPDPBUSD
 * adds four products of unsigned by signed bytes into each int32 lane: 64 products per
 * instruction where an fp32 FMA does 16, and exact.
 *
 * Arithmetic: the feature goes in as a + 128 (0..255) and the weights as they are
 * (-128..127); a lane's four products are at most 4 * 255 * 128 in magnitude and the int32
 * lane takes K * 255 * 128 without overflow for every K the fp32-exact path allows (1024 of
 * them; at most 65 792 would fit). The sum of (a + 128) * b is sum(a * b) + 128 * sum(b), so
 * each column's weight sum times 128 is taken off at the end; the results (at most
 * K * 16 384, 2^24 at K = 1024) are exact in floats, where the callers want them.
 *
 * Weights layout: the int4 kernel's (gemm_int4.c): blocks of 16 columns, for each 4 k's the
 * 4 bytes of each of the 16 columns (64 bytes, one vector), then the columns' sums. */
#include <stdlib.h>
#include <string.h>

#include "common/dense.h"
#include "rksim/matmul.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GEMM_I8_X86 1
#endif

enum {
    NB = RKSIM_GEMM_BYTES_COLUMNS,
    MR = 8,  /* rows per kernel call */
};

bool rksim_gemm_i8_available(void)
{
#ifdef GEMM_I8_X86
    return npk_dense_use_avx512_vnni();
#else
    return false;
#endif
}

void rksim_gemm_i8_put(uint8_t *kb, uint32_t k, uint32_t n, uint32_t col, uint32_t kt,
                       const int8_t *src)
{
    int32_t *sums = (int32_t *)(void *)(kb + (size_t)k * n);
    if (kt == 0)
        sums[col] = 0;
    uint8_t *dst =
        kb + (size_t)(col / NB) * k * NB + (size_t)(col % NB) * 4 + (size_t)kt * 8 * NB * 4;
    int32_t sum = 0;
    for (int g = 0; g < 8; g++) {
        memcpy(dst + (size_t)g * NB * 4, src + 4 * g, 4);
        sum += src[4 * g] + src[4 * g + 1] + src[4 * g + 2] + src[4 * g + 3];
    }
    sums[col] += sum;
}

#ifdef GEMM_I8_X86
static inline int32_t load4(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* MR rows of the biased feature (row stride k) against one block of 16 columns: C rows get
 * the block's 16 results each (the first `rows` of them are stored). */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void
kernel(const uint8_t *ap, uint32_t k, const uint8_t *blk, const int32_t *sums, float *c, size_t ldc,
       unsigned rows)
{
    __m512i acc[MR];
    for (int r = 0; r < MR; r++)
        acc[r] = _mm512_setzero_si512();
    const uint32_t steps = k / 4;
    const uint8_t *b = blk;
    for (uint32_t q = 0; q < steps; q++, b += 64) {
        const __m512i bv = _mm512_loadu_si512((const void *)b);
        for (int r = 0; r < MR; r++)
            acc[r] = _mm512_dpbusd_epi32(
                acc[r], _mm512_set1_epi32(load4(ap + (size_t)r * k + 4 * (size_t)q)), bv);
    }
    const __m512i bias =
        _mm512_slli_epi32(_mm512_loadu_si512((const void *)sums), 7); /* 128 * sum(b) */
    for (unsigned r = 0; r < rows; r++)
        _mm512_storeu_ps(c + r * ldc, _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r], bias)));
}
#endif

bool rksim_gemm_i8(uint32_t m, uint32_t n, uint32_t k, const float *a, const uint8_t *kb, float *c)
{
#ifdef GEMM_I8_X86
    static const rksim_bytes_form form = {128, MR, kernel};
    return rksim_gemm_bytes(m, n, k, a, kb, c, &form);
#else
    (void)m, (void)n, (void)k, (void)a, (void)kb, (void)c;
    return false; /* never called: rksim_gemm_i8_available() is false here */
#endif
}
