/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* clock_gettime, close, pthread_rwlock */
/* The rocket backend: the device layer's rknpu-shaped requests carried out with the mainline
 * rocket driver's (rocket_uapi.h, facts A.2), over an inner backend that speaks rocket — the
 * /dev/accel node, or the simulator's rocket front end. The translation:
 *
 *   MEM_CREATE  -> CREATE_BO (32-bit sizes); obj_addr is a token naming the buffer
 *   MEM_MAP     -> the offset CREATE_BO returned
 *   MEM_DESTROY -> GEM_CLOSE
 *   MEM_SYNC    -> TO_DEVICE: FINI_BO (end of CPU access); FROM_DEVICE: PREP_BO (wait for the
 *                  NPU, begin CPU access) with an absolute deadline
 *   ACTION      -> ACT_RESET, POWER_ON/OFF succeed with nothing to do (rocket resets a core
 *                  itself when a job times out, and powers the NPU on demand); the queries
 *                  have no rocket counterpart: EOPNOTSUPP
 *   SUBMIT      -> one job of the core's task range, each task (regcmd_addr, regcfg_amount +
 *                  the 4 trailer entries rocket counts); every live buffer is in the job's
 *                  output list, so PREP_BO of any of them waits for it (a GEM_CLOSE waits
 *                  until a SUBMIT in progress has returned: the kernel looks every listed
 *                  handle up, and one closed in between fails the job). Blocking: PREP_BO of
 *                  the task buffer until the submit's timeout. NONBLOCK: returns at once; the
 *                  caller waits with npk_rk_wait().
 *
 * Rocket has no core choice per job: each open file is one scheduler entity whose jobs run in
 * order, so this backend addresses one core. Rocket reports no job failure either: a job the
 * kernel timed out looks complete to user space. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "npukit/rocket_uapi.h"
#include "device_backend.h"

/* obj_addr tokens: a tag above any handle, so a stale rknpu obj_addr is not taken for one. */
#define OBJ_TAG (0x524bull << 40)

typedef struct rbo {
    uint32_t handle, dma;
    uint64_t size, offset;
    void *host;
} rbo;

typedef struct rocket_ctx {
    npk_rk_backend inner;
    void *ictx;
    pthread_mutex_t lock; /* the buffer table: threads create and submit concurrently */
    /* A SUBMIT names every live buffer's handle: the handles listed must stay open until the
     * kernel has taken its references (SUBMIT returned). Submits hold this for reading from
     * the listing to the return, GEM_CLOSE for writing, so no handle closes in between. */
    pthread_rwlock_t closing;
    rbo *bos;
    size_t n, cap;
    /* the last NONBLOCK job: its task buffer, for npk_rk_wait */
    uint32_t pending_handle;
    int64_t pending_deadline_ns;
} rocket_ctx;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Look a buffer up under the lock; a copy, since the table may move. */
static bool find(rocket_ctx *r, bool by_obj, uint64_t key, rbo *out)
{
    bool ok = false;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n && !ok; i++)
        if (by_obj ? (OBJ_TAG | r->bos[i].handle) == key : r->bos[i].handle == key) {
            *out = r->bos[i];
            ok = true;
        }
    pthread_mutex_unlock(&r->lock);
    return ok;
}

static int prep(rocket_ctx *r, uint32_t handle, int64_t deadline)
{
    struct drm_rocket_prep_bo p = {.handle = handle, .timeout_ns = deadline};
    return r->inner.ioctl(r->ictx, DRM_IOCTL_ROCKET_PREP_BO, &p);
}

static int mem_create(rocket_ctx *r, struct rknpu_mem_create *c)
{
    if (c->size == 0 || c->size > UINT32_MAX)
        return -EINVAL; /* CREATE_BO's size is 32 bits */
    struct drm_rocket_create_bo b = {.size = (uint32_t)c->size};
    int rc = r->inner.ioctl(r->ictx, DRM_IOCTL_ROCKET_CREATE_BO, &b);
    if (rc)
        return rc;
    pthread_mutex_lock(&r->lock);
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        rbo *n = realloc(r->bos, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&r->lock);
            struct rocket_gem_close g = {.handle = b.handle};
            r->inner.ioctl(r->ictx, ROCKET_DRM_IOCTL_GEM_CLOSE, &g);
            return -ENOMEM;
        }
        r->bos = n;
        r->cap = cap;
    }
    r->bos[r->n++] = (rbo){b.handle, (uint32_t)b.dma_address, c->size, b.offset, NULL};
    pthread_mutex_unlock(&r->lock);
    c->handle = b.handle;
    c->obj_addr = OBJ_TAG | b.handle;
    c->dma_addr = b.dma_address;
    c->sram_size = 0;
    return 0;
}

