/* SPDX-License-Identifier: MIT */
/* The byte kernels' shared driver (gemm_int4.c, gemm_int8.c): both take the feature biased
 * into unsigned bytes, rows padded to the kernel's row count, against weights in blocks of
 * 16 columns; only the bias, the row count and the kernel differ. */
#include <stdlib.h>
#include <string.h>

#include "rksim/matmul.h"

enum { NB = RKSIM_GEMM_BYTES_COLUMNS };

size_t rksim_gemm_bytes_size(uint32_t k, uint32_t n)
{
    return (size_t)k * n + (size_t)n * sizeof(int32_t);
}

typedef struct job {
    uint32_t m, n, k, mr;
    const uint8_t *ap; /* the biased feature, rows padded to a multiple of mr */
    const uint8_t *kb;
    float *c;
    rksim_bytes_kernel *kernel;
} job;

static void blocks(void *ctx, uint32_t lo, uint32_t hi)
{
    const job *j = ctx;
    const int32_t *sums = (const int32_t *)(const void *)(j->kb + (size_t)j->k * j->n);
    for (uint32_t nb = lo; nb < hi; nb++) /* a block (k * 16 bytes) stays in L1 over all rows */
        for (uint32_t m0 = 0; m0 < j->m; m0 += j->mr)
            j->kernel(j->ap + (size_t)m0 * j->k, j->k, j->kb + (size_t)nb * j->k * NB,
                      sums + nb * NB, j->c + (size_t)m0 * j->n + nb * NB, j->n,
                      j->m - m0 < j->mr ? j->m - m0 : j->mr);
}

bool rksim_gemm_bytes(uint32_t m, uint32_t n, uint32_t k, const float *a, const uint8_t *kb,
                      float *c, const rksim_bytes_form *form)
{
    const uint32_t mp = (m + form->rows - 1) / form->rows * form->rows;
    uint8_t *ap = malloc((size_t)mp * k);
    if (!ap)
        return false;
    for (size_t i = 0; i < (size_t)m * k; i++)
        ap[i] = (uint8_t)((int)a[i] + form->bias);
    memset(ap + (size_t)m * k, form->bias, (size_t)(mp - m) * k); /* rows of zeros */
    job j = {m, n, k, form->rows, ap, kb, c, form->kernel};
    /* a second thread from about a million products per core on */
    rksim_split2(blocks, &j, n / NB, (uint64_t)m * n * k >= (1u << 21));
    free(ap);
    return true;
}
