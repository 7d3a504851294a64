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
 *                  the 4 trailer entries rocket counts), on the task buffer's file; every live
 *                  buffer of that file is in the job's output list, so PREP_BO of any of them waits for it (a GEM_CLOSE waits
 *                  until a SUBMIT in progress has returned: the kernel looks every listed
 *                  handle up, and one closed in between fails the job). Blocking: PREP_BO of
 *                  the task buffer until the submit's timeout. NONBLOCK: returns at once; the
 *                  caller waits with npk_rk_wait().
 *
 * Rocket has no core choice per job: each open file is one scheduler entity whose jobs run in
 * order on one core at a time, and its own IOMMU domain (rocket_open). So the adapter opens one
 * file per core: core c's jobs go to file c (the file holding the job's task buffer), and a
 * buffer lives in the file of the core that reads it — MEM_CREATE's core_mask says which; a
 * buffer several cores read has a copy in each of their files, kept equal at MEM_SYNC
 * TO_DEVICE. Rocket reports no job failure either: a job the kernel timed out looks complete
 * to user space. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/stream_copy.h"
#include "npukit/rocket_uapi.h"
#include "device_backend.h"

/* obj_addr tokens: a tag above any handle, so a stale rknpu obj_addr is not taken for one. */
#define OBJ_TAG (0x524bull << 40)
/* mmap offsets handed up carry the file above any offset a DRM node hands out. */
#define MAP_FILE_SHIFT 56

enum { MAX_FILES = NPK_RK_SOC_MAX_CORES };

/* A buffer object in one file. `handle` is this adapter's, unique over its files (each file
 * numbers its GEM handles from 1); `khandle` is the file's. A buffer several cores read has a
 * copy in each of their files: the copies are entries whose `primary` names the buffer's
 * handle, invisible to lookups by handle; the device layer writes the primary's mapping and a
 * MEM_SYNC TO_DEVICE copies the range into the others. */
typedef struct rbo {
    uint32_t handle, khandle, primary, dma;
    unsigned file;
    uint64_t size, offset; /* offset: the file's mmap offset */
    void *host;
} rbo;

typedef struct rocket_ctx {
    npk_rk_backend inner;
    void *ictx[MAX_FILES]; /* one open file per core: each is one scheduler entity */
    unsigned files;
    pthread_mutex_t lock; /* the buffer table: threads create and submit concurrently */
    /* A SUBMIT names every live buffer of its file: the handles listed must stay open until the
     * kernel has taken its references (SUBMIT returned). Submits hold this for reading from
     * the listing to the return, GEM_CLOSE for writing, so no handle closes in between. */
    pthread_rwlock_t closing;
    rbo *bos;
    size_t n, cap;
    uint32_t next_handle;
    /* each core's last NONBLOCK job: its file and task buffer, for npk_rk_wait */
    struct pending {
        unsigned file;
        uint32_t khandle;
        int64_t deadline_ns;
    } pending[MAX_FILES];
} rocket_ctx;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int f_ioctl(rocket_ctx *r, unsigned file, unsigned long request, void *arg)
{
    return r->inner.ioctl(r->ictx[file], request, arg);
}

/* Look a buffer up under the lock; a copy, since the table may move. Copies are never found. */
static bool find(rocket_ctx *r, bool by_obj, uint64_t key, rbo *out)
{
    bool ok = false;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n && !ok; i++)
        if (!r->bos[i].primary &&
            (by_obj ? (OBJ_TAG | r->bos[i].handle) == key : r->bos[i].handle == key)) {
            *out = r->bos[i];
            ok = true;
        }
    pthread_mutex_unlock(&r->lock);
    return ok;
}

/* The copies of buffer `handle` (not the buffer itself), at most `max`. */
static size_t copies_of(rocket_ctx *r, uint32_t handle, rbo *out, size_t max)
{
    size_t k = 0;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n && k < max; i++)
        if (r->bos[i].primary == handle)
            out[k++] = r->bos[i];
    pthread_mutex_unlock(&r->lock);
    return k;
}

static int prep(rocket_ctx *r, unsigned file, uint32_t khandle, int64_t deadline)
{
    struct drm_rocket_prep_bo p = {.handle = khandle, .timeout_ns = deadline};
    return f_ioctl(r, file, DRM_IOCTL_ROCKET_PREP_BO, &p);
}

static void gem_close(rocket_ctx *r, unsigned file, uint32_t khandle)
{
    struct rocket_gem_close g = {.handle = khandle};
    f_ioctl(r, file, ROCKET_DRM_IOCTL_GEM_CLOSE, &g);
}

