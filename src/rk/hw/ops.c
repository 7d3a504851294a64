/* SPDX-License-Identifier: MIT */
/* The operation rows (see rk_ops.h). */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "rk_ops.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define OPEN(field) npk_rk_field_put(NPK_RKF(PC_OP_ENABLE, field), 1)
#define PREC(p) (1u << (p))
/* DPU_BS_CFG with the BS ALU on (BS_ALU_BYPASS [1] clear) and its operand from memory
 * (BS_ALU_SRC [8] set). */
#define BS_ALU_ON_MEMORY_MASK 0x102u
#define BS_ALU_ON_MEMORY 0x100u

/* The matmul's body in the vendor's order (facts C.1): the same sequence in the fp16, int8 and
 * int4 captures. CBUF_CON0, CONV_CON1, DCOMP_CTRL and DCOMP_REGNUM are written twice, so the
 * synthesizer computes each value once and writes it at both places. */
static const npk_rk_reg_id matmul_order[] = {
    NPK_REG_CNA_CBUF_CON0,
    NPK_REG_CNA_DCOMP_REGNUM,
    NPK_REG_CNA_DCOMP_CTRL,
    NPK_REG_CNA_CONV_CON1,
    NPK_REG_DPU_S_POINTER,
    NPK_REG_CNA_CONV_CON1,
    NPK_REG_CNA_CONV_CON2,
    NPK_REG_CNA_CONV_CON3,
    NPK_REG_CNA_DATA_SIZE0,
    NPK_REG_CNA_DATA_SIZE1,
    NPK_REG_CNA_DATA_SIZE2,
    NPK_REG_CNA_DATA_SIZE3,
    NPK_REG_CNA_WEIGHT_SIZE0,
    NPK_REG_CNA_WEIGHT_SIZE1,
    NPK_REG_CNA_WEIGHT_SIZE2,
    NPK_REG_CNA_CBUF_CON0,
    NPK_REG_CNA_CBUF_CON1,
    NPK_REG_CNA_CVT_CON0,
    NPK_REG_CNA_CVT_CON1,
    NPK_REG_CNA_CVT_CON2,
    NPK_REG_CNA_CVT_CON3,
    NPK_REG_CNA_CVT_CON4,
    NPK_REG_CNA_FC_CON0,
    NPK_REG_CNA_FC_CON1,
    NPK_REG_CNA_PAD_CON0,
    NPK_REG_CNA_FEATURE_DATA_ADDR,
    NPK_REG_CNA_FC_CON2,
    NPK_REG_CNA_DMA_CON0,
    NPK_REG_CNA_DMA_CON1,
    NPK_REG_CNA_DMA_CON2,
    NPK_REG_CNA_FC_DATA_SIZE0,
    NPK_REG_CNA_FC_DATA_SIZE1,
    NPK_REG_CNA_DCOMP_CTRL,
    NPK_REG_CNA_DCOMP_REGNUM,
    NPK_REG_CNA_DCOMP_ADDR0,
    NPK_REG_CNA_DCOMP_AMOUNT0,
    NPK_REG_CNA_DCOMP_AMOUNT1,
    NPK_REG_CNA_DCOMP_AMOUNT2,
    NPK_REG_CNA_DCOMP_AMOUNT3,
    NPK_REG_CNA_DCOMP_AMOUNT4,
    NPK_REG_CNA_DCOMP_AMOUNT5,
    NPK_REG_CNA_DCOMP_AMOUNT6,
    NPK_REG_CNA_DCOMP_AMOUNT7,
    NPK_REG_CNA_DCOMP_AMOUNT8,
    NPK_REG_CNA_DCOMP_AMOUNT9,
    NPK_REG_CNA_DCOMP_AMOUNT10,
    NPK_REG_CNA_DCOMP_AMOUNT11,
    NPK_REG_CNA_DCOMP_AMOUNT12,
    NPK_REG_CNA_DCOMP_AMOUNT13,
    NPK_REG_CNA_DCOMP_AMOUNT14,
    NPK_REG_CNA_DCOMP_AMOUNT15,
    NPK_REG_CNA_CVT_CON5,
    NPK_REG_CNA_PAD_CON1,
    NPK_REG_CORE_MISC_CFG,
    NPK_REG_CORE_DATAOUT_SIZE_0,
    NPK_REG_CORE_DATAOUT_SIZE_1,
    NPK_REG_CORE_CLIP_TRUNCATE,
    NPK_REG_CORE_3030,
    NPK_REG_DPU_FEATURE_MODE_CFG,
    NPK_REG_DPU_DATA_FORMAT,
    NPK_REG_DPU_OFFSET_PEND,
    NPK_REG_DPU_DST_BASE_ADDR,
    NPK_REG_DPU_DST_SURF_STRIDE,
    NPK_REG_DPU_DATA_CUBE_WIDTH,
    NPK_REG_DPU_DATA_CUBE_HEIGHT,
    NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR,
    NPK_REG_DPU_DATA_CUBE_CHANNEL,
    NPK_REG_DPU_BS_CFG,
    NPK_REG_DPU_BS_ALU_CFG,
    NPK_REG_DPU_BS_MUL_CFG,
    NPK_REG_DPU_BS_RELUX_CMP_VALUE,
    NPK_REG_DPU_BS_OW_CFG,
    NPK_REG_DPU_BS_OW_OP,
    NPK_REG_DPU_WDMA_SIZE_0,
    NPK_REG_DPU_WDMA_SIZE_1,
    NPK_REG_DPU_BN_CFG,
    NPK_REG_DPU_BN_ALU_CFG,
    NPK_REG_DPU_BN_MUL_CFG,
    NPK_REG_DPU_BN_RELUX_CMP_VALUE,
    NPK_REG_DPU_EW_CFG,
    NPK_REG_DPU_EW_CVT_OFFSET_VALUE,
    NPK_REG_DPU_EW_CVT_SCALE_VALUE,
    NPK_REG_DPU_EW_RELUX_CMP_VALUE,
    NPK_REG_DPU_OUT_CVT_OFFSET,
    NPK_REG_DPU_OUT_CVT_SCALE,
    NPK_REG_DPU_OUT_CVT_SHIFT,
    NPK_REG_DPU_EW_OP_VALUE_0,
    NPK_REG_DPU_EW_OP_VALUE_1,
    NPK_REG_DPU_EW_OP_VALUE_2,
    NPK_REG_DPU_EW_OP_VALUE_3,
    NPK_REG_DPU_EW_OP_VALUE_4,
    NPK_REG_DPU_EW_OP_VALUE_5,
    NPK_REG_DPU_EW_OP_VALUE_6,
    NPK_REG_DPU_EW_OP_VALUE_7,
    NPK_REG_DPU_SURFACE_ADD,
    NPK_REG_DPU_40C4,
    NPK_REG_DPU_LUT_ACCESS_CFG,
    NPK_REG_DPU_LUT_ACCESS_DATA,
    NPK_REG_DPU_LUT_CFG,
    NPK_REG_DPU_LUT_INFO,
    NPK_REG_DPU_LUT_LE_START,
    NPK_REG_DPU_LUT_LE_END,
    NPK_REG_DPU_LUT_LO_START,
    NPK_REG_DPU_LUT_LO_END,
    NPK_REG_DPU_LUT_LE_SLOPE_SCALE,
    NPK_REG_DPU_LUT_LE_SLOPE_SHIFT,
    NPK_REG_DPU_LUT_LO_SLOPE_SCALE,
    NPK_REG_DPU_LUT_LO_SLOPE_SHIFT,
};

