/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* The plan request of a runtime's matmul: its shape, cores, SoC, the weights' slicing and the
 * submission form's grouping. The weights (their slicing) and the matmul spine both plan with
 * it, so it sits below both. */
#include "runtime_request.h"

#include "runtime_forms.h"
#include "rk/program/submission.h"

void npk_rk_matmul_request(const npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                           npk_rk_prec task_out, npk_rk_plan_request *req)
{
    npk_rk_plan_request_init(req, w->in, m, w->k, w->n);
    req->out = task_out;
    req->cores = rt->cores;
    req->soc = rt->soc;
    req->k_slice = w->k_slice;
    req->k_pad = w->k_pad; /* the slicing the weights were packed in */
    if (w->parts) { /* weights split by core: N split where they are cut, on their cores */
        req->cores = w->parts;
        req->core_split = NPK_RK_SPLIT_N;
    }
    npk_rk_request_submits(rt, req);
    npk_rk_request_layout(rt, req);
    /* Warm-ups are not costed here: they are paid once per output buffer, and a plan that
     * depended on the buffers' state (a fresh runtime's first call, or a buffer another
     * runtime's job holds at that moment) would give the same call different tilings, so
     * different fp16 rounding, from one call to the next. */
}

void npk_rk_request_submits(const npk_rk *rt, npk_rk_plan_request *req)
{
    /* the submits the plan's tasks will be grouped into, for its cost: in the runtime's set
     * form (a call running on another thread may have swapped in the form it picked; the
     * multi-task plan is made by the form choice itself) */
    req->chain = rt->form_set->groups ? rt->chain : 1;
    req->chain_m_tiles = rt->form_set->row_offset;
    req->host_one_thread = rt->form_set->all_cores;
}

void npk_rk_request_layout(const npk_rk *rt, npk_rk_plan_request *req)
{
    req->a_pitch = rt->feature_pitch;
    req->m_tile_chain = rt->m_tile_chain;
}
