/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Threads x runs x buffer churn on one device, through both kernel interfaces of the
 * simulator: every thread opens its own runtime on the process-wide engine (what the vendor API
 * layer does for each of its contexts), and every run packs fresh weights, creates and frees a
 * scratch buffer of its own, runs a matmul and frees the weights, so buffers come and go on one
 * device while other threads submit. Every result is compared with the CPU reference, exactly:
 * a submit that names a buffer another thread has just closed, or a buffer freed under a job,
 * is a failed or wrong run. The figures (runs, failures) are printed for the record. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "npukit/rk.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rk_reference.h"
#include "rksim/rksim_rocket.h"
#include "npukit/rocket_uapi.h"
#include "rk/device/device_backend.h"
#include "rk/device/device_sim_lock.h"

enum { THREADS = 4, RUNS = 12 };

typedef struct worker {
    const char *device;
    unsigned id;
    uint64_t seed;
    atomic_uint *ok, *failed, *core_mask;
    char first_error[256];
} worker;

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* int8 operands and the int32 result: exact on the NPU, so any difference is a wrong run. */
static bool one_run(npk_rk *rt, worker *w, uint32_t run)
{
    /* every other run wide enough for the plan to spread N over every core: on rocket each core
     * is a file of its own, with its own buffers and its copy of the weights */
    uint32_t m = 1 + rnd(&w->seed) % 9, k = 32 + rnd(&w->seed) % 97,
             n = run % 2 ? 16 + rnd(&w->seed) % 80 : 240 + rnd(&w->seed) % 160;
    int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)k * n);
    int32_t *c = calloc((size_t)m * n, 4), *ref = calloc((size_t)m * n, 4);
    bool ok = a && b && c && ref;
    for (size_t i = 0; ok && i < (size_t)m * k; i++)
        a[i] = (int8_t)(rnd(&w->seed) & 0xff);
    for (size_t i = 0; ok && i < (size_t)k * n; i++)
        b[i] = (int8_t)(rnd(&w->seed) & 0xff);
    npk_rk_buffer *scratch = NULL;
    npk_rk_weights *wt = NULL;
    npk_rk_stats st;
    npk_status s = ok ? npk_rk_buffer_create(rt, 4096u * (1 + run % 3), &scratch) : NPK_ENOMEM;
    if (s == NPK_OK)
        s = npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &wt);
    /* the scratch buffer goes away between the pack and the run: a close during others' submits */
    npk_rk_buffer_free(scratch);
    if (s == NPK_OK)
        s = npk_rk_matmul(rt, wt, m, a, NPK_PREC_INT32, c, &st);
    if (s == NPK_OK)
        atomic_fetch_or(w->core_mask, st.core_mask);
    if (s == NPK_OK)
        s = npk_rk_reference_matmul(NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, a, b, ref);
    npk_rk_weights_free(rt, wt);
    if (s != NPK_OK && !w->first_error[0])
        snprintf(w->first_error, sizeof w->first_error, "status %d: %s", (int)s, npk_last_error());
    else if (s == NPK_OK && memcmp(c, ref, (size_t)m * n * 4)) {
        s = NPK_EIO;
        if (!w->first_error[0])
            snprintf(w->first_error, sizeof w->first_error, "%ux%ux%u: a wrong result", m, k, n);
    }
    free(a);
    free(b);
    free(c);
    free(ref);
    return s == NPK_OK;
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    npk_rk *rt = NULL;
    if (npk_rk_open_shared(w->device, &rt) != NPK_OK) {
        snprintf(w->first_error, sizeof w->first_error, "open: %s", npk_last_error());
        atomic_fetch_add(w->failed, RUNS);
        return NULL;
    }
    for (uint32_t run = 0; run < RUNS; run++) {
        /* a call that finds another in progress on the same runtime is refused (rk.h), but
         * this runtime is the thread's own: every status here is the run's own */
        if (one_run(rt, w, run))
            atomic_fetch_add(w->ok, 1);
        else
            atomic_fetch_add(w->failed, 1);
    }
    npk_rk_close(rt);
    return NULL;
}