/* The SDP task's body: the DPU block first, the DPU_RDMA block second (spec "SDP element-wise +
 * DPU output-stage registers"; the vendor's fp16 per-channel mul capture). */
static const npk_rk_reg_id sdp_order[] = {
    NPK_REG_DPU_S_POINTER,
    NPK_REG_DPU_FEATURE_MODE_CFG,
    NPK_REG_DPU_DATA_FORMAT,
    NPK_REG_DPU_OFFSET_PEND,
    NPK_REG_DPU_DST_BASE_ADDR,
    NPK_REG_DPU_DST_SURF_STRIDE,
    NPK_REG_DPU_DATA_CUBE_WIDTH,
    NPK_REG_DPU_DATA_CUBE_HEIGHT,
    NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR,
    NPK_REG_DPU_DATA_CUBE_CHANNEL,
    NPK_REG_DPU_BS_CFG,
    NPK_REG_DPU_BS_ALU_CFG,
    NPK_REG_DPU_BS_MUL_CFG,
    NPK_REG_DPU_BS_RELUX_CMP_VALUE,
    NPK_REG_DPU_BS_OW_CFG,
    NPK_REG_DPU_BS_OW_OP,
    NPK_REG_DPU_WDMA_SIZE_0,
    NPK_REG_DPU_WDMA_SIZE_1,
    NPK_REG_DPU_BN_CFG,
    NPK_REG_DPU_BN_ALU_CFG,
    NPK_REG_DPU_BN_MUL_CFG,
    NPK_REG_DPU_BN_RELUX_CMP_VALUE,
    NPK_REG_DPU_EW_CFG,
    NPK_REG_DPU_EW_CVT_OFFSET_VALUE,
    NPK_REG_DPU_EW_CVT_SCALE_VALUE,
    NPK_REG_DPU_EW_RELUX_CMP_VALUE,
    NPK_REG_DPU_EW_OP_VALUE_0, /* the EW stage's register operand (rk_sdp.h ew_imm), else 0 */
    NPK_REG_DPU_OUT_CVT_OFFSET,
    NPK_REG_DPU_OUT_CVT_SCALE,
    NPK_REG_DPU_OUT_CVT_SHIFT,
    NPK_REG_DPU_SURFACE_ADD,
    NPK_REG_DPU_RDMA_S_POINTER,
    NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH,
    NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT,
    NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL,
    NPK_REG_DPU_RDMA_SRC_BASE_ADDR,
    NPK_REG_DPU_RDMA_BRDMA_CFG,
    NPK_REG_DPU_RDMA_BS_BASE_ADDR,
    NPK_REG_DPU_RDMA_NRDMA_CFG,
    NPK_REG_DPU_RDMA_BN_BASE_ADDR,
    NPK_REG_DPU_RDMA_ERDMA_CFG,
    NPK_REG_DPU_RDMA_EW_BASE_ADDR,
    NPK_REG_DPU_RDMA_EW_SURF_STRIDE,
    NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
    NPK_REG_DPU_RDMA_SRC_DMA_CFG,
    NPK_REG_DPU_RDMA_SURF_NOTCH,
    NPK_REG_DPU_RDMA_PAD_CFG,
    NPK_REG_DPU_RDMA_WEIGHT,
    NPK_REG_DPU_RDMA_EW_SURF_NOTCH,
};


