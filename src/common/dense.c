/* SPDX-License-Identifier: MIT */
/* Batch fp16 conversions and the double GEMM (see dense.h). */
#include "common/dense.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "npukit/fp16.h"

#include "common/blas.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define DENSE_X86 1
#endif
/* Every AArch64 CPU converts fp16 in hardware (FCVT, FCVTL, FCVTN belong to the base FP and
 * Advanced SIMD sets Linux requires), so no run-time check; the byte-run loader reads
 * little-endian pairs as 16-bit lanes, hence not on big-endian AArch64. */
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__AARCH64EB__)
#include <arm_neon.h>
#define DENSE_NEON 1
#endif

/* fp16 -> fp32 through a table on the portable path: one load per element. */
static float f16_table[65536];

#if defined(DENSE_X86) || defined(DENSE_NEON)
/* dst[from..to) from little-endian fp16 bytes through the table: what the vector paths leave
 * to it (groups holding Inf/NaN, run tails). */
static void f16le_by_table(const uint8_t *src, size_t from, size_t to, float *dst)
{
    for (size_t j = from; j < to; j++)
        dst[j] = f16_table[src[2 * j] | src[2 * j + 1] << 8];
}
#endif
static bool have_f16c, have_avx2, have_fma, have_avx512_vnni;
static atomic_bool forced_portable;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set at the end of dense_init: the path checks run per call in the simulators' inner loops
 * (per MXFP7 block and sub-tile), where a load beats a call to pthread_once. */
static atomic_bool init_done;

#ifdef DENSE_X86
/* CPUID leaf 1, ECX: bit 27 OSXSAVE, 28 AVX, 29 F16C (Intel SDM vol. 2A, CPUID); the OS must
 * also save the YMM state (XCR0 bits 1 and 2). Read directly: clang 14's
 * __builtin_cpu_supports does not know "f16c". */
static bool cpu_has_f16c(void)
{
    unsigned a, b, c, d;
    const unsigned need = 1u << 27 | 1u << 28 | 1u << 29;
    if (!__get_cpuid(1, &a, &b, &c, &d) || (c & need) != need)
        return false;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return (lo & 6u) == 6u;
}

/* CPUID leaf 7, EBX bit 5: AVX2; its YMM state is the one cpu_has_f16c checks. */
static bool cpu_has_avx2(void)
{
    unsigned a, b, c, d;
    return cpu_has_f16c() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & 1u << 5);
}

/* CPUID leaf 1, ECX bit 12: FMA (three-operand fused multiply-add on YMM registers), with the
 * AVX2 of cpu_has_avx2. */
static bool cpu_has_avx2_fma(void)
{
    unsigned a, b, c, d;
    return cpu_has_avx2() && __get_cpuid(1, &a, &b, &c, &d) && (c & 1u << 12);
}

/* CPUID leaf 7: EBX bit 16 AVX512F, bit 30 AVX512BW, ECX bit 11 AVX512_VNNI; the OS must save
 * the opmask and ZMM state besides the YMM one (XCR0 bits 5, 6, 7). */
static bool cpu_has_avx512_vnni(void)
{
    unsigned a, b, c, d;
    if (!cpu_has_avx2() || !__get_cpuid_count(7, 0, &a, &b, &c, &d) ||
        (b & (1u << 16 | 1u << 30)) != (1u << 16 | 1u << 30) || !(c & 1u << 11))
        return false;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return (lo & 0xe6u) == 0xe6u;
}
#endif

static void dense_init(void)
{
    for (uint32_t i = 0; i < 65536; i++)
        f16_table[i] = npk_f16_to_f32((uint16_t)i);
#ifdef DENSE_X86
    have_f16c = cpu_has_f16c();
    have_avx2 = cpu_has_avx2();
    have_fma = cpu_has_avx2_fma();
    have_avx512_vnni = cpu_has_avx512_vnni();
#endif
    atomic_store_explicit(&init_done, true, memory_order_release);
}

static void dense_ready(void)
{
    if (!atomic_load_explicit(&init_done, memory_order_acquire))
        pthread_once(&init_once, dense_init);
}

static bool use_f16c(void)
{
    dense_ready();
    return have_f16c && !atomic_load_explicit(&forced_portable, memory_order_relaxed);
}

