/* SPDX-License-Identifier: MIT */
/* Quantised weights (npk_rk_qweights) and their passes, shared by runtime_quant.c (the call)
 * and runtime_quant_plan.c (how many groups one pass runs). */
#ifndef NPUKIT_RK_RUNTIME_QUANT_H
#define NPUKIT_RK_RUNTIME_QUANT_H

#include "runtime_internal.h"

/* A pass's plan kept across calls: planning is host work that depends only on the request
 * (the pass's rows and K slice and the runtime's settings), the same for every full pass. */
enum { NPK_RK_QUANT_PLANS = 2 }; /* a call's full passes and its last one */
typedef struct npk_rk_quant_plan_slot {
    bool used;
    npk_rk_plan_request req;
    npk_rk_plan plan;
} npk_rk_quant_plan_slot;

struct npk_rk_qweights {
    const npk_rk *owner;
    npk_rk_prec in;
    uint32_t k, n;
    uint32_t given_group; /* as the caller gave it (NPK_RK_QGROUP_CHANNEL or K per group) */
    uint32_t group;       /* K per group (K itself for one group over K) */
    uint32_t groups;      /* ceil(K / group) */
    float *scale;         /* B's scales [groups][N] */
    uint32_t m_hint;
    /* the choice (npk_rk_quant_choose) */
    uint32_t per_pass; /* groups per pass */
    uint32_t k_slice;  /* the weights' K slice: per_pass groups (0: the planner's, one group) */
    uint32_t passes;
    double ksliced_us, chosen_us;
    npk_rk_weights *w; /* packed at k_slice */
    /* plans of earlier passes (changed only under the owner runtime's call lock) */
    npk_rk_quant_plan_slot plans[NPK_RK_QUANT_PLANS];
    unsigned next_plan;
};

/* The plan of a pass of `rows` rows on w (a view of q's weights) for rt's settings: a kept one
 * when its request is the same, else planned and kept; NULL with the planner's error. */
const npk_rk_plan *npk_rk_quant_plan(npk_rk_qweights *q, const npk_rk *rt, const npk_rk_weights *w,
                                     uint32_t rows);
/* Frees the kept plans. */
void npk_rk_quant_plans_free(npk_rk_qweights *q);

/* One pass: a spine matmul over K range [k0, k1) holding groups [g0, g0 + groups), on w (the
 * weights as packed, when the whole K is one group; else a view of one K slice). */
typedef struct npk_rk_quant_pass {
    const npk_rk_weights *w;
    uint32_t k0, k1, g0, groups;
} npk_rk_quant_pass;

/* Choose q->per_pass, k_slice and passes for q's shape at q->m_hint by the planner's cost model
 * (want > 0: that many groups per pass, refused when no plan runs it). */
npk_status npk_rk_quant_choose(const npk_rk *rt, npk_rk_qweights *q, uint32_t want);
/* Pass i of q; *view receives the slice's weights view that p->w may point to. */
void npk_rk_quant_pass_of(const npk_rk_qweights *q, uint32_t i, npk_rk_weights *view,
                          npk_rk_quant_pass *p);

#endif
