/* SPDX-License-Identifier: MIT */
/* The compute-unit shell. Rules reproduced from the RTL: one instruction in flight; an
 * exec_done with nothing in flight is discarded but still counted as retired; a completion is
 * addressed to the src of its CU_INST with its txn; completion code priority fault > batch >
 * instruction; the input refuses everything while the instruction or receive FIFO is full (which
 * is how an over-dispatched node stalls its link); one CU_CTRL request at a time, a second one
 * accepted and discarded; output priority signal > CU_CTRL reply > the unit's own traffic. */
#include "shell.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"
#include "kt/hw/flit_header.h"
#include "npukit/kt_regs.h"

enum { SIGQ_DEPTH = 16 };

typedef struct pending_signal {
    kt_coord dst;
    uint8_t txn, code;
    uint32_t arg;
} pending_signal;

struct ksim_shell {
    ktsim_unit_cfg cfg;
    const ksim_unit_ops *ops;
    void *unit;
    uint64_t cycle;

    ksim_fifo inst, recv;
    bool in_flight;
    kt_coord rep_src;
    uint8_t rep_txn;
    bool rep_last;

    pending_signal sigq[SIGQ_DEPTH];
    unsigned sig_head, sig_count;

    bool ctrl_pend;
    kt_coord ctrl_src;
    uint8_t ctrl_txn, ctrl_index;
    uint64_t ctrl_value, ctrl_ready_at;

    bool out_valid;
    kt_flit out;
    uint32_t ctr_inst, ctr_busy;
    ksim_fault_sink model;

    ksim_track trace;   /* tr NULL: not traced */
    uint64_t issued_at; /* the instruction in flight: when the unit took it, and its flit */
    kt_flit issued;

    /* Asleep: its quiet ticks (countdowns and busy_cycles only) are owed, not run, from cycle
     * sleep_from on, until wake_at (UINT64_MAX: until a flit arrives) or until anything looks
     * at it; then they are applied at once, as the machine's own quiet-cycle skip does. Only a
     * shell that knows the machine's clock sleeps; wake_at is 0 while it is awake (the mesh
     * reads it to leave a sleeping shell alone). */
    const uint64_t *clock;
    bool asleep;
    bool idle_asleep; /* ksim_shell_idle when it fell asleep: what that reads holds till it wakes */
    uint64_t sleep_from, wake_at;
};

static void wake(ksim_shell *sh, uint64_t through);

/* The machine's current cycle (that of the last tick when no clock was given). */
static uint64_t now(const ksim_shell *sh) { return sh->clock ? *sh->clock : sh->cycle; }

void ksim_shell_set_clock(ksim_shell *sh, const uint64_t *clock) { sh->clock = clock; }
const uint64_t *ksim_shell_wake_at(const ksim_shell *sh) { return &sh->wake_at; }

ksim_shell *ksim_shell_create(const ktsim_unit_cfg *cfg, const ksim_unit_ops *ops,
                              kt_coord mem_port, unsigned recv_depth, unsigned fifo_extra)
{
    ksim_shell *sh = calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    sh->cfg = *cfg;
    if (!sh->cfg.type)
        sh->cfg.type = ops->default_type;
    sh->ops = ops;
    sh->unit = ops->create(&sh->cfg, mem_port);
    if (!sh->unit || !ksim_fifo_init(&sh->inst, cfg->inst_depth + fifo_extra) ||
        !ksim_fifo_init(&sh->recv, recv_depth + fifo_extra)) {
        ksim_shell_destroy(sh);
        return NULL;
    }
    return sh;
}

void ksim_shell_destroy(ksim_shell *sh)
{
    if (!sh)
        return;
    if (sh->unit)
        sh->ops->destroy(sh->unit);
    ksim_fifo_free(&sh->inst);
    ksim_fifo_free(&sh->recv);
    free(sh);
}

void ksim_shell_reset(ksim_shell *sh)
{
    sh->asleep = false; /* what it owed is cleared with it */
    sh->wake_at = 0;
    ksim_fifo_clear(&sh->inst);
    ksim_fifo_clear(&sh->recv);
    sh->in_flight = false;
    sh->sig_head = sh->sig_count = 0;
    sh->ctrl_pend = false;
    sh->out_valid = false;
    sh->ctr_inst = sh->ctr_busy = 0; /* counters clear only on resetn */
    if (sh->ops->reset)
        sh->ops->reset(sh->unit);
}

