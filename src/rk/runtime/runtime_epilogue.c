/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Matmuls with element-wise epilogues on the SDP: the per-channel-scaled fp16 matmul (matmul ->
 * host repack -> SDP, spec "Per-channel-scaled fp16 matmul") and npk_rk_matmul_epilogue, which
 * chains each matmul task with its epilogue's SDP tasks in one submit where the fusion rules
 * allow (spec "Chained 2-input SDP — the DTYPE-PATH rule") and runs them apart otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"

#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "rk/program/rk_sdp.h"
#include "rk/program/rk_job.h"
#include "npukit/rk_synth.h"
#include "policy.h"
#include "runtime_layout.h"
#include "runtime_matmul.h"
#include "runtime_request.h"
#include "runtime_sdp.h"

/* The matmul into C (fp16), then each element-wise call on C, in a call that holds the
 * runtime's lock. */
static npk_status run_split(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                            uint16_t *c, const npk_rk_ew_call *calls, uint32_t count,
                            npk_rk_stats *st)
{
    npk_status s = npk_rk_matmul_held(rt, w, m, a, NPK_PREC_FP16, c, st);
    if (s)
        return s;
    npk_rk_stats ew;
    memset(&ew, 0, sizeof ew);
    for (uint32_t i = 0; s == NPK_OK && i < count; i++)
        s = npk_rk_ew_run(rt, &calls[i], &ew);
    npk_rk_stats_add(st, &ew);
    st->npu_span_ns += ew.npu_span_ns; /* the SDP tasks run after the matmul */
    return s;
}

static npk_status check_fp16_weights(npk_rk *rt, const npk_rk_weights *w, const void *a,
                                     const void *c, const char *what)
{
    if (!rt || !w || !a || !c)
        return npk_fail(NPK_EINVAL, "%s: NULL %s", what,
                        !rt  ? "runtime"
                        : !w ? "weights"
                        : !a ? "A"
                             : "C");
    if (w->in != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL,
                        "%s: the dtype-path rule: the SDP reads its own precision (fp16, int16, "
                        "int8) and %s weights write int32 accumulators, which it cannot read "
                        "(the RDMA fetches 2 bytes per element, spec OVER-FETCH); fp16 weights "
                        "only",
                        what, npk_rk_prec_name(w->in));
    return NPK_OK;
}

/* ---- the fused path ------------------------------------------------------------------------ */

typedef struct fused {
    npk_rk *rt;
    const npk_rk_weights *w;
    const npk_rk_epilogue *ep;
    const npk_rk_ew_call *calls; /* the steps as calls: their LUTs */
    npk_rk_cmatrix a;
    uint16_t *c;
    npk_rk_plan plan;
    npk_rk_stats *st;
} fused;

/* Step sp as the SDP task of an rows x chans output block: a memory operand is staged per element
 * (a per-channel one broadcast over the rows); an immediate goes in with its values (fp16
 * bits: one, or batchnorm's scale and shift). */
static npk_rk_sdp fused_sdp(const npk_rk_ew_step *sp, uint32_t rows, uint32_t chans)
{
    const bool memory = sp->operand == NPK_EW_PER_ELEMENT || sp->operand == NPK_EW_PER_CHANNEL;
    npk_rk_sdp d = npk_rk_sdp_default(sp->op, memory ? NPK_EW_PER_ELEMENT : sp->operand,
                                      NPK_PREC_FP16, rows, chans);
    for (unsigned v = 0;
         sp->operand == NPK_EW_IMMEDIATE && v < (sp->op == NPK_EW_BATCHNORM ? 2u : 1u); v++)
        d.imm[v] = npk_f16_to_f32(((const uint16_t *)sp->b)[v]);
    return d;
}

/* Stage epilogue step i's operand for plan task t in the matmul output block's own layout: a
 * per-element operand through the output packer, a per-channel one broadcast over the rows
 * (the vendor compiler's per-channel mul is a per-element one over a broadcast tensor, spec). */