/* Record a buffer in the table: its adapter handle, or 0 when the table cannot grow. */
static uint32_t add_bo(rocket_ctx *r, rbo b)
{
    pthread_mutex_lock(&r->lock);
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        rbo *n = realloc(r->bos, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&r->lock);
            return 0;
        }
        r->bos = n;
        r->cap = cap;
    }
    if (++r->next_handle == 0)
        r->next_handle = 1;
    b.handle = r->next_handle;
    r->bos[r->n++] = b;
    pthread_mutex_unlock(&r->lock);
    return b.handle;
}

/* Drop table entries: the buffer `handle` and its copies. */
static void drop_bos(rocket_ctx *r, uint32_t handle)
{
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n;)
        if (r->bos[i].handle == handle || r->bos[i].primary == handle)
            r->bos[i] = r->bos[--r->n];
        else
            i++;
    pthread_mutex_unlock(&r->lock);
}

/* CREATE_BO in one file; the copy of `primary` when that is not 0 (mapped here: the device
 * layer maps only the buffer itself). */
static int create_in(rocket_ctx *r, unsigned file, uint32_t size, uint32_t primary, rbo *out)
{
    struct drm_rocket_create_bo b = {.size = size};
    int rc = f_ioctl(r, file, DRM_IOCTL_ROCKET_CREATE_BO, &b);
    if (rc)
        return rc;
    rbo e = {.khandle = b.handle,
             .primary = primary,
             .dma = (uint32_t)b.dma_address,
             .file = file,
             .size = size,
             .offset = b.offset};
    if (primary) {
        int err = 0;
        e.host = r->inner.map(r->ictx[file], b.offset, size, &err);
        if (!e.host) {
            gem_close(r, file, b.handle);
            return -(err ? err : ENOMEM);
        }
    }
    e.handle = add_bo(r, e);
    if (!e.handle) {
        if (e.host)
            r->inner.unmap(r->ictx[file], e.host, size);
        gem_close(r, file, b.handle);
        return -ENOMEM;
    }
    *out = e;
    return 0;
}

static int mem_destroy(rocket_ctx *r, const struct rknpu_mem_destroy *d);

/* MEM_CREATE's core_mask names the cores that will read the buffer (0: core 0): it is created
 * in the first one's file, with a copy in each other's, since a buffer is mapped only in the
 * address space of the file that created it (mainline rocket_gem.c). */
static int mem_create(rocket_ctx *r, struct rknpu_mem_create *c)
{
    if (c->size == 0 || c->size > UINT32_MAX)
        return -EINVAL; /* CREATE_BO's size is 32 bits */
    uint32_t mask = c->core_mask & ((1u << r->files) - 1);
    if (c->core_mask & ~((1u << r->files) - 1))
        return -EINVAL; /* a core without a file */
    if (!mask)
        mask = 1;
    unsigned first = (unsigned)__builtin_ctz(mask);
    rbo b;
    int rc = create_in(r, first, (uint32_t)c->size, 0, &b);
    for (unsigned f = first + 1; rc == 0 && f < r->files; f++) {
        rbo copy;
        if (mask & (1u << f) && (rc = create_in(r, f, (uint32_t)c->size, b.handle, &copy))) {
            struct rknpu_mem_destroy x = {.handle = b.handle};
            mem_destroy(r, &x);
            return rc;
        }
    }
    if (rc)
        return rc;
    c->handle = b.handle;
    c->obj_addr = OBJ_TAG | b.handle;
    c->dma_addr = b.dma;
    c->sram_size = 0;
    return 0;
}

static int mem_destroy(rocket_ctx *r, const struct rknpu_mem_destroy *d)
{
    rbo b, copy[MAX_FILES];
    if (!find(r, false, d->handle, &b))
        return -EINVAL;
    size_t nc = copies_of(r, b.handle, copy, MAX_FILES);
    pthread_rwlock_wrlock(&r->closing);
    struct rocket_gem_close g = {.handle = b.khandle};
    int rc = f_ioctl(r, b.file, ROCKET_DRM_IOCTL_GEM_CLOSE, &g);
    for (size_t i = 0; i < nc; i++) {
        r->inner.unmap(r->ictx[copy[i].file], copy[i].host, copy[i].size);
        gem_close(r, copy[i].file, copy[i].khandle);
    }
    drop_bos(r, b.handle);
    pthread_rwlock_unlock(&r->closing);
    return rc;
}

