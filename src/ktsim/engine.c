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
        e->pc = (e->pc + 1) & (KSIM_ENGINE_NCMD - 1);
        e->st = S_FETCH;
        return;
    case OP_POLL: {
        uint64_t v = 0;
        (void)e->bus.read64(e->bus.ctx, c->addr, &v);
        e->polls++;
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
        return;
    default:
        e->err = true;
        e->done = true;
        e->busy = false;
        e->st = S_IDLE;
        return;
    }
}
