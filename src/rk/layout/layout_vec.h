/* SPDX-License-Identifier: MIT */
/* 16-byte vector helpers for the layout kernels, written with the GCC/Clang vector extension so
 * one source compiles to SSE2 on x86-64 and to NEON on the RK3588's Cortex-A76/A55 cores.
 *
 * The work of packing is moving bytes, not arithmetic: a weight tile is a transpose, an int4
 * row is a nibble merge. Done element by element that runs at a small fraction of memcpy; in
 * 16-byte registers it costs a few shuffles per 16 bytes. The x86-64 section below adds what
 * 16-byte stores cannot reach there: 32-byte AVX2 kernels and non-temporal stores. */
#ifndef NPUKIT_RK_LAYOUT_VEC_H
#define NPUKIT_RK_LAYOUT_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/dense.h"       /* npk_dense_use_avx2 */
#include "common/stream_copy.h" /* npk_stream_copy: the packed tiles' stores */

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The widest registers the kernels may use, in bytes: 64 unless a test lowers it to 32 or 16 to
 * run the narrower kernels on a CPU that has the wider ones (npk_dense_force_portable pins 16
 * as well). Other values are refused with false. */
bool npk_layout_limit_vectors(unsigned bytes);
unsigned npk_layout_vector_limit(void);

/* x86-64 compilers can build AVX2 code into a baseline (SSE2) binary, chosen at run time by
 * npk_layout_avx2() (the library's AVX2 check, npk_dense_use_avx2: the OS must save the YMM
 * state); kernels marked NPK_LAYOUT_AVX2 are only called behind that check. Every such kernel
 * has a portable 16-byte twin, the one other targets (aarch64's NEON) use. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NPK_LAYOUT_HAVE_AVX2 1
#include <immintrin.h>
#define NPK_LAYOUT_AVX2 static inline __attribute__((always_inline, target("avx2")))
static inline int npk_layout_avx2(void)
{
    return npk_layout_vector_limit() >= 32 && npk_dense_use_avx2();
}
/* The same for AVX-512 F (64-byte registers: a whole cache line per access); the compiler's
 * check also asks whether the OS saves the ZMM state. */
#define NPK_LAYOUT_AVX512 static inline __attribute__((always_inline, target("avx512f")))
static inline int npk_layout_avx512(void)
{
    return npk_layout_vector_limit() >= 64 && npk_dense_use_avx2() &&
           __builtin_cpu_supports("avx512f");
}
/* AVX-512 F with BW (byte and 16-bit lanes: the int4 nibble merge). */
#define NPK_LAYOUT_AVX512BW                                                                        \
    static inline __attribute__((always_inline, target("avx512f,avx512bw")))
static inline int npk_layout_avx512bw(void)
{
    return npk_layout_avx512() && __builtin_cpu_supports("avx512bw");
}
#else
#define NPK_LAYOUT_HAVE_AVX2 0
#endif

typedef uint8_t npk_v16u8 __attribute__((vector_size(16)));
typedef uint16_t npk_v8u16 __attribute__((vector_size(16)));
typedef float npk_v4f32 __attribute__((vector_size(16)));
typedef uint32_t npk_v4u32 __attribute__((vector_size(16)));
typedef int32_t npk_v4i32 __attribute__((vector_size(16)));
typedef int16_t npk_v4i16 __attribute__((vector_size(8)));

/* Shuffle of the lanes of a and b (lane i of b is lane 16/elem + i of the pair). */
#if defined(__clang__)
#define NPK_SHUFFLE(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#elif defined(__GNUC__)
#define NPK_SHUFFLE(a, b, ...) __builtin_shuffle((a), (b), (__typeof__(a)){__VA_ARGS__})
#else
#error "the RK layout kernels need the GCC or Clang vector extension"
#endif

