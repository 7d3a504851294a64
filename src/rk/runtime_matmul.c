/* The one submit spine of the RK runtime: plan -> for each task: pack the feature into the
 * core's stable buffer, synthesize the regcmd, apply the state policy, submit, read back and
 * accumulate on the host. */
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_layout.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_sched.h"
#include "npukit/rk_synth.h"
#include "policy.h"
#include "runtime_internal.h"

typedef struct run {
    npk_rk *rt;
    const npk_rk_weights *w;
    npk_rk_plan plan;
    npk_rk_prec task_out;   /* what each task writes: fp32, fp16, int32 or int16 */
    npk_rk_matrix acc;      /* C itself, or a float scratch for fp16 output over K slices */
    npk_rk_cmatrix a;
    npk_rk_stats *st;
} run;

/* ---- the state policy, applied ------------------------------------------------------------ */

static void apply(npk_rk *rt, unsigned actions)
{
    if (actions & NPK_POLICY_RESET)
        rt->needs_reset = true;
    if (actions & NPK_POLICY_CLEAR_WARM)
        for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
            rt->core[c].output_warm = false;
}

static npk_status reset_if_due(npk_rk *rt, npk_rk_stats *st)
{
    if (!rt->needs_reset)
        return NPK_OK;
    npk_status s = npk_rk_action(rt->dev, RKNPU_ACT_RESET, NULL);
    if (s)
        return s;
    rt->needs_reset = false;
    st->resets++;
    return NPK_OK;
}

/* One SUBMIT of the task in core c's task buffer. */
static npk_status submit(npk_rk *rt, unsigned c, bool warmup, npk_rk_stats *st)
{
    struct rknpu_submit sub;
    memset(&sub, 0, sizeof sub);
    sub.flags = RKNPU_JOB_PC | RKNPU_JOB_BLOCK | RKNPU_JOB_PINGPONG;
    sub.timeout = npk_rk_policy_timeout_ms(warmup);
    sub.task_start = 0;
    sub.task_number = 1;
    sub.task_obj_addr = rt->core[c].task.obj_addr;
    sub.core_mask = 1u << c;
    sub.fence_fd = -1;
    /* Every subcore entry filled: core_mask != 1 with only entry 0 set crashes the kernel. */
    for (unsigned i = 0; i < 5; i++)
        sub.subcore_task[i] = (struct rknpu_subcore_task){0, 1};
    uint64_t t0 = npk_rk_now_ns();
    npk_status s = npk_rk_submit(rt->dev, &sub);
    st->submit_ns += npk_rk_now_ns() - t0;
    st->submits++;
    if (s == NPK_OK && sub.u48_.hw_elapse_time > 0)
        st->npu_ns += (uint64_t)sub.u48_.hw_elapse_time * 1000u;
    return s;
}

/* Submit with the policy: reset when due, warm a fresh output buffer, recover a wedge with a
 * reset and one retry, and never submit over a wedge without the reset in between. */
static npk_status submit_with_policy(npk_rk *rt, unsigned c, npk_rk_stats *st)
{
    unsigned retries = npk_rk_policy_retries();
    for (unsigned attempt = 0;; attempt++) {
        npk_status s = reset_if_due(rt, st);
        if (s)
            return s;
        if (!rt->core[c].output_warm && npk_rk_policy_warmup_fresh_output()) {
            s = submit(rt, c, true, st);
            st->warmups++;
            if (s == NPK_OK)
                rt->core[c].output_warm = true;
        }
        if (s == NPK_OK)
            s = submit(rt, c, false, st);
        if (s != NPK_ETIMEDOUT)
            return s; /* success, or a fault that a retry would only repeat */
        apply(rt, npk_rk_policy_on_wedge());
        if (attempt >= retries) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", npk_last_error());
            (void)reset_if_due(rt, st); /* leave the core usable for the next call */
            return npk_fail(NPK_ETIMEDOUT, "submit on core %u wedged again after a reset: %s",
                            c, msg);
        }
        st->retries++;
    }
}

/* ---- one task -------------------------------------------------------------------------------- */

static npk_status ensure_output(npk_rk *rt, unsigned c, uint64_t bytes)
{
    npk_rk_core_bufs *b = &rt->core[c];
    if (b->output.size >= bytes)
        return NPK_OK;
    if (b->output.size)
        npk_rk_mem_destroy(rt->dev, &b->output);
    uint64_t size = bytes < 65536 ? 65536 : bytes;
    npk_status s = npk_rk_mem_create(rt->dev, size, NPK_RK_DATA_FLAGS, &b->output);
    b->output_warm = false; /* a fresh output buffer returns stale data on its first submit */
    return s;
}