kt_coord ksim_shell_coord(const ksim_shell *sh) { return sh->cfg.at; }
void *ksim_shell_unit(ksim_shell *sh)
{
    wake(sh, now(sh)); /* the caller may look at the unit, or change it */
    return sh->unit;
}
const ksim_unit_ops *ksim_shell_ops(const ksim_shell *sh) { return sh->ops; }

void ksim_shell_report(ksim_shell *sh, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ksim_vreport(&sh->model, fmt, ap);
    va_end(ap);
}
void ksim_shell_set_model_fault(ksim_shell *sh, ksim_fault_fn fn, void *user)
{
    sh->model = (ksim_fault_sink){fn, user};
}

static bool busy(const ksim_shell *sh)
{
    /* Busy covers completions generated but not yet on the wire. */
    return sh->in_flight || !ksim_fifo_empty(&sh->inst) || sh->sig_count;
}

static uint64_t quiet_ticks(const ksim_shell *sh);

static bool idle_now(const ksim_shell *sh)
{
    return !busy(sh) && !sh->ctrl_pend && !sh->out_valid && ksim_fifo_empty(&sh->recv) &&
           (!sh->ops->idle || sh->ops->idle(sh->unit));
}

/* The owed quiet ticks up to and including cycle `through`, applied at once. */
static void settle(ksim_shell *sh, uint64_t through)
{
    if (!sh->asleep || through < sh->sleep_from)
        return;
    uint64_t n = through - sh->sleep_from + 1;
    if (sh->ops->skip)
        sh->ops->skip(sh->unit, n);
    if (busy(sh))
        sh->ctr_busy += (uint32_t)n; /* the counter wraps as per-cycle increments would */
    sh->sleep_from = through + 1;
}

/* Owed ticks applied and awake: the next tick runs. */
static void wake(ksim_shell *sh, uint64_t through)
{
    settle(sh, through);
    sh->asleep = false;
    sh->wake_at = 0;
}

static uint64_t ctrl_value(const ksim_shell *sh, uint8_t index)
{
    switch (index) {
    case KT_CU_CAPS: {
        kt_cu_caps c = {sh->cfg.type, sh->cfg.version, sh->cfg.n_buffers, sh->cfg.inst_depth};
        return kt_cu_caps_encode(&c);
    }
    case KT_CU_STATUS: {
        /* the FIFO's slack past DEPTH is not published: inst_space never goes below 0 */
        unsigned space =
            sh->inst.count < sh->cfg.inst_depth ? sh->cfg.inst_depth - sh->inst.count : 0;
        kt_cu_status s = {busy(sh), false, (uint16_t)space};
        return kt_cu_status_encode(&s);
    }
    case KT_CU_COUNTERS: {
        kt_cu_counters c = {sh->ctr_inst, sh->ctr_busy};
        return kt_cu_counters_encode(&c);
    }
    case KT_CU_DBG: return sh->ops->dbg ? sh->ops->dbg(sh->unit) : 0;
    default: return 0; /* 4-255: reserved to the framework, read zero */
    }
}

void ksim_shell_set_trace(ksim_shell *sh, ksim_track t) { sh->trace = t; }

/* An instruction arrives in the instruction FIFO. */
static void trace_dispatch(const ksim_shell *sh, const kt_header *h)
{
    npk_trace_arg a[] = {NPK_TRACE_U("txn", h->txn), NPK_TRACE_U("src_x", h->src.x),
                         NPK_TRACE_U("src_y", h->src.y), NPK_TRACE_U("last", h->last),
                         NPK_TRACE_U("queued", sh->inst.count)};
    ksim_trace_instant(sh->trace, "dispatch", sh->cycle, a, sizeof a / sizeof a[0]);
}