static npk_status stage_operand(const fused *f, const npk_rk_task_plan *t, uint32_t i,
                                const npk_rk_block *cblk, uint8_t *dst, size_t size)
{
    const npk_rk_ew_step *sp = &f->ep->step[i];
    const size_t n = f->w->n;
    if (sp->operand == NPK_EW_NO_OPERAND || sp->operand == NPK_EW_IMMEDIATE)
        return NPK_OK; /* nothing read from memory: the value sits in a stage register */
    memset(dst, 0, size);
    if (sp->operand == NPK_EW_PER_ELEMENT) {
        npk_rk_cmatrix b = {sp->b, f->plan.req.m, n, n};
        return npk_rk_pack_c(cblk, &b, (npk_rk_range){t->m0, t->m1}, (npk_rk_range){t->n0, t->n1},
                             dst, size);
    }
    npk_rk_cmatrix row = {sp->b, 1, n, n};
    npk_rk_block one = *cblk;
    one.rows = 1;
    for (uint32_t r = 0; r < t->m1 - t->m0; r++) {
        size_t off = npk_rk_block_index(cblk, r, 0) * 2;
        npk_status s = npk_rk_pack_c(&one, &row, (npk_rk_range){0, 1}, (npk_rk_range){t->n0, t->n1},
                                     dst + off, size - off);
        if (s)
            return s;
    }
    return NPK_OK;
}

/* One submit: plan task t's matmul chained with the epilogue's SDP tasks, each reading the
 * previous task's output. */
static npk_status fused_job(fused *f, const npk_rk_task_plan *t)
{
    npk_rk *rt = f->rt;
    const npk_rk_weights *w = f->w;
    npk_rk_core_bufs *b = &rt->core[t->core];
    const npk_rk_mode mode = f->plan.mode;
    const uint32_t steps = f->ep->count;
    npk_rk_stats *st = f->st;

    npk_rk_block cblk = npk_rk_c_block(NPK_PREC_FP16, mode, t->mp, t->np);
    const uint64_t cbytes = npk_rk_c_bytes(&cblk, t->np), slot = (cbytes + 63) / 64 * 64;
    /* the matmul's output, then per step its operand and its output (first: growing the
     * buffer moves it) */
    npk_status s = npk_rk_core_output(rt, t->core, slot * (1 + 2 * (uint64_t)steps));
    npk_rk_mm mm;
    npk_rk_sdp sdp[NPK_RK_EPILOGUE_MAX];
    npk_rk_job_task jt[1 + NPK_RK_EPILOGUE_MAX] = {{.op = NPK_RK_OP_MATMUL, .args = &mm}};
    if (s == NPK_OK)
        s = npk_rk_task_matmul(rt, w, &f->a, false, NULL, NULL, mode, f->plan.req.a_pitch, t, 0, 0,
                               NPK_PREC_FP16, b->output.iova, &mm, st);
    uint64_t t0 = npk_now_ns();
    for (uint32_t i = 0; s == NPK_OK && i < steps; i++)
        s = stage_operand(f, t, i, &cblk, (uint8_t *)b->output.host + slot * (1 + 2 * i),
                          (size_t)cbytes);
    st->pack_ns += npk_now_ns() - t0;
    if (s)
        return s;

    t0 = npk_now_ns();
    for (uint32_t i = 0; i < steps; i++) {
        /* the block seen flat: its rows of np channels are contiguous in line mode */
        npk_rk_sdp *d = &sdp[i];
        jt[1 + i] = (npk_rk_job_task){.op = NPK_RK_OP_SDP, .args = d};
        *d = fused_sdp(&f->ep->step[i], t->mp, t->np);
        d->lut = f->calls[i].lut;
        d->a = b->output.iova + (uint32_t)(slot * 2 * i); /* the task before writes there */
        d->b = b->output.iova + (uint32_t)(slot * (1 + 2 * i));
        d->c = b->output.iova + (uint32_t)(slot * (2 + 2 * i));
    }
    /* a LUT step's program is longer than the task buffer's fixed slots */
    const uint64_t job_bytes = npk_rk_job_bytes_of(jt, 1 + steps);
    s = npk_rk_core_task(rt, t->core, job_bytes);
    if (s == NPK_OK)
        s = npk_rk_job_write(b->task.host, b->task.iova, b->task.size, jt, 1 + steps);
    st->synth_ns += npk_now_ns() - t0;
    t0 = npk_now_ns();
    for (uint32_t i = 0; s == NPK_OK && i < steps; i++)
        s = npk_rk_mem_sync(rt->dev, &b->output, slot * (1 + 2 * i), cbytes,
                            RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &b->task, 0, job_bytes, RKNPU_MEM_SYNC_TO_DEVICE);
    st->sync_ns += npk_now_ns() - t0;
    if (s == NPK_OK)
        s = npk_rk_submit_job(rt, t->core, 1 + steps, st);
    const uint64_t last = slot * 2 * steps;
    t0 = npk_now_ns();
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &b->output, last, cbytes, RKNPU_MEM_SYNC_FROM_DEVICE);
    st->sync_ns += npk_now_ns() - t0;
    t0 = npk_now_ns();
    npk_rk_matrix cm = {f->c, f->plan.req.m, w->n, w->n};
    if (s == NPK_OK)
        s = npk_rk_unpack_c(&cblk, (uint8_t *)b->output.host + last, (size_t)cbytes, &cm,
                            (npk_rk_range){t->m0, t->m1}, (npk_rk_range){t->n0, t->n1});
    st->accumulate_ns += npk_now_ns() - t0;
    st->fused_jobs += s == NPK_OK;
    st->tasks += 1 + steps;
    st->sdp_tasks += steps;
    return s;
}

