/* SPDX-License-Identifier: MIT */
/* NPUKIT_TRACE=FILE: one Chrome / Perfetto trace-event file per process, shared by every part
 * of the library that traces (the rk runtime's phases, ktsim's units, the kt driver's host
 * transactions). The file is a JSON object {"traceEvents":[...]} written as events come, under
 * one lock, and finished at exit (or by npk_trace_close). Timestamps are microseconds on
 * whatever timeline the event's process names (the host's wall clock, a timing model, a
 * simulator's cycles); each part allocates its own processes and threads (tracks).
 *
 * Opening the file takes NPUKIT_TRACE out of the environment, so a child process started later
 * (a `kt serve` behind a pipe) never writes into the same file; give a child its own variable to
 * trace it too. */
#ifndef NPUKIT_COMMON_TRACE_JSON_H
#define NPUKIT_COMMON_TRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/status.h"

/* One argument of an event: a string when str is set, else a number (written as a "0x..." string
 * when hex is set: a 64-bit register value does not survive a JSON double). */
typedef struct npk_trace_arg {
    const char *key;
    const char *str;
    uint64_t num;
    bool hex;
} npk_trace_arg;

#define NPK_TRACE_U(k, v) ((npk_trace_arg){(k), NULL, (uint64_t)(v), false})
#define NPK_TRACE_X(k, v) ((npk_trace_arg){(k), NULL, (uint64_t)(v), true})
#define NPK_TRACE_S(k, s) ((npk_trace_arg){(k), (s), 0, false})

/* Whether tracing is on: the first call opens the file NPUKIT_TRACE names (and registers the
 * close at exit); later calls cost an atomic load. False again once the file is closed. */
bool npk_trace_on(void);
/* A new process (a group of tracks) named `name`; 0 when tracing is off. */
int npk_trace_process(const char *name);
/* Name thread `tid` of process `pid` (a track); npk_trace_thread_new picks a fresh tid. */
void npk_trace_thread(int pid, int tid, const char *name);
int npk_trace_thread_new(int pid, const char *name);
/* A span [ts_us, end_us) and an instant, with n arguments (args may be NULL when n is 0). Names
 * and string arguments are escaped. Nothing is written once the file is closed.
 *
 * Times are written in whole nanoseconds (as microseconds, lifted by 0.01 ns so that an
 * importer that truncates reads the same nanosecond as one that rounds). Both ends of a span are
 * rounded on that one grid and its "dur" is the difference of the rounded ends, so a span that
 * ends where the next one on its track begins is written ending exactly there: rounding start
 * and duration separately let back-to-back spans overlap by a tick, which breaks the nesting
 * rule trace viewers enforce. Give the end as
 * it was measured (npk_trace_span_to) rather than a duration, so both ends come from one
 * timeline. */
void npk_trace_span_to(int pid, int tid, const char *name, double ts_us, double end_us,
                       const npk_trace_arg *args, unsigned n);
/* The same with a duration (end = ts_us + dur_us). */
void npk_trace_span(int pid, int tid, const char *name, double ts_us, double dur_us,
                    const npk_trace_arg *args, unsigned n);
void npk_trace_instant(int pid, int tid, const char *name, double ts_us, const npk_trace_arg *args,
                       unsigned n);
/* Microseconds of npk_now_ns() since the file was opened (0 for anything earlier): the wall
 * clock's timeline. */
double npk_trace_wall_us(uint64_t t_ns);
/* Finish the file (also done at exit); later events write nothing. Fails, naming the file and
 * the system's reason, when it could not be opened or any of it could not be written. */
npk_status npk_trace_close(void);

#endif
