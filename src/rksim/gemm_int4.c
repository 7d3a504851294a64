/* SPDX-License-Identifier: MIT */
/* int4 GEMM on byte products (AVX2, chosen at run time; see matmul.h). An int4 product takes
 * a quarter of a float product's vector width, and the sums are exact in integers.
 *
 * Arithmetic: VPMADDUBSW multiplies unsigned by signed bytes and adds adjacent pairs into
 * int16, so the feature goes in as a + 8 (0..15) and the weights as they are (-8..7); each
 * pair is at most 2 * 15 * 8 = 240 in magnitude, so 128 steps of it add up in int16 without
 * overflow (30 720 < 32 767) before VPMADDWD widens them to int32. The sum of (a + 8) * b is
 * sum(a * b) + 8 * sum(b), so each column's weight sum times 8 is taken off at the end. The
 * results (at most K * 64 in magnitude) are exact in floats, where the callers want them.
 *
 * Weights layout for the kernel: blocks of 16 columns; in a block, for each 4 k's, the 4
 * bytes of each of the 16 columns (64 bytes, two vectors); then the columns' sums. */
#include <stdlib.h>
#include <string.h>

#include "common/dense.h"
#include "rksim/matmul.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GEMM_I4_X86 1
#endif

enum {
    NB = RKSIM_GEMM_BYTES_COLUMNS,
    MR = 4,        /* rows per kernel call */
    STEPS16 = 128, /* 4-k steps summed in int16 before widening */
};

bool rksim_gemm_i4_available(void)
{
#ifdef GEMM_I4_X86
    return npk_dense_use_avx2();
#else
    return false;
#endif
}

#ifdef GEMM_I4_X86
/* Store the 32 int4 of one column's K-run of 32 (16 packed bytes at src, low nibble first)
 * at k = kt * 32: eight 4-byte groups 64 bytes apart; adds them to *sum. */
__attribute__((target("avx2"))) static void put_run(uint8_t *col, uint32_t kt, const uint8_t *src,
                                                    int32_t *sum)
{
    const __m128i nib = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)src);
    __m128i lo = _mm_and_si128(x, nib), hi = _mm_and_si128(_mm_srli_epi16(x, 4), nib);
    /* biased values (v + 8, 0..15) sum without sign trouble: the sum of v is that minus 8 * 32 */
    __m128i lob = _mm_xor_si128(lo, eight), hib = _mm_xor_si128(hi, eight);
    __m128i t = _mm_add_epi64(_mm_sad_epu8(lob, _mm_setzero_si128()),
                              _mm_sad_epu8(hib, _mm_setzero_si128()));
    *sum += _mm_cvtsi128_si32(t) + _mm_cvtsi128_si32(_mm_srli_si128(t, 8)) - 8 * 32;
    __m128i e[2] = {_mm_unpacklo_epi8(_mm_sub_epi8(lob, eight), _mm_sub_epi8(hib, eight)),
                    _mm_unpackhi_epi8(_mm_sub_epi8(lob, eight), _mm_sub_epi8(hib, eight))};
    uint8_t *dst = col + (size_t)kt * 8 * NB * 4;
    for (int h = 0; h < 2; h++) {
        int32_t w[4];
        _mm_storeu_si128((__m128i *)(void *)w, e[h]);
        for (int j = 0; j < 4; j++)
            memcpy(dst + (size_t)(4 * h + j) * NB * 4, &w[j], 4);
    }
}
#endif

void rksim_gemm_i4_put(uint8_t *kb, uint32_t k, uint32_t n, uint32_t col, uint32_t kt,
                       const uint8_t *src)
{
#ifdef GEMM_I4_X86
    int32_t *sums = (int32_t *)(void *)(kb + (size_t)k * n);
    if (kt == 0)
        sums[col] = 0;
    put_run(kb + (size_t)(col / NB) * k * NB + (size_t)(col % NB) * 4, kt, src, &sums[col]);
#else
    (void)kb, (void)k, (void)n, (void)col, (void)kt, (void)src;
#endif
}

