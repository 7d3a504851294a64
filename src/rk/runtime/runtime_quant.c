/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Quantised matmuls (W8A8, per-group scales along K): every group's partial sum is an exact
 * int32 matmul on the NPU, run through the matmul spine; the host scales the partials and adds
 * them in fp32. A "pass" is one spine matmul over a K range of whole groups: with one group per
 * pass it is K-sliced tasks; with j groups per pass A is run as j rows per token, each row zero
 * outside its group, so one pass returns j partials per token (runtime_quant_plan.c chooses j). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "common/measure.h"
#include "runtime_internal.h"
#include "runtime_layout.h"
#include "runtime_matmul.h"
#include "runtime_weights.h"
#include "runtime_quant.h"

/* The expanded A of one pass is built in row chunks of at most this many bytes, so a call with
 * an M far above the weights' m_hint stays bounded in memory. */
#define QUANT_CHUNK_BYTES ((uint64_t)64 << 20)

static npk_status check_scales(const float *v, uint64_t count, const char *what)
{
    for (uint64_t i = 0; i < count; i++)
        if (!isfinite(v[i]))
            return npk_fail(NPK_EINVAL, "matmul_quant: %s scale[%llu] = %g is not finite", what,
                            (unsigned long long)i, (double)v[i]);
    return NPK_OK;
}

static npk_status check_desc(const npk_rk *rt, const npk_rk_qweights_desc *d, uint32_t *groups)
{
    if (!rt || !d || !d->b)
        return npk_fail(NPK_EINVAL, "qweights_pack: NULL %s",
                        !rt  ? "runtime"
                        : !d ? "description"
                             : "B");
    if (d->in != NPK_PREC_INT8 && d->in != NPK_PREC_INT4)
        return npk_fail(NPK_EINVAL, "qweights_pack: %s weights: quantised weights are int8 or int4",
                        npk_rk_prec_name(d->in) ? npk_rk_prec_name(d->in) : "?");
    if (!d->k || !d->n || d->k > NPK_RK_LAYOUT_MAX_DIM || d->n > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(d->k && d->n ? NPK_ELIMIT : NPK_EINVAL,
                        "qweights_pack: K=%u N=%u: each 1..%zu", d->k, d->n,
                        (size_t)NPK_RK_LAYOUT_MAX_DIM);
    if (d->layout != NPK_RK_ROWS && d->layout != NPK_RK_TRANSPOSED && d->layout != NPK_RK_NATIVE)
        return npk_fail(NPK_EINVAL, "qweights_pack: B layout %d (0 rows, 1 native, 2 transposed)",
                        (int)d->layout);
    if (d->group % NPK_RK_QGROUP_ALIGN)
        return npk_fail(NPK_EINVAL,
                        "qweights_pack: group %u: a multiple of %u (K slices of the NPU's weights "
                        "are), or %u for one group per output channel",
                        d->group, NPK_RK_QGROUP_ALIGN, NPK_RK_QGROUP_CHANNEL);
    /* a group as long as K or longer is one group over K: the per-channel case */
    *groups = d->group && d->group < d->k ? (d->k + d->group - 1) / d->group : 1;
    /* a group's sum is exact while its largest magnitude, K x 128 x 128 (int8) or K x 8 x 8
     * (int4), stays within int32 (the accumulator wraps beyond it) */
    uint64_t longest = *groups == 1 ? d->k : d->group;
    uint64_t top = d->in == NPK_PREC_INT8 ? 128 * 128 : 8 * 8;
    if (longest * top > INT32_MAX)
        return npk_fail(NPK_ELIMIT,
                        "qweights_pack: a group of K=%llu: its int32 sum could wrap (at most "
                        "%llu for %s); use groups of at most that",
                        (unsigned long long)longest, (unsigned long long)(INT32_MAX / top),
                        npk_rk_prec_name(d->in));
    uint64_t want = (uint64_t)*groups * d->n;
    if (!d->scale || d->scale_count != want)
        return npk_fail(NPK_EINVAL,
                        "qweights_pack: B's scales: %llu given (%s), %llu wanted (N=%u x %u "
                        "group%s)",
                        (unsigned long long)d->scale_count, d->scale ? "array" : "NULL",
                        (unsigned long long)want, d->n, *groups, *groups == 1 ? "" : "s");
    return check_scales(d->scale, want, "B");
}

/* B's scales as [groups][N]. */
static float *scales_by_group(const npk_rk_qweights_desc *d, uint32_t groups)
{
    float *s = malloc((size_t)groups * d->n * sizeof *s);
    if (!s)
        return NULL;
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t j = 0; j < d->n; j++)
            s[(size_t)g * d->n + j] = d->layout != NPK_RK_TRANSPOSED
                                          ? d->scale[(size_t)g * d->n + j]
                                          : d->scale[(size_t)j * groups + g];
    return s;
}

