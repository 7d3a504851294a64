/* SPDX-License-Identifier: MIT */
/* The transform bank (xform_bank.h): the occupants by XFORM_ID and the bank's registers. */
#include "xform_bank.h"

#include <string.h>

#include "kt/hw/kt_rv32.h"
#include "kt/hw/mxfp.h"
#include "kt/hw/rv32_regs.h"

static void bypass_convert(unsigned xmode, const uint8_t *in, uint8_t *out)
{
    (void)xmode;
    memcpy(out, in, KT_MV_WORD);
}

/* Slot 1 is KohakuTPU's occupant, the FP16 -> MXFP7 quantiser (mx_quant; spec §3.2): an entry
 * is eight source beats (4 lanes x 32 K of FP16, lane-major) in and four packed words out, with
 * XFORM_MODE[0] selecting the B packing. The arithmetic is the hardware layer's, bit-exact with
 * the RTL (src/kt/hw/mxfp.c). */
static void mxfp7_convert(unsigned xmode, const uint8_t *in, uint8_t *out)
{
    kt_mx_quant_entry(in, (xmode & 1) != 0, out);
}

static const ksim_occupant occupants[] = {
    {KT_MV_SLOT_BYPASS, bypass_convert},
    {KT_MV_SLOT_MXFP7, mxfp7_convert},
};
/* The MXFP7 slot's geometry is the quantiser's entry. */
_Static_assert(KT_MX_ENTRY_IN / KT_MV_WORD == 8 && KT_MX_ENTRY_OUT / KT_MV_WORD == 4,
               "the MXFP7 slot row (8 beats in, 4 words out) is the quantiser's entry");

const ksim_occupant *ksim_occupant_slot(unsigned id)
{
    for (size_t i = 0; i < sizeof occupants / sizeof occupants[0]; i++)
        if (occupants[i].id == id && kt_mv_slot_find(id))
            return &occupants[i];
    return NULL;
}

void ksim_xform_bank_start(ksim_xform_bank *b, unsigned id, const ksim_occupant **occ,
                           const kt_mv_slot **slot)
{
    *occ = ksim_occupant_slot(id);
    *slot = kt_mv_slot_find(id);
    if (*occ && *slot)
        return;
    /* The bank's demux answers an unknown id with the bypass; without the fault the move would
     * report success and deliver an unconverted operand. */
    b->fault |= KT_RV32_OCC_FAULT_NO_OCCUPANT;
    *occ = ksim_occupant_slot(KT_MV_SLOT_BYPASS);
    *slot = kt_mv_slot_find(KT_MV_SLOT_BYPASS);
}

/* The registers, by addr[7:2]: a row per register that exists; every other one reads 0 and
 * ignores writes. */
static uint32_t read_fault(const ksim_xform_bank *b, unsigned id)
{
    (void)id; /* one bank, one fault word: every id's register 0 reads it */
    return b->fault;
}
static void clear_fault(ksim_xform_bank *b, unsigned id, uint32_t value)
{
    (void)id, (void)value; /* any write clears */
    b->fault = 0;
}
static uint32_t read_geometry(const ksim_xform_bank *b, unsigned id)
{
    (void)b;
    return kt_rv32_geometry_pack(ksim_occupant_slot(id) ? kt_mv_slot_find(id) : NULL);
}

static const struct bank_reg {
    uint8_t offset;
    uint32_t (*read)(const ksim_xform_bank *b, unsigned id);
    void (*write)(ksim_xform_bank *b, unsigned id, uint32_t value);
} bank_regs[] = {
    {KT_RV32_OCC_REG_FAULT, read_fault, clear_fault},
    {KT_RV32_OCC_REG_GEOMETRY, read_geometry, NULL},
};

static const struct bank_reg *bank_reg(uint8_t reg)
{
    for (size_t i = 0; i < sizeof bank_regs / sizeof bank_regs[0]; i++)
        if (bank_regs[i].offset == (reg & KT_RV32_OCC_REG_DECODE))
            return &bank_regs[i];
    return NULL;
}

uint32_t ksim_xform_bank_read(const ksim_xform_bank *b, unsigned id, uint8_t reg)
{
    const struct bank_reg *r = bank_reg(reg);
    return r && r->read ? r->read(b, id) : 0;
}

void ksim_xform_bank_write(ksim_xform_bank *b, unsigned id, uint8_t reg, uint32_t value)
{
    const struct bank_reg *r = bank_reg(reg);
    if (r && r->write)
        r->write(b, id, value);
}
