/* SPDX-License-Identifier: MIT */
/* Decoding a matmul from the register files. Every value comes from a register field named
 * through the register table. What the model requires of the registers is one table of
 * constraints (field, relation, expected value, reason) checked by the rule engine (rules.h,
 * shared with the SDP decoder); a value outside them is refused as "unsupported by the model",
 * naming the register and the field, unless the hazard table describes that deviation
 * (rksim_hazards_accept). Only the geometry that is
 * genuinely computed is code. The geometry model:
 *
 *   feature, line mode (GROUP_LINE_OFF=1): row m at FEATURE + m*LINE_STRIDE*16, K elements
 *     contiguous (facts C.1 #28, spec "0x107c ... reads STRIDED activations");
 *   feature, cube mode: [K/C2][M][C2]; rows in groups of 4 at LINE_STRIDE*16 (LINE_STRIDE = 4*W
 *     = 4), surfaces (C2 channels) at (LINE_STRIDE + SURF_STRIDE)*16 with SURF_STRIDE a signed
 *     28-bit value: 4*(M/4-1) (+1 when negative) gives M*16 for every M the facts list (C.1 #29);
 *   weights: [N/G][K/32][G][32] at DCOMP_ADDR0 (facts D.1), WEIGHT_BYTES = K*N*eb;
 *   output: element (m, n) of N-tile t = n/G, surface s = (n%G)/C2o, lane n%C2o at
 *     DST + t*SURFACE_ADD + s*DST_SURF_STRIDE + m*(NOTCH_ADDR_1+1)*16 + lane*ob, which is the
 *     row-major [M][s] of line mode (surface stride 16, SURFACE_ADD F*16, notch N*ob/16-1) and
 *     the [N/C2o][M][C2o] of cube mode (surface stride M*16, SURFACE_ADD M*F*16, notch 0) of
 *     facts C.1 #62/#65/#94 and D.3.
 */
#include <stdio.h>

#include "rk/hw/rk_cbuf.h"
#include "npukit/rk_outstage.h"
#include "npukit/rk_regs.h"
#include "npukit/rk_sdp_hw.h"
#include "npukit/rk_types.h"
#include "rksim/matmul.h"
#include "rksim/regs_view.h"
#include "rksim/rules.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define R(reg) rksim_reg(rf, NPK_REG_##reg)

/* The rule engine's context: the decoded matmul and where accepted hazards are recorded. */
typedef struct mm_ctx {
    rksim *s;
    rksim_mm *mm;
    uint32_t *hazards;
} mm_ctx;

/* The K tile of the weight layout [N/G][K/32][G][32] (facts D.1). */
enum { K_TILE = 32 };

/* Which rows apply: a condition on what was decoded (rules.h: 0 applies always). */
typedef enum guard {
    G_ALL = RKSIM_WHEN_ALL,
    G_LINE,            /* line-mode feature */
    G_CUBE,            /* cube-mode feature */
    G_PAD_UNDESCRIBED, /* the input precision has no described top pad (precision row) */
    G_PAD_TOP,         /* a top pad is programmed */
    G_COMPLETES,       /* the output stage completes (not the narrow requantized outputs) */
    G_ROWS,            /* row-major output (surface stride 16) */
    G_ROWS_NOTCHED,    /* ... other than the M=1 output written with a zero notch */
    G_CUBE_OUT,        /* cube output */
    G_PLAIN,           /* no K accumulation: the EW stage bypassed */
    G_ACCUM,           /* the K accumulation (facts C.6) */
    G_ACCUM_CVT,       /* ... with the EW operand converter on */
    G_BATCH,           /* several line-form rows of a precision with a batch rule (int4) */
} guard;

/* The sets of RKSIM_REL_IN_SET rows. */
enum {
    SET_INPUT, /* a matmul input precision (the precision rows) */
    SET_STAGE  /* an output precision of the input's output-stage rows */
};

/* The quantities this decoder computes (rules.h: the constant and another field are the
 * engine's own). */
