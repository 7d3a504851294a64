/* SPDX-License-Identifier: MIT */
/* Work cut in two halves, the second on a helper thread (see matmul.h).
 *
 * The helper is started once and kept: a thread started per call would cost its creation, and
 * a library called from it (OpenBLAS keeps a per-thread work buffer of tens of MiB) would
 * allocate and fault in its memory again on every call. One caller at a time hands the helper
 * its half; a second caller meanwhile, or a forked child (which has no helper), does all of its
 * work itself. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
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
        !pthread_create(&th, &at, helper_main, NULL))
        helper_of = getpid();
    pthread_attr_destroy(&at);
}

void rksim_split2(rksim_range_fn *fn, void *ctx, uint32_t count, bool two)
{
    if (two && count >= 2)
        pthread_once(&once, helper_start);
    if (!two || count < 2 || helper_of != getpid() || pthread_mutex_trylock(&owner)) {
        fn(ctx, 0, count); /* one thread does it all */
        return;
    }
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
