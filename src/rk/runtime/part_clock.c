/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_THREAD_CPUTIME_ID */
/* The host parts' clock (part_clock.h), chosen once per process from NPUKIT_RK_HOST_CLOCK. */
#include "part_clock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/measure.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool thread_clock;

static void choose(void)
{
    const char *v = getenv("NPUKIT_RK_HOST_CLOCK");
    if (!v || !*v || !strcmp(v, "wall"))
        return;
    if (!strcmp(v, "thread")) {
        thread_clock = true;
        return;
    }
    npk_log(NPK_LOG_WARN, "npukit",
            "NPUKIT_RK_HOST_CLOCK=%s: not a clock (wall or thread); the host parts are timed on "
            "the wall clock",
            v);
}

bool npk_rk_part_clock_wall(void)
{
    pthread_once(&once, choose);
    return !thread_clock;
}

uint64_t npk_rk_part_now(void)
{
    if (npk_rk_part_clock_wall())
        return npk_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
