/* SPDX-License-Identifier: MIT */
/* The fp16 matmul's GEMM on weights decoded as columns (see matmul.h): every result is one
 * fp32 fused multiply-add chain over k = 0, 1, ... from +0, the order of a plain loop, on every
 * path (AVX-512, AVX2 with FMA, NEON, portable C), so the paths agree bit for bit.
 *
 * Why its own GEMM: a BLAS copies each call's weight panel into its own layout before
 * multiplying (a tenth of an fp16 task's time). Here the weights are used where the decode
 * wrote them: the kernel broadcasts a weight and multiplies a vector of 16 feature rows, so the
 * feature is the operand rearranged (once per call, K x M instead of K x N per chunk) and a
 * tile of results is turned around once at its end.
 *
 * Trailing K rows whose weights are all zero (the padding of a plan's last K slice) are left
 * out: with a finite feature there every product is +-0, and adding +-0 to a chain that began
 * at +0 changes nothing (the chain is never -0: a sum rounds to -0 only from two -0's, and the
 * first addend is +0). A non-finite feature element in those rows keeps them (0 x Inf = NaN). */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "common/dense.h"
#include "rksim/matmul.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define COLS_X86 1
#endif
/* Advanced SIMD is part of every AArch64 CPU Linux runs on: no run-time check */
#if defined(__aarch64__) && defined(__GNUC__)
#include <arm_neon.h>
#define COLS_NEON 1
#endif

enum {
    ROWS = RKSIM_GEMM_COLS_ROWS, /* feature rows per vector block of the rearranged A */
    GROUP = 8,                   /* weight columns a kernel call multiplies */
    SUB_BYTES = 1 << 19,         /* weight columns multiplied against one feature block at a time */
};

size_t rksim_gemm_cols_a_floats(uint32_t m, uint32_t k)
{
    return (size_t)(m + ROWS - 1) / ROWS * ROWS * k;
}

uint32_t rksim_gemm_cols_pack_a(const float *a, uint32_t m, uint32_t k, float *at)
{
    uint32_t finite_from = 0;
    for (uint32_t m0 = 0; m0 < m; m0 += ROWS) {
        const uint32_t rows = m - m0 < ROWS ? m - m0 : ROWS;
        float *blk = at + (size_t)m0 * k;
        for (uint32_t kk = 0; kk < k; kk++) {
            float *dst = blk + (size_t)kk * ROWS;
            for (uint32_t i = 0; i < rows; i++) {
                const float v = a[(size_t)(m0 + i) * k + kk];
                dst[i] = v;
                if (!isfinite(v) && kk >= finite_from)
                    finite_from = kk + 1;
            }
            for (uint32_t i = rows; i < ROWS; i++)
                dst[i] = 0.0f;
        }
    }
    return finite_from;
}

uint32_t rksim_gemm_cols_live_k(const float *b, size_t ldb, uint32_t n, uint32_t k)
{
    uint32_t live = 0;
    for (uint32_t j = 0; j < n; j++) {
        const float *col = b + (size_t)j * ldb;
        uint32_t e = k;
        while (e > live) {
            uint32_t bits;
            memcpy(&bits, &col[e - 1], sizeof bits);
            if (bits << 1) /* not +-0 */
                break;
            e--;
        }
        if (e > live)
            live = e;
    }
    return live;
}

/* A kernel: the results of `blocks` (1 or 2) consecutive blocks of the rearranged feature
 * (at, ROWS rows each) against GROUP weight columns (col[j], k each), over k < kk, into
 * tile[j][i] (column j, row i < blocks * ROWS). */
typedef void kernel_fn(const float *at, size_t block_stride, unsigned blocks,
                       const float *const col[GROUP], uint32_t kk, float *tile);

static void kernel_portable(const float *at, size_t block_stride, unsigned blocks,
                            const float *const col[GROUP], uint32_t kk, float *tile)
{
    for (unsigned b = 0; b < blocks; b++) {
        float acc[GROUP][ROWS] = {{0}};
        const float *ab = at + b * block_stride;
        for (uint32_t p = 0; p < kk; p++)
            for (unsigned j = 0; j < GROUP; j++) {
                const float w = col[j][p];
                for (unsigned i = 0; i < ROWS; i++)
                    acc[j][i] = fmaf(ab[(size_t)p * ROWS + i], w, acc[j][i]);
            }
        for (unsigned j = 0; j < GROUP; j++)
            memcpy(tile + (size_t)j * 2 * ROWS + b * ROWS, acc[j], sizeof acc[j]);
    }
}