npk_status npk_rk_qweights_pack(npk_rk *rt, const npk_rk_qweights_desc *d, npk_rk_qweights **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "qweights_pack: NULL output handle");
    *out = NULL;
    uint32_t groups = 1;
    npk_status s = check_desc(rt, d, &groups);
    if (s)
        return s;
    npk_rk_qweights *q = calloc(1, sizeof *q);
    if (!q)
        return npk_fail(NPK_ENOMEM, "qweights_pack: out of memory");
    q->owner = rt;
    q->in = d->in;
    q->k = d->k;
    q->n = d->n;
    q->group = groups == 1 ? d->k : d->group;
    q->given_group = d->group;
    q->groups = groups;
    q->m_hint = d->m_hint ? d->m_hint : 1;
    q->scale = scales_by_group(d, groups);
    if (!q->scale) {
        free(q);
        return npk_fail(NPK_ENOMEM, "qweights_pack: out of memory for the scales");
    }
    void *tmp = NULL;
    const void *rows = NULL;
    s = npk_rk_b_rows(d->in, d->k, d->n, d->b, d->layout, &rows, &tmp);
    if (s == NPK_OK)
        s = npk_rk_quant_choose(rt, q, d->groups_per_pass);
    if (s == NPK_OK) /* takes the runtime's lock for the device memory */
        s = npk_rk_weights_pack_sliced(rt, d->in, d->k, d->n, rows, q->m_hint, q->k_slice, &q->w);
    free(tmp);
    if (s) {
        npk_rk_qweights_free(rt, q);
        return s;
    }
    *out = q;
    return NPK_OK;
}

void npk_rk_qweights_free(npk_rk *rt, npk_rk_qweights *qw)
{
    if (!qw)
        return;
    npk_rk_weights_free(rt, qw->w);
    npk_rk_quant_plans_free(qw);
    free(qw->scale);
    free(qw);
}

npk_status npk_rk_qweights_query(const npk_rk_qweights *qw, npk_rk_qweights_info *info)
{
    if (!qw || !info)
        return npk_fail(NPK_EINVAL, "qweights_query: NULL %s", qw ? "info" : "weights");
    *info = (npk_rk_qweights_info){
        .in = qw->in,
        .k = qw->k,
        .n = qw->n,
        .group = qw->given_group,
        .groups = qw->groups,
        .groups_per_pass = qw->per_pass,
        .passes = qw->passes,
        .m_hint = qw->m_hint,
        .ksliced_us = qw->ksliced_us,
        .chosen_us = qw->chosen_us,
    };
    return NPK_OK;
}

/* ---- the call ---------------------------------------------------------------------------------
 */

typedef struct qcall {
    npk_rk *rt;
    npk_rk_qweights *q; /* its kept plans change: under the runtime's call lock */
    uint32_t m;
    const int8_t *a;
    const float *sa;
    uint64_t sa_count;
    float *acc; /* [M][N] */
    npk_rk_stats *st;
} qcall;

static float a_scale(const qcall *c, uint32_t m, uint32_t g)
{
    if (c->sa_count == 1)
        return c->sa[0];
    if (c->sa_count == c->m)
        return c->sa[m];
    return c->sa[(size_t)m * c->q->groups + g];
}

/* c[j] += sa * sb[j] * p[j] over one row: restrict lets the compiler vectorise it (the rows
 * never overlap). */
static void scale_add(float *restrict c, const float *restrict sb, const int32_t *restrict p,
                      float sa, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        c[j] += sa * sb[j] * (float)p[j];
}

/* One pass's partials P [(m - m0) * jg + gi][N] added into C: C[m][n] += sa * sb * P. */
static void combine(const qcall *c, const npk_rk_quant_pass *p, uint32_t m0, uint32_t m1,
                    const int32_t *part)
{
    const uint32_t n = c->q->n;
    for (uint32_t m = m0; m < m1; m++)
        for (uint32_t gi = 0; gi < p->groups; gi++)
            scale_add(c->acc + (size_t)m * n, c->q->scale + (size_t)p->g0 * n + (size_t)gi * n,
                      part + ((size_t)(m - m0) * p->groups + gi) * n, a_scale(c, m, p->g0 + gi), n);
}

/* Rows [m0, m1) of A over the pass's K range, one row per token and group, each zero outside
 * its group (one group per pass: the tokens' K range as it is). */
static void expand_a(const qcall *c, const npk_rk_quant_pass *p, uint32_t m0, uint32_t m1,
                     int8_t *dst)
{
    const uint32_t kk = p->k1 - p->k0, gsz = c->q->group;
    memset(dst, 0, (size_t)(m1 - m0) * p->groups * kk);
    for (uint32_t m = m0; m < m1; m++)
        for (uint32_t gi = 0; gi < p->groups; gi++) {
            uint32_t x0 = gi * gsz, x1 = x0 + gsz < kk ? x0 + gsz : kk;
            memcpy(dst + ((size_t)(m - m0) * p->groups + gi) * kk + x0,
                   c->a + (size_t)m * c->q->k + p->k0 + x0, x1 - x0);
        }
}