#ifdef GEMM_I4_X86
static inline int32_t load4(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* MR rows of the biased feature (row stride k) against one block of 16 columns: C rows get
 * the block's 16 results each (the first `rows` of them are stored). */
__attribute__((target("avx2"))) static void kernel(const uint8_t *ap, uint32_t k,
                                                   const uint8_t *blk, const int32_t *sums,
                                                   float *c, size_t ldc, unsigned rows)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[MR][2];
    for (int r = 0; r < MR; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    const uint32_t steps = k / 4;
    for (uint32_t q0 = 0; q0 < steps; q0 += STEPS16) {
        const uint32_t q1 = steps - q0 < STEPS16 ? steps : q0 + STEPS16;
        __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
                s30 = s00, s31 = s00;
        const uint8_t *b = blk + (size_t)q0 * 64, *a0 = ap + 4 * (size_t)q0, *a1 = a0 + k,
                      *a2 = a1 + k, *a3 = a2 + k;
        for (uint32_t q = q0; q < q1; q++, b += 64, a0 += 4, a1 += 4, a2 += 4, a3 += 4) {
            const __m256i b0 = _mm256_loadu_si256((const __m256i *)(const void *)b);
            const __m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32));
            __m256i a = _mm256_set1_epi32(load4(a0));
            s00 = _mm256_add_epi16(s00, _mm256_maddubs_epi16(a, b0));
            s01 = _mm256_add_epi16(s01, _mm256_maddubs_epi16(a, b1));
            a = _mm256_set1_epi32(load4(a1));
            s10 = _mm256_add_epi16(s10, _mm256_maddubs_epi16(a, b0));
            s11 = _mm256_add_epi16(s11, _mm256_maddubs_epi16(a, b1));
            a = _mm256_set1_epi32(load4(a2));
            s20 = _mm256_add_epi16(s20, _mm256_maddubs_epi16(a, b0));
            s21 = _mm256_add_epi16(s21, _mm256_maddubs_epi16(a, b1));
            a = _mm256_set1_epi32(load4(a3));
            s30 = _mm256_add_epi16(s30, _mm256_maddubs_epi16(a, b0));
            s31 = _mm256_add_epi16(s31, _mm256_maddubs_epi16(a, b1));
        }
        acc[0][0] = _mm256_add_epi32(acc[0][0], _mm256_madd_epi16(s00, ones));
        acc[0][1] = _mm256_add_epi32(acc[0][1], _mm256_madd_epi16(s01, ones));
        acc[1][0] = _mm256_add_epi32(acc[1][0], _mm256_madd_epi16(s10, ones));
        acc[1][1] = _mm256_add_epi32(acc[1][1], _mm256_madd_epi16(s11, ones));
        acc[2][0] = _mm256_add_epi32(acc[2][0], _mm256_madd_epi16(s20, ones));
        acc[2][1] = _mm256_add_epi32(acc[2][1], _mm256_madd_epi16(s21, ones));
        acc[3][0] = _mm256_add_epi32(acc[3][0], _mm256_madd_epi16(s30, ones));
        acc[3][1] = _mm256_add_epi32(acc[3][1], _mm256_madd_epi16(s31, ones));
    }
    const __m256i bias[2] = {
        _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)sums), 3),
        _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(sums + 8)), 3)};
    for (unsigned r = 0; r < rows; r++)
        for (int h = 0; h < 2; h++)
            _mm256_storeu_ps(c + r * ldc + 8 * h,
                             _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[r][h], bias[h])));
}
#endif

bool rksim_gemm_i4(uint32_t m, uint32_t n, uint32_t k, const float *a, const uint8_t *kb, float *c)
{
#ifdef GEMM_I4_X86
    static const rksim_bytes_form form = {8, MR, kernel};
    return rksim_gemm_bytes(m, n, k, a, kb, c, &form);
#else
    (void)m, (void)n, (void)k, (void)a, (void)kb, (void)c;
    return false; /* never called: rksim_gemm_i4_available() is false here */
#endif
}