typedef enum quantity {
    Q_CONST = RKSIM_Q_CONST,
    Q_FIELD = RKSIM_Q_FIELD,
    Q_IN = RKSIM_Q_DECODER, /* the CNA's input precision */
    Q_M,
    Q_M_1,
    Q_K,
    Q_K_1,
    Q_N_1,
    Q_KBYTES,          /* K*eb: one kernel's bytes */
    Q_WBYTES,          /* K*N*eb */
    Q_ENTRIES,         /* ceil(K*eb/entry bytes) (facts C.1 #16; 64 on RK3588) */
    Q_KLINES,          /* ceil(K*eb/16): 16-byte units of one feature row */
    Q_NTILE,           /* the input's weight N tile (precision row, facts D.1) */
    Q_F_1,             /* F - 1 (facts C.1 #71) */
    Q_ROW16_1,         /* ceil(N*ob/16) - 1: a row-major output row in 16-byte units, minus 1 */
    Q_STAGE_FP16,      /* FP32TOFP16_EN as the output-stage row programs it */
    Q_NEG_LINE_STRIDE, /* -LINE_STRIDE */
    Q_M16,             /* M*16: a surface of M atoms in bytes */
    Q_BATCH_GATE,      /* the batch rule's gate, K / entry elements (rk_cbuf.h) */
} quantity;

#define FLD(reg, field) NPK_REG_##reg, NPK_RKF(reg, field)
#define REG(reg) NPK_REG_##reg, RKSIM_RULE_WHOLE
#define IS(v) RKSIM_REL_EQ, Q_CONST, (v)
#define IS_Q(q) RKSIM_REL_EQ, q, 0
#define SAME_AS(reg, field) RKSIM_REL_EQ, Q_FIELD, NPK_RKF(reg, field)
#define REL_INPUT RKSIM_REL_IN_SET, Q_CONST, SET_INPUT
#define REL_STAGE RKSIM_REL_IN_SET, Q_CONST, SET_STAGE
#define REL_NE RKSIM_REL_NE
#define REL_GE RKSIM_REL_GE
#define REL_LE RKSIM_REL_LE
#define REL_MULTIPLE RKSIM_REL_MULTIPLE
#define REL_SIGNED_GT RKSIM_REL_SIGNED_GT

static const char direct[] = "only the plain direct convolution is modelled";
static const char no_fc[] = "skips, offsets and per-channel converts are not modelled";
static const char pad[] = "padding is described only as the int8 top row offset";
static const char no_shift[] = "shift/truncate fields are not modelled";
static const char to_memory[] = "only the write-to-memory output mode (0x1E4 family) is modelled";
static const char cvt[] = "the output converter is modelled at scale 1, shift 0, offset 0";
static const char kacc_fp16[] = "on-NPU K accumulation is fp16 (facts C.6, E.5)";
static const char kacc_add[] = "the K accumulation's EW stage is a plain per-element add";
static const char kacc_elem[] = "the partial is read per element (facts C.6's program)";
static const char kacc_cube[] = "the partial is an [N/8][M][8] atom cube";

/* EW_DATA_MODE / ERDMA_DATA_MODE of the K accumulation's per-element partial: 1 in the rocket
 * userspace program the facts describe (the vendor's SDP capture uses 2 for its per-element
 * operand, rk_sdp_hw.h; the model keeps each to the program it was seen in). */
enum { KACC_DATA_MODE = 1 };

