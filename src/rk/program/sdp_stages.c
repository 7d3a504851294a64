/* SPDX-License-Identifier: MIT */
/* Which of the SDP's stages a task's op configures (the BS and BN stages, rk_sdp_hw.h) and
 * whether it runs the EW stage: what the synthesizer encodes and the checks judge. */
#include <string.h>

#include "rk_sdp.h"

void npk_rk_sdp_stages(const npk_rk_sdp *t, npk_rk_sdp_stage st[NPK_SDP_STAGE_COUNT])
{
    memset(st, 0, NPK_SDP_STAGE_COUNT * sizeof *st);
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(t->op);
    if (!op)
        return;
    npk_rk_sdp_stage *bs = &st[NPK_SDP_STAGE_BS], *bn = &st[NPK_SDP_STAGE_BN];
    bs->relu = op->bs_relu;
    bs->relux = op->relux;
    bs->relux_value = op->relux_value;
    if (t->operand != NPK_EW_IMMEDIATE || t->ew_imm)
        return;
    switch (op->imm_unit) {
    case NPK_BS_UNIT_ALU:
        bs->alu = true;
        bs->alu_algo = op->alu_algo;
        bs->alu_operand = t->imm[0];
        break;
    case NPK_BS_UNIT_PRELU: /* the MUL on negatives only */
    case NPK_BS_UNIT_MUL:
        bs->mul = true;
        bs->prelu = op->imm_unit == NPK_BS_UNIT_PRELU;
        bs->mul_operand = t->imm[0];
        break;
    case NPK_BS_UNIT_NONE: break;
    }
    if (t->op == NPK_EW_BATCHNORM) { /* x * scale in BS, + shift in BN's ALU */
        bn->alu = true;
        bn->alu_algo = NPK_EW_ALU_SUM;
        bn->alu_operand = t->imm[1];
    }
}

bool npk_rk_sdp_uses_ew(const npk_rk_sdp *t)
{
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(t->op);
    return op && op->binary && (t->operand != NPK_EW_IMMEDIATE || t->ew_imm);
}
