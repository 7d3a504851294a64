/* SPDX-License-Identifier: MIT */
/* One simulator behind a lock, shared by the rknpu and rocket simulator backends. */
#include <string.h>

#include "device_sim_lock.h"

npk_status rk_sim_lock_config(const rksim_config *cfg, rksim_config *def, const rksim_config **use)
{
    *use = cfg;
    if (cfg)
        return NPK_OK;
    rksim_config_default(def);
    npk_status s = rksim_config_from_env(def);
    if (!s)
        *use = def;
    return s;
}

npk_status rk_sim_lock_init(rk_sim_lock *l, const rksim_config *cfg)
{
    npk_status s = rksim_create(cfg, &l->sim);
    if (s)
        return s;
    pthread_mutex_init(&l->lock, NULL);
    return NPK_OK;
}

void rk_sim_lock_fini(rk_sim_lock *l)
{
    rksim_destroy(l->sim);
    pthread_mutex_destroy(&l->lock);
}

void rk_sim_lock_keep_detail(rk_sim_lock *l)
{
    const rksim_report *r = rksim_last_report(l->sim);
    strcpy(l->detail, r->outcome == RKSIM_OK ? "" : r->message);
}

void *rk_sim_lock_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    rk_sim_lock *l = ctx;
    pthread_mutex_lock(&l->lock);
    void *p = rksim_mmap(l->sim, offset, length, err);
    pthread_mutex_unlock(&l->lock);
    return p;
}

void rk_sim_lock_unmap(void *ctx, void *addr, size_t length)
{
    rk_sim_lock *l = ctx;
    pthread_mutex_lock(&l->lock);
    rksim_munmap(l->sim, addr, length);
    pthread_mutex_unlock(&l->lock);
}

const char *rk_sim_lock_detail(void *ctx)
{
    /* A copy per thread, taken under the lock: another core's thread may be mid-request. */
    static _Thread_local char copy[sizeof(((rk_sim_lock *)0)->detail)];
    rk_sim_lock *l = ctx;
    pthread_mutex_lock(&l->lock);
    memcpy(copy, l->detail, sizeof copy);
    pthread_mutex_unlock(&l->lock);
    return copy[0] ? copy : NULL;
}

rksim *rk_sim_lock_sim(void *ctx) { return ((rk_sim_lock *)ctx)->sim; }

/* The SoC the simulator models. */
const npk_rk_soc *rk_sim_lock_soc(void *ctx)
{
    rk_sim_lock *l = ctx;
    const npk_rk_soc *soc = npk_rk_soc_find(rksim_soc_name(l->sim));
    return soc ? soc : npk_rk_soc_default();
}
