/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
/* The rocket front end (see rksim_rocket.h): the mainline accel driver's requests answered
 * over the simulated cores, with the DRM core's struct-size rule and the kernel's errno
 * values. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npukit/rknpu_uapi.h"
#include "rksim_rocket.h"
#include "npukit/rocket_uapi.h"
#include "rksim/exec.h"
#include "rksim/requests.h"
#include "rksim/sim.h"

enum { MAX_FILES = 64 };

/* When the last job using a buffer signals its fence (CLOCK_MONOTONIC ns), and when it ends on
 * the model's timeline. */
typedef struct fence {
    uint32_t handle;
    int64_t signal_ns;
    int64_t model_end;
} fence;

/* A file's scheduler entity (mainline rocket_job.c: one per open file, over every core's
 * scheduler): its jobs run in order, so while its last job runs the next one queues behind it
 * on the same core; once it is done, drm_sched puts the next job on the least-loaded core. */
typedef struct entity {
    unsigned last_core;
    int64_t busy_until; /* when its last job ends on the model's timeline */
} entity;

struct rksim_rocket {
    bool open[MAX_FILES];
    entity ent[MAX_FILES];
    int64_t core_busy_until[RKSIM_MAX_CORES]; /* each core's scheduler: its job's end */
    /* The model's timeline (ns), which the host's own speed does not move: a job starts at
     * `now` (or when its core frees) and lasts its modelled time; `now` advances to a job's end
     * when user space waits for it (PREP_BO). So jobs submitted without a wait between them
     * overlap, as on the NPU, and a job submitted after waiting for the last finds idle cores. */
    int64_t now;
    fence *fences;
    size_t nfences, cap;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
    int64_t d = t - now_ns();
    if (d <= 0)
        return;
    struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
    nanosleep(&ts, NULL);
}

static void rocket_free(rksim *s)
{
    if (!s->rocket)
        return;
    free(s->rocket->fences);
    free(s->rocket);
    s->rocket = NULL;
}

static struct rksim_rocket *state(rksim *s)
{
    if (!s->rocket) {
        s->rocket = calloc(1, sizeof *s->rocket);
        s->rocket_free = rocket_free; /* the instance frees it at destroy */
    }
    return s->rocket;
}

int rksim_rocket_open(rksim *s)
{
    struct rksim_rocket *r = state(s);
    if (!r)
        return -ENOMEM;
    if (s->dead)
        return -ENODEV;
    for (int i = 0; i < MAX_FILES; i++)
        if (!r->open[i]) {
            r->open[i] = true;
            r->ent[i] = (entity){0};
            return i;
        }
    return -EMFILE;
}

static void fence_forget(struct rksim_rocket *r, uint32_t handle);

/* The file's IOMMU domain: rksim_buf.space of the buffers it creates. */
static unsigned space_of(int file) { return rksim_space_file(file); }

/* Closing a file closes its handles (the DRM core's postclose): its buffers go, except a CPU
 * view still mapped, which survives until unmapped. */
void rksim_rocket_close(rksim *s, int file)
{
    if (!s->rocket || file < 0 || file >= MAX_FILES || !s->rocket->open[file])
        return;
    s->rocket->open[file] = false;
    for (size_t i = s->mem.count; i-- > 0;) {
        rksim_buf *b = s->mem.bufs[i];
        if (b->live && b->space == space_of(file)) {
            fence_forget(s->rocket, b->handle);
            rksim_mem_destroy(&s->mem, b->handle, b->obj_addr);
        }
    }
}

unsigned rksim_rocket_core(const rksim *s, int file)
{
    return s->rocket && file >= 0 && file < MAX_FILES ? s->rocket->ent[file].last_core : 0;
}

/* The core the kernel runs the file's next job on (drm_sched over the file's entity): the
 * entity's core while its last job runs; else the least-loaded core — an idle one, the lowest
 * numbered first, or with every core busy the one that frees first. */