/* The convolution's body: CNA, CORE, DPU, then the 0x50xx feed — the register set of Mesa's
 * rocket convolution (rkt_regcmd.c, which runs on boards; its 16 DCOMP_AMOUNT zeros left out),
 * the spec's conv-capture values in the 0x50xx block (docs/facts-engines.md). */
static const npk_rk_reg_id conv_order[] = {
    /* CNA */
    NPK_REG_CNA_CBUF_CON0,
    NPK_REG_CNA_DCOMP_REGNUM,
    NPK_REG_CNA_DCOMP_CTRL,
    NPK_REG_CNA_CONV_CON1,
    NPK_REG_DPU_S_POINTER,
    NPK_REG_DPU_RDMA_S_POINTER,
    NPK_REG_CNA_CONV_CON2,
    NPK_REG_CNA_CONV_CON3,
    NPK_REG_CNA_DATA_SIZE0,
    NPK_REG_CNA_DATA_SIZE1,
    NPK_REG_CNA_DATA_SIZE2,
    NPK_REG_CNA_DATA_SIZE3,
    NPK_REG_CNA_WEIGHT_SIZE0,
    NPK_REG_CNA_WEIGHT_SIZE1,
    NPK_REG_CNA_WEIGHT_SIZE2,
    NPK_REG_CNA_CBUF_CON1,
    NPK_REG_CNA_CVT_CON0,
    NPK_REG_CNA_CVT_CON1,
    NPK_REG_CNA_CVT_CON2,
    NPK_REG_CNA_CVT_CON3,
    NPK_REG_CNA_CVT_CON4,
    NPK_REG_CNA_FC_CON0,
    NPK_REG_CNA_FC_CON1,
    NPK_REG_CNA_PAD_CON0,
    NPK_REG_CNA_FEATURE_DATA_ADDR,
    NPK_REG_CNA_FC_CON2,
    NPK_REG_CNA_DMA_CON0,
    NPK_REG_CNA_DMA_CON1,
    NPK_REG_CNA_DMA_CON2,
    NPK_REG_CNA_FC_DATA_SIZE0,
    NPK_REG_CNA_FC_DATA_SIZE1,
    NPK_REG_CNA_DCOMP_ADDR0,
    NPK_REG_CNA_CVT_CON5,
    NPK_REG_CNA_PAD_CON1,
    /* CORE */
    NPK_REG_CORE_MISC_CFG,
    NPK_REG_CORE_DATAOUT_SIZE_0,
    NPK_REG_CORE_DATAOUT_SIZE_1,
    NPK_REG_CORE_CLIP_TRUNCATE,
    NPK_REG_CORE_3030,
    /* DPU */
    NPK_REG_DPU_FEATURE_MODE_CFG,
    NPK_REG_DPU_DATA_FORMAT,
    NPK_REG_DPU_OFFSET_PEND,
    NPK_REG_DPU_DST_BASE_ADDR,
    NPK_REG_DPU_DST_SURF_STRIDE,
    NPK_REG_DPU_DATA_CUBE_WIDTH,
    NPK_REG_DPU_DATA_CUBE_HEIGHT,
    NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR,
    NPK_REG_DPU_DATA_CUBE_CHANNEL,
    NPK_REG_DPU_BS_CFG,
    NPK_REG_DPU_BS_ALU_CFG,
    NPK_REG_DPU_BS_MUL_CFG,
    NPK_REG_DPU_BS_RELUX_CMP_VALUE,
    NPK_REG_DPU_BS_OW_CFG,
    NPK_REG_DPU_BS_OW_OP,
    NPK_REG_DPU_WDMA_SIZE_0,
    NPK_REG_DPU_WDMA_SIZE_1,
    NPK_REG_DPU_BN_CFG,
    NPK_REG_DPU_BN_ALU_CFG,
    NPK_REG_DPU_BN_MUL_CFG,
    NPK_REG_DPU_BN_RELUX_CMP_VALUE,
    NPK_REG_DPU_EW_CFG,
    NPK_REG_DPU_EW_CVT_OFFSET_VALUE,
    NPK_REG_DPU_EW_CVT_SCALE_VALUE,
    NPK_REG_DPU_EW_RELUX_CMP_VALUE,
    NPK_REG_DPU_OUT_CVT_OFFSET,
    NPK_REG_DPU_OUT_CVT_SCALE,
    NPK_REG_DPU_OUT_CVT_SHIFT,
    NPK_REG_DPU_SURFACE_ADD,
    /* the 0x50xx input feed */
    NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH,
    NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT,
    NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL,
    NPK_REG_DPU_RDMA_SRC_BASE_ADDR,
    NPK_REG_DPU_RDMA_BRDMA_CFG,
    NPK_REG_DPU_RDMA_BS_BASE_ADDR,
    NPK_REG_DPU_RDMA_NRDMA_CFG,
    NPK_REG_DPU_RDMA_BN_BASE_ADDR,
    NPK_REG_DPU_RDMA_ERDMA_CFG,
    NPK_REG_DPU_RDMA_EW_BASE_ADDR,
    NPK_REG_DPU_RDMA_EW_SURF_STRIDE,
    NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
    NPK_REG_DPU_RDMA_SRC_DMA_CFG,
    NPK_REG_DPU_RDMA_SURF_NOTCH,
    NPK_REG_DPU_RDMA_PAD_CFG,
    NPK_REG_DPU_RDMA_WEIGHT,
    NPK_REG_DPU_RDMA_EW_SURF_NOTCH,
    NPK_REG_CNA_CBUF_CON0, /* Mesa writes the bank split again after the sizes */
};

