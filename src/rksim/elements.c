/* SPDX-License-Identifier: MIT */
/* Operand runs to floats and results to packed outputs (see elements.h). The common pairs
 * (fp16, int8 and int4 in; fp32, fp16, int32, int16 and int8 out) have their own loops; every
 * other precision goes through the row's encoding an element at a time. */
#include "rksim/elements.h"

#include <pthread.h>
#include <string.h>

#include "common/dense.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ELEMENTS_X86 1
#endif

/* Both nibbles of a byte as floats: the even element in the low nibble (facts D.1). */
static float int4_pair[256][2];
static pthread_once_t int4_once = PTHREAD_ONCE_INIT;
static void int4_pair_build(void)
{
    for (unsigned b = 0; b < 256; b++) {
        int lo = (int)(b & 15u), hi = (int)(b >> 4);
        int4_pair[b][0] = (float)(lo >= 8 ? lo - 16 : lo);
        int4_pair[b][1] = (float)(hi >= 8 ? hi - 16 : hi);
    }
}

static void load_int4(const uint8_t *base, size_t first, size_t n, float *dst)
{
    pthread_once(&int4_once, int4_pair_build);
    const uint8_t *p = base + first / 2;
    size_t j = 0;
    if (first % 2 && n) { /* starts on a high nibble */
        dst[j++] = int4_pair[*p++][1];
    }
    for (; j + 2 <= n; j += 2, p++)
        memcpy(dst + j, int4_pair[*p], sizeof int4_pair[0]); /* both nibbles in one move */
    if (j < n)
        dst[j] = int4_pair[*p][0];
}

void rksim_load_run(npk_rk_prec p, const uint8_t *base, size_t first, size_t n, float *dst)
{
    switch (p) {
    case NPK_PREC_FP16: {
        uint16_t h[256]; /* an aligned copy: base may sit at any byte */
        for (size_t j = 0; j < n; j += 256) {
            size_t c = n - j < 256 ? n - j : 256;
            memcpy(h, base + 2 * (first + j), 2 * c);
            npk_f16_to_f32_n(h, dst + j, c);
        }
        return;
    }
    case NPK_PREC_INT8:
        for (size_t j = 0; j < n; j++)
            dst[j] = (float)(int8_t)base[first + j];
        return;
    case NPK_PREC_INT4: load_int4(base, first, n, dst); return;
    case NPK_PREC_INT16:
    case NPK_PREC_BF16:
    case NPK_PREC_INT32:
    case NPK_PREC_FP32:
    case NPK_PREC_TF32:
    default:
        for (size_t j = 0; j < n; j++)
            dst[j] = (float)npk_rk_prec_load(p, base, first + j);
        return;
    }
}

#ifdef ELEMENTS_X86
/* 8 int8 (the low 8 bytes of x) to floats. */
__attribute__((target("avx2"))) static inline void store8_i8(float *dst, __m128i x)
{
    _mm256_storeu_ps(dst, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(x)));
}

__attribute__((target("avx2"))) static void int8_runs_avx2(const uint8_t *src, size_t run,
                                                           size_t runs, float *dst, size_t stride)
{
    for (size_t r = 0; r < runs; r++, src += run, dst += stride) {
        size_t i = 0;
        for (; i + 8 <= run; i += 8)
            store8_i8(dst + i, _mm_loadl_epi64((const __m128i *)(const void *)(src + i)));
        for (; i < run; i++)
            dst[i] = (float)(int8_t)src[i];
    }
}

/* 16 bytes are 32 int4: both nibbles sign-extended to bytes ((v ^ 8) - 8), interleaved low
 * nibble first, then widened 8 at a time. */
__attribute__((target("avx2"))) static void int4_runs_avx2(const uint8_t *src, size_t run,
                                                           size_t runs, float *dst, size_t stride)
{
    const __m128i nib = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
    for (size_t r = 0; r < runs; r++, src += run / 2, dst += stride) {
        size_t i = 0;
        for (; i + 32 <= run; i += 32) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + i / 2));
            __m128i lo = _mm_and_si128(x, nib), hi = _mm_and_si128(_mm_srli_epi16(x, 4), nib);
            lo = _mm_sub_epi8(_mm_xor_si128(lo, eight), eight);
            hi = _mm_sub_epi8(_mm_xor_si128(hi, eight), eight);
            __m128i e0 = _mm_unpacklo_epi8(lo, hi), e1 = _mm_unpackhi_epi8(lo, hi);
            store8_i8(dst + i, e0);
            store8_i8(dst + i + 8, _mm_srli_si128(e0, 8));
            store8_i8(dst + i + 16, e1);
            store8_i8(dst + i + 24, _mm_srli_si128(e1, 8));
        }
        if (i < run)
            load_int4(src, i, run - i, dst + i);
    }
}

