/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* How every runtime job reaches the NPU: the state policy (due resets, warm-up of a fresh
 * output buffer, wedge recovery) around one SUBMIT of a core's task buffer. The matmul and
 * element-wise spines both submit through here, so no job bypasses the policy. */
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "runtime_internal.h"
#include "trace.h"

/* ---- the state policy, applied ------------------------------------------------------------ */

/* Policy actions become due; they are carried out, all at once, by the next reset_if_due. */
void npk_rk_policy_due(npk_rk *rt, unsigned actions) { atomic_fetch_or(rt->pending, actions); }

/* Carry out the due actions while no core has a job in flight: a reset under another core's
 * running job is the queue corruption the spec warns about ("never storm concurrent submits
 * over wedging values"). */
static npk_status reset_if_due(npk_rk *rt, npk_rk_stats *st)
{
    if (!atomic_load(rt->pending))
        return NPK_OK;
    pthread_rwlock_wrlock(rt->npu_lock);
    npk_status s = NPK_OK;
    unsigned due = atomic_exchange(rt->pending, 0u);
    if (due & NPK_POLICY_RESET) {
        s = npk_rk_action(rt->dev, RKNPU_ACT_RESET, NULL);
        if (s)
            atomic_fetch_or(rt->pending, due); /* still due */
        else
            st->resets++;
    }
    if (s == NPK_OK && (due & NPK_POLICY_CLEAR_WARM))
        npk_rk_engine_clear_warm(rt->eng);
    pthread_rwlock_unlock(rt->npu_lock);
    return s;
}

/* The rknpu_submit of a job. Every subcore entry is filled (core_mask != 1 with only entry 0
 * set crashes the kernel): core c's range sits where the kernel looks for it (entry c for one
 * or two cores, c + 2 for all three, facts A.1 "Sub-core selection"), every other entry holds
 * the first core's range. */
static void describe(const npk_rk_job *job, bool warmup, struct rknpu_submit *sub)
{
    memset(sub, 0, sizeof *sub);
    sub->flags =
        RKNPU_JOB_PC | RKNPU_JOB_PINGPONG | (job->nonblock ? RKNPU_JOB_NONBLOCK : RKNPU_JOB_BLOCK);
    sub->timeout = npk_rk_policy_timeout_ms(warmup);
    sub->task_obj_addr = job->records->obj_addr;
    /* the job runs in the IOMMU domain its buffers are in (0.9.8; 0 on a one-domain device) */
    sub->u32_.v098.iommu_domain_id = job->records->domain;
    sub->core_mask = job->core_mask;
    sub->fence_fd = -1;
    unsigned first = NPK_RK_MAX_CORES;
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        if (job->core_mask & (1u << c)) {
            sub->task_number += job->count[c];
            if (first == NPK_RK_MAX_CORES)
                first = c;
        }
    sub->task_start = job->start[first];
    struct rknpu_subcore_task range = {job->start[first], job->count[first]};
    for (unsigned i = 0; i < 5; i++)
        sub->subcore_task[i] = range;
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        if (job->core_mask & (1u << c))
            sub->subcore_task[rknpu_subcore_index(job->core_mask, c)] =
                (struct rknpu_subcore_task){job->start[c], job->count[c]};
}

/* One SUBMIT of the job; a non-blocking one then waits for every core it ran on, here, by the
 * thread that submitted it: once these waits return the job is drained and nothing polls it
 * again (spec "Parallel per-core doorbell submit": the redundant second poll was the cost). */
static npk_status submit(npk_rk *rt, const npk_rk_job *job, bool warmup, npk_rk_stats *st)
{
    struct rknpu_submit sub;
    describe(job, warmup, &sub);
    uint64_t t0 = npk_now_ns();
    npk_status s = npk_rk_submit(rt->dev, &sub);
    st->submit_ns += npk_now_ns() - t0;
    st->submits++;
    if (s == NPK_OK && !job->nonblock && sub.u48_.hw_elapse_time > 0)
        st->npu_ns += (uint64_t)sub.u48_.hw_elapse_time * 1000u;
    if (s == NPK_OK && job->nonblock) {
        t0 = npk_now_ns();
        uint64_t longest = 0;
        for (unsigned c = 0; s == NPK_OK && c < NPK_RK_MAX_CORES; c++) {
            uint64_t us = 0;
            if (job->core_mask & (1u << c))
                s = npk_rk_wait(rt->dev, c, sub.timeout, &us);
            longest = us > longest ? us : longest;
        }
        st->wait_ns += npk_now_ns() - t0;
        st->npu_ns += longest * 1000u;
    }
    return s;
}

static bool all_warm(npk_rk *rt, unsigned mask)
{
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        if ((mask & (1u << c)) && !atomic_load(&rt->core[c].output_warm))
            return false;
    return true;
}

