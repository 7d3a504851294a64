/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask, getpid */
/* A runtime's persistent core workers: one thread per extra core, started on the first call
 * that spreads over that many cores and kept until the runtime closes. A call hands each worker
 * its group under one mutex and a condition variable per worker, runs the first group on its
 * own thread meanwhile, and waits on a second condition variable until every worker is done.
 * Creating and joining a thread per core per call costs tens of microseconds each, about as
 * long as a modelled M=1 matmul; a wake-up costs a few.
 *
 * Calls on one runtime are serialised by the runtime's lock, so a pool has at most one call in
 * flight; runtimes sharing an engine have pools of their own and take turns on a core through
 * the core's job lock, as before.
 *
 * fork(): only the forking thread exists in the child, so the parent's workers are not there.
 * The pool remembers the process that started its threads; in another process it is dropped
 * without touching its threads or its locks (a condition variable whose waiters vanished cannot
 * be destroyed) and the child starts workers of its own on its first multi-core call. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime_internal.h"

typedef struct worker {
    struct npk_rk_workers *pool;
    pthread_t thread;
    pthread_cond_t wake;  /* signalled when job is set or the pool stops */
    npk_rk_core_job *job; /* the group to run (under the pool's lock); NULL: none */
} worker;

struct npk_rk_workers {
    pthread_mutex_t lock;
    pthread_cond_t done; /* signalled when busy drops to 0 */
    npk_rk_core_fn fn;   /* the current call's (set with the jobs) */
    void *ctx;
    unsigned started; /* worker threads running */
    unsigned busy;    /* jobs handed out and not finished */
    bool stop;
    pid_t pid; /* the process the threads belong to */
    worker w[NPK_RK_MAX_CORES - 1];
};

/* Run one group, keeping its error message: npk_last_error() is per thread. */
static void run_job(npk_rk_core_fn fn, void *ctx, npk_rk_core_job *j)
{
    uint64_t t0 = npk_now_ns();
    j->status = fn(ctx, j->first, j->count, &j->st);
    j->ns = npk_now_ns() - t0;
    if (j->status)
        snprintf(j->msg, sizeof j->msg, "%s", npk_last_error());
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    npk_rk_workers *p = wk->pool;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!wk->job && !p->stop)
            pthread_cond_wait(&wk->wake, &p->lock);
        if (!wk->job)
            break; /* stopping, nothing handed out */
        npk_rk_core_job *j = wk->job;
        npk_rk_core_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->lock);
        run_job(fn, ctx, j);
        pthread_mutex_lock(&p->lock);
        wk->job = NULL;
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static npk_rk_workers *pool_new(void)
{
    npk_rk_workers *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->done, NULL);
    p->pid = getpid();
    return p;
}

/* Workers 0..want-1 running. Each starts with every signal blocked: signals meant for the
 * application go to its own threads, never to a library thread that would not expect them. */
static npk_status pool_start(npk_rk_workers *p, unsigned want)
{
    sigset_t all, old;
    sigfillset(&all);
    npk_status s = NPK_OK;
    while (p->started < want && s == NPK_OK) {
        worker *wk = &p->w[p->started];
        wk->pool = p;
        wk->job = NULL;
        pthread_cond_init(&wk->wake, NULL);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int e = pthread_create(&wk->thread, NULL, worker_main, wk);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e) {
            pthread_cond_destroy(&wk->wake);
            s = npk_fail(NPK_ENOMEM,
                         "could not start the worker thread of a runtime's core %u "
                         "(pthread_create error %d)",
                         p->started + 1, e);
        } else {
            p->started++;
        }
    }
    return s;
}

npk_status npk_rk_workers_run(npk_rk_workers **pool, npk_rk_core_fn fn, void *ctx,
                              npk_rk_core_job *jobs, unsigned n)
{
    if (n > NPK_RK_MAX_CORES)
        return npk_fail(NPK_EINVAL, "%u core groups: at most %u", n, NPK_RK_MAX_CORES);
    if (n > 1 && *pool && (*pool)->pid != getpid()) { /* inherited across fork(): not ours */
        free(*pool);
        *pool = NULL;
    }
    if (n > 1 && !*pool && !(*pool = pool_new()))
        return npk_fail(NPK_ENOMEM, "runtime: out of memory for the core workers");
    npk_rk_workers *p = *pool;
    if (n > 1) {
        npk_status s = pool_start(p, n - 1);
        if (s)
            return s;
        pthread_mutex_lock(&p->lock);
        p->fn = fn;
        p->ctx = ctx;
        p->busy = n - 1;
        for (unsigned i = 1; i < n; i++) {
            p->w[i - 1].job = &jobs[i];
            pthread_cond_signal(&p->w[i - 1].wake);
        }
        pthread_mutex_unlock(&p->lock);
    }
    if (n)
        run_job(fn, ctx, &jobs[0]); /* the caller's own share meanwhile */
    if (n > 1) {
        pthread_mutex_lock(&p->lock);
        while (p->busy)
            pthread_cond_wait(&p->done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
    return NPK_OK;
}

void npk_rk_workers_free(npk_rk_workers *p)
{
    if (!p)
        return;
    if (p->pid != getpid()) { /* the parent's threads: not in this process */
        free(p);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    for (unsigned i = 0; i < p->started; i++)
        pthread_cond_signal(&p->w[i].wake);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->started; i++) {
        pthread_join(p->w[i].thread, NULL);
        pthread_cond_destroy(&p->w[i].wake);
    }
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

unsigned npk_rk_workers_started(const npk_rk_workers *p) { return p ? p->started : 0; }
