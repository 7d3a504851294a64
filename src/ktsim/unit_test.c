/* SPDX-License-Identifier: MIT */
/* The configurable test unit's behaviour ('TU'): retires each instruction after N cycles with a
 * result, can fault, and can fetch one memory word (so that it depends on the link the credit
 * rule protects). Its instruction word and encoder are hardware, in src/kt/hw/units/test.c.
 *
 * op: 1 RETIRE, 2 FAULT, 3 FETCH; anything else retires next cycle with result 0 (an unknown
 * opcode must still retire, or its credit is lost forever). FETCH's result is the low 32 bits of
 * the word it read. CU_DBG: cumulative cycles spent executing. */
#include <stdlib.h>

#include "shell.h"
#include "npukit/kt_test_unit.h"

enum {
    TU_RETIRE = KT_TU_RETIRE,
    TU_FAULT = KT_TU_FAULT,
    TU_FETCH = KT_TU_FETCH,
    TU_FETCH_TXN = 0x5A
};

/* Its preset settings, in the order of its settings table (tu_settings below). */
enum { TU_LATENCY };

typedef struct test_unit {
    uint32_t latency; /* cycles per instruction when the instruction names none */
    kt_coord mem;
    bool active, fetch_sent, fetch_done, fault;
    unsigned op;
    uint32_t remaining, result;
    uint64_t addr;
    uint64_t dbg;
} test_unit;

static void *tu_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    test_unit *u = calloc(1, sizeof *u);
    if (u) {
        u->latency = cfg->setting[TU_LATENCY];
        u->mem = mem;
    }
    return u;
}

static void tu_destroy(void *u) { free(u); }
static void tu_reset(void *p)
{
    test_unit *u = p;
    u->active = false;
}
static bool tu_ready(void *p) { return !((test_unit *)p)->active; }

static void tu_issue(void *p, const kt_flit *inst)
{
    test_unit *u = p;
    u->active = true;
    const kt_field *L = kt_layout_test_unit; /* op, cycles, fetch_addr, result */
    u->op = (unsigned)kt_field_get(inst, &L[0]);
    uint32_t cycles = (uint32_t)kt_field_get(inst, &L[1]);
    u->remaining = cycles ? cycles : (u->latency ? u->latency : 1);
    u->result = (uint32_t)kt_field_get(inst, &L[3]);
    u->addr = kt_field_get(inst, &L[2]);
    u->fetch_sent = u->fetch_done = false;
    u->fault = u->op == TU_FAULT;
    if (u->op != TU_RETIRE && u->op != TU_FAULT && u->op != TU_FETCH) {
        u->remaining = 1;
        u->result = 0;
    }
}

static void tu_tick(void *p, ksim_shell *sh)
{
    test_unit *u = p;
    if (!u->active)
        return;
    u->dbg++;
    if (u->op == TU_FETCH) {
        if (!u->fetch_sent) {
            kt_flit f = {{0}};
            kt_mem_req r = {0};
            r.addr = u->addr;
            kt_mem_req_put(&f, &r);
            kt_header h = {u->mem, ksim_shell_coord(sh), KT_T_MEM_RD_REQ, TU_FETCH_TXN, true, 0};
            kt_header_put(&f, &h);
            u->fetch_sent = ksim_shell_send(sh, &f);
        }
        if (!u->fetch_done)
            return;
    }
    if (u->remaining > 1) {
        u->remaining--;
        return;
    }
    u->active = false;
    ksim_shell_done(sh, u->result, u->fault);
}

static bool tu_recv(void *p, const kt_flit *f)
{
    test_unit *u = p;
    kt_header h = kt_header_get(f);
    if (h.type == KT_T_MEM_RD_RESP && h.txn == TU_FETCH_TXN && u->active && u->op == TU_FETCH) {
        u->result = (uint32_t)f->w[0];
        u->fetch_done = true;
    }
    return true; /* everything else is folded, as a unit without a receive path does */
}

static uint64_t tu_dbg(void *p) { return ((test_unit *)p)->dbg; }
static bool tu_idle(void *p) { return !((test_unit *)p)->active; }
/* Idle, its tick does nothing at all (so there is nothing to skip); active, it counts every
 * tick (CU_DBG). */
static uint64_t tu_quiet(void *p) { return tu_idle(p) ? UINT64_MAX : 0; }

/* Its one setting: cycles per instruction when the instruction names none. */
static const ktsim_unit_key tu_settings[] = {
    [TU_LATENCY] = {"latency", 16, 0, 1u << 24},
    {NULL, 0, 0, 0},
};

/* No timing row: its cycles are the instruction's or the preset's `latency`. */
const ksim_unit_ops ksim_unit_test = {
    .kind = "test",
    .default_type = KT_TEST_UNIT_TYPE,
    .create = tu_create,
    .destroy = tu_destroy,
    .reset = tu_reset,
    .ready = tu_ready,
    .issue = tu_issue,
    .tick = tu_tick,
    .recv = tu_recv,
    .dbg = tu_dbg,
    .idle = tu_idle,
    .quiet = tu_quiet,
    .layout = kt_layout_test_unit,
    .settings = tu_settings,
};