#ifdef COLS_X86
/* 16 accumulators (two feature vectors of 16 x 8 columns): enough independent chains to hide
 * the FMA latency, 10 loads a step for 16 FMAs. */
__attribute__((target("avx512f"))) static void kernel_avx512(const float *at, size_t block_stride,
                                                             unsigned blocks,
                                                             const float *const col[GROUP],
                                                             uint32_t kk, float *tile)
{
    const float *a0 = at, *a1 = at + block_stride;
    const float *c0 = col[0], *c1 = col[1], *c2 = col[2], *c3 = col[3], *c4 = col[4],
                *c5 = col[5], *c6 = col[6], *c7 = col[7];
    __m512 x0 = _mm512_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0,
           x7 = x0;
    if (blocks == 2) {
        __m512 y0 = x0, y1 = x0, y2 = x0, y3 = x0, y4 = x0, y5 = x0, y6 = x0, y7 = x0;
        for (uint32_t p = 0; p < kk; p++) {
            const __m512 u = _mm512_loadu_ps(a0 + (size_t)p * ROWS);
            const __m512 v = _mm512_loadu_ps(a1 + (size_t)p * ROWS);
            __m512 w;
#define STEP2(x, y, c)                                                                             \
    w = _mm512_set1_ps(c[p]);                                                                      \
    x = _mm512_fmadd_ps(u, w, x);                                                                  \
    y = _mm512_fmadd_ps(v, w, y)
            STEP2(x0, y0, c0);
            STEP2(x1, y1, c1);
            STEP2(x2, y2, c2);
            STEP2(x3, y3, c3);
            STEP2(x4, y4, c4);
            STEP2(x5, y5, c5);
            STEP2(x6, y6, c6);
            STEP2(x7, y7, c7);
#undef STEP2
        }
        _mm512_storeu_ps(tile + 0 * 2 * ROWS + ROWS, y0);
        _mm512_storeu_ps(tile + 1 * 2 * ROWS + ROWS, y1);
        _mm512_storeu_ps(tile + 2 * 2 * ROWS + ROWS, y2);
        _mm512_storeu_ps(tile + 3 * 2 * ROWS + ROWS, y3);
        _mm512_storeu_ps(tile + 4 * 2 * ROWS + ROWS, y4);
        _mm512_storeu_ps(tile + 5 * 2 * ROWS + ROWS, y5);
        _mm512_storeu_ps(tile + 6 * 2 * ROWS + ROWS, y6);
        _mm512_storeu_ps(tile + 7 * 2 * ROWS + ROWS, y7);
    } else {
        for (uint32_t p = 0; p < kk; p++) {
            const __m512 u = _mm512_loadu_ps(a0 + (size_t)p * ROWS);
#define STEP1(x, c) x = _mm512_fmadd_ps(u, _mm512_set1_ps(c[p]), x)
            STEP1(x0, c0);
            STEP1(x1, c1);
            STEP1(x2, c2);
            STEP1(x3, c3);
            STEP1(x4, c4);
            STEP1(x5, c5);
            STEP1(x6, c6);
            STEP1(x7, c7);
#undef STEP1
        }
    }
    _mm512_storeu_ps(tile + 0 * 2 * ROWS, x0);
    _mm512_storeu_ps(tile + 1 * 2 * ROWS, x1);
    _mm512_storeu_ps(tile + 2 * 2 * ROWS, x2);
    _mm512_storeu_ps(tile + 3 * 2 * ROWS, x3);
    _mm512_storeu_ps(tile + 4 * 2 * ROWS, x4);
    _mm512_storeu_ps(tile + 5 * 2 * ROWS, x5);
    _mm512_storeu_ps(tile + 6 * 2 * ROWS, x6);
    _mm512_storeu_ps(tile + 7 * 2 * ROWS, x7);
}

