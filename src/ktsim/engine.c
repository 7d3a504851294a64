/* SPDX-License-Identifier: MIT */
/* The host control-program engine: FETCH one cycle, then WR (one write, wait for the response),
 * POLL (read; on a mismatch wait POLL_IVL + 1 cycles and read again, forever), DONE (latch the
 * code, raise done). Any other opcode — including the 0 every slot holds after reset — ends the
 * run with err. A GO while busy is lost; there is no abort short of reset. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

enum { OP_WR = 1, OP_POLL = 2, OP_DONE = 3 };
enum { CTRL = 0x00, PC = 0x08, CODE = 0x10, POLLS = 0x18, CMD_PAGE = 0x1 };

typedef struct cmd {
    uint8_t op;
    uint64_t addr, data, mask;
} cmd;

typedef enum state { S_IDLE, S_FETCH, S_EXEC, S_WAIT } state;

struct ksim_engine {
    ksim_engine_bus bus;
    unsigned poll_ivl;
    uint64_t addr_mask;
    cmd cmds[KSIM_ENGINE_NCMD];
    state st;
    unsigned pc, wait;
    bool busy, done, err;
    uint64_t code;
    uint32_t polls;

    ksim_track trace; /* tr NULL: not traced */
    uint64_t go_at, poll_at;
    uint32_t run_cmds, poll_reads;
};

ksim_engine *ksim_engine_create(const ksim_engine_bus *bus, unsigned poll_ivl, unsigned addr_bits)
{
    ksim_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->bus = *bus;
    e->poll_ivl = poll_ivl;
    e->addr_mask = addr_bits >= 64 ? ~0ull : (1ull << addr_bits) - 1;
    ksim_engine_reset(e);
    return e;
}

void ksim_engine_destroy(ksim_engine *e) { free(e); }

void ksim_engine_reset(ksim_engine *e)
{
    memset(e->cmds, 0, sizeof e->cmds); /* every c_op resets to 0: an invalid opcode */
    e->st = S_IDLE;
    e->pc = e->wait = 0;
    e->busy = e->done = e->err = false;
    e->code = 0;
    e->polls = 0;
}

bool ksim_engine_busy(const ksim_engine *e) { return e->busy; }

uint64_t ksim_engine_quiet(const ksim_engine *e)
{
    if (e->st == S_IDLE)
        return UINT64_MAX;
    return e->st == S_WAIT ? e->wait - 1 : 0; /* the tick reaching 0 moves to EXEC */
}

void ksim_engine_skip(ksim_engine *e, uint64_t cycles) { e->wait -= (unsigned)cycles; }

void ksim_engine_set_trace(ksim_engine *e, ksim_track t) { e->trace = t; }

/* The program ends (DONE, or an opcode the engine does not know). */
static void trace_end(const ksim_engine *e)
{
    npk_trace_arg a[] = {NPK_TRACE_U("commands", e->run_cmds), NPK_TRACE_U("polls", e->polls),
                         NPK_TRACE_X("code", e->code), NPK_TRACE_U("err", e->err)};
    ksim_trace_span(e->trace, "program", e->go_at, ksim_track_now(e->trace), a, 4);
}

/* One command executed; a POLL's span runs from its first read to the read that matched. */
static void trace_cmd(ksim_engine *e, const cmd *c, bool matched)
{
    uint64_t now = ksim_track_now(e->trace);
    if (c->op == OP_WR) {
        npk_trace_arg a[] = {NPK_TRACE_X("addr", c->addr), NPK_TRACE_X("value", c->data)};
        ksim_trace_instant(e->trace, "write", now, a, 2);
        e->run_cmds++;
        return;
    }
    if (!e->poll_reads++)
        e->poll_at = now;
    if (!matched)
        return;
    npk_trace_arg a[] = {NPK_TRACE_X("addr", c->addr), NPK_TRACE_X("mask", c->mask),
                         NPK_TRACE_X("want", c->data), NPK_TRACE_U("reads", e->poll_reads)};
    ksim_trace_span(e->trace, "poll", e->poll_at, now, a, 4);
    e->poll_reads = 0;
    e->run_cmds++;
}

void ksim_engine_write(ksim_engine *e, uint32_t off, uint64_t v)
{
    off &= 0xFFFF;
    if (off >> 12 == CMD_PAGE) {
        cmd *c = &e->cmds[(off >> 5) & (KSIM_ENGINE_NCMD - 1)];
        switch ((off >> 3) & 3) {
        case 0: c->op = v & 0xF; break;
        case 1: c->addr = v & e->addr_mask; break;
        case 2: c->data = v; break;
        case 3: c->mask = v; break;
        }
        return;
    }
    if (off == CTRL && (v & 1) && !e->busy) {
        /* GO: the code is deliberately not cleared. */
        e->pc = 0;
        e->busy = true;
        e->done = e->err = false;
        e->polls = 0;
        e->st = S_FETCH;
        if (e->trace.tr) {
            e->go_at = ksim_track_now(e->trace);
            e->run_cmds = e->poll_reads = 0;
        }
    }
}

uint64_t ksim_engine_read(const ksim_engine *e, uint32_t off)
{
    switch (off & 0xFFFF) {
    case CTRL: return (uint64_t)e->err << 2 | (uint64_t)e->done << 1 | (uint64_t)e->busy;
    case PC: return e->pc;
    case CODE: return e->code;
    case POLLS: return e->polls;
    default: return 0; /* the command RAM is write-only */
    }
}

void ksim_engine_tick(ksim_engine *e)
{
    switch (e->st) {
    case S_IDLE: return;
    case S_FETCH: e->st = S_EXEC; return;
    case S_WAIT:
        if (--e->wait)
            return;
        e->st = S_EXEC;
        return;
    case S_EXEC: break;
    }
    const cmd *c = &e->cmds[e->pc];
    switch (c->op) {
    case OP_WR:
        (void)e->bus.write64(e->bus.ctx, c->addr, c->data); /* bresp is not looked at */
        if (e->trace.tr)
            trace_cmd(e, c, true);
        e->pc = (e->pc + 1) & (KSIM_ENGINE_NCMD - 1);
        e->st = S_FETCH;
        return;
    case OP_POLL: {
        uint64_t v = 0;
        (void)e->bus.read64(e->bus.ctx, c->addr, &v);
        e->polls++;
        if (e->trace.tr)
            trace_cmd(e, c, (v & c->mask) == c->data);
        if ((v & c->mask) == c->data) {
            e->pc = (e->pc + 1) & (KSIM_ENGINE_NCMD - 1);
            e->st = S_FETCH;
        } else {
            e->wait = e->poll_ivl + 1;
            e->st = S_WAIT;
        }
        return;
    }
    case OP_DONE:
        e->code = c->data;
        e->busy = false;
        e->done = true;
        e->st = S_IDLE;
        if (e->trace.tr) {
            e->run_cmds++;
            trace_end(e);
        }
        return;
    default:
        e->err = true;
        e->done = true;
        e->busy = false;
        e->st = S_IDLE;
        if (e->trace.tr)
            trace_end(e);
        return;
    }
}
