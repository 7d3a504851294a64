/* SPDX-License-Identifier: MIT */
/* Decoding a convolution task from the register files. Every value comes from a field named
 * by the register table; what the model requires of the registers is one table of rows on the
 * simulator's rule engine (rules.h), and anything outside them is "unsupported by the model",
 * naming the register, the field, what was expected and why. The geometry model (rk_conv.h,
 * docs/facts-engines.md "The convolution path"):
 *
 *   feature  [DATAIN_CHANNEL/C2][H][W][C2] atoms at FEATURE_DATA_ADDR (C2: 8 fp16, 16 int8);
 *            a row is W atoms (LINE_STRIDE = 4W), a surface LINE_STRIDE + SURF_STRIDE = W*H
 *            atoms;
 *   weights  at DCOMP_ADDR0: direct [Cout/G][C/32][KH][KW][G][32] (G: fp16 16, int8 32), depthwise
 *            [C/32][KH][KW][32]; WEIGHT_BYTES_PER_KERNEL = KH*KW*ceil32(C)*element bytes;
 *   bias     fp32 (int8: int32) [Cout] at the feed's BS_BASE_ADDR when the BS ALU adds from
 *            memory;
 *   output   [Cout/C2][OH][OW][C2] at DST_BASE_ADDR (fp16 8, int32 4), DST_SURF_STRIDE = OH*OW
 *            atoms.
 * The precisions are the conv rows of rk_conv_hw.h (fp16 -> fp16, int8 -> int32); the input and
 * padding reads return 0 outside the input.
 */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_outstage.h"
#include "npukit/rk_regs.h"
#include "rk/hw/rk_conv_hw.h"
#include "rksim/conv.h"
#include "rksim/regs_view.h"
#include "rksim/rules.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define R(reg) rksim_reg(rf, NPK_REG_##reg)
#define BIT(reg, field) npk_rk_field_mask(NPK_RKF(reg, field))

typedef enum guard {
    G_ALL = RKSIM_WHEN_ALL,
    G_DIRECT,    /* CONV_MODE direct */
    G_DW,        /* CONV_MODE depthwise */
    G_NOT_RELUX, /* no ReLUX bound */
    G_INT,       /* an integer conv (int32 accumulator out) */
} guard;

typedef enum quantity {
    Q_CONST = RKSIM_Q_CONST,
    Q_FIELD = RKSIM_Q_FIELD,
    Q_LINE = RKSIM_Q_DECODER, /* 4 * DATAIN_WIDTH */
    Q_SURF_ATOMS,             /* DATAIN_WIDTH * DATAIN_HEIGHT */
    Q_CIN_ATOM,               /* DATAIN_CHANNEL_REAL + 1 rounded up to 8 */
    Q_KERNEL_BYTES,           /* KH * KW * ceil32(C) * 2 */
    Q_WEIGHT_BYTES,           /* the layout's bytes */
    Q_OUT_ATOMS,              /* OH * OW */
    Q_SURF_ADD,               /* one kernel group's output surfaces */
    Q_ROW_ENTRIES,            /* CBUF entries of one input row */
    Q_DATA_BANKS,             /* banks the input needs */
    Q_BANKS_FREE,             /* 12 - DATA_BANK */
    Q_PP,                     /* the ping-pong bits (Mesa's DPU value) */
    Q_KERNELS,                /* Cout (direct) or 1 (depthwise) */
    Q_FORMAT_OTHER,           /* DATA_FORMAT bits other than the precisions */
    Q_CVT_BYPASS,             /* CNA_CVT_CON0 = CVT_BYPASS alone */
    Q_BS_OTHER,               /* BS_CFG bits outside ALU/RELU/RELUX/bypasses */
    Q_BN_BYPASSED,            /* BN_CFG fully bypassed */
    Q_EW_BYPASSED,            /* EW_CFG fully bypassed */
    Q_OW_CFG,                 /* BS_OW_CFG: SIZE_E 1 (3 depthwise) in all three fields */
    Q_FEED_MODE,              /* DPU_RDMA_FEATURE_MODE_CFG of the conv feed */
    Q_OUT_PREC,               /* the output precision of the input's conv row */
    Q_CVT_SCALE,              /* DPU_OUT_CVT_SCALE of that row's output stage */
    Q_CVT_SHIFT,              /* DPU_OUT_CVT_SHIFT of that row's output stage */
} quantity;

