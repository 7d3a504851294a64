/* SPDX-License-Identifier: MIT */
/* The CPU reference: plain loops in double / int64, ordered i-k-j so B is read by rows. */
#include <math.h>
#include <stdlib.h>

#include "npukit/fp16.h"
#include "npukit/rk_outstage.h"
#include "npukit/rk_reference.h"

npk_status npk_rk_reference_matmul(npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                                   uint32_t n, const void *a, const void *b, void *c)
{
    if (!a || !b || !c)
        return npk_fail(NPK_EINVAL, "reference matmul: NULL operand");
    const npk_rk_prec_row *in_row = npk_rk_input_row(in);
    if (in_row && in_row->is_float) {
        if (!npk_rk_host_out_ok(in, out))
            return npk_fail(NPK_EINVAL, "reference: fp16 inputs give fp32 or fp16");
        const uint16_t *ah = a, *bh = b;
        double *row = malloc(n * sizeof *row);
        float *bf = malloc((size_t)k * n * sizeof *bf);
        if (!row || !bf) {
            free(row);
            free(bf);
            return npk_fail(NPK_ENOMEM, "reference: out of memory");
        }
        for (size_t i = 0; i < (size_t)k * n; i++)
            bf[i] = npk_f16_to_f32(bh[i]);
        for (uint32_t i = 0; i < m; i++) {
            for (uint32_t j = 0; j < n; j++)
                row[j] = 0;
            for (uint32_t p = 0; p < k; p++) {
                double x = npk_f16_to_f32(ah[(size_t)i * k + p]);
                const float *br = bf + (size_t)p * n;
                for (uint32_t j = 0; j < n; j++)
                    row[j] += x * br[j];
            }
            for (uint32_t j = 0; j < n; j++) /* rounded once to fp32, then to the output */
                npk_rk_prec_store(out, c, (size_t)i * n + j, (float)row[j]);
        }
        free(row);
        free(bf);
        return NPK_OK;
    }
    if (!in_row)
        return npk_fail(NPK_EINVAL, "reference: inputs must be fp16, int8 or int4");
    if (!npk_rk_host_out_ok(in, out))
        return npk_fail(NPK_EINVAL, "reference: integer inputs give int32");
    const int8_t *ai = a, *bi = b;
    int64_t *row = malloc(n * sizeof *row);
    if (!row)
        return npk_fail(NPK_ENOMEM, "reference: out of memory");
    for (uint32_t i = 0; i < m; i++) {
        for (uint32_t j = 0; j < n; j++)
            row[j] = 0;
        for (uint32_t p = 0; p < k; p++) {
            int64_t x = ai[(size_t)i * k + p];
            const int8_t *br = bi + (size_t)p * n;
            for (uint32_t j = 0; j < n; j++)
                row[j] += x * br[j];
        }
        for (uint32_t j = 0; j < n; j++) /* int32 wraps like the hardware's accumulator */
            ((int32_t *)c)[(size_t)i * n + j] = (int32_t)(uint32_t)row[j];
    }
    free(row);
    return NPK_OK;
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