static unsigned pick_core(rksim *s, int file, int64_t now)
{
    struct rksim_rocket *r = s->rocket;
    if (r->ent[file].busy_until > now)
        return r->ent[file].last_core;
    unsigned best = 0;
    for (unsigned c = 1; c < s->cfg.cores; c++) {
        int64_t b = r->core_busy_until[c], bb = r->core_busy_until[best];
        if ((bb > now && b <= now) || (bb > now && b < bb))
            best = c;
    }
    return best;
}

static fence *fence_of(struct rksim_rocket *r, uint32_t handle)
{
    for (size_t i = 0; i < r->nfences; i++)
        if (r->fences[i].handle == handle)
            return &r->fences[i];
    return NULL;
}

/* The buffer's fence signals no earlier than t, its job ends no earlier than model_end. */
static int fence_extend(struct rksim_rocket *r, uint32_t handle, int64_t t, int64_t model_end)
{
    fence *f = fence_of(r, handle);
    if (!f) {
        if (r->nfences == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 16;
            fence *n = realloc(r->fences, cap * sizeof *n);
            if (!n)
                return -ENOMEM;
            r->fences = n;
            r->cap = cap;
        }
        f = &r->fences[r->nfences++];
        *f = (fence){handle, t, model_end};
    }
    if (t > f->signal_ns)
        f->signal_ns = t;
    if (model_end > f->model_end)
        f->model_end = model_end;
    return 0;
}

static void fence_forget(struct rksim_rocket *r, uint32_t handle)
{
    fence *f = fence_of(r, handle);
    if (f)
        *f = r->fences[--r->nfences];
}

static int do_version(struct rocket_drm_version *v)
{
    /* The facts give no version number for rocket; programs identify it by its name. */
    static const char name[] = "rocket", date[] = "0", desc[] = "rocket NPU " RKSIM_DRM_DESC_MARK;
    v->version_major = 1;
    v->version_minor = 0;
    v->version_patchlevel = 0;
    rksim_drm_version_string(name, v->name, &v->name_len);
    rksim_drm_version_string(date, v->date, &v->date_len);
    rksim_drm_version_string(desc, v->desc, &v->desc_len);
    return 0;
}

/* The live buffer a file's handle names: a handle of another file names nothing here (each
 * DRM file has its own handles). */
static rksim_buf *file_buf(rksim *s, int file, uint32_t handle)
{
    rksim_buf *b = rksim_mem_by_handle(&s->mem, handle);
    return b && b->space == space_of(file) ? b : NULL;
}

static int do_create(rksim *s, int file, struct drm_rocket_create_bo *c)
{
    if (c->size == 0)
        return -EINVAL;
    rksim_buf *b;
    /* flags 0: one coherent view (the cache model is rknpu's CACHEABLE buffers); mapped in the
     * file's own IOMMU domain only, a 4 GiB IOVA space of its own */
    int rc = rksim_mem_create_in(&s->mem, space_of(file), c->size, 0, &b);
    if (rc)
        return rc;
    c->handle = b->handle;
    c->dma_address = b->iova;
    c->offset = b->map_offset;
    return 0;
}

static int do_close(rksim *s, int file, struct rocket_gem_close *g)
{
    rksim_buf *b = file_buf(s, file, g->handle);
    if (!b || g->pad)
        return -EINVAL; /* the DRM core's answer for an unknown handle */
    fence_forget(s->rocket, g->handle);
    return rksim_mem_destroy(&s->mem, g->handle, b->obj_addr);
}