#define FLD(reg, field) NPK_REG_##reg, NPK_RKF(reg, field)
#define REG(reg) NPK_REG_##reg, RKSIM_RULE_WHOLE
#define IS(v) RKSIM_REL_EQ, Q_CONST, (v)
#define IS_Q(q) RKSIM_REL_EQ, q, 0
#define LE_Q(q) RKSIM_REL_LE, q, 0
#define GE_Q(q) RKSIM_REL_GE, q, 0
#define SAME_AS(reg, field) RKSIM_REL_EQ, Q_FIELD, NPK_RKF(reg, field)
#define CLEAR(q) RKSIM_REL_MASK_CLEAR, q, 0

static const char prec[] = "one precision through the CNA, CORE, DPU and feed (fp16 or int8)";
static const char outp[] = "the conv row's output: fp16 for fp16, the int32 accumulator for "
                           "int8 (the narrow requantised write-out never completes)";
static const char mode[] = "the direct (0) and depthwise (3) modes, the same in CNA, DPU and feed";
static const char layout[] = "the feature is read in the atom layout (Mesa: LINE_STRIDE 4W, "
                             "LINE_STRIDE + SURF_STRIDE = W*H atoms)";
static const char wlayout[] = "the conv weight layout (docs/facts-engines.md)";
static const char outc[] = "the output cube agrees in the CORE, the DPU and its write DMA";
static const char feed[] = "the 0x50xx feed of the spec's conv capture: H-1, W-1, Cout-1";
static const char cvt[] = "the output stage's row: scale 1 with FP32TOFP16_EN for fp16 out, "
                          "scale 1 for int32";
static const char undescribed[] = "not described for a convolution";
static const char cbuf[] = "the CBUF split holds the whole input and leaves the weights a bank";