/* The pooling body: the PDP block of the spec's maxpool capture (18 registers there; the mode,
 * reciprocals and padding added) and its 0x8001 output stage (docs/facts-engines.md). */
static const npk_rk_reg_id pool_order[] = {
    NPK_REG_PPU_S_POINTER,
    NPK_REG_PPU_RDMA_S_POINTER,
    NPK_REG_PPU_DATA_CUBE_IN_HEIGHT,
    NPK_REG_PPU_DATA_CUBE_IN_WIDTH,
    NPK_REG_PPU_DATA_CUBE_IN_CHANNEL,
    NPK_REG_PPU_DATA_CUBE_OUT_HEIGHT,
    NPK_REG_PPU_DATA_CUBE_OUT_WIDTH,
    NPK_REG_PPU_DATA_CUBE_OUT_CHANNEL,
    NPK_REG_PPU_OPERATION_MODE_CFG,
    NPK_REG_PPU_POOLING_KERNEL_CFG,
    NPK_REG_PPU_RECIP_KERNEL_WIDTH,
    NPK_REG_PPU_RECIP_KERNEL_HEIGHT,
    NPK_REG_PPU_POOLING_PADDING_CFG,
    NPK_REG_PPU_SRC_BASE_ADDR,
    NPK_REG_PPU_DATA_FORMAT,
    NPK_REG_PPU_60DC,
    NPK_REG_PPU_RDMA_CUBE_HEIGHT,
    NPK_REG_PPU_RDMA_CUBE_WIDTH,
    NPK_REG_PPU_RDMA_CUBE_CHANNEL,
    NPK_REG_PPU_RDMA_DST_BASE_ADDR,
    NPK_REG_PPU_RDMA_DST_LINE_STRIDE,
    NPK_REG_PPU_RDMA_DST_SURF_STRIDE,
    NPK_REG_PPU_RDMA_DATA_FORMAT,
};

