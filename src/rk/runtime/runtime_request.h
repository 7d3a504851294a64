/* SPDX-License-Identifier: MIT */
/* The plan request of a runtime's matmul (runtime_request.c): what the weights' slicing and
 * the matmul spine both plan with. */
#ifndef NPUKIT_RK_RUNTIME_REQUEST_H
#define NPUKIT_RK_RUNTIME_REQUEST_H

#include "npukit/rk_plan.h"
#include "runtime_internal.h"

/* The plan request of a matmul of w at M = m whose tasks write task_out, on rt's cores and in
 * the slicing the weights were packed in. */
void npk_rk_matmul_request(const npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                           npk_rk_prec task_out, npk_rk_plan_request *req);
/* The runtime's submission form and chain in a plan request, for the plan's cost. */
void npk_rk_request_submits(const npk_rk *rt, npk_rk_plan_request *req);
/* The runtime's feature pitch and M schedule in a plan request (the matmul and its weights'
 * slicing plan with them). */
void npk_rk_request_layout(const npk_rk *rt, npk_rk_plan_request *req);

#endif