/* The fused jobs of one core, from its own worker (runtime_cores.c) with stats of its own. */
static npk_status fused_core(void *ctx, size_t first, size_t count, npk_rk_stats *st)
{
    fused f = *(const fused *)ctx;
    f.st = st;
    npk_status s = NPK_OK;
    for (size_t i = first; s == NPK_OK && i < first + count; i++) {
        const npk_rk_task_plan *t = &f.plan.tasks[i];
        pthread_mutex_lock(&f.rt->core[t->core].job_lock);
        s = fused_job(&f, t);
        pthread_mutex_unlock(&f.rt->core[t->core].job_lock);
        st->core_mask |= 1u << t->core;
    }
    return s;
}

/* Every core's fused jobs at once, one thread per core like the matmul's: each core's matmul
 * tasks write their own column range, and their steps read and write only that range. */
static npk_status run_fused(fused *f)
{
    npk_rk *rt = f->rt;
    npk_rk_engine *e = rt->eng;
    pthread_mutex_lock(&e->policy_lock);
    npk_rk_policy_due(rt, npk_rk_policy_on_enter(e->have_prec, e->last_prec, f->w->in));
    e->have_prec = true;
    e->last_prec = f->w->in;
    pthread_mutex_unlock(&e->policy_lock);
    npk_rk_ew_enter(rt);
    for (size_t i = 0; i < f->plan.count; i++) /* the runtime's cores are the engine's */
        f->plan.tasks[i].core = npk_rk_task_core(rt, f->w, f->plan.tasks[i].core);
    f->st->cores_used = f->plan.cores_used;
    /* the jobs run in the IOMMU domain of the weights, on that domain's core buffers */
    npk_status s = npk_rk_use_domain(rt, f->w->mem.domain);
    if (s == NPK_OK)
        s = npk_rk_run_cores(&rt->workers, &f->plan, fused_core, f, f->st);
    rt->core = e->core;
    return s;
}

