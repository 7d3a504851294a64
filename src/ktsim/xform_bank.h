/* SPDX-License-Identifier: MIT */
/* The mover's transform slot (spec §3.2): the bank of occupants a transform move names by
 * XFORM_ID, and the bank's register space, which the RV32 control processor reaches at
 * 0xF001_0000 | (id << 8) | reg (§3.1). Which registers exist is the occupants' business; this
 * bank is KohakuTPU's (upstream xform_bank): reg 0x00 the bank's fault bits (a write clears
 * them), reg 0x04 the geometry of id's occupant, every other register 0. An id naming no
 * occupant is passed through the bypass and raises fault bit 0, so the move completes and the
 * processor can see that its operand was not converted. */
#ifndef NPUKIT_KTSIM_XFORM_BANK_H
#define NPUKIT_KTSIM_XFORM_BANK_H

#include <stdint.h>

#include "npukit/kt_mover_hw.h"
#include "npukit/ktsim.h"

/* A transform occupant: the slot's IN beats of source in, its OUT words out per entry (the
 * geometry is the hardware layer's slot row, kt_mv_slot_find). */
typedef struct ksim_occupant {
    uint8_t id;
    void (*convert)(unsigned xform_mode, const uint8_t *in, uint8_t *out);
} ksim_occupant;
/* The occupant in slot `id` (0 = bypass), NULL for an empty slot. */
const ksim_occupant *ksim_occupant_slot(unsigned id);

typedef struct ksim_xform_bank {
    uint8_t fault; /* KT_RV32_OCC_FAULT_* bits, until a write to register 0 */
} ksim_xform_bank;

/* A transform move starting through `id`: its occupant and geometry — the bypass's, with the
 * no-occupant fault raised, for an id that names none. */
void ksim_xform_bank_start(ksim_xform_bank *b, unsigned id, const ksim_occupant **occ,
                           const kt_mv_slot **slot);
/* Occupant id's register `reg` (a byte offset; only [7:2] decodes), read and written. */
uint32_t ksim_xform_bank_read(const ksim_xform_bank *b, unsigned id, uint8_t reg);
void ksim_xform_bank_write(ksim_xform_bank *b, unsigned id, uint8_t reg, uint32_t value);

/* The bank the machine's control processor reaches: the agent's own mover's, or the one a card
 * plugged as the mesh's mover. Without one (a machine with no mover) the occupant range reads 0
 * and the occupant fault is 0, as a bitstream with no slot answers. */
void ktsim_set_xform_bank(ktsim *s, ksim_xform_bank *b);

#endif
