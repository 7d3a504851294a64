/* SPDX-License-Identifier: MIT */
/* SDP task synthesis: every register value computed through the register table's fields from
 * the SDP rows (rk_sdp_hw.h), then emitted in the operation's order (rk/hw/ops.c: the DPU
 * block first, the DPU_RDMA block second). The values
 * reproduce the vendor's fp16 per-channel mul capture (spec "0x4070 DPU_EW_CFG + 0x5034
 * ERDMA_CFG data-mode fields"): EW 0x20800384 / ERDMA 0x8000000a / FEATURE_MODE 0x17849
 * per-element, EW 0x00800384 / ERDMA 0x0000000a per-channel. */
#include <stdio.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "rk/hw/rk_ops.h"
#include "rk_sdp.h"

#define PUT(reg, field, v) NPK_RKPUT(reg, field, v)


/* DPU_RDMA_WEIGHT: the E/N/B/M arbitration weights, 1 each (facts C.6). */
#define RDMA_WEIGHTS_EQUAL 0x01010101u

static npk_rk_sdp_prec_row const *row(npk_rk_prec p) { return npk_rk_sdp_prec_row_of(p); }

/* How a value goes into a register (an inference: the spec gives the fields, not the
 * encodings): a 32-bit operand (ALU, ReLUX bound, EW value) holds fp32 bits for an fp16 SDP,
 * which computes in fp32, and the two's complement integer otherwise; the 16-bit MUL operand
 * holds fp16 bits or the int16. */
typedef enum { ENC_WIDE, ENC_MUL } encoding;

static uint32_t encode(const npk_rk_sdp_prec_row *pr, encoding e, double v)
{
    if (pr->fp32_compute) {
        if (e == ENC_MUL)
            return npk_f32_to_f16((float)v);
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        return bits;
    }
    return e == ENC_MUL ? (uint32_t)(uint16_t)(int16_t)v : (uint32_t)(int32_t)v;
}

/* One stage's registers: CFG (bypass bits, ALU algorithm, register operands, PReLU, ReLUX),
 * ALU operand, MUL operand, ReLUX bound. BN's fields sit where BS's do (facts B.4), so both
 * are packed through BS's field table and written to the stage row's registers. */
static void stage_values(const npk_rk_sdp_stage_row *sr, const npk_rk_sdp_stage *st,
                         const npk_rk_sdp_prec_row *pr, uint32_t *v)
{
    const bool on = npk_rk_sdp_stage_active(st);
    v[sr->cfg_reg] =
        PUT(DPU_BS_CFG, BS_ALU_ALGO, st->alu ? st->alu_algo : 0) |
        PUT(DPU_BS_CFG, BS_RELUX_EN, st->relux) | PUT(DPU_BS_CFG, BS_RELU_BYPASS, !st->relu) |
        PUT(DPU_BS_CFG, BS_MUL_PRELU, st->prelu) | PUT(DPU_BS_CFG, BS_MUL_BYPASS, !st->mul) |
        PUT(DPU_BS_CFG, BS_ALU_BYPASS, !st->alu) | PUT(DPU_BS_CFG, BS_BYPASS, !on);
    /* operands from the registers: ALU_SRC and MUL_SRC 0 */
    v[sr->alu_reg] = st->alu ? encode(pr, ENC_WIDE, st->alu_operand) : 0;
    v[sr->mul_reg] =
        st->mul ? PUT(DPU_BS_MUL_CFG, BS_MUL_OPERAND, encode(pr, ENC_MUL, st->mul_operand)) |
                      PUT(DPU_BS_MUL_CFG, BS_MUL_SHIFT_VALUE, st->mul_shift)
                : 0;
    v[sr->relux_reg] = st->relux ? encode(pr, ENC_WIDE, st->relux_value) : 0;
}