static const rksim_rule rows[] = {
    /* ---- CNA: a 1x1 direct convolution over a W=1, H=M, C=K feature ---- */
    {FLD(CNA_CONV_CON1, IN_PRECISION), G_ALL, REL_INPUT, "the precision rows"},
    {FLD(CNA_CONV_CON1, PROC_PRECISION), G_ALL, IS_Q(Q_IN), "IN_PRECISION"},
    {FLD(CNA_CONV_CON1, CONV_MODE), G_ALL, IS(NPK_CONV_MODE_DIRECT), direct},
    {FLD(CNA_CONV_CON1, DECONV), G_ALL, IS(0), direct},
    {FLD(CNA_CONV_CON1, ARGB_IN), G_ALL, IS(0), direct},
    {FLD(CNA_CONV_CON1, NONALIGN_DMA), G_ALL, IS(0), direct},
    {FLD(CNA_CONV_CON3, CONV_X_STRIDE), G_ALL, IS(1), "a matmul convolves with stride 1"},
    {FLD(CNA_CONV_CON3, CONV_Y_STRIDE), G_ALL, IS(1), "a matmul convolves with stride 1"},
    {FLD(CNA_CONV_CON3, NN_MODE), G_ALL, IS(0), "a matmul convolves with stride 1"},
    {FLD(CORE_MISC_CFG, PROC_PRECISION), G_ALL, IS_Q(Q_IN), "the CNA's precision"},
    {FLD(CNA_DATA_SIZE0, DATAIN_WIDTH), G_ALL, IS(1), "a W=1 feature"},
    {FLD(CNA_DATA_SIZE0, DATAIN_HEIGHT), G_ALL, REL_NE, Q_CONST, 0, "M, a zero dimension"},
    {FLD(CNA_DATA_SIZE1, DATAIN_CHANNEL), G_ALL, REL_NE, Q_CONST, 0, "K, a zero dimension"},
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS), G_ALL, REL_NE, Q_CONST, 0, "N, a zero dimension"},
    {FLD(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL), G_ALL, IS_Q(Q_K_1), "K-1"},
    {FLD(CNA_DATA_SIZE1, DATAIN_CHANNEL), G_ALL, REL_MULTIPLE, Q_CONST, K_TILE,
     "the weight layout's K tile"},
    {FLD(CNA_FC_DATA_SIZE1, DMA_CHANNEL), G_ALL, IS_Q(Q_K), "K"},
    {FLD(CNA_FC_DATA_SIZE0, DMA_HEIGHT), G_ALL, IS_Q(Q_M), "a 1 x M DMA"},
    {FLD(CNA_FC_DATA_SIZE0, DMA_WIDTH), G_ALL, IS(1), "a 1 x M DMA"},
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH), G_ALL, IS(1), "1x1 kernels"},
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT), G_ALL, IS(1), "1x1 kernels"},
    {FLD(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL), G_ALL, IS_Q(Q_KBYTES), "K*eb"},
    {FLD(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS), G_ALL, REL_MULTIPLE, Q_NTILE, 0,
     "the input's weight N tile"},
    {FLD(CNA_WEIGHT_SIZE0, WEIGHT_BYTES), G_ALL, IS_Q(Q_WBYTES), "K*N*eb"},
    {FLD(CNA_DCOMP_CTRL, DECOMP_CONTROL), G_ALL, IS(0), "weight decompression is not modelled"},
    {REG(CNA_DCOMP_REGNUM), G_ALL, IS(0), "weight decompression is not modelled"},
    {FLD(CNA_CVT_CON0, CVT_BYPASS), G_ALL, IS(1), "the input converter must be bypassed"},
    {REG(CNA_FC_CON0), G_ALL, IS(0), no_fc},
    {REG(CNA_FC_CON1), G_ALL, IS(0), no_fc},
    {REG(CNA_FC_CON2), G_ALL, IS(0), no_fc},
    {FLD(CNA_CVT_CON5, PER_CHANNEL_CVT_EN), G_ALL, IS(0), no_fc},
    /* CNA_PAD_CON0.PAD_TOP: the int8 destination row offset (spec "0x1068 ... int8 output
     * row-offset": v moves every output row to physrow m + v, "a destination base-row offset";
     * rows pushed past the output are lost); described for int8 only, with a zero pad value */
    {FLD(CNA_PAD_CON0, PAD_LEFT), G_ALL, IS(0), pad},
    {FLD(CNA_PAD_CON0, PAD_TOP), G_PAD_UNDESCRIBED, IS(0), pad},
    {REG(CNA_PAD_CON1), G_PAD_TOP, IS(0), "only a zero pad value is described"},
    {FLD(CNA_DATA_SIZE2, DATAOUT_WIDTH), G_ALL, IS(1),
     "it perturbs the output incoherently otherwise, spec"},
    {FLD(CNA_CBUF_CON1, DATA_ENTRIES), G_ALL, IS_Q(Q_ENTRIES), "ceil(K*eb/64)"},
    /* feature geometry */
    {FLD(CNA_DMA_CON2, SURF_STRIDE), G_LINE, IS(0), "line mode reads with SURF_STRIDE 0"},
    {FLD(CNA_DMA_CON1, LINE_STRIDE), G_LINE, REL_GE, Q_KLINES, 0,
     "a feature row of K*eb bytes fits LINE_STRIDE x 16 bytes"},
    {FLD(CNA_DMA_CON1, LINE_STRIDE), G_CUBE, IS(4), "cube mode reads with LINE_STRIDE 4*W"},
    /* int4's native multi-M batch is described at one stride only: the gate 0x107c = K/16
     * (spec "0x107c — entries per activation slice", two lines per row); a single row reads
     * the same at any stride, several at another stride are outside the evidence */
    {FLD(CNA_DMA_CON1, LINE_STRIDE), G_BATCH, IS_Q(Q_BATCH_GATE),
     "several int4 rows are described at the batch gate K/16 only (spec 0x107c)"},
    {FLD(CNA_DMA_CON2, SURF_STRIDE), G_CUBE, REL_SIGNED_GT, Q_NEG_LINE_STRIDE, 0,
     "the surface pitch LINE_STRIDE + SURF_STRIDE is positive"},
    /* the CBUF bank split (spec "The M-tiling scheduler"): DATA_BANK + WEIGHT_BANK banks */
    {FLD(CNA_CBUF_CON0, FC_DATA_BANK), G_ALL, IS(0), "FC_DATA_BANK is not modelled"},

    /* ---- CORE ---- */
    {FLD(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT), G_ALL, IS_Q(Q_M_1), "a 1 x M output"},
    {FLD(CORE_DATAOUT_SIZE_0, DATAOUT_WIDTH), G_ALL, IS(0), "a 1 x M output"},
    {FLD(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL), G_ALL, IS_Q(Q_N_1), "N-1"},
    {REG(CORE_CLIP_TRUNCATE), G_ALL, IS(0), "accumulator clipping is not modelled"},

    /* ---- DPU ---- */
    {FLD(DPU_DATA_FORMAT, IN_PRECISION), G_ALL, IS_Q(Q_IN), "the CNA's precision"},
    {FLD(DPU_DATA_FORMAT, PROC_PRECISION), G_ALL, IS_Q(Q_IN), "the CNA's precision"},
    {FLD(DPU_DATA_FORMAT, OUT_PRECISION), G_ALL, REL_STAGE, "the output-stage rows"},
    {FLD(DPU_DATA_FORMAT, EW_TRUNCATE_NEG), G_ALL, IS(0), no_shift},
    {FLD(DPU_DATA_FORMAT, BN_MUL_SHIFT_VALUE_NEG), G_ALL, IS(0), no_shift},
    {FLD(DPU_DATA_FORMAT, BS_MUL_SHIFT_VALUE_NEG), G_ALL, IS(0), no_shift},
    {FLD(DPU_DATA_FORMAT, MC_SURF_OUT), G_ALL, IS(0), no_shift},
    {FLD(DPU_FEATURE_MODE_CFG, OUTPUT_MODE), G_ALL, IS(NPK_DPU_OUTPUT_MODE_MEMORY), to_memory},
    {FLD(DPU_FEATURE_MODE_CFG, FLYING_MODE), G_ALL, IS(0), to_memory},
    {FLD(DPU_FEATURE_MODE_CFG, CONV_MODE), G_ALL, IS(NPK_CONV_MODE_DIRECT), to_memory},
    {FLD(DPU_FEATURE_MODE_CFG, TP_EN), G_ALL, IS(0), to_memory},
    {FLD(DPU_FEATURE_MODE_CFG, COMB_USE), G_ALL, IS(0), to_memory},
    {FLD(DPU_DATA_CUBE_WIDTH, WIDTH), G_ALL, IS(0), "the output width is 1"},
    {FLD(DPU_DATA_CUBE_HEIGHT, HEIGHT), G_ALL, IS_Q(Q_M_1), "M-1"},
    {FLD(DPU_DATA_CUBE_HEIGHT, MINMAX_CTL), G_ALL, IS(0), "min/max tracking is not modelled"},
    /* the write DMA's row bound: rows at or past HEIGHT_WDMA + 1 are not written (spec
     * "0x1068": rows shifted past the output are lost); an output surface taller than the task
     * (several M-tiles into one surface) has a larger bound */
    {FLD(DPU_WDMA_SIZE_1, HEIGHT_WDMA), G_ALL, REL_GE, Q_M_1, 0, "at least M-1"},
    {FLD(DPU_WDMA_SIZE_1, WIDTH_WDMA), G_ALL, IS(0), "the output width is 1"},
    {FLD(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL),
     "DPU channel counts agree"},
    {FLD(DPU_WDMA_SIZE_0, CHANNEL_WDMA), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL),
     "DPU channel counts agree"},
    {FLD(DPU_DATA_CUBE_CHANNEL, CHANNEL), G_ALL, IS_Q(Q_N_1), "the CNA's N-1"},
    /* a stage is bypassed when its BYPASS bit is set (0x53 in the vendor program) */
    {FLD(DPU_BN_CFG, BN_BYPASS), G_ALL, IS(1), "the BN stage must be bypassed"},
    {FLD(DPU_EW_CFG, EW_BYPASS), G_PLAIN, IS(1), "the EW stage must be bypassed"},
    {FLD(DPU_BS_OW_CFG, SIZE_E_1), G_ALL, SAME_AS(DPU_BS_OW_CFG, SIZE_E_0),
     "the three SIZE_E fields agree"},
    {FLD(DPU_BS_OW_CFG, SIZE_E_2), G_ALL, SAME_AS(DPU_BS_OW_CFG, SIZE_E_0),
     "the three SIZE_E fields agree"},
    {FLD(DPU_BS_OW_CFG, SIZE_E_0), G_ALL, IS_Q(Q_F_1), "F-1 in every described program"},
    {FLD(DPU_BS_CFG, BS_BYPASS), G_ALL, IS(1), "the BS stage must be bypassed"},
    /* the narrow int8 outputs (hazard 16) program a requantizing converter */
    {FLD(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE), G_COMPLETES, IS(1), cvt},
    {REG(DPU_OUT_CVT_SHIFT), G_COMPLETES, IS(0), cvt},
    {REG(DPU_OUT_CVT_OFFSET), G_COMPLETES, IS(0), cvt},
    {FLD(DPU_OUT_CVT_SCALE, FP32TOFP16_EN), G_COMPLETES, REL_LE, Q_STAGE_FP16, 0,
     "set only for an fp16 output"},
    /* output geometry: row-major rows have NOTCH_ADDR_0 as their width and NOTCH_ADDR_1 as
     * their stride, in 16 B; the width is the one the CNA's N implies (with hazard 7 the DPU
     * writes fewer channels into rows of this width) */
    {FLD(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE), G_ALL, REL_NE, Q_CONST, 0, "a zero surface stride"},
    {FLD(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0), G_ROWS_NOTCHED, IS_Q(Q_ROW16_1),
     "the row width N*ob/16 - 1"},
    {FLD(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1), G_ROWS, REL_GE, Q_FIELD,
     NPK_RKF(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0), "the row stride is at least the width"},
    {FLD(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0), G_CUBE_OUT, IS(0), "a cube output has no notch"},
    {FLD(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1), G_CUBE_OUT, IS(0), "a cube output has no notch"},

    /* ---- on-NPU K accumulation (facts C.6, E.5): the DPU_RDMA armed with COMB_USE 5 and its
     * main read on, the ERDMA reading the running fp16 partial per element, the EW stage's ALU
     * adding it; the values are those of the rocket userspace program the facts describe
     * (EW_CFG 0x108202C0, ERDMA_CFG 0x40000008, FEATURE_MODE_CFG 0x17D40) ---- */
    {FLD(CNA_CONV_CON1, IN_PRECISION), G_ACCUM, IS(NPK_PREC_FP16), kacc_fp16},
    {FLD(DPU_DATA_FORMAT, OUT_PRECISION), G_ACCUM, IS(NPK_PREC_FP16), kacc_fp16},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION), G_ACCUM, IS(NPK_PREC_FP16), kacc_fp16},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, PROC_PRECISION), G_ACCUM, IS(NPK_PREC_FP16), kacc_fp16},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE), G_ACCUM, IS(0), "the ERDMA reads the partial"},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_MODE), G_ACCUM, IS(KACC_DATA_MODE), kacc_elem},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_SIZE), G_ACCUM, IS(NPK_SDP_DATA_SIZE_TWO_BYTES), kacc_fp16},
    {FLD(DPU_EW_CFG, EW_BYPASS), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_OP_BYPASS), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_OP_TYPE), G_ACCUM, IS(NPK_EW_OP_TYPE_ALU), kacc_add},
    {FLD(DPU_EW_CFG, EW_ALU_ALGO), G_ACCUM, IS(NPK_EW_ALU_SUM), kacc_add},
    {FLD(DPU_EW_CFG, EW_DATA_MODE), G_ACCUM, IS(KACC_DATA_MODE), kacc_elem},
    {FLD(DPU_EW_CFG, EDATA_SIZE), G_ACCUM, IS(NPK_SDP_DATA_SIZE_TWO_BYTES), kacc_fp16},
    {FLD(DPU_EW_CFG, EW_BINARY_EN), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_EQUAL_EN), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_RELUX_EN), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_RELU_BYPASS), G_ACCUM, IS(1), kacc_add},
    {FLD(DPU_EW_CFG, EW_LUT_BYPASS), G_ACCUM, IS(1), kacc_add},
    {FLD(DPU_EW_CFG, EW_MUL_PRELU), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_CVT_TYPE), G_ACCUM, IS(0), kacc_add},
    {FLD(DPU_EW_CFG, EW_CVT_ROUND), G_ACCUM, IS(0), kacc_add},
    {REG(DPU_EW_CVT_SCALE_VALUE), G_ACCUM_CVT, IS(1), "an operand converter at scale 1"},
    {REG(DPU_EW_CVT_OFFSET_VALUE), G_ACCUM_CVT, IS(0), "an operand converter at offset 0"},
    {REG(DPU_RDMA_DATA_CUBE_WIDTH), G_ACCUM, IS(0), "the RDMA cube is the output's"},
    {REG(DPU_RDMA_DATA_CUBE_HEIGHT), G_ACCUM, IS_Q(Q_M_1), "the RDMA cube is the output's"},
    {REG(DPU_RDMA_DATA_CUBE_CHANNEL), G_ACCUM, IS_Q(Q_N_1), "the RDMA cube is the output's"},
    /* the ERDMA has no line stride: the partial and the output are atom cubes */
    {FLD(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE), G_ACCUM, IS_Q(Q_M), kacc_cube},
    {REG(DPU_RDMA_EW_SURF_STRIDE), G_ACCUM, REL_GE, Q_M16, 0, kacc_cube},
    {REG(DPU_RDMA_EW_SURF_STRIDE), G_ACCUM, REL_MULTIPLE, Q_CONST, 16, kacc_cube},
};

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Read every value the rows and the executor use; derived values only where the precisions
 * are known (the precision rows come first in the table). */