/* Why the call cannot run fused (NULL: it can): the fusion rules, each named. */
static const char *fusion_blocker(npk_rk *rt, const npk_rk_weights *w, const npk_rk_epilogue *ep,
                                  const npk_rk_ew_call *calls, const npk_rk_plan *plan)
{
    if (ep->no_fuse)
        return "fusion turned off";
    if (rt->form->enable != NPK_RK_ENABLE_MATMUL || rt->form->kick_per_task)
        return "the kernel does not chain matmul and SDP tasks";
    if (rt->chain < 1 + ep->count)
        return "the chain setting is shorter than the matmul and its steps";
    if (plan->k_slices != 1 || w->slices != 1)
        return "the dtype-path rule: K slices write fp32 partials, the SDP reads fp16";
    if (plan->mode != NPK_MODE_LINE)
        return "the matmul output is not line mode";
    for (size_t i = 0; i < plan->count; i++) {
        npk_rk_sdp d = fused_sdp(&ep->step[0], plan->tasks[i].mp, plan->tasks[i].np);
        d.lut = calls[0].lut;
        if (npk_rk_sdp_check(&d))
            return "a matmul tile exceeds the SDP's limits";
        if (npk_rk_sdp_chain_check(NPK_PREC_FP16, &d))
            return "the dtype-path rule";
    }
    return NULL;
}

/* A checked call: its stats, the runtime's lock for its whole length, and the matmul with the
 * steps (calls) fused when there is an epilogue ep and the fusion rules allow, split otherwise. */
static npk_status run_call(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                           uint16_t *c, const npk_rk_ew_call *calls, uint32_t count,
                           const npk_rk_epilogue *ep, const char *what, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    uint64_t start = npk_now_ns();
    npk_status s = npk_rk_matmul_check(rt, w, m, a, NPK_PREC_FP16, c);
    if (s == NPK_OK) /* before the matmul overwrites C with a result the call cannot finish */
        s = npk_rk_ew_supported(rt, what);
    if (s || (s = npk_rk_call_begin(rt, what)))
        return s;
    fused f = {
        .rt = rt, .w = w, .ep = ep, .calls = calls, .a = {a, m, w->k, w->k}, .c = c, .st = st};
    bool planned = false;
    if (ep) { /* the plan the split matmul makes too, for the fusion rules */
        npk_rk_plan_request req;
        npk_rk_matmul_request(rt, w, m, NPK_PREC_FP16, &req);
        planned = (s = npk_rk_plan_matmul(&req, &f.plan)) == NPK_OK;
    }
    if (planned && !fusion_blocker(rt, w, ep, calls, &f.plan)) {
        if (w->src)
            s = npk_rk_weights_refresh(rt, (npk_rk_weights *)w, st);
        if (s == NPK_OK)
            s = run_fused(&f);
    } else if (s == NPK_OK)
        s = run_split(rt, w, m, a, c, calls, count, st);
    if (planned)
        npk_rk_plan_free(&f.plan);
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}

/* The epilogue's steps as calls on C, checked. With `act` (npk_rk_matmul_act, which checked its
 * activation) a 1-input step is the activation and takes `lut` (NULL for a clamp); a
 * caller's steps are checked as element-wise calls (a LUT step needs its LUT: refused). */
static npk_status step_calls(const npk_rk_weights *w, uint32_t m, void *c,
                             const npk_rk_epilogue *ep, bool act, const npk_rk_lut *lut,
                             npk_rk_ew_call *calls)
{
    npk_status s = NPK_OK;
    for (uint32_t i = 0; i < ep->count; i++) {
        char what[32];
        snprintf(what, sizeof what, "epilogue step %u", i);
        calls[i] = (npk_rk_ew_call){.op = ep->step[i].op,
                                    .prec = NPK_PREC_FP16,
                                    .m = m,
                                    .n = w->n,
                                    .a = c,
                                    .operand = ep->step[i].operand,
                                    .b = ep->step[i].b,
                                    .c = c};
        if (act && ep->step[i].operand == NPK_EW_NO_OPERAND)
            calls[i].lut = ep->step[i].op == NPK_EW_LUT ? lut : NULL;
        else if ((s = npk_rk_ew_check(&calls[i], what)))
            return s;
    }
    return s;
}

