/* SPDX-License-Identifier: MIT */
/* CPU reference matmuls, the independent check of every NPU result. */
#ifndef NPUKIT_RK_REFERENCE_H
#define NPUKIT_RK_REFERENCE_H

#include <stdint.h>
#include "npukit/export.h"

#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = A . B in double (fp16) or int64 (int8/int4) precision, written as `out` elements:
 * fp16 -> float (fp32) or uint16_t (fp16, rounded to nearest even), int8/int4 -> int32_t.
 * Element types as in rk.h. */
NPUKIT_API npk_status npk_rk_reference_matmul(npk_rk_prec in, npk_rk_prec out, uint32_t m,
                                              uint32_t k, uint32_t n, const void *a, const void *b,
                                              void *c);

/* Error of got against want (both `out` elements, m*n): max absolute error, max relative
 * error (|d| / max(|want|, 1)), and the count of elements that are not equal. */
typedef struct npk_rk_error {
    double max_abs, max_rel;
    uint64_t mismatches;
} npk_rk_error;
NPUKIT_API npk_rk_error npk_rk_compare(npk_rk_prec out, const void *got, const void *want,
                                       uint64_t count);

/* The verdict on a result: every element of `got` (m*n `out` elements) against the exact value
 * of its dot product, with a bound that holds whatever order the hardware adds in.
 *
 * Integers must be exact (int32 wraps like the accumulator; int16, the int4 task's output,
 * saturates at +-32767). For fp16 inputs the products are exact in fp32 and the K of them are
 * summed in fp32 in an order nobody documents, so element (i, j) may differ from the exact
 * sum s by at most
 *     gamma_K * S + r_out + ulp_out(s),   gamma_K = K*u / (1 - K*u),  S = sum_k |a_ik * b_kj|
 * with u = 2^-24 (fp32), r_out the fp16 output rounding, half an fp16 ulp at |s| + gamma_K*S
 * (zero for fp32 output), and ulp_out(s) one unit in the last place of s in the output
 * precision (the double reference's own error, below K*2^-53*S, is added too). S is taken at
 * an upper value (summed in fp32, then widened by 1/(1 - 2Ku)). With K*u >= 1 no finite bound
 * holds.
 * Non-finite values: a NaN or Inf operand gives a non-finite s, which every summation order
 * reproduces, so got must equal it (any NaN matches NaN); where s is finite, a NaN or Inf in got
 * is outside the bound, except an Inf of s's sign where fp16 rounding may overflow. */
typedef struct npk_rk_verdict {
    double max_abs;         /* largest |got - s| over finite pairs */
    double max_rel;         /* largest |got - s| / max(|s|, 1) */
    double max_ratio;       /* largest |got - s| / bound (<= 1 passes; inf for a non-finite miss) */
    double ref_max;         /* largest finite |s| */
    uint64_t mismatches;    /* elements not equal to s rounded to the output precision */
    uint64_t outside;       /* elements beyond the bound: the result is wrong */
    uint64_t first_outside; /* index of the first of them (m*n when none) */
} npk_rk_verdict;
NPUKIT_API npk_status npk_rk_check_matmul(npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                                          uint32_t n, const void *a, const void *b, const void *got,
                                          npk_rk_verdict *v);

/* The bound above for one element: exact value s, S = sum |a*b|, K terms, output precision
 * (fp32 or fp16; 0 for the integer outputs). */
NPUKIT_API double npk_rk_error_bound(npk_rk_prec out, uint32_t k, double s, double abs_sum);

/* The operands of a quantised matmul (rk.h npk_rk_matmul_quant) for its verdict. */
typedef struct npk_rk_quant_ref {
    npk_rk_prec in;          /* NPK_PREC_INT8 or NPK_PREC_INT4 */
    uint32_t m, k, n, group; /* group: 0 (one group over K, per channel) or K per group */
    const int8_t *a;         /* [M][K] */
    const float *a_scale;    /* 1, M or M x groups ([M][groups]) of them */
    uint64_t a_scale_count;
    const int8_t *b;      /* [K][N] */
    const float *b_scale; /* [groups][N] */
} npk_rk_quant_ref;
/* The verdict on a quantised matmul's result `got` (M x N, fp32 or fp16): each element against
 * s = sum over groups of sa * sb * P_g, with P_g exact and the rest in double, and the bound
 * npk_rk_error_bound gives for 2 x (groups + 4) fp32 terms of sum |sa * sb * P_g|: each term
 * is rounded at most three times in fp32 (P_g to float, sa * sb, the product) and the groups'
 * terms are added in fp32 in any order; fp16 output adds its rounding. */
NPUKIT_API npk_status npk_rk_check_matmul_quant(const npk_rk_quant_ref *r, npk_rk_prec out, const void *got,
                                     npk_rk_verdict *v);

#ifdef __cplusplus
}
#endif
#endif
