/* SPDX-License-Identifier: MIT */
/* Shared by the two ways of driving the engine (one program: hostprog.c; an engine kept across
 * runs: engine_session.c). */
#ifndef NPUKIT_KT_HOSTPROG_ENGINE_H
#define NPUKIT_KT_HOSTPROG_ENGINE_H

#include "npukit/kt_hostprog.h"

/* The engine is still busy after `reads` CTRL reads: the error names the command at its PC, the
 * register a POLL there waits on and what that register reads now. */
npk_status kt_hp_engine_stuck(kt_transport *t, uint64_t eng, const kt_hostprog *p, uint32_t reads);

/* The command words a load writes: only the fields the opcode reads (fewer host transactions,
 * same behaviour) — op, addr and data for WR, all four for POLL, op and code for DONE. */
static inline void kt_hp_cmd_fields(const kt_hp_cmd *c, bool want[4], uint64_t v[4])
{
    want[0] = want[2] = true;
    want[1] = c->op != KT_HP_DONE;
    want[3] = c->op == KT_HP_POLL;
    v[0] = c->op;
    v[1] = c->addr;
    v[2] = c->data;
    v[3] = c->mask;
}

/* The engine stopped with err at command `pc`. */
npk_status kt_hp_engine_err(uint64_t pc);

#endif