static void read_fields(const rksim_regfile *rf, rksim_mm *mm)
{
    mm->in = (int)F(CNA_CONV_CON1, IN_PRECISION);
    mm->out = (int)F(DPU_DATA_FORMAT, OUT_PRECISION);
    mm->in_bits = npk_rk_prec_bits((npk_rk_prec)mm->in);
    mm->out_bits = npk_rk_prec_bits((npk_rk_prec)mm->out);
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)mm->in);
    mm->ntile = row ? row->n_tile : 0; /* facts D.1 */
    mm->c2 = mm->in_bits ? 128 / mm->in_bits : 0;
    mm->c2o = mm->out_bits ? 128 / mm->out_bits : 0;
    mm->factor = npk_rk_out_factor((npk_rk_prec)mm->in, (npk_rk_prec)mm->out);
    mm->line = F(CNA_CONV_CON1, GROUP_LINE_OFF);
    mm->m = F(CNA_DATA_SIZE0, DATAIN_HEIGHT);
    mm->k = F(CNA_DATA_SIZE1, DATAIN_CHANNEL);
    mm->n = F(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS);
    mm->n_dpu = F(DPU_DATA_CUBE_CHANNEL, CHANNEL) + 1;
    mm->row_offset = F(CNA_PAD_CON0, PAD_TOP);
    mm->wdma_rows = F(DPU_WDMA_SIZE_1, HEIGHT_WDMA) + 1;
    mm->feat = R(CNA_FEATURE_DATA_ADDR);
    mm->weight = R(CNA_DCOMP_ADDR0);
    mm->dst = R(DPU_DST_BASE_ADDR);
    /* the bank split the schedule hazards judge: the reuse bits (12, 13) are no part of it */
    mm->cbuf_con0 = R(CNA_CBUF_CON0) & (npk_rk_field_mask(NPK_RKF(CNA_CBUF_CON0, DATA_BANK)) |
                                        npk_rk_field_mask(NPK_RKF(CNA_CBUF_CON0, WEIGHT_BANK)) |
                                        npk_rk_field_mask(NPK_RKF(CNA_CBUF_CON0, FC_DATA_BANK)));
    mm->data_bank = F(CNA_CBUF_CON0, DATA_BANK);
    mm->data_reuse = F(CNA_CBUF_CON0, DATA_REUSE);
    mm->weight_bank = F(CNA_CBUF_CON0, WEIGHT_BANK);
    mm->bs_cfg = R(DPU_BS_CFG);
    mm->size_e = F(DPU_BS_OW_CFG, SIZE_E_0);
    mm->fp32tofp16 = F(DPU_OUT_CVT_SCALE, FP32TOFP16_EN);
    /* both fields hold bits [31:4] of a byte count: the field in place is the byte value */
    mm->out_surf_bytes =
        R(DPU_DST_SURF_STRIDE) & npk_rk_field_mask(NPK_RKF(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE));
    mm->out_tile_bytes = R(DPU_SURFACE_ADD) & npk_rk_field_mask(NPK_RKF(DPU_SURFACE_ADD, SURF_ADD));
    mm->out_tile_expected = (uint64_t)mm->factor * mm->out_surf_bytes;
}

