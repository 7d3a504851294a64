/* SPDX-License-Identifier: MIT */
/* The CPU reference's product, computed in blocks (shared by the reference matmul and the
 * verdict of --check). */
#ifndef NPUKIT_RK_REFERENCE_INTERNAL_H
#define NPUKIT_RK_REFERENCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_types.h"
#include "npukit/status.h"

/* One block of the product: rows i0..i0+rows-1, columns j0..j0+cols-1; s[r*ld + c] is the
 * product's element (i0 + r, j0 + c) and abs_sum (NULL unless asked for) its sum of |a*b|. */
typedef void npk_rk_ref_block_fn(void *ctx, uint32_t i0, uint32_t rows, uint32_t j0, uint32_t cols,
                                 const double *s, const double *abs_sum, size_t ld);

/* A[M][K] . B[K][N] in double, block by block, every element exactly once; with want_abs also
 * an upper value of sum|a*b| (within 2Ku of it, see reference_blocks.c). fp16 operands
 * (uint16_t): each product is exact in double and the K of them are summed in double (any
 * order: the error stays below K * 2^-53 * sum|a*b|). int8/int4 operands (int8_t): every
 * partial sum is an integer below K * 2^14 < 2^53 in magnitude, so the sums are exact in any
 * order. Through CBLAS dgemm when available. */
npk_status npk_rk_ref_blocks(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, const void *a,
                             const void *b, bool want_abs, npk_rk_ref_block_fn *fn, void *ctx);

/* Judge one element of a result against its exact value s (sum of |terms| abs_sum, k terms
 * added in fp32: npk_rk_error_bound) and update the verdict (rk_reference.h). */
struct npk_rk_verdict;
void npk_rk_judge_element(struct npk_rk_verdict *v, npk_rk_prec out, uint32_t k, size_t idx,
                          double got, double s, double abs_sum);

#endif
