/* SPDX-License-Identifier: MIT */
/* SDP task synthesis: every register value computed through the register table's fields from
 * the SDP rows (rk_sdp_hw.h), then emitted in the operation's order (sdp_order: the DPU
 * block first, the DPU_RDMA block second). The values
 * reproduce the vendor's fp16 per-channel mul capture (spec "0x4070 DPU_EW_CFG + 0x5034
 * ERDMA_CFG data-mode fields"): EW 0x20800384 / ERDMA 0x8000000a / FEATURE_MODE 0x17849
 * per-element, EW 0x00800384 / ERDMA 0x0000000a per-channel. */
#include <stdio.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "rk_op_synth.h"
#include "rk_sdp.h"
#include "rk_body_runs.h"

#define PUT(reg, field, v) NPK_RKPUT(reg, field, v)

/* The SDP task's body: the DPU block first, the DPU_RDMA block second (spec "SDP element-wise +
 * DPU output-stage registers"; the vendor's fp16 per-channel mul capture). */
static const npk_rk_reg_id sdp_order[] = {
    NPK_REG_DPU_S_POINTER,
    NPK_RK_RUN_DPU_STAGES,
    NPK_REG_DPU_EW_OP_VALUE_0, /* the EW stage's register operand (rk_sdp.h ew_imm), else 0 */
    NPK_REG_DPU_OUT_CVT_OFFSET,
    NPK_REG_DPU_OUT_CVT_SCALE,
    NPK_REG_DPU_OUT_CVT_SHIFT,
    NPK_REG_DPU_SURFACE_ADD,
    NPK_REG_DPU_RDMA_S_POINTER,
    NPK_RK_RUN_DPU_RDMA_FEED,
};

