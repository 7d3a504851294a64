/* SPDX-License-Identifier: MIT */
/* regcmd entry classification and per-block register files (see regs_view.h). Entries are
 * taken apart by the regcmd codec and named by the register table; no field position is
 * written down here. */
#include "rksim/regs_view.h"

#include <string.h>

#include "npukit/rk_regcmd.h"

/* What an entry to each block does (facts B.2): a register write, or one of the PC's two
 * control ops. A block without a row here is one the model does not know what to do with: it
 * is refused by name, never taken for a write. */
static const struct {
    bool modelled;
    rksim_entry_kind kind;
} blocks[NPK_BLK_COUNT] = {
    [NPK_BLK_PC] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_CNA] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_CMAC] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_CORE] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_DPU] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_DPU_RDMA] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_PPU] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_PPU_RDMA] = {true, RKSIM_ENTRY_WRITE},
    [NPK_BLK_PC_OP40] = {true, RKSIM_ENTRY_PRE_OP},
    [NPK_BLK_PC_OPEN] = {true, RKSIM_ENTRY_OP_ENABLE},
};

bool rksim_block_entry_kind(npk_rk_unit block, rksim_entry_kind *kind, rksim_core_result *r)
{
    if ((unsigned)block >= NPK_BLK_COUNT || !blocks[block].modelled)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: block %s (%d, target 0x%04x) has no "
                                 "row in the simulator's block table",
                                 npk_rk_unit_name(block), (int)block, npk_rk_unit_target(block));
    *kind = blocks[block].kind;
    return true;
}

bool rksim_decode_entry(uint64_t e, rksim_entry *out, rksim_core_result *r)
{
    memset(out, 0, sizeof *out);
    out->target = npk_rk_entry_target(e);
    out->reg = npk_rk_entry_reg(e);
    out->value = npk_rk_entry_value(e);
    if (out->target == NPK_TARGET_NOP) {
        out->kind = RKSIM_ENTRY_NOP;
        return true;
    }
    if (!npk_rk_unit_of_target(out->target, &out->block))
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: regcmd target 0x%04x (entry "
                                 "0x%016llx) is not a block the facts describe",
                                 out->target, (unsigned long long)e);
    out->info = npk_rk_reg_lookup(out->target, out->reg);
    if (!out->info)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: register 0x%04x of block %s "
                                 "(value 0x%08x) is not in the register table",
                                 out->reg, npk_rk_unit_name(out->block), out->value);
    return rksim_block_entry_kind(out->block, &out->kind, r);
}

/* A register's slot in its block's file: offsets within a block span 0x1000 (facts B.2). */
static unsigned slot(uint16_t offset) { return (offset & 0xfffu) / 4; }

void rksim_reg_write(rksim_regfile *rf, const rksim_entry *e)
{
    unsigned b = (unsigned)e->block, w = slot(e->reg);
    if (rf->writes[b][w] == 0)
        rf->first[b][w] = e->value;
    if (rf->writes[b][w] < UINT16_MAX)
        rf->writes[b][w]++;
    rf->val[b][w] = e->value;
}

uint32_t rksim_reg(const rksim_regfile *rf, npk_rk_reg_id id)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    return rf->val[r->block][slot(r->offset)];
}

uint32_t rksim_field(const rksim_regfile *rf, npk_rk_field_id f)
{
    return npk_rk_field_get(f, rksim_reg(rf, npk_rk_field_info(f)->reg));
}

unsigned rksim_reg_writes(const rksim_regfile *rf, npk_rk_reg_id id, uint32_t *first_value)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    if (first_value)
        *first_value = rf->first[r->block][slot(r->offset)];
    return rf->writes[r->block][slot(r->offset)];
}

void rksim_reg_marks_clear(rksim_regfile *rf) { memset(rf->writes, 0, sizeof rf->writes); }