/* Unaligned loads and stores (memcpy of a fixed 16 bytes compiles to one instruction). */
static inline npk_v16u8 npk_vload(const void *p)
{
    npk_v16u8 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void npk_vstore(void *p, npk_v16u8 v) { memcpy(p, &v, sizeof v); }

/* Interleave the low (or high) halves of two rows: [a0 b0 a1 b1 ...]. */
static inline npk_v16u8 npk_zip_lo8(npk_v16u8 a, npk_v16u8 b)
{
    return NPK_SHUFFLE(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
}
static inline npk_v16u8 npk_zip_hi8(npk_v16u8 a, npk_v16u8 b)
{
    return NPK_SHUFFLE(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
}
static inline npk_v16u8 npk_zip_lo16(npk_v16u8 a, npk_v16u8 b)
{
    return (npk_v16u8)NPK_SHUFFLE((npk_v8u16)a, (npk_v8u16)b, 0, 8, 1, 9, 2, 10, 3, 11);
}
static inline npk_v16u8 npk_zip_hi16(npk_v16u8 a, npk_v16u8 b)
{
    return (npk_v16u8)NPK_SHUFFLE((npk_v8u16)a, (npk_v8u16)b, 4, 12, 5, 13, 6, 14, 7, 15);
}

/* Even (or odd) bytes of the 32-byte pair a:b. */
static inline npk_v16u8 npk_even8(npk_v16u8 a, npk_v16u8 b)
{
    return NPK_SHUFFLE(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}
static inline npk_v16u8 npk_odd8(npk_v16u8 a, npk_v16u8 b)
{
    return NPK_SHUFFLE(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

/* One round of the register transpose: row i is interleaved with row i + n/2 into rows 2i
 * and 2i + 1 (a = the rows in, b = the rows out; written out because compilers keep named
 * variables in registers but often leave small arrays on the stack). */
#define NPK_ZIP8_ROUND(a, b)                                                                       \
    do {                                                                                           \
        b##0 = npk_zip_lo8(a##0, a##8);                                                            \
        b##1 = npk_zip_hi8(a##0, a##8);                                                            \
        b##2 = npk_zip_lo8(a##1, a##9);                                                            \
        b##3 = npk_zip_hi8(a##1, a##9);                                                            \
        b##4 = npk_zip_lo8(a##2, a##10);                                                           \
        b##5 = npk_zip_hi8(a##2, a##10);                                                           \
        b##6 = npk_zip_lo8(a##3, a##11);                                                           \
        b##7 = npk_zip_hi8(a##3, a##11);                                                           \
        b##8 = npk_zip_lo8(a##4, a##12);                                                           \
        b##9 = npk_zip_hi8(a##4, a##12);                                                           \
        b##10 = npk_zip_lo8(a##5, a##13);                                                          \
        b##11 = npk_zip_hi8(a##5, a##13);                                                          \
        b##12 = npk_zip_lo8(a##6, a##14);                                                          \
        b##13 = npk_zip_hi8(a##6, a##14);                                                          \
        b##14 = npk_zip_lo8(a##7, a##15);                                                          \
        b##15 = npk_zip_hi8(a##7, a##15);                                                          \
    } while (0)

#define NPK_ZIP16_ROUND(a, b)                                                                      \
    do {                                                                                           \
        b##0 = npk_zip_lo16(a##0, a##4);                                                           \
        b##1 = npk_zip_hi16(a##0, a##4);                                                           \
        b##2 = npk_zip_lo16(a##1, a##5);                                                           \
        b##3 = npk_zip_hi16(a##1, a##5);                                                           \
        b##4 = npk_zip_lo16(a##2, a##6);                                                           \
        b##5 = npk_zip_hi16(a##2, a##6);                                                           \
        b##6 = npk_zip_lo16(a##3, a##7);                                                           \
        b##7 = npk_zip_hi16(a##3, a##7);                                                           \
    } while (0)

/* dst[c][r] = src[r][c] for a 16×16 block of bytes (row pitches sp, dp in bytes).
 *
 * In bit terms a round rotates the 4-bit row index left by one, feeding its low bit from the
 * column index's top bit, and rotates the column index the same way from the row's top bit;
 * after four rounds row and column have exchanged all their bits. */
static inline void npk_transpose16x16_u8(const uint8_t *src, size_t sp, uint8_t *dst, size_t dp)
{
    npk_v16u8 r0 = npk_vload(src + 0 * sp);
    npk_v16u8 r1 = npk_vload(src + 1 * sp);
    npk_v16u8 r2 = npk_vload(src + 2 * sp);
    npk_v16u8 r3 = npk_vload(src + 3 * sp);
    npk_v16u8 r4 = npk_vload(src + 4 * sp);
    npk_v16u8 r5 = npk_vload(src + 5 * sp);
    npk_v16u8 r6 = npk_vload(src + 6 * sp);
    npk_v16u8 r7 = npk_vload(src + 7 * sp);
    npk_v16u8 r8 = npk_vload(src + 8 * sp);
    npk_v16u8 r9 = npk_vload(src + 9 * sp);
    npk_v16u8 r10 = npk_vload(src + 10 * sp);
    npk_v16u8 r11 = npk_vload(src + 11 * sp);
    npk_v16u8 r12 = npk_vload(src + 12 * sp);
    npk_v16u8 r13 = npk_vload(src + 13 * sp);
    npk_v16u8 r14 = npk_vload(src + 14 * sp);
    npk_v16u8 r15 = npk_vload(src + 15 * sp);
    npk_v16u8 t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15;
    NPK_ZIP8_ROUND(r, t);
    NPK_ZIP8_ROUND(t, r);
    NPK_ZIP8_ROUND(r, t);
    NPK_ZIP8_ROUND(t, r);
    npk_vstore(dst + 0 * dp, r0);
    npk_vstore(dst + 1 * dp, r1);
    npk_vstore(dst + 2 * dp, r2);
    npk_vstore(dst + 3 * dp, r3);
    npk_vstore(dst + 4 * dp, r4);
    npk_vstore(dst + 5 * dp, r5);
    npk_vstore(dst + 6 * dp, r6);
    npk_vstore(dst + 7 * dp, r7);
    npk_vstore(dst + 8 * dp, r8);
    npk_vstore(dst + 9 * dp, r9);
    npk_vstore(dst + 10 * dp, r10);
    npk_vstore(dst + 11 * dp, r11);
    npk_vstore(dst + 12 * dp, r12);
    npk_vstore(dst + 13 * dp, r13);
    npk_vstore(dst + 14 * dp, r14);
    npk_vstore(dst + 15 * dp, r15);
}

/* The same for an 8×8 block of 16-bit elements: three rounds on 3-bit indices. */
static inline void npk_transpose8x8_u16(const uint8_t *src, size_t sp, uint8_t *dst, size_t dp)
{
    npk_v16u8 r0 = npk_vload(src + 0 * sp);
    npk_v16u8 r1 = npk_vload(src + 1 * sp);
    npk_v16u8 r2 = npk_vload(src + 2 * sp);
    npk_v16u8 r3 = npk_vload(src + 3 * sp);
    npk_v16u8 r4 = npk_vload(src + 4 * sp);
    npk_v16u8 r5 = npk_vload(src + 5 * sp);
    npk_v16u8 r6 = npk_vload(src + 6 * sp);
    npk_v16u8 r7 = npk_vload(src + 7 * sp);
    npk_v16u8 t0, t1, t2, t3, t4, t5, t6, t7;
    NPK_ZIP16_ROUND(r, t);
    NPK_ZIP16_ROUND(t, r);
    NPK_ZIP16_ROUND(r, t);
    npk_vstore(dst + 0 * dp, t0);
    npk_vstore(dst + 1 * dp, t1);
    npk_vstore(dst + 2 * dp, t2);
    npk_vstore(dst + 3 * dp, t3);
    npk_vstore(dst + 4 * dp, t4);
    npk_vstore(dst + 5 * dp, t5);
    npk_vstore(dst + 6 * dp, t6);
    npk_vstore(dst + 7 * dp, t7);
}

/* int4: merge 32 int8 values (low nibble of each) into 16 bytes, even index in the low
 * nibble (facts D.1, D.2). */
static inline npk_v16u8 npk_nibble_pack32(const void *src)
{
    const npk_v16u8 low = {0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
                           0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf};
    const uint8_t *s = src;
    npk_v16u8 a = npk_vload(s), b = npk_vload(s + 16);
    return (npk_even8(a, b) & low) | (npk_odd8(a, b) << 4);
}

#if NPK_LAYOUT_HAVE_AVX2
/* Two consecutive 16-byte atoms of one user row in a 32-byte register: the next 32 user bytes
 * as they are (8- and 16-bit elements), or for int4 the next 64 int8 values nibble-packed like
 * npk_nibble_pack32. Per 16-bit lane x = [even, odd], (x & 0xf) | (x >> 4 & 0xf0) is the packed
 * byte; packus narrows two registers of lanes in 128-bit halves, and the 64-bit permute puts
 * those halves back in memory order. */
NPK_LAYOUT_AVX2 __m256i npk_atom_pair_v32(const uint8_t *src, unsigned bits)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)src);
    if (bits != 4)
        return a;
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + 32));
    const __m256i lo = _mm256_set1_epi16(0x0f), hi = _mm256_set1_epi16(0xf0);
    a = _mm256_or_si256(_mm256_and_si256(a, lo), _mm256_and_si256(_mm256_srli_epi16(a, 4), hi));
    b = _mm256_or_si256(_mm256_and_si256(b, lo), _mm256_and_si256(_mm256_srli_epi16(b, 4), hi));
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);
}
#endif

