/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* How many groups of a per-group quantised matmul one NPU pass runs: the planner's cost model
 * (modelled NPU time plus modelled host time) of every pass at M = m_hint, over the candidates
 * 1 (K-sliced tasks: each task's K slice one group, M rows), 2, 4, ... groups per pass and all of
 * them in one pass (j groups: j rows per token, a K slice of j groups). Few rows favour many
 * groups per pass (fewer tasks, submits and weight passes for the same rows), many rows favour
 * K-sliced tasks (the expanded rows multiply the NPU's work by j). */
#include <stdio.h>

#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "runtime_matmul.h"
#include "runtime_request.h"
#include "runtime_weights.h"
#include "runtime_quant.h"

/* The modelled time of one spine matmul (rows x kk x n, weights sliced at k_slice), or < 0 when
 * it cannot be planned (the planner's message set). */
static double pass_us(const npk_rk *rt, npk_rk_prec in, uint64_t rows, uint32_t kk, uint32_t n,
                      uint32_t k_slice, int k_pad)
{
    if (rows > NPK_RK_PLAN_MAX_DIM) {
        npk_fail(NPK_ELIMIT, "qweights: a pass of %llu rows exceeds %u", (unsigned long long)rows,
                 NPK_RK_PLAN_MAX_DIM);
        return -1;
    }
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, in, (uint32_t)rows, kk, n);
    req.out = npk_rk_input_row(in)->acc;
    req.cores = rt->cores;
    req.soc = rt->soc;
    req.k_slice = k_slice;
    req.k_pad = k_pad;
    npk_rk_request_submits(rt, &req);
    npk_rk_plan p;
    if (npk_rk_plan_matmul(&req, &p))
        return -1;
    double us = p.total_us;
    npk_rk_plan_free(&p);
    return us;
}

/* The host's combine after the passes: every partial element (M x N per group) read once more,
 * scaled and added on the calling thread, at the host model's rate per output element. */
static double combine_us(const npk_rk_qweights *q, uint32_t m)
{
    return (double)m * q->groups * q->n * npk_rk_host_model_get().out_ns_per_elem / 1e3;
}

/* Modelled time of a call at M = m with the weights sliced at `slice` (whole groups), or < 0. */
static double cost_us(const npk_rk *rt, const npk_rk_qweights *q, uint32_t m, uint32_t slice)
{
    double total = 0;
    for (uint32_t k0 = 0; k0 < q->k; k0 += slice) {
        uint32_t kk = q->k - k0 < slice ? q->k - k0 : slice;
        uint32_t jg = (kk + q->group - 1) / q->group;
        if (k0 && kk == slice) { /* every full pass costs what the first did */
            total += total / (k0 / slice);
            continue;
        }
        /* the last slice is packed as it is (npk_rk_weights_new with a given slicing) */
        double us = pass_us(rt, q->in, (uint64_t)m * jg, kk, q->n, slice, 0);
        if (us < 0)
            return -1;
        total += us;
    }
    return total + combine_us(q, m);
}

npk_status npk_rk_quant_choose(const npk_rk *rt, npk_rk_qweights *q, uint32_t want)
{
    if (q->groups == 1) { /* one group over K: the plain int32 matmul at the planner's slicing */
        q->per_pass = 1;
        q->k_slice = 0;
        q->passes = 1;
        q->ksliced_us = 0;
        double us = pass_us(rt, q->in, q->m_hint, q->k, q->n, 0, -1);
        if (us < 0)
            return NPK_EINVAL;
        q->chosen_us = us + combine_us(q, q->m_hint);
        return NPK_OK;
    }
    const uint32_t whole = (uint32_t)npk_rk_k_padded(q->k); /* one pass over all of K */
    double best = -1;
    for (uint32_t j = want ? want : 1;; j = j * 2 < q->groups ? j * 2 : q->groups) {
        if (j > q->groups)
            j = q->groups;
        uint32_t slice = j == q->groups || (uint64_t)j * q->group >= q->k ? whole : j * q->group;
        double us = cost_us(rt, q, q->m_hint, slice);
        if (j == 1)
            q->ksliced_us = us > 0 ? us : 0;
        if (us >= 0 && (best < 0 || us < best)) {
            best = us;
            q->per_pass = j;
            q->k_slice = slice;
        }
        if (want || j == q->groups)
            break;
    }
    if (best < 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", npk_last_error());
        return npk_fail(NPK_ELIMIT,
                        "qweights: no pass of %u group%s of K=%u fits the NPU's K per task "
                        "(%s)",
                        want ? want : 1, want > 1 ? "s" : "", q->group, why);
    }
    q->chosen_us = best;
    q->passes = (q->k + q->k_slice - 1) / q->k_slice;
    return NPK_OK;
}

void npk_rk_quant_pass_of(const npk_rk_qweights *q, uint32_t i, npk_rk_weights *view,
                          npk_rk_quant_pass *p)
{
    if (q->groups == 1) {
        *p = (npk_rk_quant_pass){q->w, 0, q->k, 0, 1};
        return;
    }
    const npk_rk_weights *w = q->w;
    uint32_t k0 = i * w->k_slice, k1 = k0 + w->k_slice < q->k ? k0 + w->k_slice : q->k;
    npk_rk_weights_slice_view(w, i, view);
    view->k = k1 - k0;
    view->src = NULL;
    view->in_place = false;
    view->have_sum = false;
    *p = (npk_rk_quant_pass){view, k0, k1, k0 / q->group, (k1 - k0 + q->group - 1) / q->group};
}

npk_status npk_rk_matmul_quant_cost(npk_rk *rt, const npk_rk_qweights *qw, uint32_t m, double *us)
{
    if (!rt || !qw || !us)
        return npk_fail(NPK_EINVAL, "matmul_quant_cost: NULL %s",
                        !rt   ? "runtime"
                        : !qw ? "weights"
                              : "result");
    if (!m || m > NPK_RK_PLAN_MAX_DIM)
        return npk_fail(NPK_EINVAL, "matmul_quant_cost: M=%u: 1..%u", m, NPK_RK_PLAN_MAX_DIM);
    /* the weights' own slicing: per channel the planner's, else whole groups per pass */
    double t = qw->groups == 1
                   ? pass_us(rt, qw->in, m, qw->k, qw->n, qw->w->k_slice, qw->w->k_pad ? 1 : 0)
                   : cost_us(rt, qw, m, qw->w->k_slice);
    if (t < 0)
        return NPK_ELIMIT;
    *us = qw->groups == 1 ? t + combine_us(qw, m) : t;
    return NPK_OK;
}

/* Two requests plan alike: every field the planner reads (the warm-up state is not costed by the
 * runtime's requests). */
static bool same_request(const npk_rk_plan_request *x, const npk_rk_plan_request *y)
{
    return x->in == y->in && x->out == y->out && x->m == y->m && x->k == y->k && x->n == y->n &&
           x->cores == y->cores && x->mode == y->mode && x->soc == y->soc &&
           x->k_slice_max == y->k_slice_max && x->k_slice == y->k_slice && x->k_pad == y->k_pad &&
           x->chain == y->chain && x->chain_m_tiles == y->chain_m_tiles &&
           x->core_split == y->core_split && x->m_tiling == y->m_tiling &&
           x->host_one_thread == y->host_one_thread && x->host == y->host &&
           x->cost_warmups == y->cost_warmups && !x->cost_warmups;
}

const npk_rk_plan *npk_rk_quant_plan(npk_rk_qweights *q, const npk_rk *rt, const npk_rk_weights *w,
                                     uint32_t rows)
{
    npk_rk_plan_request req;
    npk_rk_matmul_request(rt, w, rows, npk_rk_task_out(w, NPK_PREC_INT32), &req);
    for (unsigned i = 0; i < NPK_RK_QUANT_PLANS; i++)
        if (q->plans[i].used && same_request(&q->plans[i].req, &req))
            return &q->plans[i].plan;
    npk_rk_quant_plan_slot *slot = &q->plans[q->next_plan];
    q->next_plan = (q->next_plan + 1) % NPK_RK_QUANT_PLANS;
    if (slot->used)
        npk_rk_plan_free(&slot->plan);
    slot->used = false;
    if (npk_rk_plan_matmul(&req, &slot->plan))
        return NULL;
    slot->req = req;
    slot->used = true;
    return &slot->plan;
}

void npk_rk_quant_plans_free(npk_rk_qweights *q)
{
    for (unsigned i = 0; i < NPK_RK_QUANT_PLANS; i++)
        if (q->plans[i].used) {
            npk_rk_plan_free(&q->plans[i].plan);
            q->plans[i].used = false;
        }
}
