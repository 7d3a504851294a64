/* SPDX-License-Identifier: MIT */
/* The simulator behind the rocket interface: rksim's rocket front end as the inner backend of
 * the rocket adapter (device_rocket.c), one rocket file per core of a fresh simulator, all over
 * the one simulator and its lock. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rk_device_sim.h"
#include "rksim/rksim_rocket.h"
#include "npukit/rocket_uapi.h"
#include "device_backend.h"
#include "device_sim_lock.h"

/* The simulator and its lock, shared by the files; the last file to close destroys it. */
typedef struct srk_sim {
    rk_sim_lock base;
    unsigned files;
} srk_sim;

typedef struct srk {
    srk_sim *shared;
    int file;
    double job_us;
} srk;

static int q_ioctl(void *ctx, unsigned long request, void *arg)
{
    srk *c = ctx;
    rk_sim_lock *l = &c->shared->base;
    pthread_mutex_lock(&l->lock);
    int rc = rksim_rocket_ioctl(l->sim, c->file, request, arg);
    if (ROCKET_IOC_NR(request) == ROCKET_DRM_COMMAND_BASE + ROCKET_NR_SUBMIT) {
        const rksim_report *r = rksim_last_report(l->sim);
        rk_sim_lock_keep_detail(l);
        c->job_us = r->model_us;
        /* The front end answers a job outside the model as the kernel answers a hung one
         * (SUBMIT accepted, fences at the job timeout); in process the model says so itself,
         * so the caller gets NPK_EUNSUPPORTED rather than a result the NPU never wrote. */
        if (rc == 0 && r->outcome == RKSIM_UNSUPPORTED)
            rc = -EOPNOTSUPP;
    }
    pthread_mutex_unlock(&l->lock);
    return rc;
}

static void q_close(void *ctx)
{
    srk *c = ctx;
    srk_sim *sh = c->shared;
    rksim_rocket_close(sh->base.sim, c->file);
    if (--sh->files == 0) { /* the adapter closes its files one after another */
        rk_sim_lock_fini(&sh->base);
        free(sh);
    }
    free(c);
}

/* The modelled time of the file's last job (the model's answer; the kernel has none). */
static double q_job_us(void *ctx)
{
    srk *c = ctx;
    pthread_mutex_lock(&c->shared->base.lock);
    double us = c->job_us;
    pthread_mutex_unlock(&c->shared->base.lock);
    return us;
}

static void *q_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    return rk_sim_lock_map(&((srk *)ctx)->shared->base, offset, length, err);
}
static void q_unmap(void *ctx, void *addr, size_t length)
{
    rk_sim_lock_unmap(&((srk *)ctx)->shared->base, addr, length);
}
static const char *q_detail(void *ctx) { return rk_sim_lock_detail(&((srk *)ctx)->shared->base); }
static const npk_rk_soc *q_soc(void *ctx) { return rk_sim_lock_soc(&((srk *)ctx)->shared->base); }
static rksim *q_sim(void *ctx) { return ((srk *)ctx)->shared->base.sim; }

static const npk_rk_backend sim_rocket_inner = {.kind = "sim",
                                                .simulated = true,
                                                .ioctl = q_ioctl,
                                                .map = q_map,
                                                .unmap = q_unmap,
                                                .close = q_close,
                                                .detail = q_detail,
                                                .soc = q_soc,
                                                .kernel = "rocket",
                                                .job_us = q_job_us,
                                                .sim = q_sim};

npk_status npk_rk_device_open_sim_rocket(const rksim_config *cfg, npk_rk_device **out)
{
    rksim_config def;
    npk_status s = rk_sim_lock_config(cfg, &def, &cfg);
    if (s)
        return s;
    srk_sim *sh = calloc(1, sizeof *sh);
    if (!sh)
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    if ((s = rk_sim_lock_init(&sh->base, cfg))) {
        free(sh);
        return s;
    }
    /* one file per core, as the kernel backend opens its node (device_rocket.c) */
    void *files[NPK_RK_SOC_MAX_CORES];
    unsigned n = rk_sim_lock_soc(&sh->base)->cores;
    n = n > NPK_RK_SOC_MAX_CORES ? NPK_RK_SOC_MAX_CORES : n;
    for (unsigned f = 0; f < n; f++) {
        srk *c = calloc(1, sizeof *c);
        int file = c ? rksim_rocket_open(sh->base.sim) : -ENOMEM;
        if (file < 0) {
            free(c);
            bool none = f == 0; /* else the last file's close destroys the simulator */
            while (f-- > 0)
                q_close(files[f]);
            if (none) {
                rk_sim_lock_fini(&sh->base);
                free(sh);
            }
            return npk_fail(NPK_ENOMEM, "rk device: the simulator opened no rocket file");
        }
        *c = (srk){.shared = sh, .file = file};
        sh->files++;
        files[f] = c;
    }
    return npk_rk_device_wrap_rocket(&sim_rocket_inner, files, n, "sim-rocket", out);
}
