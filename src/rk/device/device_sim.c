/* SPDX-License-Identifier: MIT */
/* The simulator backend: the same requests answered by rksim's kernel-interface front end.
 * Requests are serialized like the kernel's ioctl path (the simulator itself is not
 * thread-safe): threads sharing one device may call it concurrently. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rk_device_sim.h"
#include "device_backend.h"
#include "device_sim_lock.h"

typedef rk_sim_lock sim_ctx;

static int s_ioctl(void *ctx, unsigned long request, void *arg)
{
    sim_ctx *c = ctx;
    pthread_mutex_lock(&c->lock);
    int rc = rksim_ioctl(c->sim, request, arg);
    rk_sim_lock_keep_detail(c);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* The completion of a NONBLOCK job: the simulator ran it at SUBMIT; a job that failed answers
 * only after its (scaled) timeout, waited here outside the lock so other cores carry on. */
static int s_wait(void *ctx, unsigned core, uint32_t timeout_ms, double *us)
{
    (void)timeout_ms; /* the job's own timeout decides, as the kernel's */
    sim_ctx *c = ctx;
    double wait_ms;
    pthread_mutex_lock(&c->lock);
    int rc = rksim_nonblock_take(c->sim, core, us, &wait_ms);
    pthread_mutex_unlock(&c->lock);
    if (wait_ms > 0) {
        struct timespec ts = {(time_t)(wait_ms / 1000),
                              (long)((wait_ms - (double)(time_t)(wait_ms / 1000) * 1000) * 1e6)};
        nanosleep(&ts, NULL);
    }
    return rc;
}

static void s_close(void *ctx)
{
    rk_sim_lock_fini(ctx);
    free(ctx);
}

static const npk_rk_backend sim_backend = {.kind = "sim",
                                           .simulated = true,
                                           .ioctl = s_ioctl,
                                           .map = rk_sim_lock_map,
                                           .unmap = rk_sim_lock_unmap,
                                           .close = s_close,
                                           .detail = rk_sim_lock_detail,
                                           .soc = rk_sim_lock_soc,
                                           .kernel = "rknpu",
                                           .wait = s_wait,
                                           .sim = rk_sim_lock_sim};

rksim *npk_rk_device_sim(npk_rk_device *dev) { return npk_rk_device_backend_sim(dev); }

npk_status npk_rk_device_open_sim(const rksim_config *cfg, npk_rk_device **out)
{
    rksim_config def;
    npk_status s = rk_sim_lock_config(cfg, &def, &cfg);
    if (s)
        return s;
    sim_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    if ((s = rk_sim_lock_init(c, cfg))) {
        free(c);
        return s;
    }
    return npk_rk_device_wrap(&sim_backend, c, "sim", out);
}

static npk_status open_sim_default(const char *path, npk_rk_device **out)
{
    (void)path;
    return npk_rk_device_open_sim(NULL, out);
}

static npk_status open_sim_rocket_default(const char *path, npk_rk_device **out)
{
    (void)path;
    return npk_rk_device_open_sim_rocket(NULL, out);
}

/* The device names npk_rk_device_open takes, one row each ("auto" and paths aside); the CLI's
 * --device help, Python and the ggml backend read them through npk_rk_device_names(). */
static const struct device_name {
    const char *name;
    npk_status (*open)(const char *path, npk_rk_device **out);
} device_names[] = {
    {"sim", open_sim_default},
    {"sim-rocket", open_sim_rocket_default},
    {"npu", npk_rk_device_open_kernel}, /* the runtime's name for the rknpu node */
    {"kernel", npk_rk_device_open_kernel},
    {"rocket", npk_rk_device_open_rocket},
};

static char names_text[128];
static void make_names(void)
{
    size_t n = (size_t)snprintf(names_text, sizeof names_text, "auto");
    for (size_t i = 0; i < sizeof device_names / sizeof device_names[0] && n < sizeof names_text;
         i++)
        n += (size_t)snprintf(names_text + n, sizeof names_text - n, "|%s", device_names[i].name);
}

const char *npk_rk_device_names(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_names);
    return names_text;
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
    for (size_t i = 0; i < sizeof device_names / sizeof device_names[0]; i++)
        if (!strcmp(spec, device_names[i].name))
            return device_names[i].open(NULL, out);
    /* Not a name: a device path, which names a directory. A word that is neither is a
     * misspelt name, refused with the names rather than a "No such file" from open(). */
    if (!strchr(spec, '/'))
        return npk_fail(NPK_EINVAL, "device '%s' is none of %s, nor a device path (/dev/...)",
                        spec, npk_rk_device_names());
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
