/* SPDX-License-Identifier: MIT */
/* ktsim unit types: what a compute-unit model is to the simulator, and how a program adds one.
 *
 * The simulator's compute-unit shell (noc_cu_base: instruction FIFO, one instruction in flight,
 * completion queue, CU_CTRL, counters, output arbitration) is the same for every unit; a unit
 * type is the model behind it, one ksim_unit_ops row of the unit-type table. The library's own
 * types are rows of that table; a program adds its own with ksim_unit_register before it builds
 * a machine or parses a preset that names it. The presets (`unit X Y KIND key=value ...`,
 * `timing KIND key=value ...`), the trace (the busy span's name and arguments) and enumeration
 * (CU_CAPS) then read it from there.
 *
 * The framework knows no unit's vocabulary: a type names its own preset settings and timing keys
 * (ktsim_unit_key tables), and its create() reads their values by position from
 * ktsim_unit_cfg.setting and ktsim_unit_cfg.timing.value.
 *
 * The shell calls issue() when it hands over an instruction (inst_valid && inst_ready) and tick()
 * every cycle; the unit answers through ksim_shell_done (exec_done) and ksim_shell_send (a flit
 * onto the mesh: memory requests, write data, CU_DATA to another unit). Flits arriving for it
 * (read responses, write acknowledgements, CU_DATA) come to recv(). docs/kt-units.md walks
 * through a unit that reads and writes DRAM over the mesh. */
#ifndef NPUKIT_KTSIM_UNIT_H
#define NPUKIT_KTSIM_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/kt_flit.h"
#include "npukit/ktsim.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ksim_shell ksim_shell;

typedef struct ksim_unit_ops {
    const char *kind;      /* the preset's KIND, 1..15 characters */
    uint16_t default_type; /* CU_CAPS cu_type when the preset gives none */
    void *(*create)(const ktsim_unit_cfg *cfg, kt_coord mem_port);
    void (*destroy)(void *u);
    void (*reset)(void *u); /* resetn: back to idle (may be NULL: nothing to reset) */
    bool (*ready)(void *u); /* inst_ready */
    void (*issue)(void *u, const kt_flit *inst);
    void (*tick)(void *u, ksim_shell *sh);
    bool (*recv)(void *u, const kt_flit *f); /* receive path; false = not yet (back-pressure) */
    uint64_t (*dbg)(void *u);                /* CU_DBG (NULL: 0) */
    bool (*idle)(void *u);  /* nothing in flight (NULL: it holds nothing the shell cannot see) */
    const kt_field *layout; /* the instruction's fields (a trace's arguments), or NULL */
    /* The preset settings of its `unit X Y KIND key=value` line beyond the shell's own (type,
     * version, n_buffers, inst_depth, reply_delay), NULL-terminated (NULL: none); create() finds
     * each value at cfg->setting[i], the row's default where the preset gives none. */
    const ktsim_unit_key *settings;
    /* Its timing row, NULL-terminated (NULL: the type has no row; its cycles come from
     * elsewhere): the keys of the preset's `timing KIND key=value ...` line with their calibrated
     * defaults; create() finds each value at cfg->timing.value[i]. */
    const ktsim_unit_key *timing;
    const char *timing_source; /* required with a timing row: where its figures come from */
    /* Its countdowns, for skipping quiet cycles (NULL: quiet only when idle): how many of its
     * next ticks would only count down (UINT64_MAX: nothing happens until something arrives
     * through its shell), and n such ticks applied at once (skip may be NULL when those ticks
     * change nothing). With quiet, the shell also sleeps through those ticks while the rest of
     * the machine runs, and applies them when a countdown ends or a flit arrives: the unit's
     * tick must then depend on nothing but its own state and what its shell hands it. */
    uint64_t (*quiet)(void *u);
    void (*skip)(void *u, uint64_t cycles);
} ksim_unit_ops;

/* Add a unit type defined outside the library, before any machine or preset that names it is
 * built (not safe against machines being built concurrently). The table keeps the pointer: ops
 * and its key tables must outlive every machine. Refuses an incomplete type, a kind that is
 * empty, too long or taken, a full table, more than KTSIM_UNIT_MAX_KEYS settings or timing keys,
 * a key that the shell owns or that is given twice, a default outside its key's range, and a
 * timing row beyond KTSIM_MAX_TIMINGS timed types, naming the value and the limit. */
NPUKIT_API npk_status ksim_unit_register(const ksim_unit_ops *ops);
/* The type named `kind` (the library's or a registered one), or NULL. */
NPUKIT_API const ksim_unit_ops *ksim_unit_find(const char *kind);

/* ---- what a unit calls on its shell, from tick() ---- */

/* exec_done: the instruction in flight retires with `result` (exec_result), as a fault when
 * `fault`. */
NPUKIT_API void ksim_shell_done(ksim_shell *sh, uint32_t result, bool fault);
/* send_valid: offer one flit to the mesh (the header's src is the unit's own coordinate); false
 * when the output is not ready this cycle: offer it again on a later tick. */
NPUKIT_API bool ksim_shell_send(ksim_shell *sh, const kt_flit *f);
/* Where the unit sits on the mesh (a request's src, a reply's dst). */
NPUKIT_API kt_coord ksim_shell_coord(const ksim_shell *sh);
/* Report what the model cannot represent (a model error, sticky in ktsim_fault), not a hardware
 * fault, which is ksim_shell_done(sh, code, true). */
NPUKIT_API void ksim_shell_report(ksim_shell *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
