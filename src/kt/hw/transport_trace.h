/* SPDX-License-Identifier: MIT */
/* The host's transactions and waits in the trace file (NPUKIT_TRACE, common/trace_json.h): one
 * track per transport that the driver uses, on the simulated timeline of the machine behind it
 * when that machine runs in this process (kt_transport.clock), on the wall clock otherwise. A
 * transport that forwards to another (a card to its meshes, an address map) is traced once: only
 * the outermost transaction of a thread is the host's. */
#ifndef NPUKIT_KT_TRANSPORT_TRACE_H
#define NPUKIT_KT_TRANSPORT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/trace_json.h"
#include "npukit/kt_transport.h"

/* Around one transaction of the transport spine. */
typedef struct kt_tx_mark {
    bool traced; /* the outermost transaction, tracing on */
    bool nested; /* the nesting count was raised */
    double t0;
} kt_tx_mark;
kt_tx_mark kt_tx_begin(kt_transport *t);
void kt_tx_end(kt_transport *t, kt_tx_mark m, bool write, uint64_t addr, size_t len,
               uint64_t first_word, npk_status s);

/* For spans of the driver's own (waits, pauses) on the transport's track: whether tracing is
 * on, the transport's time now, a span from t0_us to now, and an instant now. */
bool kt_trace_on(void);
double kt_trace_now_us(kt_transport *t);
void kt_trace_span(kt_transport *t, const char *name, double t0_us, const npk_trace_arg *args,
                   unsigned n);
void kt_trace_instant(kt_transport *t, const char *name, const npk_trace_arg *args, unsigned n);

#endif