_Static_assert(ARRAY_LEN(matmul_order) == NPK_RK_MATMUL_BODY, "the matmul body is 108 entries");

static const npk_rk_op_desc rows[NPK_RK_OP_COUNT] = {
    [NPK_RK_OP_MATMUL] =
        {
            .op = NPK_RK_OP_MATMUL,
            .name = "matmul",
            /* CNA | CORE | DPU 0x0D (facts B.2); with DPU_RDMA 0x1D when the RDMA block's main
             * read is off or combines a K partial (facts C.6) */
            .enable = 0x0Du,
            .enable_also = 0x1Du,
            .order = matmul_order,
            .body = ARRAY_LEN(matmul_order),
            .in_precs = PREC(NPK_PREC_INT8) | PREC(NPK_PREC_INT16) | PREC(NPK_PREC_FP16) |
                        PREC(NPK_PREC_BF16) | PREC(NPK_PREC_INT4) | PREC(NPK_PREC_TF32),
            .source = "spec \"Key registers\"; facts B.2, C.1",
            .int_mask = NPK_RK_INT_DPU,
        },
    [NPK_RK_OP_SDP] =
        {
            .op = NPK_RK_OP_SDP,
            .name = "sdp",
            /* DPU | DPU_RDMA 0x18 (spec "int16/narrow-output MATMUL": "The SDP (enable=0x18,
             * DPU-only)") */
            .enable = 0x18u,
            .enable_also = 0,
            .order = sdp_order,
            .body = ARRAY_LEN(sdp_order),
            .in_precs = PREC(NPK_PREC_INT8) | PREC(NPK_PREC_INT16) | PREC(NPK_PREC_FP16),
            .source = "spec \"SDP element-wise + DPU output-stage registers\"",
            .int_mask = NPK_RK_INT_DPU,
        },
    [NPK_RK_OP_CONV] =
        {
            .op = NPK_RK_OP_CONV,
            .name = "conv",
            /* CNA | CORE | DPU | DPU_RDMA (spec "Conv path": 0201 + 0801 + 1001 + 2001; Mesa's
             * 0x1D), told from the matmul's 0x1D by its output stage: the BS ALU adding the
             * bias from memory (the spec's conv stage 0x20150, which hangs a matmul) */
            .enable = 0x1Du,
            .enable_also = 0,
            .order = conv_order,
            .body = ARRAY_LEN(conv_order),
            .in_precs = PREC(NPK_PREC_FP16),
            .source = "spec \"Conv path\", \"fp16 matmul -> fp16 output stage\"; Mesa rkt_regcmd.c",
            .int_mask = NPK_RK_INT_DPU,
            .mark_reg = NPK_REG_DPU_BS_CFG,
            .mark_mask = BS_ALU_ON_MEMORY_MASK,
            .mark_value = BS_ALU_ON_MEMORY,
        },
    [NPK_RK_OP_POOL] =
        {
            .op = NPK_RK_OP_POOL,
            .name = "pool",
            /* PPU | PPU_RDMA (spec "Op -> engine-block map": 4001 + 8001, no CNA/DPU) */
            .enable = 0x60u,
            .enable_also = 0,
            .order = pool_order,
            .body = ARRAY_LEN(pool_order),
            .in_precs = PREC(NPK_PREC_FP16),
            .source = "spec \"Op -> engine-block map\" (PDP maxpool registers); mainline rocket",
            .int_mask = NPK_RK_INT_PPU,
        },
};