/* The instruction in flight retires: its busy span, its fields (the unit's layout) as arguments. */
static void trace_busy(const ksim_shell *sh, uint32_t result, bool fault)
{
    enum { MAX_FIELDS = 8 };
    npk_trace_arg a[MAX_FIELDS + 3];
    unsigned n = 0;
    for (const kt_field *f = sh->ops->layout; f && f->name && n < MAX_FIELDS; f++)
        a[n++] = f->width > 32 ? NPK_TRACE_X(f->name, kt_field_get(&sh->issued, f))
                               : NPK_TRACE_U(f->name, kt_field_get(&sh->issued, f));
    a[n++] = NPK_TRACE_U("txn", sh->rep_txn);
    a[n++] = NPK_TRACE_X("result", result);
    a[n++] = NPK_TRACE_U("fault", fault);
    ksim_trace_span(sh->trace, sh->ops->kind, sh->issued_at, sh->cycle, a, n);
}

static bool shell_offer(void *ep, const kt_flit *f)
{
    ksim_shell *sh = ep;
    /* Offered after its tick of this cycle, run or owed: what it holds is made current. */
    sh->cycle = now(sh);
    wake(sh, sh->cycle);
    /* noc_in_busy = inst_full | recv_full: a full instruction FIFO refuses memory responses too. */
    if (ksim_fifo_full(&sh->inst) || ksim_fifo_full(&sh->recv))
        return false;
    kt_header h = kt_flit_header(f);
    switch (h.type) {
    case KT_T_CU_INST:
        if (sh->trace.tr)
            trace_dispatch(sh, &h);
        return ksim_fifo_push(&sh->inst, f, sh->cycle); /* never full: checked above */
    case KT_T_CU_CTRL:
        if (!sh->ctrl_pend) {
            /* The value is snapshotted when the request is accepted, not when the reply leaves. */
            sh->ctrl_pend = true;
            sh->ctrl_src = h.src;
            sh->ctrl_txn = h.txn;
            sh->ctrl_index = kt_ctrl_get(f).index;
            sh->ctrl_value = ctrl_value(sh, sh->ctrl_index);
            /* the request's crossing into the unit and the reply's crossing out */
            sh->ctrl_ready_at = sh->cycle + sh->cfg.reply_delay + sh->cfg.cdc;
        }
        return true; /* a second request while one is pending is accepted and discarded */
    default: return ksim_fifo_push(&sh->recv, f, sh->cycle);
    }
}

static const kt_flit *shell_out_peek(void *ep)
{
    ksim_shell *sh = ep;
    return sh->out_valid ? &sh->out : NULL;
}

static void shell_out_pop(void *ep) { ((ksim_shell *)ep)->out_valid = false; }

void ksim_shell_done(ksim_shell *sh, uint32_t result, bool fault)
{
    sh->ctr_inst++; /* every exec_done counts, even one with nothing in flight */
    if (!sh->in_flight)
        return;
    if (sh->trace.tr)
        trace_busy(sh, result, fault);
    sh->in_flight = false;
    pending_signal s = {sh->rep_src, sh->rep_txn, KT_SIG_INST_COMPLETE, result};
    if (fault) {
        s.code = KT_SIG_FAULT;
    } else if (sh->rep_last) {
        s.code = KT_SIG_BATCH_COMPLETE;
        s.arg = sh->rep_txn; /* exec_result is discarded */
    }
    /* Issue is held while the queue is full, so there is always room here. */
    sh->sigq[(sh->sig_head + sh->sig_count++) % SIGQ_DEPTH] = s;
}

bool ksim_shell_send(ksim_shell *sh, const kt_flit *f)
{
    if (sh->out_valid || sh->sig_count || sh->ctrl_pend)
        return false;
    sh->out = *f;
    sh->out_valid = true;
    return true;
}

static void fill_output_now(ksim_shell *sh);

/* The output register refilled when empty: a signal first, then a CU_CTRL reply. */
static inline void fill_output(ksim_shell *sh)
{
    if (!sh->out_valid && (sh->sig_count || sh->ctrl_pend))
        fill_output_now(sh);
}

static void fill_output_now(ksim_shell *sh)
{
    if (sh->sig_count) {
        pending_signal *s = &sh->sigq[sh->sig_head];
        kt_flit_signal(&sh->out, s->dst, sh->cfg.at, s->txn, s->code, s->arg);
        sh->sig_head = (sh->sig_head + 1) % SIGQ_DEPTH;
        sh->sig_count--;
        sh->out_valid = true;
    } else if (sh->ctrl_pend && sh->cycle >= sh->ctrl_ready_at) {
        kt_flit_ctrl_reply(&sh->out, sh->ctrl_src, sh->cfg.at, sh->ctrl_index, sh->ctrl_txn,
                           sh->ctrl_value);
        sh->ctrl_pend = false;
        sh->out_valid = true;
    }
}

