/* SPDX-License-Identifier: MIT */
/* Convolution task synthesis: every register value computed through the register table's
 * fields and written in the conv row's order (conv_order below): Mesa's rocket convolution's
 * registers (which run on boards) with the spec's conv-capture values for the 0x50xx block
 * (docs/facts-engines.md, "The convolution path"). */
#include <string.h>

#include "npukit/rk_outstage.h"
#include "rk/program/rk_op_synth.h"
#include "rk/program/rk_conv.h"
#include "npukit/rk_regs.h"
#include "rk_body_runs.h"

#define PUT(reg, field, v) NPK_RKPUT(reg, field, v)



/* DPU_RDMA_WEIGHT: the E/N/B/M arbitration weights, 1 each (Mesa; the spec's "input fill"). */
#define RDMA_WEIGHTS_EQUAL 0x01010101u
/* The BS ALU's add (NVDLA map_alu_op: MAX 0, MIN 1, SUM 2). */
#define BS_ALU_SUM 2u
/* BS_ALU_SRC 1: the bias from the 0x50xx feed (Mesa). */
#define BS_ALU_SRC_MEMORY 1u

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint32_t up(uint32_t v, uint32_t to) { return (v + to - 1) / to * to; }

static void values(const npk_rk_conv *t, uint32_t *v)
{
    const uint32_t c2 = npk_rk_conv_c2(t->prec);
    const npk_rk_prec out = npk_rk_conv_prec_of(t->prec)->out;
    const npk_rk_out_stage *stage = npk_rk_out_stage_find(t->prec, out);
    const uint32_t cin = up(t->in_c, c2);
    const uint32_t mode = t->depthwise ? NPK_RK_CONV_MODE_DEPTHWISE : NPK_CONV_MODE_DIRECT;
    const uint64_t kbytes = npk_rk_conv_kernel_bytes(t->prec, t->in_c, t->k_h, t->k_w);
    const uint32_t kernels = t->depthwise ? 1u : t->out_c;
    const uint64_t wbytes = npk_rk_conv_weight_bytes(t->prec, t->depthwise, t->out_c, t->in_c,
                                                     t->k_h, t->k_w);
    const uint32_t pp = PUT(DPU_S_POINTER, POINTER_PP_MODE, 1) |
                        PUT(DPU_S_POINTER, EXECUTER_PP_EN, 1) | PUT(DPU_S_POINTER, POINTER_PP_EN, 1);

    /* ---- CNA ---- */
    v[NPK_REG_CNA_CBUF_CON0] = PUT(CNA_CBUF_CON0, WEIGHT_BANK, t->weight_bank) |
                               PUT(CNA_CBUF_CON0, DATA_BANK, t->data_bank);
    v[NPK_REG_CNA_CONV_CON1] = PUT(CNA_CONV_CON1, PROC_PRECISION, t->prec) |
                               PUT(CNA_CONV_CON1, IN_PRECISION, t->prec) |
                               PUT(CNA_CONV_CON1, CONV_MODE, mode);
    v[NPK_REG_DPU_S_POINTER] = pp;
    v[NPK_REG_DPU_RDMA_S_POINTER] = NPK_RK_CONV_FEED_MODE;
    /* the rows of input the CDMA fetches per grain (NVDLA): the whole task's input rows,
     * capped at the field (INF, docs/facts-engines.md) */
    uint32_t grains_max = npk_rk_field_get(NPK_RKF(CNA_CONV_CON2, FEATURE_GRAINS), UINT32_MAX);
    v[NPK_REG_CNA_CONV_CON2] =
        PUT(CNA_CONV_CON2, FEATURE_GRAINS, t->in_h < grains_max ? t->in_h : grains_max);
    v[NPK_REG_CNA_CONV_CON3] = PUT(CNA_CONV_CON3, CONV_Y_STRIDE, t->stride_y) |
                               PUT(CNA_CONV_CON3, CONV_X_STRIDE, t->stride_x);
    v[NPK_REG_CNA_DATA_SIZE0] = PUT(CNA_DATA_SIZE0, DATAIN_WIDTH, t->in_w) |
                                PUT(CNA_DATA_SIZE0, DATAIN_HEIGHT, t->in_h);
    v[NPK_REG_CNA_DATA_SIZE1] = PUT(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL, t->in_c - 1) |
                                PUT(CNA_DATA_SIZE1, DATAIN_CHANNEL, cin);
    v[NPK_REG_CNA_DATA_SIZE2] = PUT(CNA_DATA_SIZE2, DATAOUT_WIDTH, t->out_w);
    v[NPK_REG_CNA_DATA_SIZE3] = PUT(CNA_DATA_SIZE3, DATAOUT_ATOMICS, t->out_w * t->out_h);
    v[NPK_REG_CNA_WEIGHT_SIZE0] = (uint32_t)wbytes;
    v[NPK_REG_CNA_WEIGHT_SIZE1] = PUT(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL, kbytes);
    v[NPK_REG_CNA_WEIGHT_SIZE2] = PUT(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH, t->k_w) |
                                  PUT(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT, t->k_h) |
                                  PUT(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS, kernels);
    v[NPK_REG_CNA_CBUF_CON1] =
        PUT(CNA_CBUF_CON1, DATA_ENTRIES, npk_rk_conv_row_entries(t->soc, t->prec, t->in_c, t->in_w));
    /* no input conversion (CVT bypassed, scale 1 in every lane, as Mesa; its int8 programs
     * too) */
    v[NPK_REG_CNA_CVT_CON0] = PUT(CNA_CVT_CON0, CVT_BYPASS, 1);
    v[NPK_REG_CNA_CVT_CON1] = PUT(CNA_CVT_CON1, CVT_SCALE0, 1);
    v[NPK_REG_CNA_CVT_CON2] = PUT(CNA_CVT_CON2, CVT_SCALE1, 1);
    v[NPK_REG_CNA_CVT_CON3] = PUT(CNA_CVT_CON3, CVT_SCALE2, 1);
    v[NPK_REG_CNA_CVT_CON4] = PUT(CNA_CVT_CON4, CVT_SCALE3, 1);
    v[NPK_REG_CNA_PAD_CON0] =
        PUT(CNA_PAD_CON0, PAD_LEFT, t->pad_left) | PUT(CNA_PAD_CON0, PAD_TOP, t->pad_top);
    v[NPK_REG_CNA_FEATURE_DATA_ADDR] = t->in;
    v[NPK_REG_CNA_DMA_CON0] = PUT(CNA_DMA_CON0, WEIGHT_BURST_LEN, NPK_BURST_LEN_LONGEST) |
                              PUT(CNA_DMA_CON0, DATA_BURST_LEN, NPK_BURST_LEN_LONGEST);
    /* LINE_STRIDE 4W and SURF_STRIDE W*H - 4W (two's complement in the field): a surface is
     * LINE_STRIDE + SURF_STRIDE = W*H atoms (Mesa's calc_line_stride / 4) */
    v[NPK_REG_CNA_DMA_CON1] = PUT(CNA_DMA_CON1, LINE_STRIDE, 4u * t->in_w);
    v[NPK_REG_CNA_DMA_CON2] =
        PUT(CNA_DMA_CON2, SURF_STRIDE, (uint32_t)(t->in_w * t->in_h - 4u * t->in_w));
    v[NPK_REG_CNA_FC_DATA_SIZE0] = PUT(CNA_FC_DATA_SIZE0, DMA_WIDTH, t->in_w) |
                                   PUT(CNA_FC_DATA_SIZE0, DMA_HEIGHT, t->in_h);
    v[NPK_REG_CNA_FC_DATA_SIZE1] = PUT(CNA_FC_DATA_SIZE1, DMA_CHANNEL, cin);
    v[NPK_REG_CNA_DCOMP_ADDR0] = t->weights;
    v[NPK_REG_CNA_PAD_CON1] = 0; /* the border reads +0.0 */

    /* ---- CORE ---- */
    v[NPK_REG_CORE_MISC_CFG] = PUT(CORE_MISC_CFG, PROC_PRECISION, t->prec) |
                               PUT(CORE_MISC_CFG, DW_EN, t->depthwise) | PUT(CORE_MISC_CFG, QD_EN, 1);
    v[NPK_REG_CORE_DATAOUT_SIZE_0] = PUT(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT, t->out_h - 1) |
                                     PUT(CORE_DATAOUT_SIZE_0, DATAOUT_WIDTH, t->out_w - 1);
    v[NPK_REG_CORE_DATAOUT_SIZE_1] = PUT(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL, t->out_c - 1);

    /* ---- DPU ---- */
    v[NPK_REG_DPU_FEATURE_MODE_CFG] =
        PUT(DPU_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
        PUT(DPU_FEATURE_MODE_CFG, CONV_MODE, mode) |
        PUT(DPU_FEATURE_MODE_CFG, OUTPUT_MODE, NPK_DPU_OUTPUT_MODE_MEMORY);
    v[NPK_REG_DPU_DATA_FORMAT] = PUT(DPU_DATA_FORMAT, OUT_PRECISION, out) |
                                 PUT(DPU_DATA_FORMAT, IN_PRECISION, t->prec) |
                                 PUT(DPU_DATA_FORMAT, PROC_PRECISION, t->prec);
    v[NPK_REG_DPU_DST_BASE_ADDR] = t->out;
    v[NPK_REG_DPU_DST_SURF_STRIDE] = PUT(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE, t->out_w * t->out_h);
    v[NPK_REG_DPU_DATA_CUBE_WIDTH] = PUT(DPU_DATA_CUBE_WIDTH, WIDTH, t->out_w - 1);
    v[NPK_REG_DPU_DATA_CUBE_HEIGHT] = PUT(DPU_DATA_CUBE_HEIGHT, HEIGHT, t->out_h - 1);
    v[NPK_REG_DPU_DATA_CUBE_CHANNEL] = PUT(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL, t->out_c - 1) |
                                       PUT(DPU_DATA_CUBE_CHANNEL, CHANNEL, t->out_c - 1);
    /* BS stage: the bias through the ALU (SUM, from the feed: 0x20150 as the spec's conv
     * output stage), the clamp through ReLU/ReLUX. The MUL is never used. */
    const bool relu = t->clamp != NPK_RK_CLAMP_NONE;
    v[NPK_REG_DPU_BS_CFG] = PUT(DPU_BS_CFG, BS_ALU_ALGO, BS_ALU_SUM) |
                            PUT(DPU_BS_CFG, BS_ALU_SRC, BS_ALU_SRC_MEMORY) |
                            PUT(DPU_BS_CFG, BS_RELUX_EN, t->clamp == NPK_RK_CLAMP_RELUX) |
                            PUT(DPU_BS_CFG, BS_RELU_BYPASS, !relu) | PUT(DPU_BS_CFG, BS_MUL_BYPASS, 1);
    v[NPK_REG_DPU_BS_RELUX_CMP_VALUE] = t->clamp == NPK_RK_CLAMP_RELUX ? f32_bits(t->relux) : 0;
    const uint32_t se = npk_rk_conv_size_e(t->prec, t->depthwise);
    v[NPK_REG_DPU_BS_OW_CFG] = PUT(DPU_BS_OW_CFG, SIZE_E_2, se) | PUT(DPU_BS_OW_CFG, SIZE_E_1, se) |
                               PUT(DPU_BS_OW_CFG, SIZE_E_0, se);
    v[NPK_REG_DPU_WDMA_SIZE_0] = PUT(DPU_WDMA_SIZE_0, CHANNEL_WDMA, t->out_c - 1);
    v[NPK_REG_DPU_WDMA_SIZE_1] = PUT(DPU_WDMA_SIZE_1, HEIGHT_WDMA, t->out_h - 1) |
                                 PUT(DPU_WDMA_SIZE_1, WIDTH_WDMA, t->out_w - 1);
    v[NPK_REG_DPU_BN_CFG] = PUT(DPU_BN_CFG, BN_RELU_BYPASS, 1) | PUT(DPU_BN_CFG, BN_MUL_BYPASS, 1) |
                            PUT(DPU_BN_CFG, BN_ALU_BYPASS, 1) | PUT(DPU_BN_CFG, BN_BYPASS, 1);
    v[NPK_REG_DPU_EW_CFG] = PUT(DPU_EW_CFG, EW_RELU_BYPASS, 1) | PUT(DPU_EW_CFG, EW_OP_CVT_BYPASS, 1) |
                            PUT(DPU_EW_CFG, EW_LUT_BYPASS, 1) | PUT(DPU_EW_CFG, EW_OP_BYPASS, 1) |
                            PUT(DPU_EW_CFG, EW_BYPASS, 1);
    v[NPK_REG_DPU_EW_CVT_SCALE_VALUE] = PUT(DPU_EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, 1);
    /* the output stage's row: fp32 accumulator -> fp16 through FP32TOFP16_EN (spec "fp16
     * matmul -> fp16 output"), int8's int32 accumulator written at scale 1 */
    v[NPK_REG_DPU_OUT_CVT_SCALE] = stage->out_cvt_scale;
    v[NPK_REG_DPU_OUT_CVT_SHIFT] = PUT(DPU_OUT_CVT_SHIFT, OUT_CVT_SHIFT, stage->out_cvt_shift);
    /* one kernel group of G channels = G / C2(out) output surfaces (fp16 16 / 8 = two: Mesa's
     * surfaces_per_row; int8's int32 32 / 4 = eight: INF, the same rule) */
    v[NPK_REG_DPU_SURFACE_ADD] = PUT(DPU_SURFACE_ADD, SURF_ADD,
                                     (npk_rk_conv_kgroup(t->prec) / npk_rk_conv_c2(out)) *
                                         t->out_w * t->out_h);

    /* ---- the 0x50xx feed: the spec's conv capture order, H-1 then W-1 then Cout-1 ---- */
    v[NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH] = t->out_h - 1;  /* 0x500C: H-1 (spec) */
    v[NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT] = t->out_w - 1; /* 0x5010: W-1 (spec) */
    v[NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL] = t->out_c - 1;
    v[NPK_REG_DPU_RDMA_BRDMA_CFG] = PUT(DPU_RDMA_BRDMA_CFG, BRDMA_DATA_USE, 1);
    v[NPK_REG_DPU_RDMA_BS_BASE_ADDR] = t->bias;
    v[NPK_REG_DPU_RDMA_ERDMA_CFG] = PUT(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE, 1);
    v[NPK_REG_DPU_RDMA_FEATURE_MODE_CFG] =
        PUT(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION, t->prec) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, PROC_PRECISION, t->prec) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE, 1) |
        PUT(DPU_RDMA_FEATURE_MODE_CFG, CONV_MODE, mode);
    v[NPK_REG_DPU_RDMA_WEIGHT] = RDMA_WEIGHTS_EQUAL;
}

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
    NPK_RK_RUN_CNA_SIZES,
    NPK_REG_CNA_CBUF_CON1,
    NPK_RK_RUN_CNA_FEED,
    NPK_REG_CNA_DCOMP_ADDR0,
    NPK_REG_CNA_CVT_CON5,
    NPK_REG_CNA_PAD_CON1,
    /* CORE */
    NPK_RK_RUN_CORE,
    /* DPU */
    NPK_RK_RUN_DPU_STAGES,
    NPK_REG_DPU_OUT_CVT_OFFSET,
    NPK_REG_DPU_OUT_CVT_SCALE,
    NPK_REG_DPU_OUT_CVT_SHIFT,
    NPK_REG_DPU_SURFACE_ADD,
    /* the 0x50xx input feed */
    NPK_RK_RUN_DPU_RDMA_FEED,
    NPK_REG_CNA_CBUF_CON0, /* Mesa writes the bank split again after the sizes */
};
#define CONV_BODY (sizeof conv_order / sizeof conv_order[0])

