/* SPDX-License-Identifier: MIT */
/* The MXFP7 arithmetic's AVX2 kernels (mxfp.c, mxfp_fp22.c): x86-64 compilers build them into a
 * baseline binary, and each is called only behind mx_avx2() (the library's one AVX2 check,
 * npk_dense_use_avx2: the OS must save the YMM state, and npk_dense_force_portable pins the
 * portable twin), with a portable twin that every other machine runs. Both give the same bits: the kernels are integer work, lane for lane the
 * portable code's steps, with masks in place of its branches (which mispredict on real data
 * often enough to cost more than the arithmetic). */
#ifndef NPUKIT_KT_HW_MX_AVX2_H
#define NPUKIT_KT_HW_MX_AVX2_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MX_HAVE_AVX2 1
#include <immintrin.h>

#include "common/dense.h"
#define MX_AVX2_FN __attribute__((target("avx2")))
#define MX_AVX2 static inline __attribute__((always_inline, target("avx2")))
static inline int mx_avx2(void) { return npk_dense_use_avx2(); }

/* yes where mask is all ones, no where it is zero */
MX_AVX2 __m256i mx_sel(__m256i mask, __m256i yes, __m256i no)
{
    return _mm256_blendv_epi8(no, yes, mask);
}
#else
#define MX_HAVE_AVX2 0
#endif

#endif