static int mem_destroy(rocket_ctx *r, const struct rknpu_mem_destroy *d)
{
    rbo b;
    if (!find(r, false, d->handle, &b))
        return -EINVAL;
    struct rocket_gem_close g = {.handle = d->handle};
    pthread_rwlock_wrlock(&r->closing);
    int rc = r->inner.ioctl(r->ictx, ROCKET_DRM_IOCTL_GEM_CLOSE, &g);
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n; i++)
        if (r->bos[i].handle == d->handle) {
            r->bos[i] = r->bos[--r->n];
            break;
        }
    pthread_mutex_unlock(&r->lock);
    pthread_rwlock_unlock(&r->closing);
    return rc;
}

static int mem_sync(rocket_ctx *r, const struct rknpu_mem_sync *y)
{
    rbo b;
    if (!find(r, true, y->obj_addr, &b) || y->offset > b.size || y->size > b.size - y->offset)
        return -EINVAL;
    int rc = 0;
    if (y->flags & RKNPU_MEM_SYNC_FROM_DEVICE)
        rc = prep(r, b.handle, now_ns() + 6000ll * 1000000);
    if (rc == 0 && (y->flags & RKNPU_MEM_SYNC_TO_DEVICE)) {
        struct drm_rocket_fini_bo f = {.handle = b.handle};
        rc = r->inner.ioctl(r->ictx, DRM_IOCTL_ROCKET_FINI_BO, &f);
    }
    return rc == -EBUSY ? -ETIMEDOUT : rc;
}

static int action(struct rknpu_action *a)
{
    switch (a->flags) {
    case RKNPU_ACT_RESET:
    case RKNPU_POWER_ON:
    case RKNPU_POWER_OFF: return 0;
    default: return -EOPNOTSUPP;
    }
}

static int submit(rocket_ctx *r, struct rknpu_submit *sub)
{
    sub->task_counter = 0;
    if (!(sub->flags & RKNPU_JOB_PC) || (sub->flags & (RKNPU_JOB_FENCE_IN | RKNPU_JOB_FENCE_OUT)))
        return -EINVAL;
    uint32_t mask = sub->core_mask ? sub->core_mask & RKNPU_CORE_ALL_MASK : RKNPU_CORE0_MASK;
    if (!mask)
        return -EINVAL;
    unsigned core = (unsigned)__builtin_ctz(mask);
    struct rknpu_subcore_task range = sub->subcore_task[rknpu_subcore_index(mask, core)];
    rbo tb;
    if (!find(r, true, sub->task_obj_addr, &tb) || !tb.host || range.task_number == 0 ||
        (uint64_t)range.task_start + range.task_number > tb.size / sizeof(struct rknpu_task))
        return -EINVAL;

    struct drm_rocket_task *tasks = calloc(range.task_number, sizeof *tasks);
    pthread_rwlock_rdlock(&r->closing); /* until SUBMIT returns: no listed handle closes */
    pthread_mutex_lock(&r->lock);
    uint32_t *outs = malloc((r->n ? r->n : 1) * sizeof *outs);
    uint32_t nout = 0;
    for (size_t i = 0; outs && i < r->n; i++)
        outs[nout++] = r->bos[i].handle;
    pthread_mutex_unlock(&r->lock);
    if (!tasks || !outs) {
        pthread_rwlock_unlock(&r->closing);
        free(tasks);
        free(outs);
        return -ENOMEM;
    }
    const struct rknpu_task *rec = (const struct rknpu_task *)tb.host + range.task_start;
    for (uint32_t i = 0; i < range.task_number; i++) {
        struct rknpu_task t;
        memcpy(&t, &rec[i], sizeof t);
        /* rocket counts the trailer inside regcmd_count; rknpu's regcfg_amount does not */
        tasks[i] = (struct drm_rocket_task){(uint32_t)t.regcmd_addr,
                                            t.regcfg_amount + ROCKET_TRAILER_ENTRIES};
    }
    struct drm_rocket_job job = {.tasks = (uintptr_t)tasks,
                                 .out_bo_handles = (uintptr_t)outs,
                                 .task_count = range.task_number,
                                 .task_struct_size = sizeof *tasks,
                                 .out_bo_handle_count = nout};
    struct drm_rocket_submit s = {
        .jobs = (uintptr_t)&job, .job_count = 1, .job_struct_size = sizeof job};
    int64_t t0 = now_ns(), deadline = t0 + (int64_t)sub->timeout * 1000000;
    int rc = r->inner.ioctl(r->ictx, DRM_IOCTL_ROCKET_SUBMIT, &s);
    pthread_rwlock_unlock(&r->closing);
    free(tasks);
    free(outs);
    if (rc)
        return rc;
    if (sub->flags & RKNPU_JOB_NONBLOCK) {
        pthread_mutex_lock(&r->lock);
        r->pending_handle = tb.handle;
        r->pending_deadline_ns = deadline;
        pthread_mutex_unlock(&r->lock);
        return 0;
    }
    rc = prep(r, tb.handle, deadline);
    if (rc == -EBUSY || rc == -ETIMEDOUT)
        return -ETIMEDOUT;
    if (rc)
        return rc;
    sub->task_counter = range.task_number;
    double us = r->inner.job_us ? r->inner.job_us(r->ictx) : (double)(now_ns() - t0) / 1e3;
    sub->u48_.hw_elapse_time = (int64_t)(us + 0.5);
    return 0;
}