#ifdef DENSE_NEON
static bool use_neon(void)
{
    dense_ready();
    return !atomic_load_explicit(&forced_portable, memory_order_relaxed);
}
#endif

const char *npk_dense_f16_path(void)
{
#ifdef DENSE_NEON
    if (use_neon())
        return "neon";
#endif
    return use_f16c() ? "f16c" : "portable";
}

bool npk_dense_use_avx2(void)
{
    dense_ready();
    return have_avx2 && !atomic_load_explicit(&forced_portable, memory_order_relaxed);
}

bool npk_dense_use_avx2_fma(void)
{
    dense_ready();
    return have_fma && !atomic_load_explicit(&forced_portable, memory_order_relaxed);
}

bool npk_dense_use_avx512_vnni(void)
{
    dense_ready();
    return have_avx512_vnni && !atomic_load_explicit(&forced_portable, memory_order_relaxed);
}

void npk_dense_force_portable(bool on) { atomic_store(&forced_portable, on); }

#ifdef DENSE_X86
/* VCVTPH2PS quiets a signalling NaN where npk_f16_to_f32 keeps its payload as it is, so a
 * group of 8 holding any Inf/NaN exponent goes through the table instead. */
__attribute__((target("avx,f16c"))) static size_t f16_to_f32_f16c(const uint16_t *h, float *f,
                                                                  size_t n)
{
    const __m128i expmask = _mm_set1_epi16(0x7c00);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(h + i));
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(x, expmask), expmask))) {
            for (size_t j = i; j < i + 8; j++)
                f[j] = f16_table[h[j]];
            continue;
        }
        _mm256_storeu_ps(f + i, _mm256_cvtph_ps(x));
    }
    return i;
}

/* VCVTPS2PH with round-to-nearest-even is bit-exact with npk_f32_to_f16, NaNs included. */
/* Also marks (*marked) a half whose magnitude bits are 0x7bff or more: 65504, an infinity or a
 * NaN (npk_f32_to_f16_n_beyond); two instructions per 8 halves, so the plain conversion does
 * it too. */
__attribute__((target("avx,f16c"))) static size_t f32_to_f16_f16c(const float *f, uint16_t *h,
                                                                  size_t n, bool *marked)
{
    size_t i = 0;
    const __m128i magnitude = _mm_set1_epi16(0x7fff), below = _mm_set1_epi16(0x7bfe);
    __m128i mark = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        __m128i x =
            _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(void *)(h + i), x);
        /* the magnitudes are 0..0x7fff: a signed compare is right */
        mark = _mm_or_si128(mark, _mm_cmpgt_epi16(_mm_and_si128(x, magnitude), below));
    }
    *marked = _mm_movemask_epi8(mark) != 0;
    return i;
}
#endif

#ifdef DENSE_NEON
/* True when any of the 8 lanes is a NaN: FCVTL quiets a signalling NaN (the Arm ARM's
 * FPConvertNaN sets the quiet bit) where npk_f16_to_f32 keeps its payload as it is, so such a
 * group goes through the table; Inf and quiet NaNs would convert alike, but NaNs are rare
 * enough that one test serves both. */
static bool neon_has_nan(uint16x8_t x)
{
    uint16x8_t mag = vandq_u16(x, vdupq_n_u16(0x7fff));
    return vmaxvq_u16(vcgtq_u16(mag, vdupq_n_u16(0x7c00))) != 0;
}

static void neon_f16x8_to_f32(uint16x8_t x, float *f)
{
    float16x8_t v = vreinterpretq_f16_u16(x);
    vst1q_f32(f, vcvt_f32_f16(vget_low_f16(v)));
    vst1q_f32(f + 4, vcvt_high_f32_f16(v));
}

static size_t f16_to_f32_neon(const uint16_t *h, float *f, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint16x8_t x = vld1q_u16(h + i);
        if (neon_has_nan(x)) {
            for (size_t j = i; j < i + 8; j++)
                f[j] = f16_table[h[j]];
            continue;
        }
        neon_f16x8_to_f32(x, f + i);
    }
    return i;
}

/* FCVTN rounds to nearest, ties to even, keeps subnormals and turns a NaN into sign, all-ones
 * exponent, the quiet bit and the top 9 fraction bits: npk_f32_to_f16 bit for bit, under the
 * FPCR Linux starts every thread with (RMode nearest, FZ and DN clear), which nothing in
 * npukit changes. The tail goes through the same instruction from a zero-padded copy. */