static bool applies(int when, const rksim_regfile *rf, const void *ctx)
{
    const rksim_mm *mm = ((const mm_ctx *)ctx)->mm;
    switch ((guard)when) {
    case G_ALL: return true;
    case G_LINE: return mm->line;
    case G_CUBE: return !mm->line;
    case G_PAD_UNDESCRIBED: return !npk_rk_input_row((npk_rk_prec)mm->in)->top_pad;
    case G_PAD_TOP: return mm->row_offset != 0;
    case G_COMPLETES:
        return npk_rk_out_stage_find((npk_rk_prec)mm->in, (npk_rk_prec)mm->out)->completes;
    case G_ROWS: return mm->out_surf_bytes == 16;
    case G_ROWS_NOTCHED:
        return mm->out_surf_bytes == 16 &&
               !(mm->m == 1 && F(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0) == 0 &&
                 F(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1) == 0);
    case G_CUBE_OUT: return mm->out_surf_bytes != 16;
    case G_PLAIN: return !mm->accumulate;
    case G_ACCUM: return mm->accumulate;
    case G_ACCUM_CVT: return mm->accumulate && !F(DPU_EW_CFG, EW_OP_CVT_BYPASS);
    case G_BATCH: return mm->line && mm->m > 1 && npk_rk_batch_rule_of((npk_rk_prec)mm->in);
    }
    return true;
}

