/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Engines: a device and its per-core buffers, private to one runtime or shared process-wide by
 * the runtimes opened on the same device name (runtime_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "runtime_internal.h"

/* The shared engines, by device name. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static npk_rk_engine *registry;

npk_status npk_rk_core_mem(npk_rk_engine *e, const npk_rk_core_bufs *b, unsigned c,
                           uint64_t size, uint32_t flags, npk_rk_mem *mem)
{
    return npk_rk_mem_create_in(e->dev, b->domain, size, flags, 1u << c, mem);
}

static void destroy_core_buffers(npk_rk_engine *e, npk_rk_core_bufs *b)
{
    if (b->feature.size)
        npk_rk_mem_destroy(e->dev, &b->feature);
    if (b->task.size)
        npk_rk_mem_destroy(e->dev, &b->task);
    if (b->output.size)
        npk_rk_mem_destroy(e->dev, &b->output);
}

/* The feature and task buffers of core c (b, in its domain) for jobs of up to `chain` tasks. */
static npk_status create_core_buffers(npk_rk_engine *e, npk_rk_core_bufs *b, unsigned c,
                                      uint32_t chain)
{
    if (b->feature.size)
        npk_rk_mem_destroy(e->dev, &b->feature);
    if (b->task.size)
        npk_rk_mem_destroy(e->dev, &b->task);
    memset(b->held, 0, sizeof b->held); /* a new feature buffer holds no tile */
    npk_status s = npk_rk_core_mem(e, b, c, (uint64_t)chain * e->feature_slot,
                                   NPK_RK_DATA_FLAGS, &b->feature);
    if (s == NPK_OK)
        s = npk_rk_core_mem(e, b, c, npk_rk_regcmd_offset(chain, chain), NPK_RK_TASK_FLAGS,
                            &b->task);
    return s;
}

static unsigned engine_cores(const npk_rk_engine *e) { return e->max_cores; }

/* The cores' buffers of domain d (core[] for 0), or NULL before their first use. */
static npk_rk_core_bufs *domain_bufs(npk_rk_engine *e, unsigned d)
{
    return d ? e->domain_core[d] : e->core;
}

static void destroy_bufs(npk_rk_engine *e, npk_rk_core_bufs *set)
{
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++) {
        if (e->dev)
            destroy_core_buffers(e, &set[c]);
        pthread_mutex_destroy(&set[c].job_lock);
    }
}

static void engine_destroy(npk_rk_engine *e)
{
    for (unsigned d = 1; d < RKNPU_MAX_IOMMU_DOMAIN_NUM; d++)
        if (e->domain_core[d]) {
            destroy_bufs(e, e->domain_core[d]);
            free(e->domain_core[d]);
        }
    destroy_bufs(e, e->core);
    pthread_mutex_destroy(&e->place_lock);
    npk_rk_device_close(e->dev);
    pthread_rwlock_destroy(&e->npu_lock);
    pthread_mutex_destroy(&e->policy_lock);
    free(e);
}

static npk_status engine_open(const char *device, npk_rk_engine **out)
{
    const char *spec = device;
    if (device && !strcmp(device, "npu"))
        spec = "kernel";
    npk_rk_engine *e = calloc(1, sizeof *e);
    if (!e)
        return npk_fail(NPK_ENOMEM, "runtime: out of memory");
    pthread_rwlock_init(&e->npu_lock, NULL);
    pthread_mutex_init(&e->policy_lock, NULL);
    pthread_mutex_init(&e->place_lock, NULL);
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        pthread_mutex_init(&e->core[c].job_lock, NULL);
    npk_status s = npk_rk_device_open(spec, &e->dev);
    if (s) {
        engine_destroy(e);
        return s;
    }
    npk_rk_device_info info;
    npk_rk_device_query(e->dev, &info);
    e->simulated = info.simulated;
    e->soc = info.soc;
    e->form = npk_rk_kernel_form_find(info.kernel);
    if (!e->form) {
        engine_destroy(e);
        return npk_fail(NPK_EUNSUPPORTED, "open: no program form for the %s kernel interface",
                        info.kernel);
    }
    e->max_cores = info.cores < e->soc->cores ? info.cores : e->soc->cores;
    e->core_spaces = info.core_spaces;
    e->domains = info.domains < RKNPU_MAX_IOMMU_DOMAIN_NUM ? info.domains
                                                            : RKNPU_MAX_IOMMU_DOMAIN_NUM;
    if (e->max_cores > NPK_RK_MAX_CORES)
        e->max_cores = NPK_RK_MAX_CORES;
    e->chain = 1;
    e->feature_slot = e->soc->cbuf_banks * e->soc->bank_bytes;
    e->refs = 1;
    /* POWER_ON is refused (EINVAL) by the 6.1 kernel, where the NPU is powered on demand:
     * its failure is not an error (facts A.1). */
    uint32_t v = 0;
    (void)npk_rk_action(e->dev, RKNPU_POWER_ON, &v);
    v = 0;
    if (npk_rk_action(e->dev, RKNPU_GET_DRV_VERSION, &v) == NPK_OK)
        e->drv_version = v;
    v = 0;
    if (npk_rk_action(e->dev, RKNPU_GET_HW_VERSION, &v) == NPK_OK)
        e->hw_version = v;
    for (unsigned c = 0; c < engine_cores(e) && s == NPK_OK; c++)
        s = create_core_buffers(e, &e->core[c], c, e->chain);
    if (s) {
        engine_destroy(e);
        return s;
    }
    *out = e;
    return NPK_OK;
}