/* Marks as f32_to_f16_f16c does (the tail's zero padding converts to 0: never marked). */
static void f32_to_f16_neon(const float *f, uint16_t *h, size_t n, bool *marked)
{
    size_t i = 0;
    uint16x8_t mark = vdupq_n_u16(0);
    for (; i + 8 <= n; i += 8) {
        float16x4_t lo = vcvt_f16_f32(vld1q_f32(f + i));
        uint16x8_t x = vreinterpretq_u16_f16(vcvt_high_f16_f32(lo, vld1q_f32(f + i + 4)));
        vst1q_u16(h + i, x);
        mark = vorrq_u16(mark, vcgeq_u16(vandq_u16(x, vdupq_n_u16(0x7fff)), vdupq_n_u16(0x7bff)));
    }
    *marked = vmaxvq_u16(mark) != 0;
    if (i < n) {
        float in[8] = {0};
        uint16_t out[8];
        bool tail;
        memcpy(in, f + i, (n - i) * sizeof *in);
        f32_to_f16_neon(in, out, 8, &tail);
        memcpy(h + i, out, (n - i) * sizeof *out);
        *marked |= tail;
    }
}

/* As f16_to_f32_neon from little-endian bytes at any alignment (LD1 of bytes has none to
 * meet), a run at a time; NaN groups and each run's tail go through the table. */
static void f16le_runs_neon(const uint8_t *src, size_t run, size_t runs, float *dst, size_t stride)
{
    for (size_t r = 0; r < runs; r++, src += 2 * run, dst += stride) {
        size_t i = 0;
        for (; i + 8 <= run; i += 8) {
            uint16x8_t x = vreinterpretq_u16_u8(vld1q_u8(src + 2 * i));
            if (!neon_has_nan(x)) {
                neon_f16x8_to_f32(x, dst + i);
                continue;
            }
            f16le_by_table(src, i, i + 8, dst);
        }
        f16le_by_table(src, i, run, dst);
    }
}
#endif

void npk_f16_to_f32_n(const uint16_t *h, float *f, size_t n)
{
    size_t i = 0;
#if defined(DENSE_X86)
    if (use_f16c())
        i = f16_to_f32_f16c(h, f, n);
#elif defined(DENSE_NEON)
    if (use_neon())
        i = f16_to_f32_neon(h, f, n);
#else
    dense_ready();
#endif
    for (; i < n; i++)
        f[i] = f16_table[h[i]];
}

#ifdef DENSE_X86
/* As f16_to_f32_f16c from little-endian bytes at any alignment, a run at a time; the groups of
 * 8 with an Inf/NaN exponent and each run's tail go through the table. */
__attribute__((target("avx,f16c"))) static void
f16le_runs_f16c(const uint8_t *src, size_t run, size_t runs, float *dst, size_t stride)
{
    const __m128i expmask = _mm_set1_epi16(0x7c00);
    for (size_t r = 0; r < runs; r++, src += 2 * run, dst += stride) {
        size_t i = 0;
        for (; i + 8 <= run; i += 8) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
            if (!_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(x, expmask), expmask))) {
                _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(x));
                continue;
            }
            f16le_by_table(src, i, i + 8, dst);
        }
        f16le_by_table(src, i, run, dst);
    }
}
#endif

void npk_f16le_to_f32_runs(const uint8_t *src, size_t run, size_t runs, float *dst, size_t stride)
{
#if defined(DENSE_X86)
    if (use_f16c()) {
        f16le_runs_f16c(src, run, runs, dst, stride);
        return;
    }
#elif defined(DENSE_NEON)
    if (use_neon()) {
        f16le_runs_neon(src, run, runs, dst, stride);
        return;
    }
#else
    dense_ready();
#endif
    for (size_t r = 0; r < runs; r++, src += 2 * run, dst += stride)
        for (size_t i = 0; i < run; i++)
            dst[i] = f16_table[src[2 * i] | src[2 * i + 1] << 8];
}

/* npk_f32_to_f16_n, and whether a half's magnitude bits are 0x7bff or more (65504, an
 * infinity or a NaN): what npk_f32_to_f16_n_beyond looks at the floats of. */