static const rksim_rule rows[] = {
    /* ---- modes and precision ---- */
    {FLD(CNA_CONV_CON1, PROC_PRECISION), G_ALL, SAME_AS(CNA_CONV_CON1, IN_PRECISION), prec},
    {FLD(CORE_MISC_CFG, PROC_PRECISION), G_ALL, SAME_AS(CNA_CONV_CON1, IN_PRECISION), prec},
    {FLD(DPU_DATA_FORMAT, PROC_PRECISION), G_ALL, SAME_AS(CNA_CONV_CON1, IN_PRECISION), prec},
    {FLD(DPU_DATA_FORMAT, IN_PRECISION), G_ALL, SAME_AS(CNA_CONV_CON1, IN_PRECISION), prec},
    {FLD(DPU_DATA_FORMAT, OUT_PRECISION), G_ALL, IS_Q(Q_OUT_PREC), outp},
    {REG(DPU_DATA_FORMAT), G_ALL, CLEAR(Q_FORMAT_OTHER), "no shift/truncate fields"},
    {FLD(CNA_CONV_CON1, DECONV), G_ALL, IS(0), undescribed},
    {FLD(CNA_CONV_CON1, ARGB_IN), G_ALL, IS(0), "image input is not modelled"},
    {FLD(CNA_CONV_CON1, NONALIGN_DMA), G_ALL, IS(0), "image input is not modelled"},
    {FLD(CNA_CONV_CON3, NN_MODE), G_ALL, IS(0), undescribed},
    {FLD(CNA_CONV_CON3, ATROUS_X_DILATION), G_ALL, IS(0),
     "dilation registers: no board-run program sets them (a zero-inserted kernel dilates)"},
    {FLD(CNA_CONV_CON3, ATROUS_Y_DILATION), G_ALL, IS(0),
     "dilation registers: no board-run program sets them (a zero-inserted kernel dilates)"},
    {FLD(CNA_CONV_CON3, DECONV_X_STRIDE), G_ALL, IS(0), undescribed},
    {FLD(CNA_CONV_CON3, DECONV_Y_STRIDE), G_ALL, IS(0), undescribed},
    {FLD(CNA_CONV_CON3, CONV_X_STRIDE), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero stride"},
    {FLD(CNA_CONV_CON3, CONV_Y_STRIDE), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero stride"},
    {FLD(DPU_FEATURE_MODE_CFG, CONV_MODE), G_ALL, SAME_AS(CNA_CONV_CON1, CONV_MODE), mode},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, CONV_MODE), G_ALL, SAME_AS(CNA_CONV_CON1, CONV_MODE), mode},
    {FLD(CORE_MISC_CFG, DW_EN), G_DIRECT, IS(0), mode},
    {FLD(CORE_MISC_CFG, DW_EN), G_DW, IS(1), mode},
    {FLD(CORE_MISC_CFG, QD_EN), G_ALL, IS(1), "QD_EN as every conv program sets it (Mesa)"},
    {REG(DPU_S_POINTER), G_ALL, IS_Q(Q_PP), "the conv's DPU ping-pong bits (Mesa)"},
    {FLD(DPU_FEATURE_MODE_CFG, OUTPUT_MODE), G_ALL, IS(NPK_DPU_OUTPUT_MODE_MEMORY),
     "the conv writes to memory"},
    {FLD(DPU_FEATURE_MODE_CFG, FLYING_MODE), G_ALL, IS(0), "the feature comes from the CORE"},
    {FLD(DPU_FEATURE_MODE_CFG, TP_EN), G_ALL, IS(0), undescribed},
    {FLD(DPU_FEATURE_MODE_CFG, COMB_USE), G_ALL, IS(0), undescribed},
    {REG(DPU_RDMA_FEATURE_MODE_CFG), G_ALL, IS_Q(Q_FEED_MODE),
     "the conv feed: burst 15, MRDMA disabled, the conv's precision and mode (Mesa)"},
    {FLD(CNA_CVT_CON0, CVT_BYPASS), G_ALL, IS(1), "the input is not converted"},
    {REG(CNA_CVT_CON0), G_ALL, IS_Q(Q_CVT_BYPASS), "the input is not converted"},
    {REG(CNA_CVT_CON5), G_ALL, IS(0), "per-channel input conversion is not modelled"},
    {REG(CNA_PAD_CON1), G_ALL, IS(0), "the border reads 0"},
    {REG(CNA_FC_CON0), G_ALL, IS(0), undescribed},
    {REG(CNA_FC_CON1), G_ALL, IS(0), undescribed},
    {REG(CNA_FC_CON2), G_ALL, IS(0), undescribed},
    {REG(CNA_DCOMP_CTRL), G_ALL, IS(0), "weight decompression is not modelled"},
    {REG(CORE_CLIP_TRUNCATE), G_ALL, IS(0), "no truncation (fp16 has none, int32 is exact)"},

    /* ---- geometry: input ---- */
    {FLD(CNA_DATA_SIZE0, DATAIN_WIDTH), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero input width"},
    {FLD(CNA_DATA_SIZE0, DATAIN_HEIGHT), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero input height"},
    {FLD(CNA_DATA_SIZE1, DATAIN_CHANNEL), G_ALL, IS_Q(Q_CIN_ATOM),
     "DATAIN_CHANNEL is the real channels rounded up to the 8-channel atom"},
    {FLD(CNA_FC_DATA_SIZE0, DMA_WIDTH), G_ALL, SAME_AS(CNA_DATA_SIZE0, DATAIN_WIDTH), layout},
    {FLD(CNA_FC_DATA_SIZE0, DMA_HEIGHT), G_ALL, SAME_AS(CNA_DATA_SIZE0, DATAIN_HEIGHT), layout},
    {FLD(CNA_FC_DATA_SIZE1, DMA_CHANNEL), G_ALL, SAME_AS(CNA_DATA_SIZE1, DATAIN_CHANNEL), layout},
    {FLD(CNA_DMA_CON1, LINE_STRIDE), G_ALL, IS_Q(Q_LINE), layout},
    {FLD(CNA_DMA_CON2, SURF_STRIDE), G_ALL, IS_Q(Q_SURF_ATOMS), layout},
    {FLD(CNA_CBUF_CON1, DATA_ENTRIES), G_ALL, IS_Q(Q_ROW_ENTRIES),
     "DATA_ENTRIES is the CBUF entries of one input row"},
    {FLD(CNA_CBUF_CON0, DATA_BANK), G_ALL, GE_Q(Q_DATA_BANKS), cbuf},
    {FLD(CNA_CBUF_CON0, WEIGHT_BANK), G_ALL, RKSIM_REL_NE, Q_CONST, 0, cbuf},
    {FLD(CNA_CBUF_CON0, WEIGHT_BANK), G_ALL, LE_Q(Q_BANKS_FREE), cbuf},
    {FLD(CNA_CBUF_CON0, FC_DATA_BANK), G_ALL, IS(0), undescribed},
    {FLD(CNA_CBUF_CON0, DATA_REUSE), G_ALL, IS(0), "CBUF reuse across tasks is not modelled"},
    {FLD(CNA_CBUF_CON0, WEIGHT_REUSE), G_ALL, IS(0), "CBUF reuse across tasks is not modelled"},

    /* ---- geometry: kernel and weights ---- */
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero kernel"},
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero kernel"},
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS), G_ALL, IS_Q(Q_KERNELS),
     "one kernel per output channel (depthwise: one kernel)"},
    {FLD(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL), G_ALL, IS_Q(Q_KERNEL_BYTES), wlayout},
    {REG(CNA_WEIGHT_SIZE0), G_ALL, IS_Q(Q_WEIGHT_BYTES), wlayout},

    /* ---- geometry: output ---- */
    {FLD(CNA_DATA_SIZE2, DATAOUT_WIDTH), G_ALL, RKSIM_REL_NE, Q_CONST, 0, "a zero output width"},
    {FLD(CNA_DATA_SIZE3, DATAOUT_ATOMICS), G_ALL, IS_Q(Q_OUT_ATOMS),
     "DATAOUT_ATOMICS is OW x OH (Mesa)"},
    {FLD(CNA_DATA_SIZE3, SURF_MODE), G_ALL, IS(0), undescribed},
    {FLD(DPU_DATA_CUBE_WIDTH, WIDTH), G_ALL, SAME_AS(CORE_DATAOUT_SIZE_0, DATAOUT_WIDTH), outc},
    {FLD(DPU_DATA_CUBE_HEIGHT, HEIGHT), G_ALL, SAME_AS(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT), outc},
    {FLD(DPU_DATA_CUBE_HEIGHT, MINMAX_CTL), G_ALL, IS(0), undescribed},
    {FLD(DPU_DATA_CUBE_CHANNEL, CHANNEL), G_ALL, SAME_AS(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL),
     outc},
    {FLD(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL),
     outc},
    {FLD(DPU_WDMA_SIZE_0, CHANNEL_WDMA), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL), outc},
    {FLD(DPU_WDMA_SIZE_1, WIDTH_WDMA), G_ALL, SAME_AS(DPU_DATA_CUBE_WIDTH, WIDTH), outc},
    {FLD(DPU_WDMA_SIZE_1, HEIGHT_WDMA), G_ALL, SAME_AS(DPU_DATA_CUBE_HEIGHT, HEIGHT), outc},
    {FLD(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE), G_ALL, IS_Q(Q_OUT_ATOMS),
     "the output is the atom layout, one surface OH x OW atoms"},
    {FLD(DPU_SURFACE_ADD, SURF_ADD), G_ALL, IS_Q(Q_SURF_ADD),
     "SURFACE_ADD is one kernel group's output surfaces (a wild value wild-writes)"},
    {REG(DPU_DATA_CUBE_NOTCH_ADDR), G_ALL, IS(0), undescribed},
    {REG(DPU_BS_OW_CFG), G_ALL, IS_Q(Q_OW_CFG), "the conv write-out SIZE_E (Mesa)"},
    {REG(DPU_OFFSET_PEND), G_ALL, IS(0), undescribed},

    /* ---- the DPU stages: bias, clamp, output ---- */
    {REG(DPU_BS_CFG), G_ALL, CLEAR(Q_BS_OTHER), "the BS stage: bias add and ReLU/ReLUX only"},
    {FLD(DPU_BS_CFG, BS_MUL_BYPASS), G_ALL, IS(1), "the BS multiplier is not modelled"},
    {FLD(DPU_BS_CFG, BS_ALU_ALGO), G_ALL, IS(2), "the bias is added (SUM)"},
    {FLD(DPU_BS_CFG, BS_ALU_SRC), G_ALL, IS(1), "the bias comes from the feed"},
    {FLD(DPU_RDMA_BRDMA_CFG, BRDMA_DATA_USE), G_ALL, IS(1), "the feed reads the bias"},
    {REG(DPU_BS_RELUX_CMP_VALUE), G_NOT_RELUX, IS(0), "a ReLUX bound with ReLUX off"},
    {FLD(DPU_BS_CFG, BS_RELU_BYPASS), G_INT, IS(1),
     "no clamp on the int32 accumulator (the host clamps after requantising)"},
    {FLD(DPU_BS_CFG, BS_RELUX_EN), G_INT, IS(0),
     "no clamp on the int32 accumulator (the host clamps after requantising)"},
    {REG(DPU_BN_CFG), G_ALL, IS_Q(Q_BN_BYPASSED), "the BN stage must be bypassed"},
    {REG(DPU_EW_CFG), G_ALL, IS_Q(Q_EW_BYPASSED), "the EW stage must be bypassed in a conv"},
    {REG(DPU_OUT_CVT_SCALE), G_ALL, IS_Q(Q_CVT_SCALE), cvt},
    {REG(DPU_OUT_CVT_SHIFT), G_ALL, IS_Q(Q_CVT_SHIFT), cvt},
    {REG(DPU_OUT_CVT_OFFSET), G_ALL, IS(0), cvt},
    {REG(DPU_RDMA_ERDMA_CFG), G_ALL, IS(1), "no EW operand in a conv (ERDMA_DISABLE)"},
    {REG(DPU_RDMA_NRDMA_CFG), G_ALL, IS(0), undescribed},

    /* ---- the feed's cube (spec conv capture order) ---- */
    {REG(DPU_RDMA_S_POINTER), G_ALL, IS(NPK_RK_CONV_FEED_MODE), feed},
    {REG(DPU_RDMA_DATA_CUBE_WIDTH), G_ALL, SAME_AS(DPU_DATA_CUBE_HEIGHT, HEIGHT), feed},
    {REG(DPU_RDMA_DATA_CUBE_HEIGHT), G_ALL, SAME_AS(DPU_DATA_CUBE_WIDTH, WIDTH), feed},
    {REG(DPU_RDMA_DATA_CUBE_CHANNEL), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL), feed},
    {REG(DPU_RDMA_SRC_BASE_ADDR), G_ALL, IS(0), "no main feature read in a conv"},
    {REG(DPU_RDMA_SRC_DMA_CFG), G_ALL, IS(0), undescribed},
    {REG(DPU_RDMA_SURF_NOTCH), G_ALL, IS(0), undescribed},
    {REG(DPU_RDMA_PAD_CFG), G_ALL, IS(0), undescribed},
    {REG(DPU_RDMA_EW_SURF_NOTCH), G_ALL, IS(0), undescribed},
};

