/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* A call's cores, each from its own thread, as the vendor runtime drives them (a blocking
 * submit per core): the plan's tasks grouped by core, each group run by the spine's function
 * with stats of its own, added up after, the NPU span the busiest core's. */
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

typedef struct worker {
    npk_rk_core_fn fn;
    void *ctx;
    npk_rk_stats st; /* the worker's own */
    size_t first, count;
    npk_status status;
    char msg[512]; /* npk_last_error() is per thread: carried back to the caller */
    pthread_t thread;
} worker;

static void *worker_main(void *arg)
{
    worker *wk = arg;
    wk->status = wk->fn(wk->ctx, wk->first, wk->count, &wk->st);
    if (wk->status)
        snprintf(wk->msg, sizeof wk->msg, "%s", npk_last_error());
    return NULL;
}

npk_status npk_rk_run_cores(const npk_rk_plan *plan, npk_rk_core_fn fn, void *ctx, npk_rk_stats *st)
{
    size_t first[NPK_RK_MAX_CORES], count[NPK_RK_MAX_CORES];
    unsigned n;
    npk_status s = npk_rk_core_groups(plan, first, count, &n);
    if (s)
        return s;
    if (n <= 1) { /* one core: no thread */
        s = n ? fn(ctx, 0, plan->count, st) : NPK_OK;
        st->npu_span_ns = st->npu_ns;
        return s;
    }
    worker wk[NPK_RK_MAX_CORES];
    unsigned started = 0;
    for (; started < n; started++) {
        wk[started] =
            (worker){.fn = fn, .ctx = ctx, .first = first[started], .count = count[started]};
        if (pthread_create(&wk[started].thread, NULL, worker_main, &wk[started])) {
            wk[started].status = npk_fail(NPK_ENOMEM, "could not start the core %u thread",
                                          plan->tasks[first[started]].core);
            snprintf(wk[started].msg, sizeof wk[started].msg, "%s", npk_last_error());
            break;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (i < started)
            pthread_join(wk[i].thread, NULL);
        else if (i > started)
            continue; /* never started (a start failed before it) */
        npk_rk_stats_add(st, &wk[i].st);
        if (wk[i].st.npu_ns > st->npu_span_ns)
            st->npu_span_ns = wk[i].st.npu_ns;
        if (wk[i].status && s == NPK_OK)
            s = npk_fail(wk[i].status, "%s", wk[i].msg);
    }
    return s;
}
