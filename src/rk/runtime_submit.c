/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* How every runtime job reaches the NPU: the state policy (due resets, warm-up of a fresh
 * output buffer, wedge recovery) around one SUBMIT of a core's task buffer. The matmul and
 * element-wise spines both submit through here, so no job bypasses the policy. */
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "runtime_internal.h"

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
        for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
            atomic_store(&rt->core[c].output_warm, false);
    pthread_rwlock_unlock(rt->npu_lock);
    return s;
}

/* One SUBMIT of the `tasks` chained tasks in core c's task buffer. */
static npk_status submit(npk_rk *rt, unsigned c, uint32_t tasks, bool warmup, npk_rk_stats *st)
{
    struct rknpu_submit sub;
    memset(&sub, 0, sizeof sub);
    sub.flags = RKNPU_JOB_PC | RKNPU_JOB_BLOCK | RKNPU_JOB_PINGPONG;
    sub.timeout = npk_rk_policy_timeout_ms(warmup);
    sub.task_start = 0;
    sub.task_number = tasks;
    sub.task_obj_addr = rt->core[c].task.obj_addr;
    sub.core_mask = 1u << c;
    sub.fence_fd = -1;
    /* Every subcore entry filled: core_mask != 1 with only entry 0 set crashes the kernel. */
    for (unsigned i = 0; i < 5; i++)
        sub.subcore_task[i] = (struct rknpu_subcore_task){0, tasks};
    uint64_t t0 = npk_now_ns();
    npk_status s = npk_rk_submit(rt->dev, &sub);
    st->submit_ns += npk_now_ns() - t0;
    st->submits++;
    if (s == NPK_OK && sub.u48_.hw_elapse_time > 0)
        st->npu_ns += (uint64_t)sub.u48_.hw_elapse_time * 1000u;
    return s;
}

/* Submit with the policy: carry out due actions first, warm a fresh output buffer, recover a
 * wedge with a reset and one retry, and never submit over a wedge without the reset in
 * between — also when the wedge happened on another core. */
npk_status npk_rk_submit_job(npk_rk *rt, unsigned c, uint32_t tasks, npk_rk_stats *st)
{
    unsigned retries = npk_rk_policy_retries();
    for (unsigned attempt = 0;;) {
        npk_status s = reset_if_due(rt, st);
        if (s)
            return s;
        pthread_rwlock_rdlock(rt->npu_lock);
        if (atomic_load(rt->pending)) { /* another core wedged meanwhile: reset first */
            pthread_rwlock_unlock(rt->npu_lock);
            continue;
        }
        if (!atomic_load(&rt->core[c].output_warm) && npk_rk_policy_warmup_fresh_output()) {
            s = submit(rt, c, tasks, true, st);
            st->warmups++;
            if (s == NPK_OK)
                atomic_store(&rt->core[c].output_warm, true);
        }
        if (s == NPK_OK)
            s = submit(rt, c, tasks, false, st);
        pthread_rwlock_unlock(rt->npu_lock);
        if (s != NPK_ETIMEDOUT)
            return s; /* success, or a fault that a retry would only repeat */
        npk_rk_policy_due(rt, npk_rk_policy_on_wedge());
        if (attempt++ >= retries) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", npk_last_error());
            (void)reset_if_due(rt, st); /* leave the cores usable for the next call */
            return npk_fail(NPK_ETIMEDOUT, "submit on core %u wedged again after a reset: %s", c,
                            msg);
        }
        st->retries++;
    }
}

/* ---- the per-core output buffer ------------------------------------------------------------ */

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
    npk_status s = npk_rk_mem_create(rt->dev, size, NPK_RK_DATA_FLAGS, &b->output);
    /* A fresh output buffer returns stale data on its first submit. */
    atomic_store(&b->output_warm, false);
    return s;
}