static npk_status run_pass(qcall *c, const npk_rk_quant_pass *p)
{
    const uint32_t kk = p->k1 - p->k0, jg = p->groups, n = c->q->n;
    const bool whole = p->w == c->q->w; /* the weights as packed: A as it is */
    uint64_t row_bytes = (uint64_t)jg * kk + (uint64_t)jg * n * sizeof(int32_t);
    uint32_t chunk = whole ? c->m : (uint32_t)(QUANT_CHUNK_BYTES / row_bytes);
    if (chunk < 1)
        chunk = 1;
    if ((uint64_t)chunk * jg > NPK_RK_PLAN_MAX_DIM)
        chunk = NPK_RK_PLAN_MAX_DIM / jg;
    if (chunk > c->m)
        chunk = c->m;
    int8_t *ax = whole ? NULL : malloc((size_t)chunk * jg * kk);
    int32_t *part = malloc((size_t)chunk * jg * n * sizeof *part);
    npk_status s =
        (!whole && !ax) || !part
            ? npk_fail(NPK_ENOMEM, "matmul_quant: no memory for a pass of %u rows", chunk * jg)
            : NPK_OK;
    for (uint32_t m0 = 0; s == NPK_OK && m0 < c->m; m0 += chunk) {
        uint32_t m1 = m0 + chunk < c->m ? m0 + chunk : c->m;
        uint64_t t0 = npk_now_ns();
        if (!whole)
            expand_a(c, p, m0, m1, ax);
        c->st->pack_ns += npk_now_ns() - t0;
        npk_rk_stats part_st = {0};
        const uint32_t rows = (m1 - m0) * jg;
        t0 = npk_now_ns();
        const npk_rk_plan *plan = npk_rk_quant_plan(c->q, c->rt, p->w, rows);
        c->st->synth_ns += npk_now_ns() - t0; /* planning: host work before the tasks */
        if (!plan) {
            s = NPK_EINVAL;
            break;
        }
        s = npk_rk_matmul_held_plan(c->rt, p->w, rows, whole ? (const void *)c->a : ax,
                                    NPK_PREC_INT32, part, plan, &part_st);
        npk_rk_stats_add(c->st, &part_st);
        c->st->npu_span_ns += part_st.npu_span_ns; /* passes run one after another */
        if (part_st.cores_used > c->st->cores_used)
            c->st->cores_used = part_st.cores_used;
        if (s == NPK_OK) {
            t0 = npk_now_ns();
            combine(c, p, m0, m1, part);
            c->st->accumulate_ns += npk_now_ns() - t0;
        }
    }
    free(ax);
    free(part);
    return s;
}

static npk_status check_call(npk_rk *rt, const npk_rk_qweights *q, uint32_t m, const void *a,
                             const float *sa, uint64_t sa_count, npk_rk_prec out, void *c)
{
    if (!q)
        return npk_fail(NPK_EINVAL, "matmul_quant: NULL weights");
    if (q->owner != rt)
        return npk_fail(NPK_EINVAL, "matmul_quant: the weights were packed by another runtime");
    npk_status s = npk_rk_matmul_check(rt, q->w, m, a, NPK_PREC_INT32, c);
    if (s)
        return s;
    if (out != NPK_PREC_FP32 && out != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL, "matmul_quant: output %s: fp32 or fp16",
                        npk_rk_prec_name(out) ? npk_rk_prec_name(out) : "?");
    uint64_t per_group = (uint64_t)m * q->groups;
    if (!sa || (sa_count != 1 && sa_count != m && sa_count != per_group))
        return npk_fail(NPK_EINVAL,
                        "matmul_quant: A's scales: %llu given (%s); 1 (per tensor), M=%u (per "
                        "row) or M x groups = %llu (per row and group)",
                        (unsigned long long)sa_count, sa ? "array" : "NULL", m,
                        (unsigned long long)per_group);
    return check_scales(sa, sa_count, "A");
}

npk_status npk_rk_matmul_quant(npk_rk *rt, const npk_rk_qweights *qw, uint32_t m, const void *a,
                               const float *a_scale, uint64_t a_scale_count, npk_rk_prec out,
                               void *c, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    uint64_t start = npk_now_ns();
    npk_status s = check_call(rt, qw, m, a, a_scale, a_scale_count, out, c);
    if (s || (s = npk_rk_call_begin(rt, "matmul_quant")))
        return s;
    const size_t count = (size_t)m * qw->n;
    float *acc = out == NPK_PREC_FP32 ? c : malloc(count * sizeof *acc);
    if (!acc)
        s = npk_fail(NPK_ENOMEM, "matmul_quant: no memory for the fp32 result");
    else
        memset(acc, 0, count * sizeof *acc);
    qcall call = {rt, (npk_rk_qweights *)qw, m, a, a_scale, a_scale_count, acc, st};
    for (uint32_t i = 0; s == NPK_OK && i < qw->passes; i++) {
        npk_rk_weights view;
        npk_rk_quant_pass p;
        npk_rk_quant_pass_of(qw, i, &view, &p);
        s = run_pass(&call, &p);
    }
    if (s == NPK_OK && out == NPK_PREC_FP16) {
        uint16_t *ch = c;
        for (size_t i = 0; i < count; i++)
            ch[i] = npk_f32_to_f16(acc[i]);
    }
    if (acc != c)
        free(acc);
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}
