/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Runtime: open/close, queries, the per-core buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "runtime_internal.h"
#include "rk/program/submission.h"
#include "trace.h"

static npk_status open_runtime(const char *device, bool shared, npk_rk **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "open: NULL output handle");
    *out = NULL;
    npk_rk *rt = calloc(1, sizeof *rt);
    if (!rt)
        return npk_fail(NPK_ENOMEM, "runtime: out of memory");
    npk_status s = npk_rk_engine_get(device, shared, &rt->eng);
    if (s) {
        free(rt);
        return s;
    }
    npk_rk_engine *e = rt->eng;
    rt->dev = e->dev;
    rt->soc = e->soc;
    rt->chain = e->chain;
    rt->feature_slot = e->feature_slot;
    rt->simulated = e->simulated;
    rt->core = e->core;
    rt->npu_lock = &e->npu_lock;
    rt->pending = &e->pending;
    rt->form = e->form;
    rt->max_cores = e->max_cores;
    rt->cores = rt->max_cores;
    rt->submission = npk_rk_submission_default();
    rt->form_set = rt->submission;
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        rt->core_map[c] = (uint8_t)c;
    pthread_mutex_init(&rt->lock, NULL);
    pthread_mutex_init(&rt->progress_lock, NULL);
    *out = rt;
    return NPK_OK;
}

npk_status npk_rk_open(const char *device, npk_rk **out)
{
    npk_rk_trace_on(); /* NPUKIT_TRACE: the trace's clock starts before the first call */
    return open_runtime(device, false, out);
}

npk_status npk_rk_open_shared(const char *device, npk_rk **out)
{
    return open_runtime(device, true, out);
}

void npk_rk_close(npk_rk *rt)
{
    if (!rt)
        return;
    npk_rk_workers_free(rt->workers); /* joined here, whichever thread closes */
    npk_rk_engine_release(rt->eng);
    pthread_mutex_destroy(&rt->lock);
    pthread_mutex_destroy(&rt->progress_lock);
    free(rt);
}

bool npk_rk_runs_sdp(const npk_rk *rt)
{
    /* an SDP task ends on the DPU interrupt: every kernel that waits for it runs one */
    return npk_rk_kernel_runs_op(rt->form, NPK_RK_OP_SDP);
}

npk_status npk_rk_query(npk_rk *rt, npk_rk_info *info)
{
    if (!rt || !info)
        return npk_fail(NPK_EINVAL, "query: NULL runtime or info");
    info->soc = rt->soc->name;
    snprintf(info->device, sizeof info->device, "%s", npk_rk_device_name(rt->dev));
    snprintf(info->kernel, sizeof info->kernel, "%s", rt->form->name);
    info->simulated = rt->simulated;
    info->sdp = npk_rk_runs_sdp(rt);
    info->pdp = npk_rk_kernel_runs_op(rt->form, NPK_RK_OP_POOL);
    info->cores = rt->cores;
    info->drv_version = rt->eng->drv_version;
    info->hw_version = rt->eng->hw_version;
    info->weight_spaces = npk_rk_weight_spaces(rt->eng);
    npk_rk_weights_room(rt->eng, &info->weight_capacity, &info->weight_used);
    return NPK_OK;
}

npk_status npk_rk_call_begin(npk_rk *rt, const char *what)
{
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "%s: another call is running on this runtime", what);
    rt->calls++;
    return NPK_OK;
}

void npk_rk_call_end(npk_rk *rt) { pthread_mutex_unlock(&rt->lock); }

npk_status npk_rk_set_cores(npk_rk *rt, unsigned cores)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "set_cores: NULL runtime");
    unsigned max = rt->max_cores;
    if (cores < 1 || cores > max)
        return npk_fail(NPK_EINVAL, "cores=%u: %s through %s addresses 1..%u cores", cores,
                        rt->soc->name, rt->form->name, max);
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_cores: another call is running on this runtime");
    rt->cores = cores;
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        rt->core_map[c] = (uint8_t)c;
    pthread_mutex_unlock(&rt->lock);
    return NPK_OK;
}