static int mem_map(rocket_ctx *r, struct rknpu_mem_map *m)
{
    rbo b;
    if (!find(r, false, m->handle, &b))
        return -EINVAL;
    m->offset = b.offset;
    return 0;
}

/* PRIME import: mainline rocket sets no gem_prime_import_sg_table, so its DRM core refuses a
 * foreign dma-buf with EINVAL, and no rocket request could give an imported object an IOVA
 * anyway (docs/facts-dma-buf.md): the kernel's own answer, without asking it. */
static int prime_import(rocket_ctx *r, void *arg)
{
    (void)r, (void)arg;
    return -EINVAL;
}

static int run_action(rocket_ctx *r, void *arg)
{
    (void)r;
    return action(arg);
}

static int run_submit(rocket_ctx *r, void *arg) { return submit(r, arg); }
static int run_mem_create(rocket_ctx *r, void *arg) { return mem_create(r, arg); }
static int run_mem_map(rocket_ctx *r, void *arg) { return mem_map(r, arg); }
static int run_mem_destroy(rocket_ctx *r, void *arg) { return mem_destroy(r, arg); }
static int run_mem_sync(rocket_ctx *r, void *arg) { return mem_sync(r, arg); }

/* The rknpu requests the backend carries out, one row each (the translation above). */
static const struct {
    unsigned nr;
    int (*run)(rocket_ctx *r, void *arg);
} requests[] = {
    {0x40 + RKNPU_NR_ACTION, run_action},
    {0x40 + RKNPU_NR_SUBMIT, run_submit},
    {0x40 + RKNPU_NR_MEM_CREATE, run_mem_create},
    {0x40 + RKNPU_NR_MEM_MAP, run_mem_map},
    {0x40 + RKNPU_NR_MEM_DESTROY, run_mem_destroy},
    {0x40 + RKNPU_NR_MEM_SYNC, run_mem_sync},
    {0x2e, prime_import},
};

/* A request with no row is refused as the DRM core refuses it: ENOTTY for another type, EINVAL
 * for a number it does not know (the caller names the request in its message). */
static int r_ioctl(void *ctx, unsigned long request, void *arg)
{
    if (RKNPU_IOC_TYPE(request) != RKNPU_DRM_IOCTL_BASE)
        return -ENOTTY;
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
        if (requests[i].nr == RKNPU_IOC_NR(request))
            return requests[i].run(ctx, arg);
    return -EINVAL;
}

static void *r_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    rocket_ctx *r = ctx;
    void *p = r->inner.map(r->ictx, offset, length, err);
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; p && i < r->n; i++)
        if (r->bos[i].offset == offset)
            r->bos[i].host = p; /* SUBMIT reads the task records through it */
    pthread_mutex_unlock(&r->lock);
    return p;
}