static bool f32_to_f16_marked(const float *f, uint16_t *h, size_t n)
{
    size_t i = 0;
    bool marked = false;
#if defined(DENSE_X86)
    if (use_f16c())
        i = f32_to_f16_f16c(f, h, n, &marked);
#elif defined(DENSE_NEON)
    if (use_neon()) {
        f32_to_f16_neon(f, h, n, &marked);
        return marked;
    }
#endif
    for (; i < n; i++) {
        h[i] = npk_f32_to_f16(f[i]);
        marked |= (h[i] & 0x7fffu) >= 0x7bffu;
    }
    return marked;
}

void npk_f32_to_f16_n(const float *f, uint16_t *h, size_t n) { (void)f32_to_f16_marked(f, h, n); }

bool npk_f32_to_f16_n_beyond(const float *f, uint16_t *h, size_t n)
{
    /* only a float at or beyond 65504 in magnitude, an infinity or a NaN rounds to a half whose
     * magnitude bits are 0x7bff or more: the conversion marks those (in its vector registers),
     * then the exact test looks at the (rare) floats of a marked run */
    if (!f32_to_f16_marked(f, h, n))
        return false;
    for (size_t i = 0; i < n; i++)
        if (isfinite(f[i]) && fabsf(f[i]) > 65504.0f)
            return true;
    return false;
}

bool npk_dense_uses_blas(void) { return npk_blas_get() != NULL; }

void npk_dgemm(uint32_t m, uint32_t n, uint32_t k, const double *a, size_t lda, const double *b,
               size_t ldb, double *c, size_t ldc)
{
    if (!m || !n)
        return;
    const npk_blas *blas = k ? npk_blas_get() : NULL;
    if (blas) {
        blas->dgemm(NPK_CBLAS_ROW_MAJOR, NPK_CBLAS_NO_TRANS, NPK_CBLAS_NO_TRANS, (int)m, (int)n,
                    (int)k, 1.0, a, (int)lda, b, (int)ldb, 0.0, c, (int)ldc);
        return;
    }
    npk_dgemm_plain(m, n, k, a, lda, b, ldb, c, ldc);
}

void npk_dgemm_plain(uint32_t m, uint32_t n, uint32_t k, const double *a, size_t lda,
                     const double *b, size_t ldb, double *c, size_t ldc)
{
    for (uint32_t i = 0; i < m; i++)
        memset(c + i * ldc, 0, n * sizeof *c);
    /* Blocks of B (KB x NB, a few hundred KB) stay in cache while every row of A passes over
     * them; each element still sums its products in increasing k. */
    enum { KB = 128, NB = 256 };
    for (uint32_t j0 = 0; j0 < n; j0 += NB) {
        uint32_t nb = n - j0 < NB ? n - j0 : NB;
        for (uint32_t p0 = 0; p0 < k; p0 += KB) {
            uint32_t kb = k - p0 < KB ? k - p0 : KB;
            for (uint32_t i = 0; i < m; i++) {
                double *cr = c + i * ldc + j0;
                for (uint32_t p = p0; p < p0 + kb; p++) {
                    double x = a[i * lda + p];
                    const double *br = b + p * ldb + j0;
                    for (uint32_t j = 0; j < nb; j++)
                        cr[j] += x * br[j];
                }
            }
        }
    }
}

void npk_sgemm(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *b,
               size_t ldb, float *c, size_t ldc)
{
    if (!m || !n)
        return;
    const npk_blas *blas = k ? npk_blas_get() : NULL;
    if (blas) {
        blas->sgemm(NPK_CBLAS_ROW_MAJOR, NPK_CBLAS_NO_TRANS, NPK_CBLAS_NO_TRANS, (int)m, (int)n,
                    (int)k, 1.0f, a, (int)lda, b, (int)ldb, 0.0f, c, (int)ldc);
        return;
    }
    for (uint32_t i = 0; i < m; i++) {
        float *cr = c + i * ldc;
        memset(cr, 0, n * sizeof *c);
        for (uint32_t p = 0; p < k; p++) {
            float x = a[i * lda + p];
            const float *br = b + p * ldb;
            for (uint32_t j = 0; j < n; j++)
                cr[j] += x * br[j];
        }
    }
}