static npk_status run_task(run *r, const npk_rk_task_plan *t)
{
    npk_rk *rt = r->rt;
    const npk_rk_weights *w = r->w;
    npk_rk_core_bufs *b = &rt->core[t->core];
    npk_rk_stats *st = r->st;
    const npk_rk_mode mode = r->plan.mode;
    npk_status s;

    /* Feature: rows [m0, m1) and the K slice into the core's stable buffer. */
    uint64_t t0 = npk_rk_now_ns();
    npk_rk_block ablk = npk_rk_a_block(w->in, mode, mode == NPK_MODE_CUBE ? t->mp : t->m1 - t->m0,
                                       t->k1 - t->k0);
    size_t abytes = npk_rk_a_bytes(&ablk, t->k1 - t->k0);
    if (abytes > b->feature.size)
        return npk_fail(NPK_ELIMIT, "feature tile of %zu bytes exceeds the %llu-byte buffer",
                        abytes, (unsigned long long)b->feature.size);
    s = npk_rk_pack_a(&ablk, &r->a, (npk_rk_range){t->m0, t->m1}, (npk_rk_range){t->k0, t->k1},
                      b->feature.host, (size_t)b->feature.size);
    st->pack_ns += npk_rk_now_ns() - t0;
    if (s)
        return s;

    npk_rk_block cblk = npk_rk_c_block(r->task_out, mode, t->mp, t->np);
    uint64_t cbytes = npk_rk_c_bytes(&cblk, t->np);
    if ((s = ensure_output(rt, t->core, cbytes)))
        return s;

    /* The program: the weights of this slice and column range are one contiguous block. */
    t0 = npk_rk_now_ns();
    uint32_t slice = t->k0 / w->k_slice;
    uint64_t boff = (uint64_t)slice * w->slice_bytes +
                    npk_rk_b_tile_offset(t->kp, t->n0 / npk_rk_b_n_group(w->in));
    npk_rk_mm mm = npk_rk_mm_default(w->in, t->mp, t->kp, t->np);
    mm.out = r->task_out;
    mm.mode = (int)mode;
    mm.sched = t->sched;
    mm.soc = rt->soc;
    mm.a = b->feature.iova;
    mm.b = (uint32_t)(w->mem.iova + boff);
    mm.c = b->output.iova;
    npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)b->task.host + NPK_RK_REGCMD_OFFSET);
    if ((s = npk_rk_synth_matmul(&mm, prog, NULL)))
        return s;
    if ((s = npk_rk_trailer(prog + NPK_RK_MATMUL_BODY, 0, 0, NPK_RK_ENABLE_MATMUL)))
        return s;
    struct rknpu_task task = {0};
    task.enable_mask = NPK_RK_ENABLE_MATMUL;
    task.int_mask = 0x300; /* the DPU interrupt ends a matmul (facts A.1) */
    task.int_clear = RKNPU_INT_CLEAR;
    task.regcfg_amount = NPK_RK_MATMUL_BODY;
    task.regcmd_addr = b->task.iova + NPK_RK_REGCMD_OFFSET;
    memcpy(b->task.host, &task, sizeof task);
    st->synth_ns += npk_rk_now_ns() - t0;

    t0 = npk_rk_now_ns();
    s = npk_rk_mem_sync(rt->dev, &b->feature, 0, abytes, RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &b->task, 0,
                            NPK_RK_REGCMD_OFFSET +
                                (NPK_RK_MATMUL_BODY + NPK_RK_TRAILER_ENTRIES) * sizeof(npk_rk_entry),
                            RKNPU_MEM_SYNC_TO_DEVICE);
    /* The output is never written by the CPU, so it needs no TO_DEVICE sync; its first
     * submit's stale read is what the warm-up is for. */
    st->sync_ns += npk_rk_now_ns() - t0;
    if (s)
        return s;

    if ((s = submit_with_policy(rt, t->core, st)))
        return s;

    t0 = npk_rk_now_ns();
    s = npk_rk_mem_sync(rt->dev, &b->output, 0, cbytes, RKNPU_MEM_SYNC_FROM_DEVICE);
    st->sync_ns += npk_rk_now_ns() - t0;
    if (s)
        return s;
    t0 = npk_rk_now_ns();
    /* fp16 output only comes from a single K slice: a copy. Partials add up on the host. */
    if (r->task_out == NPK_PREC_FP16)
        s = npk_rk_unpack_c(&cblk, b->output.host, (size_t)b->output.size, &r->acc,
                            (npk_rk_range){t->m0, t->m1}, (npk_rk_range){t->n0, t->n1});
    else
        s = npk_rk_accumulate_c(&cblk, b->output.host, (size_t)b->output.size, &r->acc,
                                (npk_rk_range){t->m0, t->m1}, (npk_rk_range){t->n0, t->n1});
    st->accumulate_ns += npk_rk_now_ns() - t0;
    return s;
}