static int64_t quantity_of(int q, const rksim_regfile *rf, const void *ctx)
{
    const rksim_mm *mm = ((const mm_ctx *)ctx)->mm;
    int64_t kbytes = (int64_t)mm->k * mm->in_bits / 8;
    switch ((quantity)q) {
    case Q_CONST:
    case Q_FIELD: return 0; /* the engine's own */
    case Q_IN: return mm->in;
    case Q_M: return mm->m;
    case Q_M_1: return (int64_t)mm->m - 1;
    case Q_K: return mm->k;
    case Q_K_1: return (int64_t)mm->k - 1;
    case Q_N_1: return (int64_t)mm->n - 1;
    case Q_KBYTES: return kbytes;
    case Q_WBYTES: return kbytes * mm->n;
    case Q_ENTRIES: /* the entry size is the modelled SoC's */
        return npk_rk_cbuf_data_entries(((const mm_ctx *)ctx)->s->soc, (npk_rk_prec)mm->in, mm->k);
    case Q_KLINES: return ceil_div(kbytes, 16) > 0 ? ceil_div(kbytes, 16) : 1;
    case Q_NTILE: return mm->ntile;
    case Q_F_1: return (int64_t)mm->factor - 1;
    case Q_ROW16_1: return ceil_div((int64_t)mm->n * mm->out_bits, 128) - 1;
    case Q_STAGE_FP16:
        return npk_rk_field_get(
            NPK_RKF(DPU_OUT_CVT_SCALE, FP32TOFP16_EN),
            npk_rk_out_stage_find((npk_rk_prec)mm->in, (npk_rk_prec)mm->out)->out_cvt_scale);
    case Q_NEG_LINE_STRIDE: return -(int64_t)F(CNA_DMA_CON1, LINE_STRIDE);
    case Q_M16: return (int64_t)mm->m * 16;
    case Q_BATCH_GATE: return npk_rk_batch_gate(npk_rk_batch_rule_of((npk_rk_prec)mm->in), mm->k);
    }
    return 0;
}