static void values(const npk_rk_sdp *t, uint32_t *v)
{
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(t->op);
    const npk_rk_sdp_prec_row *pr = row(t->prec);
    const uint32_t m = t->m, n = t->n;
    const uint32_t rdma_ch = t->rdma_channels ? t->rdma_channels : n;

    /* ---- DPU ---- */
    /* S_POINTER 0: ping-pong off for any SDP task (spec "Chained 2-input SDP"). */
    v[NPK_REG_DPU_S_POINTER] = 0;
    /* The feature comes from the RDMA, not the CORE: FLYING_MODE set as in the RDMA's own
     * FEATURE_MODE_CFG of the vendor SDP (0x17849); results go to memory. */
    v[NPK_REG_DPU_FEATURE_MODE_CFG] =
        PUT(DPU_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
        PUT(DPU_FEATURE_MODE_CFG, OUTPUT_MODE, NPK_DPU_OUTPUT_MODE_MEMORY) |
        PUT(DPU_FEATURE_MODE_CFG, FLYING_MODE, 1);
    v[NPK_REG_DPU_DATA_FORMAT] = PUT(DPU_DATA_FORMAT, OUT_PRECISION, t->prec) |
                                 PUT(DPU_DATA_FORMAT, IN_PRECISION, t->feature) |
                                 PUT(DPU_DATA_FORMAT, PROC_PRECISION, t->prec);
    v[NPK_REG_DPU_DST_BASE_ADDR] = t->c;
    /* atom layout: one surface of C2 channels is M atoms of 16 bytes */
    v[NPK_REG_DPU_DST_SURF_STRIDE] = PUT(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE, m);
    v[NPK_REG_DPU_DATA_CUBE_HEIGHT] = PUT(DPU_DATA_CUBE_HEIGHT, HEIGHT, m - 1);
    v[NPK_REG_DPU_DATA_CUBE_CHANNEL] = PUT(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL, n - 1) |
                                       PUT(DPU_DATA_CUBE_CHANNEL, CHANNEL, n - 1);
    /* BS stage: fully bypassed (0x53) for the 2-input ops; the 1-input ReLU keeps only the
     * stage's ReLU (BYPASS, RELU_BYPASS clear). BS_MUL_SRC 0: a register operand. */
    npk_rk_sdp_stage st[NPK_SDP_STAGE_COUNT];
    npk_rk_sdp_stages(t, st);
    for (unsigned i = 0; i < NPK_SDP_STAGE_COUNT; i++)
        stage_values(npk_rk_sdp_stage_row_of((npk_rk_sdp_stage_id)i), &st[i], pr, v);
    /* The SDP's self-completing write-out: SIZE_E 0 with OD_BYPASS (0x2, spec). */
    v[NPK_REG_DPU_BS_OW_CFG] = PUT(DPU_BS_OW_CFG, OD_BYPASS, 1);
    v[NPK_REG_DPU_WDMA_SIZE_0] = PUT(DPU_WDMA_SIZE_0, CHANNEL_WDMA, n - 1);
    v[NPK_REG_DPU_WDMA_SIZE_1] = PUT(DPU_WDMA_SIZE_1, HEIGHT_WDMA, m - 1);
    /* EW stage: the LUT, ReLU and operand converter bypassed (0x380, as captured); the op
     * through OP_TYPE / ALU_ALGO; the operand from memory in the operand's data mode. A
     * 1-input op bypasses the stage (0x383). */
    uint32_t ew = PUT(DPU_EW_CFG, EW_RELU_BYPASS, 1) | PUT(DPU_EW_CFG, EW_OP_CVT_BYPASS, 1) |
                  PUT(DPU_EW_CFG, EW_LUT_BYPASS, 1);
    const bool ew_memory = npk_rk_sdp_uses_ew(t) && !t->ew_imm;
    if (npk_rk_sdp_uses_ew(t)) {
        unsigned mode = t->operand == NPK_EW_PER_ELEMENT ? NPK_EW_DATA_MODE_PER_ELEMENT
                                                         : NPK_EW_DATA_MODE_PER_CHANNEL;
        ew |=
            PUT(DPU_EW_CFG, EW_DATA_MODE, ew_memory ? mode : 0) |
            PUT(DPU_EW_CFG, EDATA_SIZE, pr->data_size) |
            PUT(DPU_EW_CFG, EW_ALU_ALGO, op->alu_algo) |
            PUT(DPU_EW_CFG, EW_OP_SRC, t->ew_imm ? NPK_EW_OP_SRC_REGISTER : NPK_EW_OP_SRC_MEMORY) |
            PUT(DPU_EW_CFG, EW_OP_TYPE, op->op_type);
        if (t->ew_imm) /* the value register is an inference (rk_sdp.h) */
            v[NPK_REG_DPU_EW_OP_VALUE_0] =
                encode(pr, op->op_type == NPK_EW_OP_TYPE_MUL ? ENC_MUL : ENC_WIDE, t->imm[0]);
        if (t->ew_cvt.on) {
            ew &= ~PUT(DPU_EW_CFG, EW_OP_CVT_BYPASS, 1);
            v[NPK_REG_DPU_EW_CVT_OFFSET_VALUE] = (uint32_t)t->ew_cvt.offset;
        }
    } else {
        ew |= PUT(DPU_EW_CFG, EW_OP_BYPASS, 1) | PUT(DPU_EW_CFG, EW_BYPASS, 1);
    }
    v[NPK_REG_DPU_EW_CFG] = ew;
    v[NPK_REG_DPU_EW_CVT_SCALE_VALUE] =
        t->ew_cvt.on ? PUT(DPU_EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, t->ew_cvt.scale) |
                           PUT(DPU_EW_CVT_SCALE_VALUE, EW_OP_CVT_SHIFT, t->ew_cvt.shift)
                     : PUT(DPU_EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, 1);
    /* fp16 is computed in fp32 and written through FP32TOFP16_EN (spec "fp16 matmul -> fp16
     * output stage"); integers at scale 1, shift 0. */
    v[NPK_REG_DPU_OUT_CVT_SCALE] = PUT(DPU_OUT_CVT_SCALE, FP32TOFP16_EN, pr->fp32_compute) |
                                   PUT(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE, 1);
    /* from one output surface to the next: the surface stride (one atom layout) */
    v[NPK_REG_DPU_SURFACE_ADD] = PUT(DPU_SURFACE_ADD, SURF_ADD, m);

    /* ---- DPU_RDMA ---- */
    v[NPK_REG_DPU_RDMA_S_POINTER] = 0;
    /* The RDMA's cube: W-1, H-1, C-1 (facts C.6), its channel count decoupled from the DPU's
     * (spec "OVER-FETCH"). */
    v[NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH] = 0;
    v[NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT] = m - 1;
    v[NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL] = rdma_ch - 1;
    v[NPK_REG_DPU_RDMA_SRC_BASE_ADDR] = t->a;
    if (ew_memory) {
        unsigned mode = t->operand == NPK_EW_PER_ELEMENT ? NPK_EW_DATA_MODE_PER_ELEMENT
                                                         : NPK_EW_DATA_MODE_PER_CHANNEL;
        v[NPK_REG_DPU_RDMA_ERDMA_CFG] = PUT(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_MODE, mode) |
                                        PUT(DPU_RDMA_ERDMA_CFG, OV4K_BYPASS, 1) |
                                        PUT(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_SIZE, pr->data_size);
        v[NPK_REG_DPU_RDMA_EW_BASE_ADDR] = t->b;
        /* a per-element operand is a second atom cube (byte stride between its surfaces); a
         * per-channel vector is contiguous [N] (spec) */
        if (t->operand == NPK_EW_PER_ELEMENT)
            v[NPK_REG_DPU_RDMA_EW_SURF_STRIDE] = m * 16u;
    } else {
        v[NPK_REG_DPU_RDMA_ERDMA_CFG] = PUT(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE, 1);
    }
    v[NPK_REG_DPU_RDMA_FEATURE_MODE_CFG] =
        PUT(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION, t->feature) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, PROC_PRECISION, t->prec) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, pr->fp32_compute) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, FLYING_MODE, 1);
    v[NPK_REG_DPU_RDMA_SRC_DMA_CFG] = PUT(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR, t->line_notch);
    v[NPK_REG_DPU_RDMA_WEIGHT] = RDMA_WEIGHTS_EQUAL;
}

npk_status npk_rk_synth_sdp(const npk_rk_sdp *t, npk_rk_entry body[NPK_RK_SDP_BODY])
{
    npk_status s = npk_rk_sdp_check(t);
    if (s)
        return s;
    uint32_t v[NPK_REG_COUNT] = {0};
    values(t, v);
    const npk_rk_reg_id *order = npk_rk_op_desc_of(NPK_RK_OP_SDP)->order;
    for (unsigned i = 0; i < NPK_RK_SDP_BODY; i++)
        body[i] = npk_rk_entry_reg_write(order[i], v[order[i]]);
    return NPK_OK;
}