_Static_assert(sizeof sdp_order / sizeof sdp_order[0] == NPK_RK_SDP_BODY,
               "NPK_RK_SDP_BODY counts the SDP body");

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
     * stage's ReLU (BYPASS, RELU_BYPASS clear). BS_MUL_SRC 0: a register operand. A LUT task's
     * BN stage scales the LUT's input (npk_rk_sdp_stages). */
    const bool lut = t->lut != NULL;
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
                  PUT(DPU_EW_CFG, EW_LUT_BYPASS, !lut);
    const bool ew_memory = npk_rk_sdp_uses_ew(t) && !t->ew_imm;
    if (lut) {
        ew |= PUT(DPU_EW_CFG, EW_OP_BYPASS, 1); /* the LUT alone: 0x302 */
    } else if (npk_rk_sdp_uses_ew(t)) {
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
    /* after a LUT, the table's fixed-point scale divided back out */
    if (lut)
        v[NPK_REG_DPU_OUT_CVT_SHIFT] = PUT(DPU_OUT_CVT_SHIFT, MINUS_EXP, t->lut->minus_exp);
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

uint32_t npk_rk_sdp_body_entries(const npk_rk_sdp *t)
{
    return t->lut ? NPK_RK_SDP_LUT_BODY : NPK_RK_SDP_BODY;
}

/* A LUT's registers, after the SDP body, in the order of the register table. */
static const npk_rk_reg_id lut_order[NPK_RK_SDP_LUT_CONFIG] = {
    NPK_REG_DPU_LUT_CFG,          NPK_REG_DPU_LUT_INFO,           NPK_REG_DPU_LUT_LE_START,
    NPK_REG_DPU_LUT_LE_END,       NPK_REG_DPU_LUT_LO_START,       NPK_REG_DPU_LUT_LO_END,
    NPK_REG_DPU_LUT_LE_SLOPE_SCALE, NPK_REG_DPU_LUT_LE_SLOPE_SHIFT, NPK_REG_DPU_LUT_LO_SLOPE_SCALE,
    NPK_REG_DPU_LUT_LO_SLOPE_SHIFT,
};

static uint32_t table_end(const npk_rk_lut_table *t)
{
    return (uint32_t)((int64_t)t->start + ((int64_t)NPK_RK_LUT_STEPS << t->select));
}

static void lut_values(const npk_rk_lut *l, uint32_t *v)
{
    v[NPK_REG_DPU_LUT_CFG] = PUT(DPU_LUT_CFG, LUT_HYBRID_PRIORITY, l->hybrid_lo) |
                             PUT(DPU_LUT_CFG, LUT_OFLOW_PRIORITY, l->oflow_lo) |
                             PUT(DPU_LUT_CFG, LUT_UFLOW_PRIORITY, l->uflow_lo) |
                             PUT(DPU_LUT_CFG, LUT_LO_LE_MUX, NPK_RK_LUT_LO_LE_MUX);
    v[NPK_REG_DPU_LUT_INFO] = PUT(DPU_LUT_INFO, LUT_LO_INDEX_SELECT, l->lo.select) |
                              PUT(DPU_LUT_INFO, LUT_LE_INDEX_SELECT, l->le.select);
    v[NPK_REG_DPU_LUT_LE_START] = (uint32_t)l->le.start;
    v[NPK_REG_DPU_LUT_LE_END] = table_end(&l->le);
    v[NPK_REG_DPU_LUT_LO_START] = (uint32_t)l->lo.start;
    v[NPK_REG_DPU_LUT_LO_END] = table_end(&l->lo);
    v[NPK_REG_DPU_LUT_LE_SLOPE_SCALE] =
        PUT(DPU_LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_OFLOW_SCALE, (uint16_t)l->le.oflow_scale) |
        PUT(DPU_LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_UFLOW_SCALE, (uint16_t)l->le.uflow_scale);
    v[NPK_REG_DPU_LUT_LE_SLOPE_SHIFT] =
        PUT(DPU_LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_OFLOW_SHIFT, l->le.oflow_shift) |
        PUT(DPU_LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_UFLOW_SHIFT, l->le.uflow_shift);
    v[NPK_REG_DPU_LUT_LO_SLOPE_SCALE] =
        PUT(DPU_LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_OFLOW_SCALE, (uint16_t)l->lo.oflow_scale) |
        PUT(DPU_LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_UFLOW_SCALE, (uint16_t)l->lo.uflow_scale);
    v[NPK_REG_DPU_LUT_LO_SLOPE_SHIFT] =
        PUT(DPU_LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_OFLOW_SHIFT, l->lo.oflow_shift) |
        PUT(DPU_LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_UFLOW_SHIFT, l->lo.uflow_shift);
}

/* One table's upload: LUT_ACCESS_CFG (write, the table, address 0), then its entries. */
static npk_rk_entry *upload(npk_rk_entry *e, unsigned id, const npk_rk_lut_table *t)
{
    *e++ = npk_rk_entry_reg_write(NPK_REG_DPU_LUT_ACCESS_CFG,
                                  PUT(DPU_LUT_ACCESS_CFG, LUT_ACCESS_TYPE, 1) |
                                      PUT(DPU_LUT_ACCESS_CFG, LUT_TABLE_ID, id));
    for (unsigned i = 0; i < NPK_RK_LUT_ENTRIES; i++)
        *e++ = npk_rk_entry_reg_write(NPK_REG_DPU_LUT_ACCESS_DATA,
                                      PUT(DPU_LUT_ACCESS_DATA, LUT_ACCESS_DATA, (uint16_t)t->t[i]));
    return e;
}

npk_status npk_rk_synth_sdp(const npk_rk_sdp *t, npk_rk_entry *body)
{
    npk_status s = npk_rk_sdp_check(t);
    if (s)
        return s;
    uint32_t v[NPK_REG_COUNT] = {0};
    values(t, v);
    npk_rk_entry *e = body;
    /* a LUT task fills its tables first, as the third-party LUT programs do */
    if (t->lut)
        e = upload(upload(e, 0, &t->lut->le), 1, &t->lut->lo);
    for (unsigned i = 0; i < NPK_RK_SDP_BODY; i++)
        *e++ = npk_rk_entry_reg_write(sdp_order[i], v[sdp_order[i]]);
    if (t->lut) {
        lut_values(t->lut, v);
        for (unsigned i = 0; i < NPK_RK_SDP_LUT_CONFIG; i++)
            *e++ = npk_rk_entry_reg_write(lut_order[i], v[lut_order[i]]);
    }
    return NPK_OK;
}

/* The SDP's driver row (rk_op_synth.h); its task's arguments are an npk_rk_sdp. */
static npk_status sdp_check(const void *args) { return npk_rk_sdp_check(args); }

static npk_status sdp_synth(const void *args, npk_rk_entry *body)
{
    return npk_rk_synth_sdp(args, body);
}

static npk_rk_prec sdp_out(const void *args) { return ((const npk_rk_sdp *)args)->prec; }

static uint32_t sdp_entries(const void *args) { return npk_rk_sdp_body_entries(args); }

/* An unchecked SDP task skips the fusion rule as it skips its own limits (the over-fetch
 * experiments build such jobs on purpose). */
static npk_status sdp_chain(npk_rk_prec prev_out, const void *args)
{
    const npk_rk_sdp *t = args;
    return t->unchecked ? NPK_OK : npk_rk_sdp_chain_check(prev_out, t);
}

static void sdp_sample(void *args, uint32_t in, uint32_t in2, uint32_t out)
{
    npk_rk_sdp *t = args;
    *t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 4, 16);
    t->a = in, t->b = in2, t->c = out;
}

const npk_rk_op_synth npk_rk_op_synth_sdp = {
    .order = sdp_order,
    .body = NPK_RK_SDP_BODY,
    .args_size = sizeof(npk_rk_sdp),
    .check = sdp_check,
    .synth = sdp_synth,
    .out_prec = sdp_out,
    .chain_check = sdp_chain,
    .entries = sdp_entries,
    .sample = sdp_sample,
};