/* The index of the first group of 8 holding a value outside [-lim, lim] (or NaN), else the
 * count of whole groups: the caller looks at the elements from there. */
__attribute__((target("avx2"))) static size_t first_outside_avx2(const float *v, size_t n,
                                                                 float lim)
{
    const __m256 hi = _mm256_set1_ps(lim), lo = _mm256_set1_ps(-lim);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(v + i);
        __m256 in =
            _mm256_and_ps(_mm256_cmp_ps(x, hi, _CMP_LE_OQ), _mm256_cmp_ps(x, lo, _CMP_GE_OQ));
        if (_mm256_movemask_ps(in) != 0xff)
            break;
    }
    return i;
}
#endif

#ifdef ELEMENTS_X86
/* fp16 runs of a multiple of 16 elements, 16 a conversion (twice the F16C path's width: the
 * weights' decode is a tenth of an fp16 matmul's time); a group of 16 holding an Inf/NaN
 * exponent goes through npk_f16le_to_f32_runs, which keeps a signalling NaN's payload as
 * VCVTPH2PS would not. Gated on npk_dense_use_avx512_vnni: its check covers AVX512F/BW and the
 * OS's ZMM state. */
__attribute__((target("avx512f,avx512bw"))) static void
fp16_runs_avx512(const uint8_t *src, size_t run, size_t runs, float *dst, size_t stride)
{
    const __m256i expmask = _mm256_set1_epi16(0x7c00);
    for (size_t r = 0; r < runs; r++, src += 2 * run, dst += stride)
        for (size_t i = 0; i < run; i += 16) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(src + 2 * i));
            if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_and_si256(x, expmask), expmask)))
                npk_f16le_to_f32_runs(src + 2 * i, 16, 1, dst + i, 16);
            else
                _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(x));
        }
}
#endif

void rksim_load_runs(npk_rk_prec p, const uint8_t *src, size_t run, size_t runs, float *dst,
                     size_t stride)
{
    if (p == NPK_PREC_FP16) {
#ifdef ELEMENTS_X86
        if (run % 16 == 0 && npk_dense_use_avx512_vnni()) {
            fp16_runs_avx512(src, run, runs, dst, stride);
            return;
        }
#endif
        npk_f16le_to_f32_runs(src, run, runs, dst, stride);
        return;
    }
#ifdef ELEMENTS_X86
    if (p == NPK_PREC_INT8 && npk_dense_use_avx2()) {
        int8_runs_avx2(src, run, runs, dst, stride);
        return;
    }
    if (p == NPK_PREC_INT4 && run % 2 == 0 && npk_dense_use_avx2()) {
        int4_runs_avx2(src, run, runs, dst, stride);
        return;
    }
#endif
    for (size_t r = 0; r < runs; r++)
        rksim_load_run(p, src, r * run, run, dst + r * stride);
}

/* An integer output keeps the low bits of the value (npk_rk_prec_store wraps). Integer results
 * come as int64 or as exact integer-valued floats. Stores are little-endian: memcpy on such a
 * host, byte by byte elsewhere. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

/* The run's integer results (ci, else the exact integer floats of cf) as T, low bits kept. */
#define STORE_INT(T, UT, bytes)                                                                    \
    for (size_t j = 0; j < n; j++) {                                                               \
        T v = (T)(UT)(ci ? ci[j] : (int64_t)cf[j]);                                                \
        if (HOST_LE)                                                                               \
            memcpy(base + (bytes)*j, &v, bytes);                                                   \
        else                                                                                       \
            for (unsigned b = 0; b < (bytes); b++)                                                 \
                base[(bytes)*j + b] = (uint8_t)((UT)v >> (8 * b));                                 \
    }

static bool store_int(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n)
{
    if (!cf && !ci)
        return false;
    switch (p) {
    case NPK_PREC_INT32: STORE_INT(int32_t, uint32_t, 4); return true;
    case NPK_PREC_INT16: STORE_INT(int16_t, uint16_t, 2); return true;
    case NPK_PREC_INT8: STORE_INT(int8_t, uint8_t, 1); return true;
    case NPK_PREC_FP16:
    case NPK_PREC_BF16:
    case NPK_PREC_FP32:
    case NPK_PREC_INT4:
    case NPK_PREC_TF32:
    default: return false;
    }
}

