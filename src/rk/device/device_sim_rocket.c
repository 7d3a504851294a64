/* SPDX-License-Identifier: MIT */
/* The simulator behind the rocket interface: rksim's rocket front end as the inner backend of
 * the rocket adapter (device_rocket.c), one rocket file of a fresh simulator. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rk_device_sim.h"
#include "rksim/rksim_rocket.h"
#include "npukit/rocket_uapi.h"
#include "device_backend.h"
#include "device_sim_lock.h"

typedef struct srk {
    rk_sim_lock base; /* first: the shared map, unmap, detail and SoC entries take it */
    int file;
    double job_us;
} srk;

static int q_ioctl(void *ctx, unsigned long request, void *arg)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->base.lock);
    int rc = rksim_rocket_ioctl(c->base.sim, c->file, request, arg);
    if (ROCKET_IOC_NR(request) == ROCKET_DRM_COMMAND_BASE + ROCKET_NR_SUBMIT) {
        const rksim_report *r = rksim_last_report(c->base.sim);
        rk_sim_lock_keep_detail(&c->base);
        c->job_us = r->model_us;
        /* The front end answers a job outside the model as the kernel answers a hung one
         * (SUBMIT accepted, fences at the job timeout); in process the model says so itself,
         * so the caller gets NPK_EUNSUPPORTED rather than a result the NPU never wrote. */
        if (rc == 0 && r->outcome == RKSIM_UNSUPPORTED)
            rc = -EOPNOTSUPP;
    }
    pthread_mutex_unlock(&c->base.lock);
    return rc;
}

static void q_close(void *ctx)
{
    srk *c = ctx;
    rksim_rocket_close(c->base.sim, c->file);
    rk_sim_lock_fini(&c->base);
    free(c);
}

/* The modelled time of the last job (the model's answer; the kernel has none). */
static double q_job_us(void *ctx)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->base.lock);
    double us = c->job_us;
    pthread_mutex_unlock(&c->base.lock);
    return us;
}

static const npk_rk_backend sim_rocket_inner = {.kind = "sim",
                                                .simulated = true,
                                                .ioctl = q_ioctl,
                                                .map = rk_sim_lock_map,
                                                .unmap = rk_sim_lock_unmap,
                                                .close = q_close,
                                                .detail = rk_sim_lock_detail,
                                                .soc = rk_sim_lock_soc,
                                                .kernel = "rocket",
                                                .job_us = q_job_us,
                                                .sim = rk_sim_lock_sim};

npk_status npk_rk_device_open_sim_rocket(const rksim_config *cfg, npk_rk_device **out)
{
    rksim_config def;
    npk_status s = rk_sim_lock_config(cfg, &def, &cfg);
    if (s)
        return s;
    srk *c = calloc(1, sizeof *c);
    if (!c)
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    if ((s = rk_sim_lock_init(&c->base, cfg))) {
        free(c);
        return s;
    }
    c->file = rksim_rocket_open(c->base.sim);
    if (c->file < 0) {
        rk_sim_lock_fini(&c->base);
        free(c);
        return npk_fail(NPK_ENOMEM, "rk device: the simulator opened no rocket file");
    }
    return npk_rk_device_wrap_rocket(&sim_rocket_inner, c, "sim-rocket", out);
}