static bool set_has(uint32_t set, int64_t v, const rksim_mm *mm)
{
    if (set == SET_INPUT)
        return npk_rk_input_row((npk_rk_prec)v) != NULL;
    return npk_rk_out_stage_find((npk_rk_prec)mm->in, (npk_rk_prec)v) != NULL;
}

static bool in_set(uint32_t set, int64_t v, const rksim_regfile *rf, const void *ctx)
{
    (void)rf;
    return set_has(set, v, ((const mm_ctx *)ctx)->mm);
}

/* "a matmul input (fp16/int8/int4)", "an output of int8 inputs (int32/int16/int8)" */
static void set_text(uint32_t set, const void *ctx, char *buf, size_t size)
{
    const rksim_mm *mm = ((const mm_ctx *)ctx)->mm;
    size_t n = set == SET_INPUT ? (size_t)snprintf(buf, size, "a matmul input (")
                                : (size_t)snprintf(buf, size, "an output of %s inputs (",
                                                   npk_rk_prec_name((npk_rk_prec)mm->in));
    for (unsigned p = 0; n < size && npk_rk_prec_name((npk_rk_prec)p); p++)
        if (set_has(set, p, mm))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", buf[n - 1] == '(' ? "" : "/",
                                  npk_rk_prec_name((npk_rk_prec)p));
    if (n < size)
        snprintf(buf + n, size - n, ")");
}

