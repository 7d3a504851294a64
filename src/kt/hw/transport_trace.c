/* SPDX-License-Identifier: MIT */
/* Transactions and waits in the trace file (see transport_trace.h). */
#include "kt/hw/transport_trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include "npukit/kt_regs.h"
#include "common/measure.h"

static _Thread_local unsigned nesting;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int wall_pid; /* the host's wall-clock process, made once */

bool kt_trace_on(void) { return npk_trace_on(); }

/* The transport's track: made at its first event. */
static int track(kt_transport *t)
{
    pthread_mutex_lock(&lock);
    if (!t->trace_tid) {
        char name[96];
        if (t->clock && t->trace_pid) {
            snprintf(name, sizeof name, "host transactions via %s (simulated time)", t->name);
        } else {
            if (!wall_pid)
                wall_pid = npk_trace_process("kt host (wall clock)");
            t->trace_pid = wall_pid;
            t->clock = NULL; /* a clock without a process is no timeline of this trace */
            snprintf(name, sizeof name, "host transactions via %s (wall clock)", t->name);
        }
        t->trace_tid = npk_trace_thread_new(t->trace_pid, name);
    }
    pthread_mutex_unlock(&lock);
    return t->trace_tid;
}

double kt_trace_now_us(kt_transport *t)
{
    track(t); /* settles the timeline */
    if (t->clock)
        return (double)t->clock(t->clock_ctx) / t->clock_mhz; /* set with the clock, never 0 */
    return npk_trace_wall_us(npk_now_ns());
}

kt_tx_mark kt_tx_begin(kt_transport *t)
{
    kt_tx_mark m = {false, false, 0};
    if (!npk_trace_on())
        return m;
    m.nested = true;
    m.traced = nesting++ == 0;
    if (m.traced)
        m.t0 = kt_trace_now_us(t);
    return m;
}

/* The window register at addr ("PROG_KICK", "NODE_STATUS[3]"), or NULL outside the window. */
static const char *reg_name(const kt_transport *t, uint64_t addr, char *buf, size_t len)
{
    if (!t->trace_window || addr < t->trace_window - 1 ||
        addr - (t->trace_window - 1) >= KT_WINDOW_BYTES)
        return NULL;
    uint32_t off = (uint32_t)(addr - (t->trace_window - 1));
    const kt_reg_desc *r = kt_orch_reg_find(off);
    if (!r)
        return NULL;
    if (r->words == 1)
        return r->name;
    snprintf(buf, len, "%s[%u]", r->name, (off - r->offset) / 8);
    return buf;
}

void kt_tx_end(kt_transport *t, kt_tx_mark m, bool write, uint64_t addr, size_t len,
               uint64_t first_word, npk_status s)
{
    if (m.nested)
        nesting--;
    if (!m.traced)
        return;
    char rbuf[48], name[64];
    const char *reg = reg_name(t, addr, rbuf, sizeof rbuf);
    snprintf(name, sizeof name, "%s %s", write ? "write" : "read", reg ? reg : "memory");
    npk_trace_arg a[] = {NPK_TRACE_X("addr", addr), NPK_TRACE_U("bytes", len),
                         NPK_TRACE_X("value", first_word),
                         NPK_TRACE_S("status", npk_status_name(s))};
    kt_trace_span(t, name, m.t0, a, sizeof a / sizeof a[0]);
}

void kt_trace_span(kt_transport *t, const char *name, double t0_us, const npk_trace_arg *args,
                   unsigned n)
{
    int tid = track(t);
    npk_trace_span_to(t->trace_pid, tid, name, t0_us, kt_trace_now_us(t), args, n);
}

void kt_trace_instant(kt_transport *t, const char *name, const npk_trace_arg *args, unsigned n)
{
    int tid = track(t);
    npk_trace_instant(t->trace_pid, tid, name, kt_trace_now_us(t), args, n);
}