static int do_prep(rksim *s, int file, struct drm_rocket_prep_bo *p)
{
    if (!file_buf(s, file, p->handle))
        return -ENOENT;
    if (p->reserved)
        return -EINVAL;
    struct rksim_rocket *st = s->rocket;
    fence *f = fence_of(st, p->handle);
    int64_t now = now_ns();
    if (f && f->model_end > st->now && f->signal_ns <= p->timeout_ns)
        st->now = f->model_end; /* waited for: the model's time passes the job's end */
    if (!f || f->signal_ns <= now)
        return 0;
    /* The timeout is an absolute time: one already past means "do not wait". */
    if (p->timeout_ns <= now)
        return -EBUSY;
    int64_t signal = f->signal_ns; /* the table may move while sleeping elsewhere: copy */
    if (signal <= p->timeout_ns) {
        sleep_until(signal);
        return 0;
    }
    sleep_until(p->timeout_ns);
    return -ETIMEDOUT;
}

static int do_fini(rksim *s, int file, struct drm_rocket_fini_bo *f)
{
    if (!file_buf(s, file, f->handle))
        return -ENOENT;
    return f->reserved ? -EINVAL : 0;
}

/* Copy a user array of `count` structs of the caller's size `usize` into `dst` structs of
 * `ksize`, the DRM way: the smaller size, zero-filled. */
static int copy_array(void *dst, size_t ksize, uint64_t src, uint32_t count, uint32_t usize)
{
    if (count && !src)
        return -EFAULT;
    size_t n = usize < ksize ? usize : ksize;
    memset(dst, 0, ksize * count);
    for (uint32_t i = 0; i < count; i++)
        memcpy((uint8_t *)dst + i * ksize, (const uint8_t *)(uintptr_t)src + (size_t)i * usize, n);
    return 0;
}

/* Check that every handle of a job's list names a live buffer of the file. */
static int check_handles(rksim *s, int file, uint64_t ptr, uint32_t count)
{
    if (count && !ptr)
        return -EFAULT;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t h;
        memcpy(&h, (const uint8_t *)(uintptr_t)ptr + 4 * (size_t)i, 4);
        if (!file_buf(s, file, h))
            return -ENOENT;
    }
    return 0;
}

/* One task as its own PC kick: what rocket_job_hw_submit programs (facts A.2), i.e. a one-task
 * rknpu job with the DPU interrupt mask. The kernel programs REGISTER_AMOUNTS =
 * (regcmd_count + 1) / 2 - 1 in 32-bit arithmetic; rknpu's ceil((amount + 4) / 2) - 1 of
 * regcmd_count - 4 is the same value modulo 2^32 for every count, so a task shorter than its
 * trailer gets the amount the kernel would program (the PC then fetches what the register's
 * field holds: a body without an op-enable raises nothing and the job times out). */
static void run_task(rksim *s, int file, unsigned core, const struct drm_rocket_task *t,
                     rksim_core_result *r)
{
    struct rknpu_task rec = {.int_mask = ROCKET_INT_MASK,
                             .regcfg_amount = t->regcmd_count - ROCKET_TRAILER_ENTRIES,
                             .regcmd_addr = t->regcmd};
    /* the kernel attaches the file's IOMMU domain to the core for the job: its DMA, the regcmd
     * fetch included, sees the file's buffers only */
    s->mem.space = space_of(file);
    rksim_mem_job_begin(&s->mem);
    rksim_pc_run(s, core, &rec, 0, 1, true, r);
    rksim_mem_job_end(&s->mem);
    s->mem.space = 0;
}

/* Run one job of the file on the core the kernel picks for it (pick_core); returns 0 (or
 * -ENOMEM). *signal receives when the job's fence signals; the core and the file's entity stay
 * busy for the job's modelled time (a job that never completes: until its timeout). A task that wedges, faults or is outside the model ends the job the way the kernel
 * ends a job that never raises its interrupt: the 500 ms job timeout resets the core, drops the
 * remaining tasks and signals the fences, and SUBMIT itself has already returned 0 (rocket
 * reports no job error: a PREP_BO whose deadline comes first answers ETIMEDOUT). For a task the
 * model cannot run that is the likeliest outcome on the hardware; the report (outcome
 * "unsupported", the register named) says the model did not run it, and the in-process backend
 * turns that report into its own status. EOPNOTSUPP, which rocket never returns, is not
 * answered. */
