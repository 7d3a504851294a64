/* SPDX-License-Identifier: MIT */
/* The submission form a matmul runs in (runtime_form_choice.c). */
#ifndef NPUKIT_RK_RUNTIME_FORM_CHOICE_H
#define NPUKIT_RK_RUNTIME_FORM_CHOICE_H

#include "npukit/rk_plan.h"
#include "runtime_internal.h"

/* The form chosen and the modelled totals behind it (form_us: the runtime's own form's plan;
 * multitask_us: the vendor's shape in "multitask", 0 when it was not weighed). */
typedef struct npk_rk_form_pick {
    const struct npk_rk_submission_row *form;
    double form_us, multitask_us;
} npk_rk_form_pick;

/* Plan a matmul of w at M = m (tasks writing task_out) in the runtime's form and, where it may
 * be weighed, in the multi-task form with one row per task; *plan is the cheaper one's (the
 * caller frees it), pick->form the form to run it in. */
npk_status npk_rk_form_choose(const npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                              npk_rk_prec task_out, npk_rk_form_pick *pick, npk_rk_plan *plan);

#endif