static void r_unmap(void *ctx, void *addr, size_t length)
{
    rocket_ctx *r = ctx;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n; i++)
        if (r->bos[i].host == addr)
            r->bos[i].host = NULL;
    pthread_mutex_unlock(&r->lock);
    r->inner.unmap(r->ictx, addr, length);
}

static void r_close(void *ctx)
{
    rocket_ctx *r = ctx;
    r->inner.close(r->ictx);
    pthread_mutex_destroy(&r->lock);
    pthread_rwlock_destroy(&r->closing);
    free(r->bos);
    free(r);
}

static const char *r_detail(void *ctx)
{
    rocket_ctx *r = ctx;
    return r->inner.detail ? r->inner.detail(r->ictx) : NULL;
}

static struct rksim *r_sim(void *ctx)
{
    rocket_ctx *r = ctx;
    return r->inner.sim(r->ictx);
}

static const npk_rk_soc *r_soc(void *ctx)
{
    rocket_ctx *r = ctx;
    return r->inner.soc(r->ictx);
}

static int r_wait(void *ctx, unsigned core, uint32_t timeout_ms, double *us)
{
    rocket_ctx *r = ctx;
    (void)core;       /* one file, one core */
    (void)timeout_ms; /* the deadline was fixed at SUBMIT from its timeout */
    pthread_mutex_lock(&r->lock);
    uint32_t h = r->pending_handle;
    int64_t deadline = r->pending_deadline_ns;
    r->pending_handle = 0;
    pthread_mutex_unlock(&r->lock);
    if (!h)
        return 0;
    int rc = prep(r, h, deadline);
    if (rc == 0 && r->inner.job_us)
        *us = r->inner.job_us(r->ictx); /* the model's; the kernel reports no NPU time */
    return rc == -EBUSY ? -ETIMEDOUT : rc;
}

npk_status npk_rk_device_wrap_rocket(const npk_rk_backend *inner, void *ictx, const char *name,
                                     npk_rk_device **out)
{
    rocket_ctx *r = calloc(1, sizeof *r);
    if (!r) {
        inner->close(ictx);
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    }
    r->inner = *inner;
    r->ictx = ictx;
    pthread_mutex_init(&r->lock, NULL);
    pthread_rwlock_init(&r->closing, NULL);
    npk_rk_backend be = {.kind = inner->kind,
                         .simulated = inner->simulated,
                         .ioctl = r_ioctl,
                         .map = r_map,
                         .unmap = r_unmap,
                         .close = r_close,
                         .detail = r_detail,
                         .soc = r_soc,
                         .kernel = "rocket",
                         .cores = 1,
                         .wait = r_wait,
                         .sim = inner->sim ? r_sim : NULL};
    return npk_rk_device_wrap(&be, r, name, out);
}

npk_status npk_rk_device_open_rocket(const char *path, npk_rk_device **out)
{
    char driver[32], found[64];
    int fd = -ENODEV;
    if (path) {
        fd = npk_rk_node_open(path, driver, sizeof driver);
        if (fd < 0)
            return npk_fail(NPK_ENODEV, "%s: %s", path, strerror(-fd));
        if (strcmp(driver, "rocket")) {
            close(fd);
            return npk_fail(NPK_ENODEV, "%s: its DRM driver is %s, not rocket", path, driver);
        }
    } else {
        for (int i = 0; i < 16 && fd < 0; i++) {
            snprintf(found, sizeof found, "/dev/accel/accel%d", i);
            fd = npk_rk_node_open(found, driver, sizeof driver);
            if (fd >= 0 && strcmp(driver, "rocket")) {
                close(fd);
                fd = -ENODEV;
            }
        }
        if (fd < 0)
            return npk_fail(NPK_ENODEV, "no /dev/accel node with the rocket driver "
                                        "(accel0..15)");
        path = found;
    }
    npk_rk_backend inner = npk_rk_kernel_fd_backend;
    inner.simulated = npk_rk_node_simulated(fd);
    void *k = npk_rk_kernel_fd_ctx(fd);
    if (!k)
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    return npk_rk_device_wrap_rocket(&inner, k, path, out);
}