static int run_job(rksim *s, int file, const struct drm_rocket_job *j, int64_t *signal,
                   int64_t *model_end)
{
    rksim_report *rep = &s->report;
    struct rksim_rocket *st = s->rocket;
    const int64_t start_ns = st->now;
    const unsigned core = pick_core(s, file, start_ns);
    struct drm_rocket_task *tasks = calloc(j->task_count, sizeof *tasks);
    if (!tasks)
        return -ENOMEM;
    int rc = copy_array(tasks, sizeof *tasks, j->tasks, j->task_count, j->task_struct_size);
    double model_us = 0;
    bool failed = false;
    for (uint32_t i = 0; rc == 0 && i < j->task_count && !failed; i++) {
        rksim_core_result r;
        run_task(s, file, core, &tasks[i], &r);
        rep->ops += r.ops;
        rep->hazards |= r.hazards;
        rep->task_counter += r.completed;
        model_us += r.model_us;
        if (r.outcome == RKSIM_OK)
            continue;
        rep->outcome = r.outcome;
        rep->fault_iova = r.fault_iova;
        int len =
            snprintf(rep->message, sizeof rep->message, "core %u, task %u: %s", core, i, r.message);
        if (r.outcome == RKSIM_UNSUPPORTED && len >= 0 && (size_t)len < sizeof rep->message)
            snprintf(rep->message + len, sizeof rep->message - (size_t)len, "%s",
                     " (the model cannot run this task: answered as a job that never completes)");
        /* A wedge, a fault or a task outside the model: the job timeout fires, the kernel
         * resets the core and drops the job's remaining tasks. The reset is rocket's own: the
         * vendor driver's queue corruption (hazard 5) has no counterpart here. */
        rksim_core_reset(&s->core[core], false);
        failed = true;
    }
    rep->model_us += model_us;
    free(tasks);
    double wait_ms = failed ? rksim_wait_ms(s, ROCKET_JOB_TIMEOUT_MS) : 0;
    *signal = now_ns() + (int64_t)(wait_ms * 1e6);
    int64_t begin = st->core_busy_until[core] > start_ns ? st->core_busy_until[core] : start_ns;
    int64_t end = begin + (int64_t)((failed ? wait_ms * 1e3 : model_us) * 1e3);
    st->core_busy_until[core] = end;
    *model_end = end;
    st->ent[file] = (entity){.last_core = core, .busy_until = end};
    return rc;
}

static int do_submit(rksim *s, int file, struct drm_rocket_submit *sub)
{
    memset(&s->report, 0, sizeof s->report);
    if (sub->reserved) {
        rksim_report_reject(s, "SUBMIT reserved field is not zero");
        return -EINVAL;
    }
    struct drm_rocket_job *jobs = calloc(sub->job_count ? sub->job_count : 1, sizeof *jobs);
    if (!jobs)
        return -ENOMEM;
    int rc = copy_array(jobs, sizeof *jobs, sub->jobs, sub->job_count, sub->job_struct_size);
    for (uint32_t i = 0; rc == 0 && i < sub->job_count; i++) {
        const struct drm_rocket_job *j = &jobs[i];
        if (!j->task_count) {
            rksim_report_reject(s, "a job without tasks");
            rc = -EINVAL;
        } else if ((rc = check_handles(s, file, j->in_bo_handles, j->in_bo_handle_count)) ||
                   (rc = check_handles(s, file, j->out_bo_handles, j->out_bo_handle_count))) {
            rksim_report_reject(s, "a job names a buffer handle that does not exist");
        }
    }
    s->rocket_job = true;
    for (uint32_t i = 0; rc == 0 && i < sub->job_count; i++) {
        const struct drm_rocket_job *j = &jobs[i];
        int64_t signal, model_end;
        rc = run_job(s, file, j, &signal, &model_end);
        for (uint32_t k = 0; rc != -ENOMEM && k < j->in_bo_handle_count + j->out_bo_handle_count;
             k++) {
            uint32_t h;
            uint64_t list = k < j->in_bo_handle_count ? j->in_bo_handles : j->out_bo_handles;
            uint32_t at = k < j->in_bo_handle_count ? k : k - j->in_bo_handle_count;
            memcpy(&h, (const uint8_t *)(uintptr_t)list + 4 * (size_t)at, 4);
            if (fence_extend(s->rocket, h, signal, model_end))
                rc = -ENOMEM;
        }
    }
    s->rocket_job = false;
    free(jobs);
    return rc;
}

