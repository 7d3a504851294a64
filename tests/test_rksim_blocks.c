/* SPDX-License-Identifier: MIT */
/* The simulator's block table: every block of the register table's enum has a row saying what
 * an entry to it does (facts B.2: a target of a one-hot block bit << 8 | 1 writes a register,
 * 0x0041 and 0x0081 are the PC's control ops), and a block without a row — one past the enum —
 * is refused by name, never run as a register write. */
#include <string.h>

#include "check.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "rksim/regs_view.h"

static void every_block_has_its_kind(void)
{
    for (unsigned b = 0; b < NPK_BLK_COUNT; b++) {
        const uint16_t target = npk_rk_unit_target((npk_rk_unit)b);
        rksim_entry_kind kind = RKSIM_ENTRY_NOP;
        rksim_core_result r = {0};
        CHECK(rksim_block_entry_kind((npk_rk_unit)b, &kind, &r));
        const rksim_entry_kind want = target == NPK_TARGET_PC_OP40   ? RKSIM_ENTRY_PRE_OP
                                      : target == NPK_TARGET_PC_OPEN ? RKSIM_ENTRY_OP_ENABLE
                                                                     : RKSIM_ENTRY_WRITE;
        CHECK_EQ(kind, want);
        if (want == RKSIM_ENTRY_WRITE) /* a write target is one block bit and the write op */
            CHECK((target & 0xffu) == 1 && (target >> 8) && !((target >> 8) & ((target >> 8) - 1)));
    }
}

/* A real entry of each kind decodes through the table. */
static void entries_decode(void)
{
    const struct {
        npk_rk_reg_id reg;
        rksim_entry_kind kind;
    } cases[] = {
        {NPK_REG_CNA_CONV_CON1, RKSIM_ENTRY_WRITE},
        {NPK_REG_PPU_S_POINTER, RKSIM_ENTRY_WRITE},
        {NPK_REG_PC_OP_ENABLE, RKSIM_ENTRY_OP_ENABLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rksim_entry e;
        rksim_core_result r = {0};
        CHECK(rksim_decode_entry(npk_rk_entry_reg_write(cases[i].reg, 1), &e, &r));
        CHECK_EQ(e.kind, cases[i].kind);
        CHECK(e.info == npk_rk_reg_info(cases[i].reg));
    }
}

/* One past the enum: refused, naming the block's number, with the model's outcome. */
static void unknown_block_refused(void)
{
    rksim_entry_kind kind = RKSIM_ENTRY_NOP;
    rksim_core_result r = {0};
    CHECK(!rksim_block_entry_kind(NPK_BLK_COUNT, &kind, &r));
    CHECK_EQ(r.outcome, RKSIM_UNSUPPORTED);
    char want[32];
    snprintf(want, sizeof want, "block ? (%d,", (int)NPK_BLK_COUNT);
    CHECK_STR_HAS(r.message, want);
    CHECK_STR_HAS(r.message, "no row in the simulator's block table");
    CHECK_EQ(kind, RKSIM_ENTRY_NOP); /* left as it was */
    memset(&r, 0, sizeof r);
    CHECK(!rksim_block_entry_kind((npk_rk_unit)-1, &kind, &r));
    CHECK_STR_HAS(r.message, "(-1,");
}

int main(void)
{
    every_block_has_its_kind();
    entries_decode();
    unknown_block_refused();
    return check_done();
}
