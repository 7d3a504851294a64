/* SPDX-License-Identifier: MIT */
/* rksim's view of regcmd entries and of the per-block register files: entry classification
 * (facts B.1/B.2) and register writes routed to the block their target names. */
#ifndef NPUKIT_RKSIM_REGS_VIEW_H
#define NPUKIT_RKSIM_REGS_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regs.h"
#include "rksim/result.h"
#include "rksim/sim.h"

typedef enum rksim_entry_kind {
    RKSIM_ENTRY_NOP,       /* target 0x0000: padding */
    RKSIM_ENTRY_WRITE,     /* a register write to one block */
    RKSIM_ENTRY_PRE_OP,    /* target 0x0041 ("must be set before op_en") */
    RKSIM_ENTRY_OP_ENABLE, /* target 0x0081, reg 0x0008: run the configured operation */
} rksim_entry_kind;

typedef struct rksim_entry {
    rksim_entry_kind kind;
    uint16_t target;
    npk_rk_unit block;      /* for writes */
    const npk_rk_reg *info; /* the register table's row for writes */
    uint16_t reg;
    uint32_t value;
} rksim_entry;

/* What an entry to `block` does, from the simulator's block table; false (with a message in r
 * naming the block) for a block without a row, or a value outside the enum. */
bool rksim_block_entry_kind(npk_rk_unit block, rksim_entry_kind *kind, rksim_core_result *r);
/* Classify one 64-bit entry through the codec, the register table and the block table; false
 * (with a message in r) for a target, register or block they do not describe. */
bool rksim_decode_entry(uint64_t entry, rksim_entry *out, rksim_core_result *r);

/* Land a write in its block's register file. */
void rksim_reg_write(rksim_regfile *rf, const rksim_entry *e);

/* The value last written to a register, and one field of it (through the register table). */
uint32_t rksim_reg(const rksim_regfile *rf, npk_rk_reg_id id);
uint32_t rksim_field(const rksim_regfile *rf, npk_rk_field_id f);
/* How many times a register was written since the last op-enable, and the first value. */
unsigned rksim_reg_writes(const rksim_regfile *rf, npk_rk_reg_id id, uint32_t *first_value);
/* Forget the write counts (at each op-enable). */
void rksim_reg_marks_clear(rksim_regfile *rf);

#endif
