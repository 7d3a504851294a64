/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's node word and kick as tables (rv32_regs.h). */
#include "rv32_regs.h"

#include <inttypes.h>
#include <string.h>

#include "kt_rv32.h"

static const kt_wfield node_fields[] = {
    [KT_RV32_NODE_F_BUSY] = KT_WF(kt_rv32_node, busy, "busy", 0, 1),
    [KT_RV32_NODE_F_MOVER_FAULT] =
        KT_WF(kt_rv32_node, mover_fault, "mover_fault", KT_RV32_NODE_MOVER_FAULT_SHIFT, 4),
    [KT_RV32_NODE_F_OCC_FAULT] =
        KT_WF(kt_rv32_node, occ_fault, "occupant_fault", KT_RV32_NODE_OCC_FAULT_SHIFT, 4),
};
const kt_word_layout kt_rv32_node_layout = KT_WORD_LAYOUT("RV32 node word", node_fields);

kt_rv32_node kt_rv32_node_decode(uint32_t word)
{
    kt_rv32_node n = {0};
    kt_word_decode(&kt_rv32_node_layout, word, &n);
    return n;
}

static const kt_wfield geometry_fields[] = {
    [KT_RV32_GEO_F_IN_BITS] = KT_WF(kt_rv32_occ_geometry, in_bits, "in_bits", 0, 16),
    [KT_RV32_GEO_F_OUT_WORDS] = KT_WF(kt_rv32_occ_geometry, out_words, "out_words", 16, 8),
};
const kt_word_layout kt_rv32_geometry_layout =
    KT_WORD_LAYOUT("occupant geometry", geometry_fields);

uint32_t kt_rv32_geometry_pack(const kt_mv_slot *slot)
{
    if (!slot)
        return 0;
    kt_rv32_occ_geometry g = {(uint16_t)(slot->in_beats * KT_MV_WORD * 8), slot->out_words};
    return (uint32_t)kt_word_pack(&kt_rv32_geometry_layout, &g);
}

const kt_field kt_layout_rv32[] = {
    {"op", 248, 8},
    {"pc", 216, 32},
    {"arg", 184, 32},
    {NULL, 0, 0},
};

npk_status kt_rv32_kick_inst(kt_flit *f, uint32_t pc, uint32_t arg, uint8_t txn)
{
    if ((pc & 3) || (pc >> KT_RV32_REGION_SHIFT) != (KT_RV32_IMEM_BASE >> KT_RV32_REGION_SHIFT))
        return npk_fail(NPK_EINVAL,
                        "RV32 start pc 0x%08" PRIx32 " must be a word in the instruction window "
                        "(0x00000000..0x0fffffff, a multiple of 4)",
                        pc);
    memset(f, 0, sizeof *f);
    const uint64_t v[] = {KT_RV32_KICK_OP, pc, arg};
    for (unsigned i = 0; i < 3; i++) {
        npk_status s = kt_field_put(f, &kt_layout_rv32[i], v[i]);
        if (s)
            return s;
    }
    /* not `last`: a last instruction completes as BATCH_COMPLETE with the txn, and the halt word
     * (exec_result) would be discarded; dst/src are set at dispatch */
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, txn, false, 0};
    return kt_header_put(f, &h);
}
