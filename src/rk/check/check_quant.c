/* SPDX-License-Identifier: MIT */
/* The verdict on a quantised matmul: every group's exact partial P_g from the reference's blocks
 * (exact integers), scaled by sa * sb and summed in double, judged with check.c's rule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "reference_internal.h"

typedef struct group_sum {
    const npk_rk_quant_ref *r;
    uint32_t g, groups;
    double *s, *abs; /* [M][N] */
} group_sum;

static double a_scale_of(const npk_rk_quant_ref *r, uint32_t groups, uint32_t i, uint32_t g)
{
    if (r->a_scale_count == 1)
        return r->a_scale[0];
    if (r->a_scale_count == r->m)
        return r->a_scale[i];
    return r->a_scale[(size_t)i * groups + g];
}

static void add_group(void *ctx, uint32_t i0, uint32_t rows, uint32_t j0, uint32_t cols,
                      const double *p, const double *abs_sum, size_t ld)
{
    (void)abs_sum;
    const group_sum *q = ctx;
    const uint32_t n = q->r->n;
    for (uint32_t r = 0; r < rows; r++) {
        double sa = a_scale_of(q->r, q->groups, i0 + r, q->g);
        for (uint32_t c = 0; c < cols; c++) {
            size_t idx = (size_t)(i0 + r) * n + j0 + c;
            double t = sa * q->r->b_scale[(size_t)q->g * n + j0 + c] * p[r * ld + c];
            q->s[idx] += t;
            q->abs[idx] += fabs(t);
        }
    }
}

static npk_status check_ref(const npk_rk_quant_ref *r, npk_rk_prec out, const void *got,
                            const npk_rk_verdict *v, uint32_t groups)
{
    if (!r || !got || !v || !r->a || !r->b || !r->a_scale || !r->b_scale)
        return npk_fail(NPK_EINVAL, "quantised matmul check: NULL operand");
    if (r->in != NPK_PREC_INT8 && r->in != NPK_PREC_INT4)
        return npk_fail(NPK_EINVAL, "quantised matmul check: inputs int8 or int4");
    if (out != NPK_PREC_FP32 && out != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL, "quantised matmul check: output fp32 or fp16");
    if (!r->m || !r->k || !r->n || r->group % NPK_RK_QGROUP_ALIGN)
        return npk_fail(NPK_EINVAL, "quantised matmul check: M=%u K=%u N=%u group %u", r->m, r->k,
                        r->n, r->group);
    uint64_t count = r->a_scale_count;
    if (count != 1 && count != r->m && count != (uint64_t)r->m * groups)
        return npk_fail(NPK_EINVAL, "quantised matmul check: %llu A scales",
                        (unsigned long long)count);
    return NPK_OK;
}

npk_status npk_rk_check_matmul_quant(const npk_rk_quant_ref *r, npk_rk_prec out, const void *got,
                                     npk_rk_verdict *v)
{
    uint32_t groups = r && r->group && r->group < r->k ? (r->k + r->group - 1) / r->group : 1;
    npk_status st = check_ref(r, out, got, v, groups);
    if (st)
        return st;
    const uint32_t gsz = groups == 1 ? r->k : r->group;
    const size_t mn = (size_t)r->m * r->n;
    group_sum q = {r, 0, groups, calloc(mn, sizeof(double)), calloc(mn, sizeof(double))};
    int8_t *ag = malloc((size_t)r->m * gsz);
    if (!q.s || !q.abs || !ag)
        st = npk_fail(NPK_ENOMEM, "quantised matmul check: out of memory");
    for (uint32_t g = 0; st == NPK_OK && g < groups; g++) {
        uint32_t k0 = g * gsz, kk = r->k - k0 < gsz ? r->k - k0 : gsz;
        for (uint32_t i = 0; i < r->m; i++)
            memcpy(ag + (size_t)i * kk, r->a + (size_t)i * r->k + k0, kk);
        q.g = g;
        st = npk_rk_ref_blocks(r->in, r->m, kk, r->n, ag, r->b + (size_t)k0 * r->n, false,
                               add_group, &q);
    }
    if (st == NPK_OK) {
        *v = (npk_rk_verdict){0, 0, 0, 0, 0, 0, mn};
        for (size_t i = 0; i < mn; i++)
            npk_rk_judge_element(v, out, 2 * (groups + 4), i, npk_rk_prec_load(out, got, i), q.s[i],
                                 q.abs[i]);
    }
    free(q.s);
    free(q.abs);
    free(ag);
    return st;
}
