/* SPDX-License-Identifier: MIT */
/* One simulator behind a lock: the part the two simulator backends (the rknpu and the rocket
 * front end) share. The simulator is not thread-safe, so every request is serialized as the
 * kernel's ioctl path serializes it; a backend's context begins with this struct, so the map,
 * unmap, detail and SoC entries below serve both. */
#ifndef NPUKIT_RK_DEVICE_SIM_LOCK_H
#define NPUKIT_RK_DEVICE_SIM_LOCK_H

#include <pthread.h>

#include "rk_device_sim.h"
#include "npukit/rk_soc.h"

typedef struct rk_sim_lock {
    rksim *sim;
    pthread_mutex_t lock;
    char detail[sizeof(((rksim_report *)0)->message)]; /* the last failed request's reason */
} rk_sim_lock;

/* The simulator configuration: cfg, or the defaults with the environment's overrides. */
npk_status rk_sim_lock_config(const rksim_config *cfg, rksim_config *def, const rksim_config **use);
/* Creates the simulator and the lock in l (zeroed by the caller). */
npk_status rk_sim_lock_init(rk_sim_lock *l, const rksim_config *cfg);
void rk_sim_lock_fini(rk_sim_lock *l);
/* Under the lock: keep the report of the request just answered, before another thread runs. */
void rk_sim_lock_keep_detail(rk_sim_lock *l);

/* Backend entries; ctx points at a struct that begins with an rk_sim_lock. */
void *rk_sim_lock_map(void *ctx, uint64_t offset, size_t length, int *err);
void rk_sim_lock_unmap(void *ctx, void *addr, size_t length);
const char *rk_sim_lock_detail(void *ctx);
const npk_rk_soc *rk_sim_lock_soc(void *ctx);
/* The simulator itself. */
rksim *rk_sim_lock_sim(void *ctx);

#endif