static void shell_tick(void *ep, uint64_t cycle)
{
    ksim_shell *sh = ep;
    sh->cycle = cycle;
    if (sh->asleep) {
        if (cycle < sh->wake_at)
            return; /* a quiet tick, owed */
        wake(sh, cycle - 1);
    }
    /* Issue: one instruction in flight, and only with room for its completion. */
    if (ksim_fifo_ready(&sh->inst, cycle) && !sh->in_flight && sh->sig_count < SIGQ_DEPTH &&
        sh->ops->ready(sh->unit)) {
        kt_flit inst = *ksim_fifo_head(&sh->inst);
        ksim_fifo_pop(&sh->inst);
        kt_header h = kt_flit_header(&inst);
        sh->rep_src = h.src;
        sh->rep_txn = h.txn;
        sh->rep_last = h.last;
        sh->in_flight = true;
        if (sh->trace.tr) {
            sh->issued_at = cycle;
            sh->issued = inst;
        }
        sh->ops->issue(sh->unit, &inst);
    }
    /* The receive path feeds the unit. */
    if (ksim_fifo_ready(&sh->recv, cycle) && sh->ops->recv(sh->unit, ksim_fifo_head(&sh->recv)))
        ksim_fifo_pop(&sh->recv);
    fill_output(sh);
    sh->ops->tick(sh->unit, sh);
    fill_output(sh);
    if (busy(sh))
        sh->ctr_busy++;
    /* Event-driven: a unit that will only count down sleeps until its countdown ends (or a flit
     * arrives), so the mesh's cycles with traffic elsewhere do not tick it. Only a type that
     * reports its quiet ticks (ops->quiet) sleeps: another may count even while idle (the RV32
     * and vector cores keep their own clocks), which only a quiet whole machine may skip. */
    uint64_t q = sh->clock && sh->ops->quiet ? quiet_ticks(sh) : 0;
    if (q) {
        sh->idle_asleep = idle_now(sh);
        sh->asleep = true;
        sh->sleep_from = cycle + 1;
        sh->wake_at = q >= UINT64_MAX - cycle - 1 ? UINT64_MAX : cycle + 1 + q;
    }
}

const ksim_endpoint_ops ksim_shell_endpoint = {shell_offer, shell_out_peek, shell_out_pop,
                                               shell_tick};

void ksim_shell_poke_counters(ksim_shell *sh, uint32_t retired, uint32_t busy_cycles)
{
    settle(sh, now(sh));
    sh->ctr_inst = retired;
    sh->ctr_busy = busy_cycles;
}

/* Asleep, what idle and quiet read does not change (only countdowns and busy_cycles do), so
 * these three answer without applying what it owes; idle, asked every cycle the machine runs
 * without moving a flit, as it was found when the shell fell asleep. */
bool ksim_shell_idle(const ksim_shell *sh) { return sh->asleep ? sh->idle_asleep : idle_now(sh); }

static uint64_t quiet_ticks(const ksim_shell *sh)
{
    if (sh->out_valid || sh->sig_count || sh->ctrl_pend || !ksim_fifo_empty(&sh->recv) ||
        (!sh->in_flight && !ksim_fifo_empty(&sh->inst)))
        return 0;
    if (sh->ops->quiet)
        return sh->ops->quiet(sh->unit);
    return sh->ops->idle && sh->ops->idle(sh->unit) ? UINT64_MAX : 0;
}

uint64_t ksim_shell_quiet(const ksim_shell *sh)
{
    if (sh->asleep) /* its countdown has run to the current cycle, owed or not */
        return ksim_shell_asleep_quiet(sh->wake_at, now(sh));
    return quiet_ticks(sh);
}

void ksim_shell_skip(ksim_shell *sh, uint64_t cycles)
{
    if (sh->asleep)
        return; /* quiet cycles it sleeps through anyway: owed with the rest */
    if (sh->ops->skip)
        sh->ops->skip(sh->unit, cycles);
    if (busy(sh))
        sh->ctr_busy += (uint32_t)cycles; /* the counter wraps as per-cycle increments would */
}
