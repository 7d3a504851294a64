/* SPDX-License-Identifier: MIT */
/* ktsim's trace events (NPUKIT_TRACE, common/trace_json.h) on the simulated timeline: one trace
 * process per machine, its clock the machine's mesh cycles at the preset's clock_mhz, and one
 * track per part that reports (each compute unit, the mover, the engine, the host's
 * transactions). Everything costs one branch on the track's `tr` when tracing is off. */
#ifndef NPUKIT_KTSIM_TRACE_H
#define NPUKIT_KTSIM_TRACE_H

#include <stdint.h>

#include "common/trace_json.h"

typedef struct ksim_trace {
    int pid;
    unsigned clock_mhz;
    const uint64_t *cycle; /* the machine's clock */
} ksim_trace;

/* A track; tr is NULL when tracing is off. */
typedef struct ksim_track {
    const ksim_trace *tr;
    int tid;
} ksim_track;

/* The machine's trace process when tracing is on (NULL otherwise), named after the machine and
 * labelled as simulated time. Free it with free(). */
ksim_trace *ksim_trace_open(const char *machine, unsigned clock_mhz, const uint64_t *cycle);
/* A new track of the machine's process ({NULL, 0} when tr is NULL). */
ksim_track ksim_trace_track(const ksim_trace *tr, const char *name);
/* The microseconds of simulated time at `cycle`. */
double ksim_trace_us(const ksim_trace *tr, uint64_t cycle);
static inline uint64_t ksim_track_now(ksim_track t) { return *t.tr->cycle; }
/* A span from cycle c0 to cycle c1 (its cycles also as the arguments start_cycle / end_cycle,
 * after the caller's n), and an instant at cycle c. */
void ksim_trace_span(ksim_track t, const char *name, uint64_t c0, uint64_t c1,
                     const npk_trace_arg *args, unsigned n);
void ksim_trace_instant(ksim_track t, const char *name, uint64_t c, const npk_trace_arg *args,
                        unsigned n);

/* A machine's trace process (NULL when not traced), and a transport whose transactions are that
 * machine's host transactions: they go on its simulated timeline. */
struct ktsim;
struct kt_transport;
const ksim_trace *ktsim_trace_of(const struct ktsim *s);
void ktsim_trace_transport(const struct ktsim *s, struct kt_transport *t);

#endif
