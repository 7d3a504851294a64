/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* A call's cores, each from its own thread, as the vendor runtime drives them (a blocking
 * submit per core): the plan's tasks grouped by core, each group run by the spine's function
 * with stats of its own (on the runtime's persistent workers, runtime_workers.c), added up
 * after, the NPU span the busiest core's. */
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"

void npk_rk_stats_add(npk_rk_stats *to, const npk_rk_stats *from)
{
    to->tasks += from->tasks;
    to->submits += from->submits;
    to->warmups += from->warmups;
    to->resets += from->resets;
    to->retries += from->retries;
    to->npu_ns += from->npu_ns;
    to->synth_ns += from->synth_ns;
    to->pack_ns += from->pack_ns;
    to->sync_ns += from->sync_ns;
    to->submit_ns += from->submit_ns;
    to->accumulate_ns += from->accumulate_ns;
    to->wait_ns += from->wait_ns;
    to->core_mask |= from->core_mask;
    to->b_repacks += from->b_repacks;
    to->b_check_ns += from->b_check_ns;
    to->sdp_tasks += from->sdp_tasks;
    to->fused_jobs += from->fused_jobs;
    to->sdp_direct += from->sdp_direct;
    to->handoff_ns += from->handoff_ns;
}

npk_status npk_rk_core_groups(const npk_rk_plan *plan, size_t *first, size_t *count,
                              unsigned *groups)
{
    unsigned n = 0;
    for (size_t i = 0; i < plan->count;) {
        size_t j = i;
        while (j < plan->count && plan->tasks[j].core == plan->tasks[i].core)
            j++;
        if (n == NPK_RK_MAX_CORES)
            return npk_fail(NPK_EINVAL, "plan: a core's tasks are not contiguous");
        first[n] = i;
        count[n] = j - i;
        i = j;
        n++;
    }
    *groups = n;
    return NPK_OK;
}

npk_status npk_rk_run_cores(npk_rk_workers **pool, const npk_rk_plan *plan, npk_rk_core_fn fn,
                            void *ctx, npk_rk_stats *st)
{
    size_t first[NPK_RK_MAX_CORES], count[NPK_RK_MAX_CORES];
    unsigned n;
    npk_status s = npk_rk_core_groups(plan, first, count, &n);
    if (s)
        return s;
    if (n <= 1) { /* one core: the caller's thread alone */
        s = n ? fn(ctx, 0, plan->count, st) : NPK_OK;
        st->npu_span_ns = st->npu_ns;
        return s;
    }
    npk_rk_core_job job[NPK_RK_MAX_CORES];
    for (unsigned i = 0; i < n; i++)
        job[i] = (npk_rk_core_job){.first = first[i], .count = count[i]};
    uint64_t t0 = npk_now_ns();
    if ((s = npk_rk_workers_run(pool, fn, ctx, job, n)))
        return s;
    uint64_t slowest = 0, all = npk_now_ns() - t0;
    for (unsigned i = 0; i < n; i++) {
        if (job[i].ns > slowest)
            slowest = job[i].ns;
        npk_rk_stats_add(st, &job[i].st);
        if (job[i].st.npu_ns > st->npu_span_ns)
            st->npu_span_ns = job[i].st.npu_ns;
        if (job[i].status && s == NPK_OK)
            s = npk_fail(job[i].status, "%s", job[i].msg);
    }
    st->handoff_ns += all > slowest ? all - slowest : 0;
    return s;
}
