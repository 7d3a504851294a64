/* SPDX-License-Identifier: MIT */
/* The simulator's work split (rksim_split2): every index done once, the second half on the
 * helper thread, and the helper placed inside the caller's CPUs but off the caller's own one,
 * including after the caller was narrowed to fewer CPUs than it had when the helper started. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"
#include "rksim/matmul.h"

enum { COUNT = 64 };

typedef struct record {
    atomic_int done[COUNT];
    pthread_t caller;
    bool helper_ran;     /* the second half ran on a thread other than the caller's */
    cpu_set_t helper_on; /* that thread's allowed CPUs while it ran */
} record;

static void work(void *ctx, uint32_t lo, uint32_t hi)
{
    record *r = ctx;
    if (lo > 0 && !pthread_equal(pthread_self(), r->caller)) {
        r->helper_ran = true;
        if (sched_getaffinity(0, sizeof r->helper_on, &r->helper_on))
            CPU_ZERO(&r->helper_on);
    }
    for (uint32_t i = lo; i < hi; i++)
        atomic_fetch_add(&r->done[i], 1);
}

static void check_every_index_once(record *r)
{
    int wrong = 0;
    for (int i = 0; i < COUNT; i++)
        wrong += atomic_load(&r->done[i]) != 1;
    CHECK_EQ(wrong, 0);
}

/* One split with `two`; returns what it recorded. */
static void split_once(record *r, bool two)
{
    *r = (record){.caller = pthread_self()};
    for (int i = 0; i < COUNT; i++)
        atomic_init(&r->done[i], 0);
    rksim_split2(work, r, COUNT, two);
    check_every_index_once(r);
}

/* The helper's CPUs against the caller's `mine`: a subset, one fewer when the caller has more
 * than one (the one it was on), else that same one. */
static void check_placement(const record *r, const cpu_set_t *mine)
{
    CHECK(r->helper_ran);
    cpu_set_t outside;
    CPU_XOR(&outside, &r->helper_on, mine);
    CPU_AND(&outside, &outside, &r->helper_on);
    CHECK_EQ(CPU_COUNT(&outside), 0); /* nothing outside the caller's set */
    const int want = CPU_COUNT(mine) > 1 ? CPU_COUNT(mine) - 1 : 1;
    CHECK_EQ(CPU_COUNT(&r->helper_on), want);
}

/* The first `n` CPUs of `all`, in a set of their own. */
static cpu_set_t first_cpus(const cpu_set_t *all, int n)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int c = 0; c < CPU_SETSIZE && CPU_COUNT(&s) < n; c++)
        if (CPU_ISSET(c, all))
            CPU_SET(c, &s);
    return s;
}

int main(void)
{
    record r;
    cpu_set_t all;
    CHECK_EQ(sched_getaffinity(0, sizeof all, &all), 0);

    /* without `two`, or with fewer than 2 indices, the caller does everything */
    split_once(&r, false);
    CHECK(!r.helper_ran);
    r = (record){.caller = pthread_self()};
    rksim_split2(work, &r, 1, true);
    CHECK_EQ(atomic_load(&r.done[0]), 1);
    CHECK(!r.helper_ran);

    /* the helper starts with the process's CPUs and is placed off the caller's */
    for (int rep = 0; rep < 3; rep++) {
        split_once(&r, true);
        check_placement(&r, &all);
    }

    /* the caller narrowed after the helper started: one CPU, then two when there are two */
    for (int n = 1; n <= 2 && n <= CPU_COUNT(&all); n++) {
        cpu_set_t few = first_cpus(&all, n);
        CHECK_EQ(sched_setaffinity(0, sizeof few, &few), 0);
        split_once(&r, true);
        check_placement(&r, &few);
    }

    /* widened again: the helper gets the rest back */
    CHECK_EQ(sched_setaffinity(0, sizeof all, &all), 0);
    split_once(&r, true);
    check_placement(&r, &all);
    return check_done();
}