/* Buffers created and freed without pause until the workers are done: every live buffer of the
 * device is somebody's, and any of them may close while a job is being submitted. */
typedef struct churner {
    const char *device;
    atomic_bool *stop;
    unsigned cycles;
    char error[256];
} churner;

static void *churn_main(void *arg)
{
    churner *c = arg;
    npk_rk *rt = NULL;
    if (npk_rk_open_shared(c->device, &rt) != NPK_OK) {
        snprintf(c->error, sizeof c->error, "open: %s", npk_last_error());
        return NULL;
    }
    while (!atomic_load(c->stop)) {
        npk_rk_buffer *b[4] = {NULL};
        for (unsigned i = 0; i < 4; i++)
            if (npk_rk_buffer_create(rt, 4096u << i, &b[i]) != NPK_OK && !c->error[0])
                snprintf(c->error, sizeof c->error, "create: %s", npk_last_error());
        for (unsigned i = 0; i < 4; i++)
            npk_rk_buffer_free(b[i]);
        c->cycles++;
    }
    npk_rk_close(rt);
    return NULL;
}

static void stress(const char *device)
{
    atomic_uint ok = 0, failed = 0, core_mask = 0;
    atomic_bool stop = false;
    churner ch = {.device = device, .stop = &stop};
    pthread_t churn;
    CHECK_EQ(pthread_create(&churn, NULL, churn_main, &ch), 0);
    worker w[THREADS];
    pthread_t th[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        w[i] = (worker){.device = device, .id = i, .seed = 0x5eed + 977u * i, .ok = &ok,
                        .failed = &failed, .core_mask = &core_mask};
        CHECK_EQ(pthread_create(&th[i], NULL, thread_main, &w[i]), 0);
    }
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    atomic_store(&stop, true);
    pthread_join(churn, NULL);
    printf("%s: %u threads x %u runs, %u churn cycles of 4 buffers: %u right, %u failed, "
           "cores used 0x%x\n",
           device, THREADS, RUNS, ch.cycles, atomic_load(&ok), atomic_load(&failed),
           atomic_load(&core_mask));
    CHECK_EQ(atomic_load(&core_mask), 7u); /* every core (rocket: every file) took jobs */
    CHECK(!ch.error[0]);
    for (unsigned i = 0; i < THREADS; i++)
        if (w[i].first_error[0])
            printf("  thread %u, first failure: %s\n", i, w[i].first_error);
    CHECK_EQ(atomic_load(&failed), 0);
    CHECK_EQ(atomic_load(&ok), THREADS * RUNS);
}

/* The interleaving itself, made to happen: an inner rocket backend (the simulator's front end)
 * that, when a SUBMIT reaches it, first lets another thread destroy a buffer of the device and
 * waits for that (at most 300 ms). The adapter must not hand the kernel a list naming a buffer
 * that was closed after the list was made: either the close waits for the SUBMIT, or the
 * buffer is not in the list. */
typedef struct gate {
    rk_sim_lock base; /* first: the shared map, unmap, detail and SoC entries take it */
    int file;
    pthread_mutex_t m;
    pthread_cond_t cv;
    bool armed, close_now, closed;
} gate;

static int gate_ioctl(void *ctx, unsigned long request, void *arg)
{
    gate *g = ctx;
    if (ROCKET_IOC_NR(request) == ROCKET_DRM_COMMAND_BASE + ROCKET_NR_SUBMIT) {
        pthread_mutex_lock(&g->m);
        if (g->armed) {
            g->armed = false;
            g->close_now = true;
            pthread_cond_broadcast(&g->cv);
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 300 * 1000000L;
            until.tv_sec += until.tv_nsec / 1000000000L;
            until.tv_nsec %= 1000000000L;
            while (!g->closed && pthread_cond_timedwait(&g->cv, &g->m, &until) == 0)
                ;
        }
        pthread_mutex_unlock(&g->m);
    }
    pthread_mutex_lock(&g->base.lock);
    int rc = rksim_rocket_ioctl(g->base.sim, g->file, request, arg);
    pthread_mutex_unlock(&g->base.lock);
    return rc;
}