const npk_rk_op_desc *npk_rk_op_desc_of(npk_rk_op op)
{
    return (unsigned)op < NPK_RK_OP_COUNT ? &rows[op] : NULL;
}

const char *npk_rk_op_name(npk_rk_op op, char buf[32])
{
    const npk_rk_op_desc *d = npk_rk_op_desc_of(op);
    if (d)
        return d->name;
    snprintf(buf, 32, "operation %d", (int)op);
    return buf;
}

static bool has_set(const npk_rk_op_desc *d, uint32_t blocks)
{
    return blocks == d->enable || (d->enable_also && blocks == d->enable_also);
}

const npk_rk_op_desc *npk_rk_op_by_enable(uint32_t blocks)
{
    blocks &= ~OPEN(WAIT);
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++)
        if (!rows[i].mark_mask && has_set(&rows[i], blocks))
            return &rows[i];
    return NULL;
}

const npk_rk_op_desc *npk_rk_op_select(uint32_t blocks,
                                       uint32_t (*reg)(const void *ctx, npk_rk_reg_id id),
                                       const void *ctx)
{
    blocks &= ~OPEN(WAIT);
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++)
        if (rows[i].mark_mask && has_set(&rows[i], blocks) &&
            (reg(ctx, rows[i].mark_reg) & rows[i].mark_mask) == rows[i].mark_value)
            return &rows[i];
    return npk_rk_op_by_enable(blocks);
}

const char *npk_rk_op_enables(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < NPK_RK_OP_COUNT && n < size; i++) {
        int w = rows[i].enable_also
                    ? snprintf(buf + n, size - n, "%s0x%02x|0x%02x (%s)", i ? ", " : "",
                               rows[i].enable, rows[i].enable_also, rows[i].name)
                    : snprintf(buf + n, size - n, "%s0x%02x (%s)", i ? ", " : "", rows[i].enable,
                               rows[i].name);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

bool npk_rk_op_takes(const npk_rk_op_desc *d, npk_rk_prec p)
{
    return d && (unsigned)p < 32 && (d->in_precs >> p & 1u);
}

uint32_t npk_rk_op_max_body(void)
{
    uint32_t max = 0;
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++)
        if (rows[i].body > max)
            max = rows[i].body;
    return max;
}
