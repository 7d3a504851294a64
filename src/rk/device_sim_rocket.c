/* SPDX-License-Identifier: MIT */
/* The simulator behind the rocket interface: rksim's rocket front end as the inner backend of
 * the rocket adapter (device_rocket.c), one rocket file of a fresh simulator. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_device_sim.h"
#include "npukit/rksim_rocket.h"
#include "npukit/rocket_uapi.h"
#include "rk/device_backend.h"

typedef struct srk {
    rksim *sim;
    int file;
    pthread_mutex_t lock; /* the simulator is not thread-safe */
    char detail[sizeof(((rksim_report *)0)->message)];
    double job_us;
} srk;

static int q_ioctl(void *ctx, unsigned long request, void *arg)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->lock);
    int rc = rksim_rocket_ioctl(c->sim, c->file, request, arg);
    if (ROCKET_IOC_NR(request) == ROCKET_DRM_COMMAND_BASE + ROCKET_NR_SUBMIT) {
        const rksim_report *r = rksim_last_report(c->sim);
        strcpy(c->detail, r->outcome == RKSIM_OK ? "" : r->message);
        c->job_us = r->model_us;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static void *q_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->lock);
    void *p = rksim_mmap(c->sim, offset, length, err);
    pthread_mutex_unlock(&c->lock);
    return p;
}

static void q_unmap(void *ctx, void *addr, size_t length)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->lock);
    rksim_munmap(c->sim, addr, length);
    pthread_mutex_unlock(&c->lock);
}

static void q_close(void *ctx)
{
    srk *c = ctx;
    rksim_rocket_close(c->sim, c->file);
    rksim_destroy(c->sim);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static const char *q_detail(void *ctx)
{
    static _Thread_local char copy[sizeof(((srk *)0)->detail)];
    srk *c = ctx;
    pthread_mutex_lock(&c->lock);
    memcpy(copy, c->detail, sizeof copy);
    pthread_mutex_unlock(&c->lock);
    return copy[0] ? copy : NULL;
}

static const npk_rk_soc *q_soc(void *ctx)
{
    srk *c = ctx;
    const npk_rk_soc *soc = npk_rk_soc_find(rksim_soc_name(c->sim));
    return soc ? soc : npk_rk_soc_default();
}

/* The modelled time of the last job (the model's answer; the kernel has none). */
static double q_job_us(void *ctx)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->lock);
    double us = c->job_us;
    pthread_mutex_unlock(&c->lock);
    return us;
}

static const npk_rk_backend sim_rocket_inner = {.kind = "sim",
                                                .simulated = true,
                                                .ioctl = q_ioctl,
                                                .map = q_map,
                                                .unmap = q_unmap,
                                                .close = q_close,
                                                .detail = q_detail,
                                                .soc = q_soc,
                                                .kernel = "rocket",
                                                .job_us = q_job_us};

npk_status npk_rk_device_open_sim_rocket(const rksim_config *cfg, npk_rk_device **out)
{
    rksim_config def;
    if (!cfg) {
        rksim_config_default(&def);
        npk_status s = rksim_config_from_env(&def);
        if (s)
            return s;
        cfg = &def;
    }
    srk *c = calloc(1, sizeof *c);
    if (!c)
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    npk_status s = rksim_create(cfg, &c->sim);
    if (s) {
        free(c);
        return s;
    }
    c->file = rksim_rocket_open(c->sim);
    if (c->file < 0) {
        rksim_destroy(c->sim);
        free(c);
        return npk_fail(NPK_ENOMEM, "rk device: the simulator opened no rocket file");
    }
    pthread_mutex_init(&c->lock, NULL);
    return npk_rk_device_wrap_rocket(&sim_rocket_inner, c, "sim-rocket", out);
}
