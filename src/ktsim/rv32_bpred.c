/* SPDX-License-Identifier: MIT */
/* The RV32 core's branch predictor (rv32.h), as upstream's rv_bpred keeps it: a direct-mapped
 * table whose entries hold a valid bit, a saturating 2-bit counter, a tag and the last target.
 * Reset leaves every entry invalid with its counter at 01, so a branch seen for the first time
 * is predicted not taken and its first taken outcome moves it to 10 (taken from then on). */
#include "rv32.h"

static unsigned btb_index(uint32_t pc) { return (pc >> 2) & (KSIM_RV32_BTB_ENTRIES - 1); }
static uint8_t btb_tag(uint32_t pc)
{
    return (uint8_t)(pc >> 7) & ((1u << KSIM_RV32_BTB_TAG_BITS) - 1);
}
_Static_assert(KSIM_RV32_BTB_ENTRIES == 32, "the tag starts at pc[7]: 5 index bits above pc[1:0]");

bool ksim_rv32_btb_predict(const ksim_rv32_btb_entry *btb, uint32_t pc, uint32_t *target)
{
    const ksim_rv32_btb_entry *e = &btb[btb_index(pc)];
    if (!e->valid || e->tag != btb_tag(pc) || e->counter < 2)
        return false;
    *target = e->target;
    return true;
}

void ksim_rv32_btb_update(ksim_rv32_btb_entry *btb, uint32_t pc, bool taken, bool jump,
                          uint32_t target)
{
    /* The counter moves from whatever the slot held, another pc's or the reset value: the
     * RTL reads it back without comparing tags. */
    ksim_rv32_btb_entry *e = &btb[btb_index(pc)];
    uint8_t n = jump ? 3 : taken ? (e->counter == 3 ? 3 : e->counter + 1)
                                 : (e->counter == 0 ? 0 : e->counter - 1);
    *e = (ksim_rv32_btb_entry){true, n, btb_tag(pc), target & ~1u};
}

void ksim_rv32_btb_reset(ksim_rv32_btb_entry *btb)
{
    for (unsigned i = 0; i < KSIM_RV32_BTB_ENTRIES; i++)
        btb[i] = (ksim_rv32_btb_entry){false, 1, 0, 0};
}
