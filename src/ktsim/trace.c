/* SPDX-License-Identifier: MIT */
/* ktsim's trace tracks (see trace.h). */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAX_ARGS = 12 };

ksim_trace *ksim_trace_open(const char *machine, unsigned clock_mhz, const uint64_t *cycle)
{
    if (!npk_trace_on())
        return NULL;
    ksim_trace *tr = calloc(1, sizeof *tr);
    if (!tr)
        return NULL;           /* no trace of this machine rather than no machine */
    tr->clock_mhz = clock_mhz; /* never 0: the configuration is refused first */
    tr->cycle = cycle;
    char name[128];
    snprintf(name, sizeof name, "ktsim %s (simulated time: mesh cycles at %u MHz)", machine,
             tr->clock_mhz);
    tr->pid = npk_trace_process(name);
    return tr;
}

ksim_track ksim_trace_track(const ksim_trace *tr, const char *name)
{
    if (!tr)
        return (ksim_track){NULL, 0};
    return (ksim_track){tr, npk_trace_thread_new(tr->pid, name)};
}

double ksim_trace_us(const ksim_trace *tr, uint64_t cycle) { return (double)cycle / tr->clock_mhz; }

void ksim_trace_span(ksim_track t, const char *name, uint64_t c0, uint64_t c1,
                     const npk_trace_arg *args, unsigned n)
{
    npk_trace_arg a[MAX_ARGS + 2];
    unsigned k = 0;
    for (; k < n && k < MAX_ARGS; k++)
        a[k] = args[k];
    a[k++] = NPK_TRACE_U("start_cycle", c0);
    a[k++] = NPK_TRACE_U("end_cycle", c1);
    npk_trace_span_to(t.tr->pid, t.tid, name, ksim_trace_us(t.tr, c0), ksim_trace_us(t.tr, c1), a,
                      k);
}

void ksim_trace_instant(ksim_track t, const char *name, uint64_t c, const npk_trace_arg *args,
                        unsigned n)
{
    npk_trace_arg a[MAX_ARGS + 1];
    unsigned k = 0;
    for (; k < n && k < MAX_ARGS; k++)
        a[k] = args[k];
    a[k++] = NPK_TRACE_U("cycle", c);
    npk_trace_instant(t.tr->pid, t.tid, name, ksim_trace_us(t.tr, c), a, k);
}