/* Submit with the policy: carry out due actions first, warm fresh output buffers, recover a
 * wedge with a reset and one retry, and never submit over a wedge without the reset in
 * between — also when the wedge happened on another core. */
npk_status npk_rk_submit_form(npk_rk *rt, const npk_rk_job *job, npk_rk_stats *st)
{
    unsigned retries = npk_rk_policy_retries();
    npk_rk_engine_enter_domain(rt->eng, job->records->domain);
    for (unsigned attempt = 0;;) {
        npk_status s = reset_if_due(rt, st);
        if (s)
            return s;
        pthread_rwlock_rdlock(rt->npu_lock);
        if (atomic_load(rt->pending)) { /* another core wedged meanwhile: reset first */
            pthread_rwlock_unlock(rt->npu_lock);
            continue;
        }
        if (!all_warm(rt, job->core_mask) && npk_rk_policy_warmup_fresh_output()) {
            s = submit(rt, job, true, st);
            st->warmups++;
            for (unsigned c = 0; s == NPK_OK && c < NPK_RK_MAX_CORES; c++)
                if (job->core_mask & (1u << c))
                    atomic_store(&rt->core[c].output_warm, true);
        }
        if (s == NPK_OK)
            s = submit(rt, job, false, st);
        pthread_rwlock_unlock(rt->npu_lock);
        if (s != NPK_ETIMEDOUT)
            return s; /* success, or a fault that a retry would only repeat */
        npk_rk_policy_due(rt, npk_rk_policy_on_wedge());
        if (attempt++ >= retries) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", npk_last_error());
            (void)reset_if_due(rt, st); /* leave the cores usable for the next call */
            return npk_fail(NPK_ETIMEDOUT, "submit on cores 0x%x wedged again after a reset: %s",
                            job->core_mask, msg);
        }
        st->retries++;
    }
}

/* npk_rk_submit_form with the trace's events: the submit (warm-ups and retries included) on the
 * host track of the job's first core, the job's modelled NPU time on the model's, warm-ups and
 * resets as instants. */
npk_status npk_rk_submit_traced(npk_rk *rt, npk_rk_job *job, npk_rk_stats *st, uint32_t tasks)
{
    const npk_rk_stats before = *st;
    uint64_t t0 = npk_now_ns();
    npk_status s = npk_rk_submit_form(rt, job, st);
    if (!npk_rk_trace_on())
        return s;
    unsigned core = 0;
    while (core + 1 < NPK_RK_MAX_CORES && !(job->core_mask >> core & 1))
        core++;
    npk_rk_trace_host(core, "submit", t0, npk_now_ns());
    if (st->npu_ns > before.npu_ns)
        npk_rk_trace_npu(core, tasks, st->npu_ns - before.npu_ns, t0);
    if (st->warmups > before.warmups)
        npk_rk_trace_instant(core, "warm-up", t0);
    if (st->resets > before.resets)
        npk_rk_trace_instant(core, "reset", t0);
    return s;
}

npk_status npk_rk_submit_job(npk_rk *rt, unsigned c, uint32_t tasks, npk_rk_stats *st)
{
    npk_rk_job job = {.records = &rt->core[c].task, .core_mask = 1u << c};
    job.count[c] = tasks;
    return npk_rk_submit_traced(rt, &job, st, tasks);
}

/* ---- the per-core output buffer ------------------------------------------------------------ */

npk_status npk_rk_core_task(npk_rk *rt, unsigned c, uint64_t bytes)
{
    npk_rk_core_bufs *b = &rt->core[c];
    if (b->task.size >= bytes)
        return NPK_OK;
    if (b->task.size)
        npk_rk_mem_destroy(rt->dev, &b->task);
    return npk_rk_core_mem(rt->eng, b, c, bytes, NPK_RK_TASK_FLAGS, &b->task);
}

npk_status npk_rk_core_output(npk_rk *rt, unsigned c, uint64_t bytes)
{
    npk_rk_core_bufs *b = &rt->core[c];
    if (b->output.size >= bytes)
        return NPK_OK;
    /* Grow at least twofold: every new output buffer costs a warm-up submit, so a run of
     * slowly growing tiles must not re-create it each time. */
    uint64_t size = b->output.size * 2 > bytes ? b->output.size * 2 : bytes;
    if (b->output.size)
        npk_rk_mem_destroy(rt->dev, &b->output);
    npk_status s = npk_rk_core_mem(rt->eng, b, c, size, NPK_RK_DATA_FLAGS, &b->output);
    /* A fresh output buffer returns stale data on its first submit. */
    atomic_store(&b->output_warm, false);
    return s;
}
