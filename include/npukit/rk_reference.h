/* CPU reference matmuls, the independent check of every NPU result. */
#ifndef NPUKIT_RK_REFERENCE_H
#define NPUKIT_RK_REFERENCE_H

#include <stdint.h>

#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = A . B in double (fp16) or int64 (int8/int4) precision, written as `out` elements:
 * fp16 -> float (fp32) or uint16_t (fp16, rounded to nearest even), int8/int4 -> int32_t.
 * Element types as in rk.h. */
npk_status npk_rk_reference_matmul(npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                                   uint32_t n, const void *a, const void *b, void *c);

/* Error of got against want (both `out` elements, m*n): max absolute error, max relative
 * error (|d| / max(|want|, 1)), and the count of elements that are not equal. */
typedef struct npk_rk_error {
    double max_abs, max_rel;
    uint64_t mismatches;
} npk_rk_error;
npk_rk_error npk_rk_compare(npk_rk_prec out, const void *got, const void *want, uint64_t count);

#ifdef __cplusplus
}
#endif
#endif