npk_status npk_rk_synth_conv(const npk_rk_conv *task, npk_rk_entry *body)
{
    npk_rk_conv t = *task;
    npk_rk_conv_banks(&t);
    if (!t.unchecked) {
        npk_status s = npk_rk_conv_check(&t);
        if (s)
            return s;
    }
    uint32_t v[NPK_REG_COUNT] = {0};
    values(&t, v);
    for (unsigned i = 0; i < CONV_BODY; i++)
        body[i] = npk_rk_entry_reg_write(conv_order[i], v[conv_order[i]]);
    return NPK_OK;
}

/* The convolution's driver row (rk_op_synth.h); its task's arguments are an npk_rk_conv. A
 * task is checked with the CBUF split it will be synthesized with. */
static npk_status conv_check(const void *args)
{
    npk_rk_conv c = *(const npk_rk_conv *)args;
    npk_rk_conv_banks(&c);
    return npk_rk_conv_check(&c);
}

static npk_status conv_synth(const void *args, npk_rk_entry *body)
{
    return npk_rk_synth_conv(args, body);
}

static npk_rk_prec conv_out(const void *args) { return ((const npk_rk_conv *)args)->prec; }

static void conv_sample(void *args, uint32_t in, uint32_t in2, uint32_t out)
{
    *(npk_rk_conv *)args = (npk_rk_conv){
        .prec = NPK_PREC_FP16, .in_h = 6, .in_w = 5, .in_c = 3, .out_h = 6, .out_w = 5,
        .out_c = 4, .k_h = 3, .k_w = 3, .stride_y = 1, .stride_x = 1, .pad_top = 1,
        .pad_left = 1, .in = in, .weights = in2, .bias = in2 + 0x8000, .out = out};
}

const npk_rk_op_synth npk_rk_op_synth_conv = {
    .order = conv_order,
    .body = CONV_BODY,
    .args_size = sizeof(npk_rk_conv),
    .check = conv_check,
    .synth = conv_synth,
    .out_prec = conv_out,
    .sample = conv_sample,
};
