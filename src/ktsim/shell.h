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
#include "trace.h"

typedef struct ksim_shell ksim_shell;

/* A unit type: everything the simulator knows about one kind of compute unit, in one file
 * (src/ktsim/unit_<kind>.c) and one row of the unit-type table (unit_types.c), or registered at
 * run time from outside the library (ksim_unit_register). The shell, the presets (`unit X Y KIND`,
 * `timing KIND ...`), the trace (the busy span's name and arguments) and enumeration (CU_CAPS)
 * read it from there.
 *
 * The shell calls issue() when it hands over an instruction (inst_valid && inst_ready) and tick()
 * every cycle; the unit answers through ksim_shell_done / ksim_shell_send. */
typedef struct ksim_unit_ops {
    const char *kind;      /* the preset's KIND, at most 15 characters */
    uint16_t default_type; /* CU_CAPS cu_type when the preset gives none */
    void *(*create)(const ktsim_unit_cfg *cfg, kt_coord mem_port);
    void (*destroy)(void *u);
    void (*reset)(void *u);
    bool (*ready)(void *u); /* inst_ready */
    void (*issue)(void *u, const kt_flit *inst);
    void (*tick)(void *u, ksim_shell *sh);
    bool (*recv)(void *u, const kt_flit *f); /* receive path; false = not yet */
    uint64_t (*dbg)(void *u);                /* CU_DBG */
    bool (*idle)(void *u);
    const kt_field *layout; /* the instruction's fields (a trace's arguments), or NULL */
    /* Its timing row: the defaults of the preset's `timing KIND key=value ...` line, handed to
     * create() in cfg->timing (NULL: the type has no row; its cycles come from elsewhere), and
     * where the figures come from. */
    const ktsim_unit_timing *timing;
    const char *timing_source; /* required with a timing row: where its figures come from */
    /* Its countdowns, for skipping quiet cycles (NULL: quiet only when idle): how many of its
     * next ticks would only count down (UINT64_MAX: nothing happens until something arrives),
     * and n such ticks applied at once. */
    uint64_t (*quiet)(void *u);
    void (*skip)(void *u, uint64_t cycles);
} ksim_unit_ops;

/* The unit-type table: the library's own types (unit_types.c) and those registered since. */
const ksim_unit_ops *ksim_unit_find(const char *kind);
unsigned ksim_unit_count(void);
const ksim_unit_ops *ksim_unit_at(unsigned i);
/* "test, saxpy, ..." (every kind in the table, or only those with a timing row). */
void ksim_unit_kinds(char *buf, size_t len, bool timed_only);
/* Add a unit type defined outside the library, before any machine or preset that names it is
 * built (not safe against machines being built concurrently). Refuses an incomplete type, a kind
 * that is empty, too long or taken, a full table, and a timing row beyond KTSIM_MAX_TIMINGS
 * timed types, naming the value and the limit. */
npk_status ksim_unit_register(const ksim_unit_ops *ops);

/* The instruction FIFO holds cfg->inst_depth + fifo_extra entries and the receive FIFO
 * recv_depth + fifo_extra (a synchronous FIFO's slack beyond DEPTH); CU_CAPS publishes
 * inst_depth. */
ksim_shell *ksim_shell_create(const ktsim_unit_cfg *cfg, const ksim_unit_ops *ops,
                              kt_coord mem_port, unsigned recv_depth, unsigned fifo_extra);
void ksim_shell_destroy(ksim_shell *sh);
void ksim_shell_reset(ksim_shell *sh);
extern const ksim_endpoint_ops ksim_shell_endpoint;

/* Unit side. */
void ksim_shell_done(ksim_shell *sh, uint32_t result, bool fault); /* exec_done */
bool ksim_shell_send(ksim_shell *sh, const kt_flit *f); /* send_valid; false = not ready */
kt_coord ksim_shell_coord(const ksim_shell *sh);
/* Where the unit reports what its model cannot represent (ksim_report). */
const ksim_fault_sink *ksim_shell_model(const ksim_shell *sh);
void ksim_shell_set_model_fault(ksim_shell *sh, ksim_fault_fn fn, void *user);

void ksim_shell_poke_counters(ksim_shell *sh, uint32_t retired, uint32_t busy_cycles);
bool ksim_shell_idle(const ksim_shell *sh);
/* Trace this shell on track t: each instruction's arrival ("dispatch") and its busy span, from
 * the cycle the unit takes it to exec_done, named after the unit's kind. */
void ksim_shell_set_trace(ksim_shell *sh, ksim_track t);
/* Ticks ahead in which the shell and its unit only count (nothing to issue, receive or send),
 * and n of them applied (the unit's countdown, busy_cycles). */
uint64_t ksim_shell_quiet(const ksim_shell *sh);
void ksim_shell_skip(ksim_shell *sh, uint64_t cycles);

#endif