static bool dw(const rksim_regfile *rf) { return F(CNA_CONV_CON1, CONV_MODE) == NPK_RK_CONV_MODE_DEPTHWISE; }

/* The input precision's conv row; the decode refuses a task without one before the rules. */
static const npk_rk_conv_prec *prec_row(const rksim_regfile *rf)
{
    return npk_rk_conv_prec_of((npk_rk_prec)F(CNA_CONV_CON1, IN_PRECISION));
}

static bool applies(int when, const rksim_regfile *rf, const void *ctx)
{
    (void)ctx;
    switch ((guard)when) {
    case G_ALL: return true;
    case G_DIRECT: return F(CNA_CONV_CON1, CONV_MODE) == NPK_CONV_MODE_DIRECT;
    case G_DW: return dw(rf);
    case G_NOT_RELUX: return !F(DPU_BS_CFG, BS_RELUX_EN);
    case G_INT: return prec_row(rf)->out != NPK_PREC_FP16;
    }
    return true;
}

static uint64_t up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

static int64_t quantity_of(int q, const rksim_regfile *rf, const void *ctx)
{
    const npk_rk_soc *soc = ctx;
    const uint64_t w = F(CNA_DATA_SIZE0, DATAIN_WIDTH), h = F(CNA_DATA_SIZE0, DATAIN_HEIGHT);
    const uint64_t c = (uint64_t)F(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL) + 1;
    const uint64_t kh = F(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT), kw = F(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH);
    const uint64_t ow = (uint64_t)F(CORE_DATAOUT_SIZE_0, DATAOUT_WIDTH) + 1;
    const uint64_t oh = (uint64_t)F(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT) + 1;
    const uint64_t oc = (uint64_t)F(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL) + 1;
    const uint32_t mode = F(CNA_CONV_CON1, CONV_MODE);
    const npk_rk_conv_prec *row = prec_row(rf);
    const npk_rk_prec in = row->in;
    const npk_rk_out_stage *stage = npk_rk_out_stage_find(in, row->out);
    switch ((quantity)q) {
    case Q_CONST:
    case Q_FIELD: return 0;
    case Q_LINE: return (int64_t)(4 * w);
    case Q_SURF_ATOMS:
        return (int64_t)((uint32_t)(w * h - 4 * w) & BIT(CNA_DMA_CON2, SURF_STRIDE));
    case Q_CIN_ATOM: return (int64_t)up(c, npk_rk_conv_c2(in));
    case Q_KERNEL_BYTES:
        return (int64_t)npk_rk_conv_kernel_bytes(in, (uint32_t)c, (uint32_t)kh, (uint32_t)kw);
    case Q_WEIGHT_BYTES:
        return (int64_t)npk_rk_conv_weight_bytes(in, dw(rf), (uint32_t)oc, (uint32_t)c,
                                                 (uint32_t)kh, (uint32_t)kw);
    case Q_OUT_ATOMS: return (int64_t)(ow * oh);
    case Q_SURF_ADD:
        return (int64_t)(npk_rk_conv_kgroup(in) / npk_rk_conv_c2(row->out) * ow * oh);
    case Q_ROW_ENTRIES: return npk_rk_conv_row_entries(soc, in, (uint32_t)c, (uint32_t)w);
    case Q_DATA_BANKS:
        return npk_rk_conv_data_banks(soc, in, (uint32_t)c, (uint32_t)h, (uint32_t)w);
    case Q_BANKS_FREE:
        return (int64_t)npk_rk_soc_or_default(soc)->cbuf_banks - F(CNA_CBUF_CON0, DATA_BANK);
    case Q_PP:
        return BIT(DPU_S_POINTER, POINTER_PP_MODE) | BIT(DPU_S_POINTER, EXECUTER_PP_EN) |
               BIT(DPU_S_POINTER, POINTER_PP_EN);
    case Q_KERNELS: return dw(rf) ? 1 : (int64_t)oc;
    case Q_FORMAT_OTHER:
        return ~(BIT(DPU_DATA_FORMAT, OUT_PRECISION) | BIT(DPU_DATA_FORMAT, IN_PRECISION) |
                 BIT(DPU_DATA_FORMAT, PROC_PRECISION)) &
               UINT32_MAX;
    case Q_CVT_BYPASS: return BIT(CNA_CVT_CON0, CVT_BYPASS);
    case Q_BS_OTHER:
        return ~(BIT(DPU_BS_CFG, BS_ALU_ALGO) | BIT(DPU_BS_CFG, BS_ALU_SRC) |
                 BIT(DPU_BS_CFG, BS_RELUX_EN) | BIT(DPU_BS_CFG, BS_RELU_BYPASS) |
                 BIT(DPU_BS_CFG, BS_MUL_BYPASS) | BIT(DPU_BS_CFG, BS_ALU_BYPASS) |
                 BIT(DPU_BS_CFG, BS_BYPASS)) &
               UINT32_MAX;
    case Q_BN_BYPASSED:
        return BIT(DPU_BN_CFG, BN_RELU_BYPASS) | BIT(DPU_BN_CFG, BN_MUL_BYPASS) |
               BIT(DPU_BN_CFG, BN_ALU_BYPASS) | BIT(DPU_BN_CFG, BN_BYPASS);
    case Q_EW_BYPASSED:
        return BIT(DPU_EW_CFG, EW_RELU_BYPASS) | BIT(DPU_EW_CFG, EW_OP_CVT_BYPASS) |
               BIT(DPU_EW_CFG, EW_LUT_BYPASS) | BIT(DPU_EW_CFG, EW_OP_BYPASS) |
               BIT(DPU_EW_CFG, EW_BYPASS);
    case Q_OW_CFG: {
        uint32_t se = npk_rk_conv_size_e(in, dw(rf));
        return NPK_RKPUT(DPU_BS_OW_CFG, SIZE_E_2, se) | NPK_RKPUT(DPU_BS_OW_CFG, SIZE_E_1, se) |
               NPK_RKPUT(DPU_BS_OW_CFG, SIZE_E_0, se);
    }
    case Q_FEED_MODE:
        return NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION, in) |
               NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
               NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, PROC_PRECISION, in) |
               NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE, 1) |
               NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, CONV_MODE, mode);
    case Q_OUT_PREC: return row->out;
    case Q_CVT_SCALE: return stage->out_cvt_scale;
    case Q_CVT_SHIFT: return NPK_RKPUT(DPU_OUT_CVT_SHIFT, OUT_CVT_SHIFT, stage->out_cvt_shift);
    }
    return 0;
}

