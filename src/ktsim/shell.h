/* SPDX-License-Identifier: MIT */
/* The compute-unit shell (noc_cu_base): the instruction FIFO, one instruction in flight, the
 * completion queue and its priority, CU_CTRL answered inside the shell, the counters, and the
 * output arbitration. A unit model sits behind it through ksim_unit_ops. */
#ifndef NPUKIT_KTSIM_SHELL_H
#define NPUKIT_KTSIM_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fault.h"
#include "mesh.h"
#include "npukit/ktsim.h"
#include "npukit/ktsim_unit.h"
#include "trace.h"

/* A unit type and what it calls on its shell are public (npukit/ktsim_unit.h): a program can add
 * one. The library's own types are rows of the unit-type table in unit_types.c, each defined in
 * its src/ktsim/unit_<kind>.c. */

/* The unit-type table: the library's own types (unit_types.c) and those registered since. */
unsigned ksim_unit_count(void);
const ksim_unit_ops *ksim_unit_at(unsigned i);
/* "test, saxpy, ..." (every kind in the table, or only those with a timing row). */
void ksim_unit_kinds(char *buf, size_t len, bool timed_only);
/* Whether a type is complete and its key tables sound (what ksim_unit_register checks besides
 * the table itself); tests hold the library's own types to it. */
npk_status ksim_unit_check(const ksim_unit_ops *u);
/* The number of keys in a NULL-terminated key table (0 for NULL). */
unsigned ksim_unit_keys(const ktsim_unit_key *keys);
/* Fill the unit's settings the preset left unset with its type's defaults (the type must be in
 * the table). */
void ksim_unit_settings_defaults(ktsim_unit_cfg *u, const ksim_unit_ops *ops);

/* The instruction FIFO holds cfg->inst_depth + fifo_extra entries and the receive FIFO
 * recv_depth + fifo_extra (a synchronous FIFO's slack beyond DEPTH); CU_CAPS publishes
 * inst_depth. */
ksim_shell *ksim_shell_create(const ktsim_unit_cfg *cfg, const ksim_unit_ops *ops,
                              kt_coord mem_port, unsigned recv_depth, unsigned fifo_extra);
void ksim_shell_destroy(ksim_shell *sh);
void ksim_shell_reset(ksim_shell *sh);
extern const ksim_endpoint_ops ksim_shell_endpoint;

/* Where the shell's unit reports what its model cannot represent (ksim_shell_report). */
void ksim_shell_set_model_fault(ksim_shell *sh, ksim_fault_fn fn, void *user);

void ksim_shell_poke_counters(ksim_shell *sh, uint32_t retired, uint32_t busy_cycles);
bool ksim_shell_idle(const ksim_shell *sh);
/* The unit model behind the shell (what its type's create() returned) and that type. */
void *ksim_shell_unit(ksim_shell *sh);
const ksim_unit_ops *ksim_shell_ops(const ksim_shell *sh);
/* Trace this shell on track t: each instruction's arrival ("dispatch") and its busy span, from
 * the cycle the unit takes it to exec_done, named after the unit's kind. */
void ksim_shell_set_trace(ksim_shell *sh, ksim_track t);
/* Ticks ahead in which the shell and its unit only count (nothing to issue, receive or send),
 * and n of them applied (the unit's countdown, busy_cycles). The shell also uses them itself:
 * it sleeps through its quiet ticks while the rest of the machine runs, and applies them when
 * it wakes (a countdown ends, a flit arrives, ksim_shell_unit) or its counters are read. */
uint64_t ksim_shell_quiet(const ksim_shell *sh);
/* The machine's cycle counter, which the shell reads to sleep (without one it ticks every
 * cycle), and the first cycle it needs a tick while it sleeps (0 when awake); until then it has
 * no output, so the mesh need not tick or peek it. */
void ksim_shell_set_clock(ksim_shell *sh, const uint64_t *clock);
const uint64_t *ksim_shell_wake_at(const ksim_shell *sh);
void ksim_shell_skip(ksim_shell *sh, uint64_t cycles);
/* A sleeping shell's answers from its wake_at alone (the machine asks every shell each quiet
 * stretch, most of them asleep): ksim_shell_quiet at cycle `now`, and ksim_shell_skip a no-op
 * (it owes the cycles instead). */
static inline uint64_t ksim_shell_asleep_quiet(uint64_t wake_at, uint64_t now)
{
    return wake_at == UINT64_MAX ? UINT64_MAX : wake_at - now - 1;
}

#endif
