/* SPDX-License-Identifier: MIT */
/* The offload decision for a MUL_MAT (or MUL_MAT_ID, as the experts picked): the planner's
 * modelled call (NPU time from the timing model plus the host model's work, rk_plan.h) plus
 * converting the activations (in the weights' form, npg_types.c, at the tasks per SUBMIT the
 * device chains), against a CPU estimate of 2 M N K flops at NPUKIT_GGML_CPU_GFLOPS.
 * Small M (decode) keeps the NPU's fixed per-task and per-submit costs against few flops, so it
 * stays on the CPU unless the model says otherwise; NPUKIT_GGML_OFFLOAD=always or never overrides
 * the decision. */
#include <string.h>

#include "npg.h"
#include "npukit/rk_plan.h"

/* What a node's cost depends on besides the settings: its weights' type (their form), K, N,
 * the rows per runtime call and the calls, the cores, and the runtime's host model (a program
 * may set its own). */
typedef struct cost_shape {
    enum ggml_type type;
    unsigned cores;
    int64_t k, n, rows, mats;
    npk_rk_host_model host;
} cost_shape;

/* op's shape; false for a node the device cannot compute. */
static bool shape_of(const struct ggml_tensor *op, unsigned cores, cost_shape *sh)
{
    const struct ggml_tensor *a = op->src[0], *b = op->src[1];
    memset(sh, 0, sizeof *sh); /* a key compared bytewise: no stray padding */
    if (npg_can_mul_mat(op)) {
        sh->rows = b->ne[1] * (b->ne[2] / a->ne[2]) * (b->ne[3] / a->ne[3]);
        sh->mats = a->ne[2] * a->ne[3];
    } else if (npg_can_mul_mat_id(op)) {
        /* the tokens' picks spread evenly over the experts (a call per expert picked) */
        const int64_t picks = op->src[2]->ne[0] * op->src[2]->ne[1];
        sh->mats = picks < a->ne[2] ? picks : a->ne[2];
        sh->rows = sh->mats ? (picks + sh->mats - 1) / sh->mats : 0;
    } else {
        return false;
    }
    sh->type = a->type;
    sh->k = a->ne[0], sh->n = a->ne[1];
    sh->cores = cores;
    sh->host = npk_rk_host_model_get();
    return true;
}

bool npg_mul_mat_cost(const struct ggml_tensor *op, unsigned cores, npg_cost *out)
{
    cost_shape sh;
    if (!shape_of(op, cores, &sh))
        return false;
    const struct ggml_tensor *a = op->src[0];
    const int64_t rows = sh.rows, mats = sh.mats, k = sh.k, n = sh.n;
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

/* The decisions made: ggml_backend_sched asks supports_op of every matmul of every graph
 * (llama.cpp's decode: each node several times per token), and planning one costs about
 * 30 us here, as much as a small decode matmul on the CPU: the answer per shape is kept until
 * the settings are read again. Direct-mapped by a hash of the shape. */
#define NPG_DECISIONS 256

static struct decision {
    cost_shape shape;
    unsigned generation; /* the settings' (0: empty) */
    bool offload;
} decisions[NPG_DECISIONS];
static pthread_mutex_t decisions_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t shape_slot(const cost_shape *sh)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the key's bytes */
    const uint8_t *p = (const uint8_t *)sh;
    for (size_t i = 0; i < sizeof *sh; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return (size_t)(h % NPG_DECISIONS);
}

/* The cost policy's answer for op: remembered, or priced now. */
static bool offload_by_cost(const struct ggml_tensor *op, unsigned cores)
{
    cost_shape sh;
    if (!shape_of(op, cores, &sh))
        return false;
    const unsigned gen = npg_settings_get()->generation;
    struct decision *d = &decisions[shape_slot(&sh)];
    pthread_mutex_lock(&decisions_lock);
    const bool known = d->generation == gen && memcmp(&d->shape, &sh, sizeof sh) == 0;
    const bool remembered = d->offload;
    pthread_mutex_unlock(&decisions_lock);
    if (known)
        return remembered;
    npg_cost c;
    const bool offload = npg_mul_mat_cost(op, cores, &c) && c.offload;
    pthread_mutex_lock(&decisions_lock);
    memcpy(&d->shape, &sh, sizeof sh); /* bytewise: the key is compared bytewise */
    d->generation = gen;
    d->offload = offload;
    pthread_mutex_unlock(&decisions_lock);
    return offload;
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
    return offload_by_cost(op, cores);
}
