/* SPDX-License-Identifier: MIT */
/* The trace file (see trace_json.h). */
#define _POSIX_C_SOURCE 200809L /* unsetenv, fdopen, O_CLOEXEC */
#include "common/trace_json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json_text.h"
#include "common/log.h"
#include "measure.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool active; /* the file is open: read without the lock by npk_trace_on */
static FILE *out;
static uint64_t epoch_ns;
static bool any_event;
static int next_pid = 1, next_tid = 1;
/* The file's name and the first error writing it (0: none), so that a full disk makes the
 * command fail, naming both, instead of leaving a cut, invalid file behind a status of 0. */
static char path_of[1024];
static int write_errno;

/* Note the first failed write; the caller holds the lock. */
static void check_written(void)
{
    if (!write_errno && out && ferror(out))
        write_errno = errno ? errno : EIO;
}

/* A JSON string (quotes included), by the one escaper; the caller holds the lock. */
static void put_string(const char *s) { npk_json_put_string(out, s, strlen(s)); }

/* The start of one event, up to its name; the caller holds the lock and the file is open. */
static void begin_event(const char *ph, int pid, int tid, const char *name)
{
    fputs(any_event ? ",\n" : "\n", out);
    any_event = true;
    fprintf(out, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph, pid, tid);
    put_string(name);
}

static void put_args(const npk_trace_arg *args, unsigned n)
{
    if (!n)
        return;
    fputs(",\"args\":{", out);
    for (unsigned i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        put_string(args[i].key);
        fputc(':', out);
        if (args[i].str)
            put_string(args[i].str);
        else if (args[i].hex)
            fprintf(out, "\"0x%" PRIx64 "\"", args[i].num);
        else
            fprintf(out, "%" PRIu64, args[i].num);
    }
    fputc('}', out);
}

static void at_exit(void) { (void)npk_trace_close(); }

static void trace_open(void)
{
    const char *path = getenv("NPUKIT_TRACE");
    if (!path || !*path)
        return;
    /* close-on-exec: a program started from here on does not inherit the descriptor */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        if (fd >= 0)
            close(fd);
        int e = errno;
        npk_log(NPK_LOG_ERROR, "npukit", "NPUKIT_TRACE=%s: %s (no trace written)", path,
                strerror(e));
        snprintf(path_of, sizeof path_of, "%s", path);
        write_errno = e; /* the command fails at its end, as for a write that failed */
        unsetenv("NPUKIT_TRACE");
        return;
    }
    snprintf(path_of, sizeof path_of, "%s", path);
    /* a child started from here on (a served machine) must not write into this file too */
    unsetenv("NPUKIT_TRACE");
    pthread_mutex_lock(&lock);
    out = f;
    epoch_ns = npk_now_ns();
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    atomic_store(&active, true);
    pthread_mutex_unlock(&lock);
    atexit(at_exit);
}

bool npk_trace_on(void)
{
    pthread_once(&once, trace_open);
    return atomic_load_explicit(&active, memory_order_acquire);
}

int npk_trace_process(const char *name)
{
    if (!npk_trace_on())
        return 0;
    int pid = 0;
    pthread_mutex_lock(&lock);
    if (out) {
        pid = next_pid++;
        begin_event("M", pid, 0, "process_name");
        npk_trace_arg a = NPK_TRACE_S("name", name);
        put_args(&a, 1);
        fputc('}', out);
    }
    pthread_mutex_unlock(&lock);
    return pid;
}

/* The caller holds the lock. */
static void thread_name_locked(int pid, int tid, const char *name)
{
    if (!out)
        return;
    begin_event("M", pid, tid, "thread_name");
    npk_trace_arg a = NPK_TRACE_S("name", name);
    put_args(&a, 1);
    fputc('}', out);
}

void npk_trace_thread(int pid, int tid, const char *name)
{
    pthread_mutex_lock(&lock);
    thread_name_locked(pid, tid, name);
    pthread_mutex_unlock(&lock);
}

int npk_trace_thread_new(int pid, const char *name)
{
    pthread_mutex_lock(&lock);
    int tid = next_tid++;
    thread_name_locked(pid, tid, name);
    pthread_mutex_unlock(&lock);
    return tid;
}

/* The trace's time grid: whole nanoseconds (viewers import the file's microseconds into
 * nanoseconds). Rounding is monotone, so ordered times stay ordered once rounded. */
enum { TICKS_PER_US = 1000 };

static long long to_ticks(double us) { return us > 0 ? llround(us * TICKS_PER_US) : 0; }

/* A time in microseconds, written as its whole nanoseconds plus 0.01 ns. A decimal such as
 * 16.060 has no exact binary value: 16.060 * 1000 comes out just below 16060, and an importer
 * that truncates (int64(us * 1000), older Perfetto) reads 16059 while the slice before, whose
 * start and duration truncated exactly, ends at 16060: an overlap the nesting rule drops. The
 * 0.01 ns lifts every value clear of that error (it stays below 10^-4 ns up to a day of
 * trace), and is far below the half nanosecond a rounding importer would need to move. */
static void put_time(const char *key, long long ticks)
{
    fprintf(out, ",\"%s\":%lld.%03lld01", key, ticks / TICKS_PER_US, ticks % TICKS_PER_US);
}

void npk_trace_span_to(int pid, int tid, const char *name, double ts_us, double end_us,
                       const npk_trace_arg *args, unsigned n)
{
    long long t0 = to_ticks(ts_us), t1 = to_ticks(end_us);
    pthread_mutex_lock(&lock);
    if (out) {
        begin_event("X", pid, tid, name);
        put_time("ts", t0);
        put_time("dur", t1 > t0 ? t1 - t0 : 0);
        put_args(args, n);
        fputc('}', out);
        check_written();
    }
    pthread_mutex_unlock(&lock);
}

void npk_trace_span(int pid, int tid, const char *name, double ts_us, double dur_us,
                    const npk_trace_arg *args, unsigned n)
{
    npk_trace_span_to(pid, tid, name, ts_us, ts_us + (dur_us > 0 ? dur_us : 0), args, n);
}

void npk_trace_instant(int pid, int tid, const char *name, double ts_us, const npk_trace_arg *args,
                       unsigned n)
{
    pthread_mutex_lock(&lock);
    if (out) {
        begin_event("i", pid, tid, name);
        fputs(",\"s\":\"t\"", out);
        put_time("ts", to_ticks(ts_us));
        put_args(args, n);
        fputc('}', out);
        check_written();
    }
    pthread_mutex_unlock(&lock);
}

double npk_trace_wall_us(uint64_t t_ns) { return t_ns > epoch_ns ? (t_ns - epoch_ns) / 1e3 : 0; }

npk_status npk_trace_close(void)
{
    pthread_once(&once, trace_open);
    pthread_mutex_lock(&lock);
    if (out) {
        fputs("\n]}\n", out);
        errno = 0;
        if (fflush(out))
            check_written();
        check_written();
        if (fclose(out) && !write_errno)
            write_errno = errno ? errno : EIO;
        out = NULL;
        atomic_store(&active, false);
    }
    int e = write_errno;
    write_errno = 0; /* said once */
    pthread_mutex_unlock(&lock);
    if (e)
        return npk_fail(NPK_EIO, "trace file %s: %s (the trace is incomplete)", path_of,
                        strerror(e));
    return NPK_OK;
}