static const rksim_rule_ops conv_ops = {applies, quantity_of, NULL, NULL, NULL};

bool rksim_conv_decode(const npk_rk_soc *soc, const rksim_regfile *rf, rksim_conv *t,
                       rksim_core_result *r)
{
    memset(t, 0, sizeof *t);
    uint32_t m = F(CNA_CONV_CON1, CONV_MODE);
    if (m != NPK_CONV_MODE_DIRECT && m != 3)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: CNA_CONV_CON1 (0x100C) CONV_MODE %u: "
                                 "%s",
                                 m, mode);
    const npk_rk_conv_prec *row = prec_row(rf);
    if (!row)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: CNA_CONV_CON1 (0x100C) IN_PRECISION "
                                 "%u: %s (the modelled conv precisions: %s)",
                                 F(CNA_CONV_CON1, IN_PRECISION), prec, npk_rk_conv_prec_names());
    if (!rksim_rules_check(rows, sizeof rows / sizeof rows[0], rf, &conv_ops, (void *)soc, r))
        return false;
    t->prec = row->in;
    t->out_prec = row->out;
    t->depthwise = dw(rf);
    t->in_w = F(CNA_DATA_SIZE0, DATAIN_WIDTH);
    t->in_h = F(CNA_DATA_SIZE0, DATAIN_HEIGHT);
    t->in_c = F(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL) + 1;
    t->cin_atoms = F(CNA_DATA_SIZE1, DATAIN_CHANNEL);
    t->out_w = F(CORE_DATAOUT_SIZE_0, DATAOUT_WIDTH) + 1;
    t->out_h = F(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT) + 1;
    t->out_c = F(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL) + 1;
    if (t->depthwise && t->out_c != t->in_c)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: CORE_DATAOUT_SIZE_1 (0x3018) = %u "
                                 "channels in a depthwise conv of %u: depthwise keeps the "
                                 "channels",
                                 t->out_c, t->in_c);
    if (F(CNA_DATA_SIZE2, DATAOUT_WIDTH) != t->out_w)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: CNA_DATA_SIZE2 (0x1028) "
                                 "DATAOUT_WIDTH %u: %s (%u)",
                                 F(CNA_DATA_SIZE2, DATAOUT_WIDTH), outc, t->out_w);
    t->k_h = F(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT);
    t->k_w = F(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH);
    t->stride_y = F(CNA_CONV_CON3, CONV_Y_STRIDE);
    t->stride_x = F(CNA_CONV_CON3, CONV_X_STRIDE);
    t->pad_top = F(CNA_PAD_CON0, PAD_TOP);
    t->pad_left = F(CNA_PAD_CON0, PAD_LEFT);
    /* the right and bottom pads the output implies (Mesa programs only left/top) */
    const int64_t pr = ((int64_t)t->out_w - 1) * t->stride_x + t->k_w - t->in_w - t->pad_left;
    const int64_t pb = ((int64_t)t->out_h - 1) * t->stride_y + t->k_h - t->in_h - t->pad_top;
    const int64_t pad_max = npk_rk_field_get(NPK_RKF(CNA_PAD_CON0, PAD_LEFT), UINT32_MAX);
    if (pr > pad_max || pb > pad_max)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: CORE_DATAOUT_SIZE_0 (0x3014) %ux%u "
                                 "implies padding bottom %lld right %lld, past the %lld of "
                                 "CNA_PAD_CON0",
                                 t->out_h, t->out_w, (long long)pb, (long long)pr,
                                 (long long)pad_max);
    t->bias = true; /* the conv row's mark: the BS ALU adds from memory */
    t->relu = !F(DPU_BS_CFG, BS_RELU_BYPASS);
    t->relux = F(DPU_BS_CFG, BS_RELUX_EN);
    if (t->relux && !t->relu)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: DPU_BS_CFG (0x4040) ReLUX with the "
                                 "ReLU bypassed is not described");
    uint32_t bound = R(DPU_BS_RELUX_CMP_VALUE);
    memcpy(&t->relux_bound, &bound, sizeof bound);
    t->in = R(CNA_FEATURE_DATA_ADDR);
    t->weights = R(CNA_DCOMP_ADDR0);
    t->bias_addr = R(DPU_RDMA_BS_BASE_ADDR);
    t->out = R(DPU_DST_BASE_ADDR);
    t->row_bytes = (uint64_t)F(CNA_DMA_CON1, LINE_STRIDE) * NPK_RK_ATOM_BYTES / 4;
    t->surf_bytes = (uint64_t)t->in_w * t->in_h * NPK_RK_ATOM_BYTES;
    t->out_surf_bytes = (uint64_t)F(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE) * NPK_RK_ATOM_BYTES;
    t->kernel_bytes = F(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL);
    t->weight_bytes = R(CNA_WEIGHT_SIZE0);
    return true;
}
