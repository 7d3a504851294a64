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
/* Where the event being formatted goes: the file, or a span's own buffer (held back, below). */
static FILE *ev;
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
static void put_string(const char *s) { npk_json_put_string(ev, s, strlen(s)); }

/* An event's opening up to its name, into ev. */
static void begin_event_body(const char *ph, int pid, int tid, const char *name)
{
    fprintf(ev, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph, pid, tid);
    put_string(name);
}

/* The separator before an event written into the file. */
static void put_separator(void)
{
    fputs(any_event ? ",\n" : "\n", out);
    any_event = true;
}

/* The start of one event, up to its name, straight into the file (the caller holds the lock and
 * the file is open). */
static void begin_event(const char *ph, int pid, int tid, const char *name)
{
    put_separator();
    ev = out;
    begin_event_body(ph, pid, tid, name);
}

static void put_args(const npk_trace_arg *args, unsigned n)
{
    if (!n)
        return;
    fputs(",\"args\":{", ev);
    for (unsigned i = 0; i < n; i++) {
        if (i)
            fputc(',', ev);
        put_string(args[i].key);
        fputc(':', ev);
        if (args[i].str)
            put_string(args[i].str);
        else if (args[i].hex)
            fprintf(ev, "\"0x%" PRIx64 "\"", args[i].num);
        else
            fprintf(ev, "%" PRIu64, args[i].num);
    }
    fputc('}', ev);
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

/* Times: whole nanoseconds first (llround is monotone, so ordered times stay ordered), then
 * written on a grid every reading of the file agrees with. A viewer reads the file's microseconds
 * one of three ways: as exact decimals, as doubles (the end is ts + dur in double: Chrome's trace
 * engine), or converted to whole ns by truncating ts * 1000 and dur * 1000 separately (older
 * Perfetto; a rounding importer behaves like the truncating one here). k ns / 1000 has no exact
 * binary value, so whole-ns decimals fail the double reading (a sum a hair past the next
 * sibling's start) and, written as they are, the truncating one (16.060 * 1000 falls just below
 * 16060). So every value written is a multiple of 2^-16 us (0.015 ns), exact in decimal and in
 * binary, with all sums exact: the exact and the double readings are the same numbers. For a
 * whole-ns time k, E(k) is the first grid point at or after k (where a span ends) and S(k) two
 * grid points later (where one starts): a span ending at k ends before one starting at k begins
 * in both exact readings; and since S(k) lies 0.030..0.046 ns past k and E(k) less than 0.016 ns
 * past it, every span from k0 to k1 > k0 truncates to [k0, k1 - 1) and rounds to [k0, k1): one
 * rule for every span, so slices nest in each reading as the true times do. A zero-length span
 * is written at S(k), duration 0. */
enum { TICKS_PER_US = 1000, GRID_BITS = 16, START_LIFT = 2 };

static long long to_ticks(double us) { return us > 0 ? llround(us * TICKS_PER_US) : 0; }

/* E(k) in grid units: ceil(k * 2^16 / 1000) = ceil(k * 8192 / 125), without overflow. */
static long long grid_end(long long k) { return k / 125 * 8192 + (k % 125 * 8192 + 124) / 125; }
static long long grid_start(long long k) { return grid_end(k) + START_LIFT; }

/* A grid value as its exact decimal: whole microseconds, then the 2^-16 fraction's 16 digits
 * (frac * 5^16 < 10^16) without trailing zeros. */
static void put_grid(const char *key, long long m)
{
    unsigned long long frac = (unsigned long long)(m & ((1 << GRID_BITS) - 1)) * 152587890625ull;
    fprintf(ev, ",\"%s\":%lld", key, m >> GRID_BITS);
    if (!frac)
        return;
    char digits[17];
    snprintf(digits, sizeof digits, "%016llu", frac);
    int n = 16;
    while (digits[n - 1] == '0')
        n--;
    fprintf(ev, ".%.*s", n, digits);
}

/* Spans are held back per track until it is known what must be written before them: a span is
 * reported when it ends, after what it contains, and a viewer that keeps file order among
 * slices starting together wants the enclosing one first. When span X ends, the held spans that
 * started inside it and after its start can have no enclosing span still to come that starts
 * with them (it would cross X), so they are written; those starting with X wait behind X, which
 * waits in turn for whatever may still enclose it. The rest is written at close (or, past
 * MAX_HELD spans on one track, the oldest half is written as it stands). */
typedef struct held_span {
    long long start; /* ns */
    char *text;      /* the whole event */
} held_span;
typedef struct held_track {
    int pid, tid;
    held_span *s;
    size_t n, cap;
} held_track;
enum { MAX_HELD = 1 << 16 };
static held_track *held;
static size_t n_held;

static held_track *held_for(int pid, int tid)
{
    for (size_t i = 0; i < n_held; i++)
        if (held[i].pid == pid && held[i].tid == tid)
            return &held[i];
    held_track *g = realloc(held, (n_held + 1) * sizeof *held);
    if (!g)
        return NULL;
    held = g;
    held[n_held] = (held_track){pid, tid, NULL, 0, 0};
    return &held[n_held++];
}

/* Write one held event into the file and free it. */
static void write_held(held_span *h)
{
    put_separator();
    fputs(h->text, out);
    free(h->text);
    check_written();
}

/* Take span (start, text): write what it releases, hold it. The caller holds the lock. */
static void hold(held_track *t, long long start, char *text)
{
    if (t->n + 1 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        held_span *g = realloc(t->s, cap * sizeof *g);
        if (!g) { /* no room to hold it back: written as it stands */
            held_span h = {start, text};
            write_held(&h);
            return;
        }
        t->s = g;
        t->cap = cap;
    }
    size_t keep = 0, with = 0; /* held before it, and starting with it (moved behind it) */
    held_span *same = t->n ? malloc(t->n * sizeof *same) : NULL;
    for (size_t i = 0; i < t->n; i++) {
        if (t->s[i].start > start)
            write_held(&t->s[i]);
        else if (t->s[i].start == start && same)
            same[with++] = t->s[i];
        else
            t->s[keep++] = t->s[i];
    }
    t->s[keep++] = (held_span){start, text};
    for (size_t i = 0; i < with; i++)
        t->s[keep++] = same[i];
    free(same);
    t->n = keep;
    if (t->n > MAX_HELD) {
        size_t half = t->n / 2;
        for (size_t i = 0; i < half; i++)
            write_held(&t->s[i]);
        memmove(t->s, t->s + half, (t->n - half) * sizeof *t->s);
        t->n -= half;
    }
}

/* Everything still held, track by track. The caller holds the lock. */
static void write_all_held(void)
{
    for (size_t i = 0; i < n_held; i++) {
        for (size_t j = 0; j < held[i].n; j++)
            write_held(&held[i].s[j]);
        free(held[i].s);
    }
    free(held);
    held = NULL;
    n_held = 0;
}

void npk_trace_span_to(int pid, int tid, const char *name, double ts_us, double end_us,
                       const npk_trace_arg *args, unsigned n)
{
    long long t0 = to_ticks(ts_us), t1 = to_ticks(end_us);
    pthread_mutex_lock(&lock);
    held_track *t = out ? held_for(pid, tid) : NULL;
    char *text = NULL;
    size_t len = 0;
    if (t && (ev = open_memstream(&text, &len))) {
        long long s = grid_start(t0), e = grid_end(t1);
        begin_event_body("X", pid, tid, name);
        put_grid("ts", s);
        put_grid("dur", t1 > t0 ? e - s : 0);
        put_args(args, n);
        fputc('}', ev);
        if (fclose(ev) == 0 && text)
            hold(t, t0, text);
        else
            free(text);
        ev = out;
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
        put_grid("ts", grid_start(to_ticks(ts_us)));
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
        write_all_held();
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
