/* SPDX-License-Identifier: MIT */
/* The simulator's arithmetic: fp32 GEMM through CBLAS when a BLAS can be opened (common/blas.h,
 * opened at the first GEMM), else a portable blocked loop; integer GEMM exact through fp32
 * chunks. */
#include <pthread.h>
#include <string.h>

#include "common/blas.h"
#include "rksim/matmul.h"

/* The BLAS, or NULL for the loop (a build without one compiles no call to it). */
static const npk_blas *gemm_blas(void)
{
#ifdef NPUKIT_HAVE_CBLAS
    return npk_blas_get();
#else
    return NULL;
#endif
}

bool rksim_gemm_uses_blas(void) { return gemm_blas() != NULL; }

/* Users of single-threaded calls (simulators in other threads may overlap): the first sets the
 * BLAS to one thread, the last sets back the count the first found. A BLAS without OpenBLAS's
 * thread calls is left as it is. */
static pthread_mutex_t single_lock = PTHREAD_MUTEX_INITIALIZER;
static int single_users, threads_before;

void rksim_blas_single_begin(void)
{
    const npk_blas *blas = gemm_blas();
    if (!blas || !blas->set_threads)
        return;
    pthread_mutex_lock(&single_lock);
    if (single_users++ == 0 && (threads_before = blas->get_threads()) != 1)
        blas->set_threads(1);
    pthread_mutex_unlock(&single_lock);
}

void rksim_blas_single_end(void)
{
    const npk_blas *blas = gemm_blas();
    if (!blas || !blas->set_threads)
        return;
    pthread_mutex_lock(&single_lock);
    if (--single_users == 0 && threads_before != 1)
        blas->set_threads(threads_before);
    pthread_mutex_unlock(&single_lock);
}

void rksim_sgemm_nt(uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
                    const float *b, uint32_t ldb, float *c, uint32_t ldc)
{
    const npk_blas *blas = gemm_blas();
    if (blas) {
        blas->sgemm(NPK_CBLAS_ROW_MAJOR, NPK_CBLAS_NO_TRANS, NPK_CBLAS_TRANS, (int)m, (int)n,
                    (int)k, 1.0f, a, (int)lda, b, (int)ldb, 0.0f, c, (int)ldc);
        return;
    }
    /* Portable: blocks of rows and columns so that B's rows stay in cache. */
    enum { BM = 16, BN = 64 };
    for (uint32_t i0 = 0; i0 < m; i0 += BM)
        for (uint32_t j0 = 0; j0 < n; j0 += BN) {
            uint32_t i1 = i0 + BM < m ? i0 + BM : m, j1 = j0 + BN < n ? j0 + BN : n;
            for (uint32_t i = i0; i < i1; i++)
                for (uint32_t j = j0; j < j1; j++) {
                    const float *ar = a + (size_t)i * lda, *br = b + (size_t)j * ldb;
                    float s = 0.0f;
                    for (uint32_t p = 0; p < k; p++)
                        s += ar[p] * br[p];
                    c[(size_t)i * ldc + j] = s;
                }
        }
}

/* fp32 holds every integer up to 2^24 exactly. With |a*b| <= max_abs^2, every partial sum of
 * at most 2^24 / max_abs^2 products (int8: 1024, int4: 262144) is an integer of at most 2^24 in
 * magnitude, so no addition rounds whatever order or blocking the GEMM uses. */
static uint32_t exact_chunk(uint32_t max_abs)
{
    uint64_t prod = (uint64_t)max_abs * max_abs;
    uint64_t chunk = (1u << 24) / (prod ? prod : 1);
    return chunk ? (uint32_t)chunk : 1;
}

bool rksim_igemm_fp32_exact(uint32_t k, uint32_t max_abs) { return k <= exact_chunk(max_abs); }

void rksim_igemm_nt(uint32_t m, uint32_t n, uint32_t k, const float *a, const float *b, int64_t *c,
                    uint32_t max_abs, float *part)
{
    /* each chunk's fp32 result is its exact sum; the chunks add in int64 */
    const uint32_t chunk = exact_chunk(max_abs);
    const size_t mn = (size_t)m * n;
    memset(c, 0, mn * sizeof *c);
    for (uint32_t k0 = 0; k0 < k; k0 += chunk) {
        uint32_t kk = k - k0 < chunk ? k - k0 : chunk;
        rksim_sgemm_nt(m, n, kk, a + k0, k, b + k0, k, part, n);
        for (size_t i = 0; i < mn; i++)
            c[i] += (int64_t)part[i];
    }
}