/* ---- the call ---------------------------------------------------------------------------------- */

static npk_status check_args(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                             npk_rk_prec out, void *c)
{
    if (!rt || !w || !a || !c)
        return npk_fail(NPK_EINVAL, "matmul: NULL %s",
                        !rt ? "runtime" : !w ? "weights" : !a ? "A" : "C");
    if (!m)
        return npk_fail(NPK_EINVAL, "matmul: M=0; M must be at least 1");
    if (m > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "matmul: M=%u exceeds %zu", m, (size_t)NPK_RK_LAYOUT_MAX_DIM);
    bool ok = w->in == NPK_PREC_FP16 ? (out == NPK_PREC_FP32 || out == NPK_PREC_FP16)
                                     : out == NPK_PREC_INT32;
    if (!ok)
        return npk_fail(NPK_EINVAL, "matmul: %s weights give %s, not %s",
                        npk_rk_prec_name(w->in),
                        w->in == NPK_PREC_FP16 ? "fp32 or fp16" : "int32",
                        npk_rk_prec_name(out) ? npk_rk_prec_name(out) : "?");
    if (w->in == NPK_PREC_INT4)
        return npk_rk_check_int4(a, (uint64_t)m * w->k, "A");
    return NPK_OK;
}

npk_status npk_rk_matmul(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                         npk_rk_prec out, void *c, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    uint64_t start = npk_rk_now_ns();
    npk_status s = check_args(rt, w, m, a, out, c);
    if (s)
        return s;
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "matmul: another call is running on this runtime");

    run r = {0};
    r.rt = rt;
    r.w = w;
    r.st = st;
    r.a = (npk_rk_cmatrix){a, m, w->k, w->k};
    /* Tasks write fp32/int32 partials (int4: int16, exact by the slice size); a single-slice
     * fp16 output is narrowed by the NPU itself (FP32TOFP16_EN). */
    r.task_out = w->in == NPK_PREC_FP16 ? (out == NPK_PREC_FP16 && w->slices == 1 ? NPK_PREC_FP16
                                                                                  : NPK_PREC_FP32)
                 : w->in == NPK_PREC_INT8 ? NPK_PREC_INT32
                                          : NPK_PREC_INT16;
    float *scratch = NULL;
    if (out == NPK_PREC_FP16 && r.task_out == NPK_PREC_FP32) {
        scratch = calloc((size_t)m * w->n, sizeof *scratch);
        if (!scratch) {
            pthread_mutex_unlock(&rt->lock);
            return npk_fail(NPK_ENOMEM, "matmul: no memory for the fp32 accumulator");
        }
        r.acc = (npk_rk_matrix){scratch, m, w->n, w->n};
    } else {
        size_t eb = out == NPK_PREC_FP16 ? 2 : 4;
        memset(c, 0, (size_t)m * w->n * eb);
        r.acc = (npk_rk_matrix){c, m, w->n, w->n};
    }

    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, w->in, m, w->k, w->n);
    req.out = r.task_out;
    req.cores = rt->cores;
    req.soc = rt->soc;
    req.k_slice = w->k_slice;
    s = npk_rk_plan_matmul(&req, &r.plan);
    if (s == NPK_OK) {
        st->tasks = (uint32_t)r.plan.count;
        apply(rt, npk_rk_policy_on_enter(rt->have_prec, rt->last_prec, w->in));
        rt->have_prec = true;
        rt->last_prec = w->in;
        for (size_t i = 0; s == NPK_OK && i < r.plan.count; i++)
            s = run_task(&r, &r.plan.tasks[i]);
        npk_rk_plan_free(&r.plan);
    }
    if (s == NPK_OK && scratch) {
        uint16_t *ch = c;
        for (size_t i = 0; i < (size_t)m * w->n; i++)
            ch[i] = npk_f32_to_f16(scratch[i]);
    }
    free(scratch);
    pthread_mutex_unlock(&rt->lock);
    st->host_ns = npk_rk_now_ns() - start;
    return s;
}