npk_status npk_rk_matmul_epilogue(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                  npk_rk_prec out, void *c, const npk_rk_epilogue *ep,
                                  npk_rk_stats *stats)
{
    if (!ep || !ep->count)
        return npk_rk_matmul(rt, w, m, a, out, c, stats);
    npk_status s = check_fp16_weights(rt, w, a, c, "epilogue");
    if (s)
        return s;
    if (out != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL,
                        "epilogue: output %s; the SDP computes and writes fp16 (the dtype-path "
                        "rule: the matmul writes the SDP's precision), so the output is fp16",
                        npk_rk_prec_name(out) ? npk_rk_prec_name(out) : "?");
    if (ep->count > NPK_RK_EPILOGUE_MAX)
        return npk_fail(NPK_ELIMIT, "epilogue: %u steps exceed %u", ep->count, NPK_RK_EPILOGUE_MAX);
    npk_rk_ew_call calls[NPK_RK_EPILOGUE_MAX];
    if ((s = step_calls(w, m, c, ep, false, NULL, calls)))
        return s;
    return run_call(rt, w, m, a, c, calls, ep->count, ep, "epilogue", stats);
}

npk_status npk_rk_matmul_act(npk_rk *rt, const npk_rk_matmul_act_args *x, npk_rk_stats *stats)
{
    if (!x)
        return npk_fail(NPK_EINVAL, "matmul act: NULL arguments");
    npk_status s = check_fp16_weights(rt, x->w, x->a, x->c, "matmul act");
    if (s)
        return s;
    const npk_rk_act_row *row = npk_rk_act_row_of(x->act);
    if (!row)
        return npk_fail(NPK_EINVAL, "matmul act: activation %d is not one of %s", (int)x->act,
                        npk_rk_act_names());
    npk_rk_lut lut;
    const bool clamp = row->engine == NPK_ACT_ENGINE_CLAMP;
    bool defaults = x->alpha == 0 && x->beta == 0;
    if (!clamp && (s = npk_rk_lut_fit(x->act, defaults ? row->alpha : x->alpha,
                                      defaults ? row->beta : x->beta, &lut)))
        return s;
    /* the bias per channel, then the activation: C = f(C + bias) */
    npk_rk_epilogue ep = {.no_fuse = x->no_fuse};
    if (x->bias)
        ep.step[ep.count++] = (npk_rk_ew_step){NPK_EW_ADD, NPK_EW_PER_CHANNEL, x->bias};
    ep.step[ep.count++] = (npk_rk_ew_step){row->op, NPK_EW_NO_OPERAND, NULL};
    npk_rk_ew_call calls[NPK_RK_EPILOGUE_MAX];
    if ((s = step_calls(x->w, x->m, x->c, &ep, true, clamp ? NULL : &lut, calls)))
        return s;
    return run_call(rt, x->w, x->m, x->a, x->c, calls, ep.count, &ep, "matmul act", stats);
}

npk_status npk_rk_matmul_scaled(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                const uint16_t *scale, uint16_t *c, npk_rk_stats *stats)
{
    npk_status s = check_fp16_weights(rt, w, a, c, "scaled matmul");
    if (s)
        return s;
    if (!scale)
        return npk_fail(NPK_EINVAL, "scaled matmul: NULL scale");
    /* the spec's path: SDP tasks of at most 64 rows, N padded to a multiple of 32 */
    npk_rk_ew_call x = {.op = NPK_EW_MUL,
                        .prec = NPK_PREC_FP16,
                        .m = m,
                        .n = w->n,
                        .a = c,
                        .operand = NPK_EW_PER_CHANNEL,
                        .b = scale,
                        .c = c,
                        .m_cap = NPK_RK_SCALED_TILE_M,
                        .n_pad = 32};
    if ((s = npk_rk_ew_check(&x, "scaled matmul")))
        return s;
    return run_call(rt, w, m, a, c, &x, 1, NULL, "scaled matmul", stats);
}