static void gate_close(void *ctx)
{
    gate *g = ctx;
    rksim_rocket_close(g->base.sim, g->file);
    rk_sim_lock_fini(&g->base);
    pthread_mutex_destroy(&g->m);
    pthread_cond_destroy(&g->cv);
    free(g);
}

static const npk_rk_backend gate_inner = {.kind = "sim",
                                          .simulated = true,
                                          .ioctl = gate_ioctl,
                                          .map = rk_sim_lock_map,
                                          .unmap = rk_sim_lock_unmap,
                                          .close = gate_close,
                                          .detail = rk_sim_lock_detail,
                                          .soc = rk_sim_lock_soc,
                                          .kernel = "rocket",
                                          .sim = rk_sim_lock_sim};

typedef struct victim {
    npk_rk_device *dev;
    gate *g;
    npk_rk_mem mem;
    npk_status destroyed;
} victim;

static void *destroy_on_cue(void *arg)
{
    victim *v = arg;
    pthread_mutex_lock(&v->g->m);
    while (!v->g->close_now)
        pthread_cond_wait(&v->g->cv, &v->g->m);
    pthread_mutex_unlock(&v->g->m);
    v->destroyed = npk_rk_mem_destroy(v->dev, &v->mem);
    pthread_mutex_lock(&v->g->m);
    v->g->closed = true;
    pthread_cond_broadcast(&v->g->cv);
    pthread_mutex_unlock(&v->g->m);
    return NULL;
}

static void close_during_submit(void)
{
    gate *g = calloc(1, sizeof *g);
    CHECK(g != NULL);
    rksim_config cfg;
    rksim_config_default(&cfg);
    CHECK_EQ(rk_sim_lock_init(&g->base, &cfg), NPK_OK);
    g->file = rksim_rocket_open(g->base.sim);
    CHECK(g->file >= 0);
    pthread_mutex_init(&g->m, NULL);
    pthread_cond_init(&g->cv, NULL);
    npk_rk_device *d;
    void *files[1] = {g}; /* one file: the race is within a file's handles */
    CHECK_EQ(npk_rk_device_wrap_rocket(&gate_inner, files, 1, "gate", &d), NPK_OK);

    const uint32_t m = 4, k = 64, n = 32;
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, m, k, n);
    mm.out = NPK_PREC_INT32;
    npk_rk_devtask t;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
    int8_t a[4 * 64], b[64 * 32];
    int32_t c[4 * 32], ref[4 * 32];
    uint64_t seed = 99;
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (int8_t)rnd(&seed);
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (int8_t)rnd(&seed);
    CHECK_EQ(npk_rk_devtask_load(d, &t, a, b), NPK_OK);
    victim v = {.dev = d, .g = g};
    CHECK_EQ(npk_rk_mem_create(d, 4096, 0, &v.mem), NPK_OK);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, destroy_on_cue, &v), 0);
    g->armed = true;
    struct rknpu_submit sub;
    npk_status s = npk_rk_devtask_submit(d, &t, 0, 2000, &sub);
    pthread_join(th, NULL);
    printf("a buffer closed while a job is submitted: submit %d (%s), destroy %d\n", (int)s,
           s ? npk_last_error() : "ok", (int)v.destroyed);
    CHECK_EQ(s, NPK_OK);
    CHECK_EQ(v.destroyed, NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(d, &t, c), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, a, b, ref), NPK_OK);
    CHECK(!memcmp(c, ref, sizeof c));
    npk_rk_devtask_destroy(d, &t);
    npk_rk_device_close(d);
}

int main(void)
{
    close_during_submit();
    stress("sim");
    stress("sim-rocket");
    return check_done();
}