/* Merge two rows of 16 int8 values into 16 bytes: `even` in the low nibbles, `odd` in the
 * high ones (the weight tiles pair K rows 2j and 2j+1). */
static inline npk_v16u8 npk_nibble_merge(npk_v16u8 even, npk_v16u8 odd)
{
    const npk_v16u8 low = {0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
                           0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf};
    return (even & low) | (odd << 4);
}

/* A vector of nibbles (0..15 per byte) as int4 values in [-8, 7], sign extended by
 * (x ^ 8) - 8 in wrapping byte arithmetic. */
static inline npk_v16u8 npk_nibble_sign_extend(npk_v16u8 x)
{
    const npk_v16u8 eight = {8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
    return (x ^ eight) - eight;
}

/* The inverse of npk_nibble_pack32: 16 bytes into 32 int8 values. */
static inline void npk_nibble_unpack32(void *dst, npk_v16u8 packed)
{
    const npk_v16u8 low = {0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
                           0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf};
    npk_v16u8 even = npk_nibble_sign_extend(packed & low);
    npk_v16u8 odd = npk_nibble_sign_extend(packed >> 4);
    uint8_t *d = dst;
    npk_vstore(d, npk_zip_lo8(even, odd));
    npk_vstore(d + 16, npk_zip_hi8(even, odd));
}

#endif
