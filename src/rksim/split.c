/* SPDX-License-Identifier: MIT */
/* Work cut in two halves, the second on a helper thread (see matmul.h).
 *
 * The helper is started once and kept: a thread started per call would cost its creation, and
 * a library called from it (OpenBLAS keeps a per-thread work buffer of tens of MiB) would
 * allocate and fault in its memory again on every call. One caller at a time hands the helper
 * its half; a second caller meanwhile, or a forked child (which has no helper), does all of its
 * work itself.
 *
 * Before each handoff the helper is allowed the caller's CPUs except the one the caller is on
 * (Linux). Woken without that, the helper was often queued on the caller's own CPU, the one it
 * had last run on, while the other was idle: the two halves then shared one core for 1-4 ms
 * until the scheduler moved one of them, and an fp16 task of 15 ms took 19-22 ms in about a
 * third of its calls (measured on a 2-core VM: docs/rk-simulator.md). Taking the caller's CPUs
 * each time also keeps the helper inside a narrower set the caller was given after the helper
 * started (taskset, a cpuset). */
#define _GNU_SOURCE /* sched_getcpu, CPU_SET, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "rksim/matmul.h"

typedef struct half {
    rksim_range_fn *fn;
    void *ctx;
    uint32_t lo, hi;
} half;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER; /* held by the caller using the helper */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;  /* guards job and done */
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static half *job;       /* the helper's half, NULL when it has none */
static bool done;       /* the helper finished the job it was given */
static pid_t helper_of; /* the process whose helper runs (0: none started) */
static pthread_t helper;

static void *helper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!job)
            pthread_cond_wait(&changed, &lock);
        half *h = job;
        pthread_mutex_unlock(&lock);
        h->fn(h->ctx, h->lo, h->hi);
        pthread_mutex_lock(&lock);
        job = NULL;
        done = true;
        pthread_cond_broadcast(&changed);
    }
    return NULL;
}

static void helper_start(void)
{
    pthread_attr_t at;
    pthread_t th;
    if (pthread_attr_init(&at))
        return;
    if (!pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) &&
        !pthread_create(&th, &at, helper_main, NULL)) {
        helper = th;
        helper_of = getpid();
    }
    pthread_attr_destroy(&at);
}

/* The helper allowed the calling thread's CPUs but the one it runs on (all of them when that is
 * its only one), set only when that changed since the last handoff. Called by the owner. */
static void place_helper(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
    static cpu_set_t placed; /* guarded by `owner` */
    static bool have_placed;
    cpu_set_t set;
    const int cpu = sched_getcpu();
    if (sched_getaffinity(0, sizeof set, &set))
        return;
    if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_COUNT(&set) > 1)
        CPU_CLR(cpu, &set);
    if (have_placed && CPU_EQUAL(&set, &placed))
        return;
    /* a failure (a set the helper may not have) leaves it where the scheduler puts it */
    have_placed = !pthread_setaffinity_np(helper, sizeof set, &set);
    if (have_placed)
        placed = set;
#endif
}

void rksim_split2(rksim_range_fn *fn, void *ctx, uint32_t count, bool two)
{
    if (two && count >= 2)
        pthread_once(&once, helper_start);
    if (!two || count < 2 || helper_of != getpid() || pthread_mutex_trylock(&owner)) {
        fn(ctx, 0, count); /* one thread does it all */
        return;
    }
    place_helper();
    half second = {fn, ctx, count / 2, count};
    pthread_mutex_lock(&lock);
    job = &second;
    done = false;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    fn(ctx, 0, count / 2);
    pthread_mutex_lock(&lock);
    while (!done)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&owner);
}