static int mem_sync(rocket_ctx *r, const struct rknpu_mem_sync *y)
{
    rbo b, copy[MAX_FILES];
    if (!find(r, true, y->obj_addr, &b) || y->offset > b.size || y->size > b.size - y->offset)
        return -EINVAL;
    size_t nc = copies_of(r, b.handle, copy, MAX_FILES);
    int rc = 0;
    if (y->flags & RKNPU_MEM_SYNC_FROM_DEVICE) {
        int64_t deadline = now_ns() + 6000ll * 1000000;
        rc = prep(r, b.file, b.khandle, deadline);
        for (size_t i = 0; rc == 0 && i < nc; i++)
            rc = prep(r, copy[i].file, copy[i].khandle, deadline);
    }
    if (rc == 0 && (y->flags & RKNPU_MEM_SYNC_TO_DEVICE)) {
        struct drm_rocket_fini_bo f = {.handle = b.khandle};
        rc = f_ioctl(r, b.file, DRM_IOCTL_ROCKET_FINI_BO, &f);
        for (size_t i = 0; rc == 0 && i < nc; i++) {
            /* the CPU wrote the buffer's own mapping: the range goes to every copy, which the
             * NPU reads next (streamed: the CPU does not read a copy) */
            if (b.host)
                npk_stream_copy_any((uint8_t *)copy[i].host + y->offset,
                                    (const uint8_t *)b.host + y->offset, y->size);
            f = (struct drm_rocket_fini_bo){.handle = copy[i].khandle};
            rc = f_ioctl(r, copy[i].file, DRM_IOCTL_ROCKET_FINI_BO, &f);
        }
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

/* The kernel handles of every live buffer of `file`, into a fresh array (*n of them). */
static uint32_t *file_handles(rocket_ctx *r, unsigned file, uint32_t *n)
{
    pthread_mutex_lock(&r->lock);
    uint32_t *outs = malloc((r->n ? r->n : 1) * sizeof *outs);
    *n = 0;
    for (size_t i = 0; outs && i < r->n; i++)
        if (r->bos[i].file == file)
            outs[(*n)++] = r->bos[i].khandle;
    pthread_mutex_unlock(&r->lock);
    return outs;
}

/* A job goes to the file of its task buffer: the core whose buffers the runtime placed there
 * (rocket has no core choice per job; the file's entity is the core). */
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
        (uint64_t)range.task_start + range.task_number > tb.size / sizeof(struct rknpu_task) ||
        core >= MAX_FILES)
        return -EINVAL;

    struct drm_rocket_task *tasks = calloc(range.task_number, sizeof *tasks);
    pthread_rwlock_rdlock(&r->closing); /* until SUBMIT returns: no listed handle closes */
    uint32_t nout;
    uint32_t *outs = file_handles(r, tb.file, &nout);
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
    int rc = f_ioctl(r, tb.file, DRM_IOCTL_ROCKET_SUBMIT, &s);
    pthread_rwlock_unlock(&r->closing);
    free(tasks);
    free(outs);
    if (rc)
        return rc;
    if (sub->flags & RKNPU_JOB_NONBLOCK) {
        pthread_mutex_lock(&r->lock);
        r->pending[core] = (struct pending){tb.file, tb.khandle, deadline};
        pthread_mutex_unlock(&r->lock);
        return 0;
    }
    rc = prep(r, tb.file, tb.khandle, deadline);
    if (rc == -EBUSY || rc == -ETIMEDOUT)
        return -ETIMEDOUT;
    if (rc)
        return rc;
    sub->task_counter = range.task_number;
    double us = r->inner.job_us ? r->inner.job_us(r->ictx[tb.file])
                                : (double)(now_ns() - t0) / 1e3;
    sub->u48_.hw_elapse_time = (int64_t)(us + 0.5);
    return 0;
}

static int mem_map(rocket_ctx *r, struct rknpu_mem_map *m)
{
    rbo b;
    if (!find(r, false, m->handle, &b))
        return -EINVAL;
    m->offset = b.offset | (uint64_t)b.file << MAP_FILE_SHIFT; /* r_map finds the file by it */
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
    unsigned file = (unsigned)(offset >> MAP_FILE_SHIFT);
    offset &= (1ull << MAP_FILE_SHIFT) - 1;
    if (file >= r->files) {
        *err = EINVAL;
        return NULL;
    }
    void *p = r->inner.map(r->ictx[file], offset, length, err);
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; p && i < r->n; i++)
        if (!r->bos[i].primary && r->bos[i].file == file && r->bos[i].offset == offset)
            r->bos[i].host = p; /* SUBMIT reads the task records through it */
    pthread_mutex_unlock(&r->lock);
    return p;
}