/* The requests rocket's node answers, one row each (DRM core requests below 0x40, rocket's from
 * ROCKET_DRM_COMMAND_BASE). */
static int run_version(rksim *s, int file, void *k)
{
    (void)s, (void)file;
    return do_version(k);
}

static int run_close(rksim *s, int file, void *k) { return do_close(s, file, k); }
static int run_create(rksim *s, int file, void *k) { return do_create(s, file, k); }
static int run_submit(rksim *s, int file, void *k) { return do_submit(s, file, k); }
static int run_prep(rksim *s, int file, void *k) { return do_prep(s, file, k); }
static int run_fini(rksim *s, int file, void *k) { return do_fini(s, file, k); }

static const rksim_request rocket_rows[] = {
    {0x00, "VERSION", sizeof(struct rocket_drm_version), run_version},
    {0x09, "GEM_CLOSE", sizeof(struct rocket_gem_close), run_close},
    {ROCKET_DRM_COMMAND_BASE + ROCKET_NR_CREATE_BO, "ROCKET_CREATE_BO",
     sizeof(struct drm_rocket_create_bo), run_create},
    {ROCKET_DRM_COMMAND_BASE + ROCKET_NR_SUBMIT, "ROCKET_SUBMIT", sizeof(struct drm_rocket_submit),
     run_submit},
    {ROCKET_DRM_COMMAND_BASE + ROCKET_NR_PREP_BO, "ROCKET_PREP_BO",
     sizeof(struct drm_rocket_prep_bo), run_prep},
    {ROCKET_DRM_COMMAND_BASE + ROCKET_NR_FINI_BO, "ROCKET_FINI_BO",
     sizeof(struct drm_rocket_fini_bo), run_fini},
};

const rksim_requests rksim_rocket_requests = {"rocket", rocket_rows,
                                              sizeof rocket_rows / sizeof rocket_rows[0]};

int rksim_rocket_ioctl(rksim *s, int file, unsigned long request, void *arg)
{
    const rksim_request *r = rksim_request_of(&rksim_rocket_requests, request);
    if (ROCKET_IOC_TYPE(request) != 'd')
        return rksim_request_refuse(s, &rksim_rocket_requests, request);
    struct rksim_rocket *st = state(s);
    if (!st)
        return -ENOMEM;
    if (file < 0 || file >= MAX_FILES || !st->open[file])
        return -EBADF;
    if (!r)
        return rksim_request_refuse(s, &rksim_rocket_requests, request);
    size_t ksize = r->ksize;
    if (s->dead)
        return -ENODEV;
    size_t usize = ROCKET_IOC_SIZE(request);
    unsigned dir = (unsigned)ROCKET_IOC_DIR(request);
    if (usize && !arg)
        return -EFAULT;
    union {
        struct rocket_drm_version version;
        struct rocket_gem_close close;
        struct drm_rocket_create_bo create;
        struct drm_rocket_submit submit;
        struct drm_rocket_prep_bo prep;
        struct drm_rocket_fini_bo fini;
    } k;
    memset(&k, 0, sizeof k);
    size_t n = usize < ksize ? usize : ksize;
    if (dir & ROCKET_IOC_WRITE)
        memcpy(&k, arg, n);
    int rc = r->run(s, file, &k);
    if (rc == 0 && (dir & ROCKET_IOC_READ))
        memcpy(arg, &k, n);
    return rc;
}
