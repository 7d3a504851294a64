/* SPDX-License-Identifier: MIT */
/* The trace file (see trace.h): one JSON object {"traceEvents":[...]} written as events come,
 * under a lock (each core's thread writes its own spans), finished at exit. */
#include "trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/measure.h"

enum { PID_HOST = 1, PID_NPU = 2, MAX_TRACKS = 64 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static uint64_t epoch_ns;
static bool any_event;
static uint64_t named_tracks;          /* bit core: its thread names were written */
static double npu_free_us[MAX_TRACKS]; /* each core's modelled timeline: where it is free */

/* One event; the caller holds the lock. */
static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(any_event ? ",\n" : "\n", out);
    vfprintf(out, fmt, ap);
    va_end(ap);
    any_event = true;
}

static void trace_close_locked(void)
{
    if (!out)
        return;
    fputs("\n]}\n", out);
    fclose(out);
    out = NULL;
}

static void at_exit(void) { npk_rk_trace_close(); }

static void trace_open(void)
{
    const char *path = getenv("NPUKIT_TRACE");
    if (!path || !*path)
        return;
    out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "npukit: NPUKIT_TRACE=%s: %s (no trace written)\n", path, strerror(errno));
        return;
    }
    epoch_ns = npk_now_ns();
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
    emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"host (wall "
         "clock)\"}}",
         PID_HOST);
    emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"NPU (timing "
         "model, not a measurement)\"}}",
         PID_NPU);
    atexit(at_exit);
}

bool npk_rk_trace_on(void)
{
    pthread_once(&once, trace_open);
    pthread_mutex_lock(&lock);
    bool on = out != NULL;
    pthread_mutex_unlock(&lock);
    return on;
}

/* Microseconds since the trace began (0 for anything earlier). */
static double rel_us(uint64_t t_ns) { return t_ns > epoch_ns ? (t_ns - epoch_ns) / 1e3 : 0; }

/* The caller holds the lock; the file is open. */
static void name_tracks(unsigned core)
{
    if (core >= MAX_TRACKS || named_tracks >> core & 1)
        return;
    named_tracks |= 1ull << core;
    for (int pid = PID_HOST; pid <= PID_NPU; pid++)
        emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":"
             "\"core %u\"}}",
             pid, core, core);
}

void npk_rk_trace_host(unsigned core, const char *name, uint64_t t0_ns, uint64_t t1_ns)
{
    if (!npk_rk_trace_on())
        return;
    pthread_mutex_lock(&lock);
    if (out) {
        name_tracks(core);
        double t0 = rel_us(t0_ns), t1 = rel_us(t1_ns);
        emit("{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}", name,
             PID_HOST, core, t0, t1 > t0 ? t1 - t0 : 0);
    }
    pthread_mutex_unlock(&lock);
}

void npk_rk_trace_npu(unsigned core, uint32_t tasks, uint64_t npu_ns, uint64_t submit_ns)
{
    if (!npk_rk_trace_on())
        return;
    pthread_mutex_lock(&lock);
    if (out) {
        name_tracks(core);
        /* the job starts when it is submitted or when the core's previous job ends */
        double start = rel_us(submit_ns), dur = npu_ns / 1e3;
        if (core < MAX_TRACKS) {
            if (npu_free_us[core] > start)
                start = npu_free_us[core];
            npu_free_us[core] = start + dur;
        }
        emit("{\"name\":\"job\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
             "\"args\":{\"tasks\":%u}}",
             PID_NPU, core, start, dur, tasks);
    }
    pthread_mutex_unlock(&lock);
}

void npk_rk_trace_instant(unsigned core, const char *name, uint64_t t_ns)
{
    if (!npk_rk_trace_on())
        return;
    pthread_mutex_lock(&lock);
    if (out) {
        name_tracks(core);
        emit("{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f}", name,
             PID_HOST, core, rel_us(t_ns));
    }
    pthread_mutex_unlock(&lock);
}

void npk_rk_trace_close(void)
{
    pthread_once(&once, trace_open);
    pthread_mutex_lock(&lock);
    trace_close_locked();
    pthread_mutex_unlock(&lock);
}
