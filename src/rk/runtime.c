#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Runtime: open/close, queries, the per-core buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "runtime_internal.h"

/* The feature and task buffers of core c for jobs of up to rt->chain tasks. */
static npk_status create_core_buffers(npk_rk *rt, unsigned c)
{
    npk_rk_core_bufs *b = &rt->core[c];
    if (b->feature.size)
        npk_rk_mem_destroy(rt->dev, &b->feature);
    if (b->task.size)
        npk_rk_mem_destroy(rt->dev, &b->task);
    npk_status s = npk_rk_mem_create(rt->dev, (uint64_t)rt->chain * rt->feature_slot,
                                     NPK_RK_DATA_FLAGS, &b->feature);
    if (s == NPK_OK)
        s = npk_rk_mem_create(rt->dev, npk_rk_regcmd_offset(rt->chain, rt->chain),
                              NPK_RK_TASK_FLAGS, &b->task);
    return s;
}

npk_status npk_rk_open(const char *device, npk_rk **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "open: NULL output handle");
    *out = NULL;
    const char *spec = device;
    if (device && !strcmp(device, "npu"))
        spec = "kernel";
    npk_rk *rt = calloc(1, sizeof *rt);
    if (!rt)
        return npk_fail(NPK_ENOMEM, "runtime: out of memory");
    npk_status s = npk_rk_device_open(spec, &rt->dev);
    if (s) {
        free(rt);
        return s;
    }
    npk_rk_device_info dev_info;
    npk_rk_device_query(rt->dev, &dev_info);
    rt->simulated = dev_info.simulated;
    rt->soc = dev_info.soc;
    rt->cores = rt->soc->cores > NPK_RK_MAX_CORES ? NPK_RK_MAX_CORES : rt->soc->cores;
    rt->chain = 1;
    rt->feature_slot = rt->soc->cbuf_banks * rt->soc->bank_bytes;
    pthread_mutex_init(&rt->lock, NULL);
    pthread_rwlock_init(&rt->npu_lock, NULL);
    /* POWER_ON is refused (EINVAL) by the 6.1 kernel, where the NPU is powered on demand:
     * its failure is not an error (facts A.1). */
    uint32_t v = 0;
    (void)npk_rk_action(rt->dev, RKNPU_POWER_ON, &v);
    v = 0;
    if (npk_rk_action(rt->dev, RKNPU_GET_DRV_VERSION, &v) == NPK_OK)
        rt->drv_version = v;
    v = 0;
    if (npk_rk_action(rt->dev, RKNPU_GET_HW_VERSION, &v) == NPK_OK)
        rt->hw_version = v;
    for (unsigned c = 0; c < rt->cores && s == NPK_OK; c++)
        s = create_core_buffers(rt, c);
    if (s) {
        npk_rk_close(rt);
        return s;
    }
    *out = rt;
    return NPK_OK;
}

void npk_rk_close(npk_rk *rt)
{
    if (!rt)
        return;
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++) {
        npk_rk_core_bufs *b = &rt->core[c];
        if (b->feature.size)
            npk_rk_mem_destroy(rt->dev, &b->feature);
        if (b->task.size)
            npk_rk_mem_destroy(rt->dev, &b->task);
        if (b->output.size)
            npk_rk_mem_destroy(rt->dev, &b->output);
    }
    npk_rk_device_close(rt->dev);
    pthread_mutex_destroy(&rt->lock);
    pthread_rwlock_destroy(&rt->npu_lock);
    free(rt);
}

npk_status npk_rk_query(npk_rk *rt, npk_rk_info *info)
{
    if (!rt || !info)
        return npk_fail(NPK_EINVAL, "query: NULL runtime or info");
    info->soc = rt->soc->name;
    snprintf(info->device, sizeof info->device, "%s", npk_rk_device_name(rt->dev));
    info->simulated = rt->simulated;
    info->cores = rt->cores;
    info->drv_version = rt->drv_version;
    info->hw_version = rt->hw_version;
    return NPK_OK;
}

npk_status npk_rk_set_cores(npk_rk *rt, unsigned cores)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "set_cores: NULL runtime");
    unsigned max = rt->soc->cores < NPK_RK_MAX_CORES ? rt->soc->cores : NPK_RK_MAX_CORES;
    if (cores < 1 || cores > max)
        return npk_fail(NPK_EINVAL, "cores=%u: %s has 1..%u cores", cores, rt->soc->name, max);
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_cores: another call is running on this runtime");
    rt->cores = cores;
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
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "set_chain: another call is running on this runtime");
    npk_status s = NPK_OK;
    if (tasks_per_submit != rt->chain) {
        rt->chain = tasks_per_submit;
        unsigned max = rt->soc->cores < NPK_RK_MAX_CORES ? rt->soc->cores : NPK_RK_MAX_CORES;
        for (unsigned c = 0; c < max && s == NPK_OK; c++)
            s = create_core_buffers(rt, c);
        /* The feature buffers moved: reset so no core reads feature state cached for the old
         * address (spec "Feature address caching"). */
        atomic_fetch_or(&rt->pending, NPK_POLICY_RESET);
    }
    pthread_mutex_unlock(&rt->lock);
    return s;
}
