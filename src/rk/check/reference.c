/* SPDX-License-Identifier: MIT */
/* The CPU reference: the product in double (exact for integers) through npk_rk_ref_blocks,
 * rounded once to the output format. */
#include <math.h>

#include "npukit/fp16.h"
#include "npukit/rk_outstage.h"
#include "npukit/rk_reference.h"
#include "reference_internal.h"

/* Write one block of the double (or exact integer) product as `out` elements. */
typedef struct ref_out {
    npk_rk_prec out;
    bool is_float;
    uint32_t n;
    void *c;
} ref_out;

static void store_block(void *ctx, uint32_t i0, uint32_t rows, uint32_t j0, uint32_t cols,
                        const double *s, const double *abs_sum, size_t ld)
{
    (void)abs_sum;
    const ref_out *o = ctx;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t j = 0; j < cols; j++) {
            size_t at = (size_t)(i0 + r) * o->n + j0 + j;
            double v = s[r * ld + j];
            if (o->is_float) /* rounded once to fp32, then to the output */
                npk_rk_prec_store(o->out, o->c, at, (float)v);
            else /* an exact integer; int32 wraps like the hardware's accumulator */
                ((int32_t *)o->c)[at] = (int32_t)(uint32_t)(int64_t)v;
        }
}

npk_status npk_rk_reference_matmul(npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                                   uint32_t n, const void *a, const void *b, void *c)
{
    if (!a || !b || !c)
        return npk_fail(NPK_EINVAL, "reference matmul: NULL operand");
    const npk_rk_prec_row *in_row = npk_rk_input_row(in);
    if (!in_row)
        return npk_fail(NPK_EINVAL, "reference: inputs must be fp16, int8 or int4");
    if (!npk_rk_host_out_ok(in, out))
        return npk_fail(NPK_EINVAL, in_row->is_float ? "reference: fp16 inputs give fp32 or fp16"
                                                     : "reference: integer inputs give int32");
    ref_out o = {out, in_row->is_float, n, c};
    return npk_rk_ref_blocks(in, m, k, n, a, b, false, store_block, &o);
}

npk_rk_error npk_rk_compare(npk_rk_prec out, const void *got, const void *want, uint64_t count)
{
    npk_rk_error e = {0, 0, 0};
    for (uint64_t i = 0; i < count; i++) {
        double g = npk_rk_prec_load(out, got, i), w = npk_rk_prec_load(out, want, i);
        double d = fabs(g - w);
        if (isnan(g) != isnan(w))
            d = INFINITY;
        if (g != w)
            e.mismatches++;
        if (d > e.max_abs)
            e.max_abs = d;
        double r = d / (fabs(w) > 1 ? fabs(w) : 1);
        if (r > e.max_rel)
            e.max_rel = r;
    }
    return e;
}
