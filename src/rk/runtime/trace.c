/* SPDX-License-Identifier: MIT */
/* The runtime's trace events (see trace.h) on the shared trace file (common/trace_json.h): a
 * host process on the wall clock and a timing-model process, one track per core in each. */
#include "trace.h"

#include <pthread.h>
#include <stdio.h>

#include "common/trace_json.h"

enum { MAX_TRACKS = 64 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pid_host, pid_npu;          /* allocated at the first event after the file opened */
static uint64_t named_tracks;          /* bit core: its thread names were written */
static double npu_free_us[MAX_TRACKS]; /* each core's modelled timeline: where it is free */

bool npk_rk_trace_on(void)
{
    if (!npk_trace_on())
        return false;
    pthread_mutex_lock(&lock);
    if (!pid_host) {
        pid_host = npk_trace_process("host (wall clock)");
        pid_npu = npk_trace_process("NPU (timing model, not a measurement)");
    }
    pthread_mutex_unlock(&lock);
    return true;
}

/* The caller holds the lock. */
static void name_tracks(unsigned core)
{
    if (core >= MAX_TRACKS || named_tracks >> core & 1)
        return;
    named_tracks |= 1ull << core;
    char name[24];
    snprintf(name, sizeof name, "core %u", core);
    npk_trace_thread(pid_host, (int)core, name);
    npk_trace_thread(pid_npu, (int)core, name);
}

void npk_rk_trace_host(unsigned core, const char *name, uint64_t t0_ns, uint64_t t1_ns)
{
    if (!npk_rk_trace_on())
        return;
    pthread_mutex_lock(&lock);
    name_tracks(core);
    double t0 = npk_trace_wall_us(t0_ns), t1 = npk_trace_wall_us(t1_ns);
    npk_trace_span_to(pid_host, (int)core, name, t0, t1, NULL, 0);
    pthread_mutex_unlock(&lock);
}

void npk_rk_trace_npu(unsigned core, uint32_t tasks, uint64_t npu_ns, uint64_t submit_ns)
{
    if (!npk_rk_trace_on())
        return;
    pthread_mutex_lock(&lock);
    name_tracks(core);
    /* the job starts when it is submitted or when the core's previous job ends */
    double start = npk_trace_wall_us(submit_ns), dur = npu_ns / 1e3;
    if (core < MAX_TRACKS) {
        if (npu_free_us[core] > start)
            start = npu_free_us[core];
        npu_free_us[core] = start + dur;
    }
    npk_trace_arg a = NPK_TRACE_U("tasks", tasks);
    npk_trace_span(pid_npu, (int)core, "job", start, dur, &a, 1);
    pthread_mutex_unlock(&lock);
}

void npk_rk_trace_instant(unsigned core, const char *name, uint64_t t_ns)
{
    if (!npk_rk_trace_on())
        return;
    pthread_mutex_lock(&lock);
    name_tracks(core);
    npk_trace_instant(pid_host, (int)core, name, npk_trace_wall_us(t_ns), NULL, 0);
    pthread_mutex_unlock(&lock);
}

void npk_rk_trace_close(void) { npk_trace_close(); }