static void r_unmap(void *ctx, void *addr, size_t length)
{
    rocket_ctx *r = ctx;
    unsigned file = 0;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n; i++)
        if (!r->bos[i].primary && r->bos[i].host == addr) {
            r->bos[i].host = NULL;
            file = r->bos[i].file;
        }
    pthread_mutex_unlock(&r->lock);
    r->inner.unmap(r->ictx[file], addr, length);
}

static void r_close(void *ctx)
{
    rocket_ctx *r = ctx;
    /* copies are the adapter's own mappings; the files close their handles */
    for (size_t i = 0; i < r->n; i++)
        if (r->bos[i].primary && r->bos[i].host)
            r->inner.unmap(r->ictx[r->bos[i].file], r->bos[i].host, r->bos[i].size);
    for (unsigned f = r->files; f-- > 0;)
        r->inner.close(r->ictx[f]);
    pthread_mutex_destroy(&r->lock);
    pthread_rwlock_destroy(&r->closing);
    free(r->bos);
    free(r);
}

static const char *r_detail(void *ctx)
{
    rocket_ctx *r = ctx;
    return r->inner.detail ? r->inner.detail(r->ictx[0]) : NULL;
}

static struct rksim *r_sim(void *ctx)
{
    rocket_ctx *r = ctx;
    return r->inner.sim(r->ictx[0]);
}

static const npk_rk_soc *r_soc(void *ctx)
{
    rocket_ctx *r = ctx;
    return r->inner.soc(r->ictx[0]);
}

/* The IOVA core `core` reads buffer `handle` at: its own in the core's file, or its copy's
 * there; 0 when the core's file has neither. */
static uint32_t r_iova_for(void *ctx, uint32_t handle, unsigned core)
{
    rocket_ctx *r = ctx;
    uint32_t iova = 0;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->n && !iova; i++)
        if ((r->bos[i].handle == handle || r->bos[i].primary == handle) && r->bos[i].file == core)
            iova = r->bos[i].dma;
    pthread_mutex_unlock(&r->lock);
    return iova;
}

static int r_wait(void *ctx, unsigned core, uint32_t timeout_ms, double *us)
{
    rocket_ctx *r = ctx;
    (void)timeout_ms; /* the deadline was fixed at SUBMIT from its timeout */
    if (core >= MAX_FILES)
        return -EINVAL;
    pthread_mutex_lock(&r->lock);
    struct pending p = r->pending[core];
    r->pending[core].khandle = 0;
    pthread_mutex_unlock(&r->lock);
    if (!p.khandle)
        return 0;
    int rc = prep(r, p.file, p.khandle, p.deadline_ns);
    if (rc == 0 && r->inner.job_us)
        *us = r->inner.job_us(r->ictx[p.file]); /* the model's; the kernel reports no NPU time */
    return rc == -EBUSY ? -ETIMEDOUT : rc;
}

npk_status npk_rk_device_wrap_rocket(const npk_rk_backend *inner, void *const *ictx,
                                     unsigned files, const char *name, npk_rk_device **out)
{
    rocket_ctx *r = files && files <= MAX_FILES ? calloc(1, sizeof *r) : NULL;
    if (!r) {
        for (unsigned f = files; f-- > 0;)
            inner->close(ictx[f]);
        return files && files <= MAX_FILES
                   ? npk_fail(NPK_ENOMEM, "rk device: out of memory")
                   : npk_fail(NPK_EINVAL, "rocket: %u files, 1..%u", files, (unsigned)MAX_FILES);
    }
    r->inner = *inner;
    memcpy(r->ictx, ictx, files * sizeof *ictx);
    r->files = files;
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
                         .cores = files,
                         .core_spaces = true,
                         .iova_for = r_iova_for,
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
    void *k[MAX_FILES] = {npk_rk_kernel_fd_ctx(fd)};
    if (!k[0])
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    /* One file per core: each open is one scheduler entity over every core's scheduler, and
     * drm_sched gives an idle entity's job the least-loaded core (rocket_job.c), so N files
     * keep N cores busy (facts A.2). */
    unsigned files = inner.soc(k[0])->cores;
    files = files > MAX_FILES ? MAX_FILES : files;
    for (unsigned f = 1; f < files; f++) {
        int more = npk_rk_node_open(path, driver, sizeof driver);
        k[f] = more < 0 ? NULL : npk_rk_kernel_fd_ctx(more);
        if (!k[f]) {
            while (f-- > 0)
                inner.close(k[f]);
            return npk_fail(NPK_ENODEV, "%s: opening its file for core %u failed", path, f + 1);
        }
    }
    return npk_rk_device_wrap_rocket(&inner, k, files, path, out);
}
