/* SPDX-License-Identifier: MIT */
/* The BLAS the simulators multiply with, loaded when something first asks for it.
 *
 * A threaded OpenBLAS starts its worker threads as soon as it is loaded, and each spins
 * (sched_yield) for about a tenth of a second before it sleeps. Linked into the library, that
 * happened in every process that loaded npukit — the KohakuTPU tools, the board's drivers —
 * though only the RK simulators' arithmetic calls it. So the library opens it with dlopen the
 * first time a GEMM asks, and a process that never multiplies on the CPU never starts those
 * threads. Which library: $NPUKIT_BLAS (a file name or path of any library with the CBLAS
 * calls, or "off"), else the OpenBLAS the build found (its soname; libopenblas.so.0 when it found
 * none, so one installed later is used); a build with
 * NPUKIT_WITH_BLAS=OFF opens none. Without one the callers' own loops run (the same results to
 * rounding, slower). */
#ifndef NPUKIT_COMMON_BLAS_H
#define NPUKIT_COMMON_BLAS_H

#include <stdbool.h>

/* CBLAS's argument values (the C interface's standard enumerations). */
enum { NPK_CBLAS_ROW_MAJOR = 101, NPK_CBLAS_NO_TRANS = 111, NPK_CBLAS_TRANS = 112 };

typedef struct npk_blas {
    void (*sgemm)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c,
                  int ldc);
    void (*dgemm)(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                  const double *a, int lda, const double *b, int ldb, double beta, double *c,
                  int ldc);
    /* OpenBLAS's thread count, or NULL where the library has no such calls */
    int (*get_threads)(void);
    void (*set_threads)(int threads);
    const char *name; /* the name it was opened by */
} npk_blas;

/* The BLAS, opened on the first call (thread-safe); NULL when the build has none, $NPUKIT_BLAS
 * is "off", or the library cannot be opened or lacks sgemm or dgemm. A $NPUKIT_BLAS that is not
 * used (it fails, or the build has no BLAS) is reported once at warning level. */
const npk_blas *npk_blas_get(void);

/* Whether the BLAS is open in this process now, without opening it. */
bool npk_blas_loaded(void);

#endif