/* a deviation some hazard describes is the hazard table's to judge */
static bool accept(npk_rk_field_id f, uint32_t raw, void *ctx)
{
    mm_ctx *x = ctx;
    return rksim_hazards_accept(x->s, f, raw, x->mm, x->hazards);
}

static const rksim_rule_ops mm_ops = {applies, quantity_of, in_set, set_text, accept};

/* The computed geometry (every value was checked by the rows). */
static void geometry(const rksim_regfile *rf, rksim_mm *mm)
{
    uint32_t ls = F(CNA_DMA_CON1, LINE_STRIDE);
    if (mm->line) {
        mm->row_bytes = (uint64_t)ls * 16;
    } else {
        mm->row_bytes = 16;
        mm->group_bytes = (uint64_t)ls * 16;
        mm->surf_bytes = ((int64_t)ls + rksim_field_signed(NPK_RKF(CNA_DMA_CON2, SURF_STRIDE),
                                                           F(CNA_DMA_CON2, SURF_STRIDE))) *
                         16;
    }
    mm->out_line_bytes = mm->out_surf_bytes == 16
                             ? ((uint64_t)F(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1) + 1) * 16
                             : 16;
}

bool rksim_mm_decode(rksim *s, const rksim_regfile *rf, bool accumulate, rksim_mm *mm,
                     uint32_t *hazards, rksim_core_result *r)
{
    *mm = (rksim_mm){0};
    read_fields(rf, mm);
    mm->accumulate = accumulate;
    /* the running partial: where the board-validated rocket userspace program puts it, the main
     * read's SRC_BASE_ADDR (its EW_BASE_ADDR is one surface further on and is not read here;
     * the reading of the partial at EW_BASE_ADDR is the refused alternative,
     * docs/rk-simulator.md) */
    mm->partial_addr = R(DPU_RDMA_SRC_BASE_ADDR);
    mm->ew_surf_bytes = R(DPU_RDMA_EW_SURF_STRIDE);
    mm_ctx x = {s, mm, hazards};
    if (!rksim_rules_check(rows, sizeof rows / sizeof rows[0], rf, &mm_ops, &x, r))
        return false;
    geometry(rf, mm);
    return true;
}