npk_status npk_rk_set_core_mask(npk_rk *rt, unsigned mask)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "set_core_mask: NULL runtime");
    unsigned max = rt->max_cores;
    unsigned all = (1u << max) - 1;
    if (mask & ~all)
        return npk_fail(NPK_EINVAL, "core mask 0x%x: %s has cores 0..%u (mask 0x%x)", mask,
                        rt->soc->name, max - 1, all);
    if (!mask)
        mask = all;
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_core_mask: another call is running on this runtime");
    unsigned n = 0;
    for (unsigned c = 0; c < max; c++)
        if (mask & (1u << c))
            rt->core_map[n++] = (uint8_t)c;
    rt->cores = n;
    pthread_mutex_unlock(&rt->lock);
    return NPK_OK;
}

unsigned npk_rk_core_mask(const npk_rk *rt)
{
    unsigned mask = 0;
    for (unsigned i = 0; rt && i < rt->cores; i++)
        mask |= 1u << rt->core_map[i];
    return mask;
}

npk_status npk_rk_set_progress(npk_rk *rt, npk_rk_progress_fn fn, void *user)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "set_progress: NULL runtime");
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_progress: another call is running on this runtime");
    rt->progress = fn;
    rt->progress_user = user;
    pthread_mutex_unlock(&rt->lock);
    return NPK_OK;
}

npk_status npk_rk_set_chain(npk_rk *rt, unsigned tasks_per_submit)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "set_chain: NULL runtime");
    if (tasks_per_submit < 1 || tasks_per_submit > NPK_RK_MAX_CHAIN)
        return npk_fail(NPK_EINVAL, "chain=%u: tasks per submit must be 1..%u", tasks_per_submit,
                        NPK_RK_MAX_CHAIN);
    /* Chaining a "single" runtime selects the chained form. */
    const npk_rk_submission_row *f = rt->submission;
    if (tasks_per_submit > 1 && f == npk_rk_submission_default())
        f = npk_rk_submission_find("chained");
    if (tasks_per_submit > 1 && f->groups && !f->rocket && !strcmp(rt->form->name, "rocket"))
        return npk_fail(NPK_EUNSUPPORTED, "chain=%u with submission form %s on the %s kernel: %s",
                        tasks_per_submit, f->name, rt->form->name, f->rocket_refusal);
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_chain: another call is running on this runtime");
    npk_status s = NPK_OK;
    /* Buffers sized for longer jobs serve shorter ones; growing them moves the buffers other
     * runtimes' jobs may be using. */
    if (tasks_per_submit > rt->eng->chain && npk_rk_engine_refs(rt->eng) > 1)
        s = npk_fail(NPK_EBUSY,
                     "set_chain=%u: the engine's buffers hold jobs of %u tasks and "
                     "are shared with other runtimes or buffers",
                     tasks_per_submit, rt->eng->chain);
    else if (tasks_per_submit > rt->eng->chain)
        s = npk_rk_engine_set_chain(rt->eng, tasks_per_submit);
    if (s == NPK_OK) {
        rt->chain = tasks_per_submit;
        rt->submission = f;
        rt->form_set = f;
    }
    pthread_mutex_unlock(&rt->lock);
    return s;
}

npk_status npk_rk_set_submission(npk_rk *rt, const char *form)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "set_submission: NULL runtime");
    /* "auto": the default form again, the multi-task form weighed by cost where it applies */
    const bool chosen = form && !strcmp(form, "auto");
    const npk_rk_submission_row *f =
        chosen ? npk_rk_submission_find(rt->chain > 1 ? "chained" : "single")
               : npk_rk_submission_find(form);
    if (!f) {
        char names[160] = "";
        for (unsigned i = 0; i < npk_rk_submission_count(); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     npk_rk_submission_name(i));
        return npk_fail(NPK_EINVAL, "submission form '%s': not auto or one of %s",
                        form ? form : "(null)", names);
    }
    if (!strcmp(rt->form->name, "rocket") && !f->rocket)
        return npk_fail(NPK_EUNSUPPORTED, "submission form %s on the %s kernel: %s", f->name,
                        rt->form->name, f->rocket_refusal);
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_submission: another call is running on this runtime");
    rt->submission = f;
    rt->form_set = f;
    rt->form_forced = !chosen;
    pthread_mutex_unlock(&rt->lock);
    return NPK_OK;
}

const char *npk_rk_submission(const npk_rk *rt) { return rt ? rt->submission->name : NULL; }
