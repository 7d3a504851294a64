/* SPDX-License-Identifier: MIT */
/* The simulator backend: the same requests answered by rksim's kernel-interface front end.
 * Requests are serialized like the kernel's ioctl path (the simulator itself is not
 * thread-safe): threads sharing one device may call it concurrently. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npukit/rk_device_sim.h"
#include "rk/device_backend.h"

typedef struct sim_ctx {
    rksim *sim;
    pthread_mutex_t lock;
    char detail[sizeof(((rksim_report *)0)->message)];
} sim_ctx;

static int s_ioctl(void *ctx, unsigned long request, void *arg)
{
    sim_ctx *c = ctx;
    pthread_mutex_lock(&c->lock);
    int rc = rksim_ioctl(c->sim, request, arg);
    /* keep this request's report message for the error text, before another thread runs */
    const rksim_report *r = rksim_last_report(c->sim);
    strcpy(c->detail, r->outcome == RKSIM_OK ? "" : r->message);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static void *s_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    sim_ctx *c = ctx;
    pthread_mutex_lock(&c->lock);
    void *p = rksim_mmap(c->sim, offset, length, err);
    pthread_mutex_unlock(&c->lock);
    return p;
}

static void s_unmap(void *ctx, void *addr, size_t length)
{
    sim_ctx *c = ctx;
    pthread_mutex_lock(&c->lock);
    rksim_munmap(c->sim, addr, length);
    pthread_mutex_unlock(&c->lock);
}

static void s_close(void *ctx)
{
    sim_ctx *c = ctx;
    rksim_destroy(c->sim);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static const char *s_detail(void *ctx)
{
    /* A copy per thread, taken under the lock: another core's thread may be mid-request. */
    static _Thread_local char copy[sizeof(((sim_ctx *)0)->detail)];
    sim_ctx *c = ctx;
    pthread_mutex_lock(&c->lock);
    memcpy(copy, c->detail, sizeof copy);
    pthread_mutex_unlock(&c->lock);
    return copy[0] ? copy : NULL;
}

/* The SoC the simulator models. */
static const npk_rk_soc *s_soc(void *ctx)
{
    sim_ctx *c = ctx;
    const npk_rk_soc *soc = npk_rk_soc_find(rksim_soc_name(c->sim));
    return soc ? soc : npk_rk_soc_default();
}

static const npk_rk_backend sim_backend = {.kind = "sim",
                                           .simulated = true,
                                           .ioctl = s_ioctl,
                                           .map = s_map,
                                           .unmap = s_unmap,
                                           .close = s_close,
                                           .detail = s_detail,
                                           .soc = s_soc,
                                           .kernel = "rknpu"};

rksim *npk_rk_device_sim(npk_rk_device *dev)
{
    sim_ctx *c = npk_rk_device_ctx(dev, &sim_backend);
    return c ? c->sim : NULL;
}

npk_status npk_rk_device_open_sim(const rksim_config *cfg, npk_rk_device **out)
{
    rksim_config def;
    if (!cfg) {
        rksim_config_default(&def);
        npk_status s = rksim_config_from_env(&def);
        if (s)
            return s;
        cfg = &def;
    }
    sim_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    npk_status s = rksim_create(cfg, &c->sim);
    if (s) {
        free(c);
        return s;
    }
    pthread_mutex_init(&c->lock, NULL);
    return npk_rk_device_wrap(&sim_backend, c, "sim", out);
}

npk_status npk_rk_device_open(const char *spec, npk_rk_device **out)
{
    if (!spec || !strcmp(spec, "auto")) {
        const char *env = getenv("NPUKIT_RK_DEVICE");
        if (env && *env && strcmp(env, "auto")) {
            npk_status s = npk_rk_device_open(env, out);
            if (s) { /* the user never typed this name on the command line: say where from */
                char msg[512];
                snprintf(msg, sizeof msg, "%s", npk_last_error());
                npk_fail(s, "NPUKIT_RK_DEVICE=%s: %s", env, msg);
            }
            return s;
        }
        if (npk_rk_kernel_available())
            return npk_rk_device_open_kernel(NULL, out);
        if (npk_rk_device_open_rocket(NULL, out) == NPK_OK)
            return NPK_OK;
        return npk_rk_device_open_sim(NULL, out);
    }
    if (!strcmp(spec, "sim"))
        return npk_rk_device_open_sim(NULL, out);
    if (!strcmp(spec, "sim-rocket"))
        return npk_rk_device_open_sim_rocket(NULL, out);
    if (!strcmp(spec, "kernel") || !strcmp(spec, "npu")) /* "npu": the runtime's name for it */
        return npk_rk_device_open_kernel(NULL, out);
    if (!strcmp(spec, "rocket"))
        return npk_rk_device_open_rocket(NULL, out);
    /* a path: its driver says which interface it has */
    char driver[32];
    int fd = npk_rk_node_open(spec, driver, sizeof driver);
    if (fd >= 0) {
        close(fd);
        if (!strcmp(driver, "rocket"))
            return npk_rk_device_open_rocket(spec, out);
    }
    return npk_rk_device_open_kernel(spec, out);
}
