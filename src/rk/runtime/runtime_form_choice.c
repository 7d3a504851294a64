/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Which submission form a matmul runs in: the runtime's own, or the vendor's multi-task SUBMIT
 * (one row per task) where the precision row says the vendor batches that way and the planner's
 * cost model finds it cheaper (the choice of npk_rk_matmul, and of npk_rk_submission_choice in
 * runtime_matmul.c). */
#include "runtime_form_choice.h"

#include "npukit/rk.h"
#include "rk/program/submission.h"
#include "runtime_request.h"

/* The multi-task form, when the matmul of w may be weighed in it on rt. */
static const npk_rk_submission_row *weighable(const npk_rk *rt, const npk_rk_weights *w)
{
    const npk_rk_submission_row *multi = npk_rk_submission_find("multitask");
    if (rt->form_forced || rt->m_tile_chain || !npk_rk_input_row(w->in)->vendor_multitask ||
        rt->submission == multi || npk_rk_submission_refusal(multi, rt->form->name, w->in))
        return NULL;
    return multi;
}

npk_status npk_rk_form_choose(const npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                              npk_rk_prec task_out, npk_rk_form_pick *pick, npk_rk_plan *plan)
{
    *pick = (npk_rk_form_pick){rt->submission, 0, 0};
    npk_rk_plan_request req;
    npk_rk_matmul_request(rt, w, m, task_out, &req);
    npk_status s = npk_rk_plan_matmul(&req, plan);
    if (s)
        return s;
    pick->form_us = plan->total_us;
    const npk_rk_submission_row *multi = weighable(rt, w);
    if (!multi)
        return NPK_OK;
    /* the vendor's shape: one row per task, a core's tasks up to the chain in each SUBMIT of
     * every core */
    s = npk_rk_submission_plan(multi->name, rt->chain, &req);
    req.m_tile_max = 1;
    npk_rk_plan other;
    if (s == NPK_OK)
        s = npk_rk_plan_matmul(&req, &other);
    if (s) {
        npk_rk_plan_free(plan);
        return s;
    }
    pick->multitask_us = other.total_us;
    if (other.total_us < plan->total_us) {
        npk_rk_plan_free(plan);
        *plan = other;
        pick->form = multi;
    } else {
        npk_rk_plan_free(&other);
    }
    return NPK_OK;
}