/* 16 rows (two vectors of 8) x 4 columns a pass, twice per group: 8 accumulators of the 16
 * registers, 6 loads a step for 8 FMAs. */
__attribute__((target("avx2,fma"))) static void kernel_avx2(const float *at, size_t block_stride,
                                                           unsigned blocks,
                                                           const float *const col[GROUP],
                                                           uint32_t kk, float *tile)
{
    for (unsigned b = 0; b < blocks; b++) {
        const float *ab = at + b * block_stride;
        for (unsigned h = 0; h < GROUP; h += 4) {
            const float *c0 = col[h], *c1 = col[h + 1], *c2 = col[h + 2], *c3 = col[h + 3];
            __m256 x0 = _mm256_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, y0 = x0, y1 = x0,
                   y2 = x0, y3 = x0;
            for (uint32_t p = 0; p < kk; p++) {
                const __m256 u = _mm256_loadu_ps(ab + (size_t)p * ROWS);
                const __m256 v = _mm256_loadu_ps(ab + (size_t)p * ROWS + 8);
                __m256 w;
#define STEP(x, y, c)                                                                              \
    w = _mm256_broadcast_ss(&c[p]);                                                                \
    x = _mm256_fmadd_ps(u, w, x);                                                                  \
    y = _mm256_fmadd_ps(v, w, y)
                STEP(x0, y0, c0);
                STEP(x1, y1, c1);
                STEP(x2, y2, c2);
                STEP(x3, y3, c3);
#undef STEP
            }
            float *t = tile + (size_t)h * 2 * ROWS + b * ROWS;
            _mm256_storeu_ps(t, x0), _mm256_storeu_ps(t + 8, y0);
            _mm256_storeu_ps(t + 2 * ROWS, x1), _mm256_storeu_ps(t + 2 * ROWS + 8, y1);
            _mm256_storeu_ps(t + 4 * ROWS, x2), _mm256_storeu_ps(t + 4 * ROWS + 8, y2);
            _mm256_storeu_ps(t + 6 * ROWS, x3), _mm256_storeu_ps(t + 6 * ROWS + 8, y3);
        }
    }
}

#endif

#ifdef COLS_NEON
/* 16 rows (four vectors of 4) x 4 columns a pass, twice per group: 16 accumulators of the 32
 * registers; FMLA by lane takes the four weights of a step from one vector load each. */
static void kernel_neon(const float *at, size_t block_stride, unsigned blocks,
                        const float *const col[GROUP], uint32_t kk, float *tile)
{
    for (unsigned b = 0; b < blocks; b++) {
        const float *ab = at + b * block_stride;
        for (unsigned h = 0; h < GROUP; h += 4) {
            const float *c0 = col[h], *c1 = col[h + 1], *c2 = col[h + 2], *c3 = col[h + 3];
            float32x4_t x[4][4];
            for (unsigned j = 0; j < 4; j++)
                for (unsigned q = 0; q < 4; q++)
                    x[j][q] = vdupq_n_f32(0.0f);
            for (uint32_t p = 0; p < kk; p++) {
                const float *ap = ab + (size_t)p * ROWS;
                const float32x4_t u0 = vld1q_f32(ap), u1 = vld1q_f32(ap + 4),
                                  u2 = vld1q_f32(ap + 8), u3 = vld1q_f32(ap + 12);
                const float w[4] = {c0[p], c1[p], c2[p], c3[p]};
                for (unsigned j = 0; j < 4; j++) {
                    x[j][0] = vfmaq_n_f32(x[j][0], u0, w[j]);
                    x[j][1] = vfmaq_n_f32(x[j][1], u1, w[j]);
                    x[j][2] = vfmaq_n_f32(x[j][2], u2, w[j]);
                    x[j][3] = vfmaq_n_f32(x[j][3], u3, w[j]);
                }
            }
            for (unsigned j = 0; j < 4; j++)
                for (unsigned q = 0; q < 4; q++)
                    vst1q_f32(tile + (size_t)(h + j) * 2 * ROWS + b * ROWS + 4 * q, x[j][q]);
        }
    }
}
#endif

