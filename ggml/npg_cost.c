/* SPDX-License-Identifier: MIT */
/* The offload decision for a MUL_MAT (or MUL_MAT_ID, as the experts picked): the planner's
 * modelled call (NPU time from the timing model plus the host model's work, rk_plan.h) plus
 * converting the activations (in the weights' form, npg_types.c, at the tasks per SUBMIT the
 * device chains), against a CPU estimate of 2 M N K flops at NPUKIT_GGML_CPU_GFLOPS.
 * Small M (decode) keeps the NPU's fixed per-task and per-submit costs against few flops, so it
 * stays on the CPU unless the model says otherwise; NPUKIT_GGML_OFFLOAD=always or never overrides
 * the decision. */
#include "npg.h"
#include "npukit/rk_plan.h"

bool npg_mul_mat_cost(const struct ggml_tensor *op, unsigned cores, npg_cost *out)
{
    const struct ggml_tensor *a = op->src[0], *b = op->src[1];
    int64_t rows, mats; /* rows per runtime call, calls */
    if (npg_can_mul_mat(op)) {
        rows = b->ne[1] * (b->ne[2] / a->ne[2]) * (b->ne[3] / a->ne[3]);
        mats = a->ne[2] * a->ne[3];
    } else if (npg_can_mul_mat_id(op)) {
        /* the tokens' picks spread evenly over the experts (a call per expert picked) */
        const int64_t picks = op->src[2]->ne[0] * op->src[2]->ne[1];
        mats = picks < a->ne[2] ? picks : a->ne[2];
        rows = mats ? (picks + mats - 1) / mats : 0;
    } else {
        return false;
    }
    const int64_t k = a->ne[0], n = a->ne[1];
    *out = (npg_cost){0};
    if (k == 0 || n == 0 || rows == 0)
        return true;
    /* the weights' form: its precision, and its runtime rows per activation row */
    const npg_form_row *f = npg_form_info(npg_form_of(a->type));
    /* batched (NPUKIT_GGML_BATCH), the matrices' matmuls share jobs and SUBMITs: priced as one
     * matmul of the matrices side by side (the same tasks and weight bytes, N mats wide);
     * otherwise a call per matrix */
    const bool side_by_side = npg_settings_get()->batch && n * mats <= NPK_RK_PLAN_MAX_DIM;
    const int64_t plan_n = side_by_side ? n * mats : n, plans = side_by_side ? 1 : mats;
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, f->in, (uint32_t)(rows * f->act_rows), (uint32_t)k,
                             (uint32_t)plan_n);
    req.out = f->out;
    req.cores = cores ? cores : 1;
    if (npk_rk_submission_plan(NULL, npg_settings_get()->chain, &req) != NPK_OK)
        return false;
    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan) != NPK_OK)
        return false;
    const npk_rk_host_model host = npk_rk_host_model_get();
    /* the activations read as fp32 and written as fp16 once more than the runtime's own pack */
    const double convert_us = host.pack_ns_per_byte * (double)(rows * k) * 6.0 / 1e3;
    out->npu_us = (plan.model_us + plan.warmup_us) * (double)plans;
    out->host_us = plan.host_us * (double)plans + convert_us * (double)mats;
    npk_rk_plan_free(&plan);
    const double flops = 2.0 * (double)rows * (double)n * (double)k * (double)mats;
    out->cpu_us = flops / (npg_settings_get()->cpu_gflops * 1e3);
    out->offload = out->npu_us + out->host_us < out->cpu_us;
    return true;
}

bool npg_wants(const struct ggml_tensor *op, unsigned cores)
{
    switch (npg_settings_get()->offload) {
    case NPG_OFFLOAD_ALWAYS: return true;
    case NPG_OFFLOAD_NEVER: return false;
    default: break;
    }
    /* element-wise nodes: a submit's floor (tens of microseconds) is more than the CPU takes
     * for the sizes a graph holds, so the cost policy leaves them to the CPU */
    if (op->op != GGML_OP_MUL_MAT && op->op != GGML_OP_MUL_MAT_ID)
        return false;
    npg_cost c;
    return npg_mul_mat_cost(op, cores, &c) && c.offload;
}