#ifdef ELEMENTS_X86
/* Integer-valued floats below 2^31 in magnitude to int32 or to the low 16 bits, 4 at a time;
 * a group holding a value the conversion cannot take (CVTTPS2DQ's 0x80000000) goes through
 * rksim_store_run, which keeps the low bits of any value. */
__attribute__((target("avx2"))) static void int_rows_avx2(npk_rk_prec p, uint8_t *base,
                                                          size_t dst_stride, const float *cf,
                                                          size_t src_stride, size_t lanes,
                                                          size_t rows)
{
    const __m128i wild = _mm_set1_epi32(INT32_MIN);
    const size_t ob = p == NPK_PREC_INT32 ? 4 : 2;
    for (size_t r = 0; r < rows; r++, base += dst_stride, cf += src_stride)
        for (size_t j = 0; j < lanes; j += 4) {
            __m128i x = _mm_cvttps_epi32(_mm_loadu_ps(cf + j));
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(x, wild))) {
                rksim_store_run(p, base + ob * j, cf + j, NULL, 4);
                continue;
            }
            if (ob == 4) {
                _mm_storeu_si128((__m128i *)(void *)(base + 4 * j), x);
                continue;
            }
            /* the low 16 bits, sign-extended, pack without saturating */
            x = _mm_srai_epi32(_mm_slli_epi32(x, 16), 16);
            _mm_storel_epi64((__m128i *)(void *)(base + 2 * j), _mm_packs_epi32(x, x));
        }
}
#endif

void rksim_store_rows(npk_rk_prec p, uint8_t *base, size_t dst_stride, const float *cf,
                      const int64_t *ci, size_t src_stride, size_t lanes, size_t rows)
{
#ifdef ELEMENTS_X86
    if (HOST_LE && cf && !ci && lanes % 4 == 0 && (p == NPK_PREC_INT32 || p == NPK_PREC_INT16) &&
        npk_dense_use_avx2()) {
        int_rows_avx2(p, base, dst_stride, cf, src_stride, lanes, rows);
        return;
    }
#endif
    if (HOST_LE && cf && p == NPK_PREC_FP32) {
        if (lanes == 4) { /* one atom a row (a cube output's surface): a copy of fixed size */
            for (size_t r = 0; r < rows; r++)
                memcpy(base + r * dst_stride, cf + r * src_stride, 16);
            return;
        }
        for (size_t r = 0; r < rows; r++)
            memcpy(base + r * dst_stride, cf + r * src_stride, 4 * lanes);
        return;
    }
    for (size_t r = 0; r < rows; r++)
        rksim_store_run(p, base + r * dst_stride, cf ? cf + r * src_stride : NULL,
                        ci ? ci + r * src_stride : NULL, lanes);
}

size_t rksim_first_outside(const float *v, size_t n, float lim)
{
    size_t i = 0;
#ifdef ELEMENTS_X86
    if (npk_dense_use_avx2())
        i = first_outside_avx2(v, n, lim);
#endif
    for (; i < n; i++)
        if (!(v[i] <= lim && v[i] >= -lim))
            break;
    return i;
}

void rksim_store_run(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n)
{
    if (store_int(p, base, cf, ci, n))
        return;
    if (cf && p == NPK_PREC_FP32) {
        if (HOST_LE) {
            memcpy(base, cf, 4 * n);
            return;
        }
        for (size_t j = 0; j < n; j++) {
            uint32_t w;
            memcpy(&w, &cf[j], 4);
            for (unsigned b = 0; b < 4; b++)
                base[4 * j + b] = (uint8_t)(w >> (8 * b));
        }
        return;
    }
    if (cf && p == NPK_PREC_FP16) {
        uint16_t h[256];
        for (size_t j = 0; j < n; j += 256) {
            size_t c = n - j < 256 ? n - j : 256;
            npk_f32_to_f16_n(cf + j, h, c);
            if (HOST_LE) {
                memcpy(base + 2 * j, h, 2 * c);
                continue;
            }
            for (size_t i = 0; i < c; i++) {
                base[2 * (j + i)] = (uint8_t)h[i];
                base[2 * (j + i) + 1] = (uint8_t)(h[i] >> 8);
            }
        }
        return;
    }
    for (size_t j = 0; j < n; j++)
        npk_rk_prec_store(p, base, j, cf ? (double)cf[j] : ci ? (double)ci[j] : 0.0);
}