/* RKSIM_GEMM_COLS_AUTO or a path a test asks for (taken only where the CPU has it) */
static atomic_int forced = RKSIM_GEMM_COLS_AUTO;

void rksim_gemm_cols_force(rksim_gemm_cols_path p) { atomic_store(&forced, (int)p); }

rksim_gemm_cols_path rksim_gemm_cols_path_used(void)
{
    const int want = atomic_load(&forced);
#ifdef COLS_X86
    /* AVX-512 behind the dense check elements.c uses too (F, BW, VNNI and the OS's ZMM state):
     * an AVX-512 CPU without VNNI takes the AVX2 path */
    if ((want == RKSIM_GEMM_COLS_AUTO || want == RKSIM_GEMM_COLS_AVX512) &&
        npk_dense_use_avx512_vnni())
        return RKSIM_GEMM_COLS_AVX512;
    if ((want == RKSIM_GEMM_COLS_AUTO || want == RKSIM_GEMM_COLS_AVX512 ||
         want == RKSIM_GEMM_COLS_AVX2) &&
        npk_dense_use_avx2_fma())
        return RKSIM_GEMM_COLS_AVX2;
#elif defined(COLS_NEON)
    /* npk_dense_force_portable pins this path to the portable one too */
    if (want != RKSIM_GEMM_COLS_PORTABLE && !strcmp(npk_dense_f16_path(), "neon"))
        return RKSIM_GEMM_COLS_NEON;
#else
    (void)want;
#endif
    return RKSIM_GEMM_COLS_PORTABLE;
}

static kernel_fn *kernel_of(rksim_gemm_cols_path p)
{
    switch (p) {
#ifdef COLS_X86
    case RKSIM_GEMM_COLS_AVX512: return kernel_avx512;
    case RKSIM_GEMM_COLS_AVX2: return kernel_avx2;
#else
    case RKSIM_GEMM_COLS_AVX512:
    case RKSIM_GEMM_COLS_AVX2:
#endif
#ifdef COLS_NEON
    case RKSIM_GEMM_COLS_NEON: return kernel_neon;
#else
    case RKSIM_GEMM_COLS_NEON:
#endif
    case RKSIM_GEMM_COLS_AUTO:
    case RKSIM_GEMM_COLS_PORTABLE: break;
    }
    return kernel_portable;
}

void rksim_gemm_cols(const float *at, uint32_t m, uint32_t k, uint32_t kk, const float *b,
                     size_t ldb, uint32_t n, float *c, size_t ldc)
{
    kernel_fn *kernel = kernel_of(rksim_gemm_cols_path_used());
    const size_t block_stride = (size_t)ROWS * k;
    /* columns whose weights stay in L2 while every feature block passes them */
    uint32_t sub = (uint32_t)(SUB_BYTES / ((size_t)(kk ? kk : 1) * sizeof(float))) / GROUP * GROUP;
    sub = sub ? sub : GROUP;
    float tile[GROUP * 2 * ROWS];
    for (uint32_t n1 = 0; n1 < n; n1 += sub) {
        const uint32_t n2 = n - n1 < sub ? n : n1 + sub;
        for (uint32_t m0 = 0; m0 < m; m0 += 2 * ROWS) {
            const unsigned blocks = m - m0 > ROWS ? 2 : 1;
            const uint32_t rows = m - m0 < 2 * ROWS ? m - m0 : 2 * ROWS;
            const float *ab = at + (size_t)m0 * k;
            for (uint32_t n0 = n1; n0 < n2; n0 += GROUP) {
                const uint32_t cols = n2 - n0 < GROUP ? n2 - n0 : GROUP;
                const float *col[GROUP];
                for (unsigned j = 0; j < GROUP; j++) /* a short group repeats its first column */
                    col[j] = b + (size_t)(n0 + (j < cols ? j : 0)) * ldb;
                kernel(ab, block_stride, blocks, col, kk, tile);
                for (uint32_t i = 0; i < rows; i++)
                    for (uint32_t j = 0; j < cols; j++)
                        c[(size_t)(m0 + i) * ldc + n0 + j] = tile[(size_t)j * 2 * ROWS + i];
            }
        }
    }
}