npk_status npk_rk_engine_get(const char *device, bool shared, npk_rk_engine **out)
{
    *out = NULL;
    if (!shared)
        return engine_open(device, out);
    const char *key = device ? device : "auto";
    if (strlen(key) >= sizeof registry->key)
        return npk_fail(NPK_EINVAL, "device name of %zu characters: at most %zu", strlen(key),
                        sizeof registry->key - 1);
    pthread_mutex_lock(&registry_lock);
    npk_status s = NPK_OK;
    npk_rk_engine *e = registry;
    while (e && strcmp(e->key, key))
        e = e->next;
    if (e) {
        e->refs++;
    } else if ((s = engine_open(device, &e)) == NPK_OK) {
        e->shared = true;
        snprintf(e->key, sizeof e->key, "%s", key);
        e->next = registry;
        registry = e;
    }
    pthread_mutex_unlock(&registry_lock);
    *out = e;
    return s;
}

void npk_rk_engine_retain(npk_rk_engine *e)
{
    pthread_mutex_lock(&registry_lock);
    e->refs++;
    pthread_mutex_unlock(&registry_lock);
}

void npk_rk_engine_release(npk_rk_engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&registry_lock);
    bool last = --e->refs == 0;
    if (last && e->shared) {
        npk_rk_engine **p = &registry;
        while (*p != e)
            p = &(*p)->next;
        *p = e->next;
    }
    pthread_mutex_unlock(&registry_lock);
    if (last)
        engine_destroy(e);
}

unsigned npk_rk_engine_refs(npk_rk_engine *e)
{
    pthread_mutex_lock(&registry_lock);
    unsigned r = e->refs;
    pthread_mutex_unlock(&registry_lock);
    return r;
}

npk_status npk_rk_engine_set_chain(npk_rk_engine *e, uint32_t chain)
{
    if (chain == e->chain)
        return NPK_OK;
    npk_status s = NPK_OK;
    e->chain = chain;
    pthread_mutex_lock(&e->place_lock);
    for (unsigned d = 0; d < e->domains; d++) {
        npk_rk_core_bufs *set = domain_bufs(e, d);
        for (unsigned c = 0; set && c < engine_cores(e) && s == NPK_OK; c++)
            s = create_core_buffers(e, &set[c], c, chain);
    }
    pthread_mutex_unlock(&e->place_lock);
    /* The feature buffers moved: reset so no core reads feature state cached for the old
     * address (spec "Feature address caching"). */
    atomic_fetch_or(&e->pending, NPK_POLICY_RESET);
    return s;
}

npk_status npk_rk_use_domain(npk_rk *rt, unsigned d)
{
    npk_rk_engine *e = rt->eng;
    if (d >= e->domains)
        return npk_fail(NPK_EINVAL, "IOMMU domain %u: %s has %u", d, npk_rk_device_name(e->dev),
                        e->domains);
    npk_status s = NPK_OK;
    pthread_mutex_lock(&e->place_lock);
    npk_rk_core_bufs *set = domain_bufs(e, d);
    if (!set) {
        set = calloc(NPK_RK_MAX_CORES, sizeof *set);
        if (!set)
            s = npk_fail(NPK_ENOMEM, "runtime: out of memory for domain %u's core buffers", d);
        for (unsigned c = 0; set && c < NPK_RK_MAX_CORES; c++) {
            pthread_mutex_init(&set[c].job_lock, NULL);
            set[c].domain = d;
        }
        for (unsigned c = 0; set && c < engine_cores(e) && s == NPK_OK; c++)
            s = create_core_buffers(e, &set[c], c, e->chain);
        if (s && set) {
            destroy_bufs(e, set);
            free(set);
            set = NULL;
        }
        e->domain_core[d] = set;
    }
    if (s == NPK_OK)
        rt->core = set;
    pthread_mutex_unlock(&e->place_lock);
    if (s == NPK_OK)
        npk_rk_engine_enter_domain(e, d);
    return s;
}

void npk_rk_engine_enter_domain(npk_rk_engine *e, unsigned d)
{
    pthread_mutex_lock(&e->place_lock);
    if (e->last_domain != d) /* the same feature address names other memory there */
        atomic_fetch_or(&e->pending, NPK_POLICY_RESET | NPK_POLICY_CLEAR_WARM);
    e->last_domain = d;
    pthread_mutex_unlock(&e->place_lock);
}

void npk_rk_engine_clear_warm(npk_rk_engine *e)
{
    pthread_mutex_lock(&e->place_lock);
    for (unsigned d = 0; d < e->domains; d++) {
        npk_rk_core_bufs *set = domain_bufs(e, d);
        for (unsigned c = 0; set && c < NPK_RK_MAX_CORES; c++)
            atomic_store(&set[c].output_warm, false);
    }
    pthread_mutex_unlock(&e->place_lock);
}
