/* SPDX-License-Identifier: MIT */
/* Decoding an SDP task from the register files. Every value comes from a field named by the
 * register table; what the model requires of the registers is a table of rows on the
 * simulator's rule engine (rules.h, shared with the matmul decoder), and anything outside them
 * is "unsupported by the model", naming the register, the field, what was expected and why.
 * The geometry model (rk_sdp.h):
 *
 *   feature  [ceil(C/C2)][M][C2] atoms of 16 bytes at SRC_BASE_ADDR (the RDMA has no source
 *            line stride); with LINE_NOTCH_ADDR = L one atom-wide tile whose rows are
 *            (C2 + L) elements apart (spec "LINE_NOTCH_ADDR = N-8");
 *   operand  per-element: the same atom cube at EW_BASE_ADDR with EW_SURF_STRIDE bytes between
 *            surfaces; per-channel: a contiguous [C] vector (spec ERDMA_CFG);
 *   output   the atom cube at DST_BASE_ADDR, DST_SURF_STRIDE = M x 16 between surfaces, the
 *            SDP's SIZE_E 0 / OD_BYPASS write-out (BS_OW_CFG 0x2).
 */
#include <stdio.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "rksim/regs_view.h"
#include "rksim/rules.h"
#include "rksim/sdp.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define R(reg) rksim_reg(rf, NPK_REG_##reg)
#define BIT(reg, field) npk_rk_field_mask(NPK_RKF(reg, field))

/* What the rows see: the task decoded so far and its precision row (NULL until a row has
 * checked that PROC_PRECISION is an SDP precision). */
typedef struct sdp_ctx {
    rksim_sdp *t;
    const npk_rk_sdp_prec_row *pr;
} sdp_ctx;

typedef enum guard {
    G_ALL = RKSIM_WHEN_ALL,
    G_EW_BYPASSED, /* the 1-input ReLU through the BS stage */
    G_EW_ON,       /* a 2-input op in the EW stage */
    G_BINARY,      /* the op reads an operand */
    G_FEATURE_NOT_INT32,
    G_WIDE,        /* the RDMA reads more channels than one atom holds */
    G_PER_ELEMENT, /* the operand is per element */
    G_BS_OFF,      /* the BS stage is bypassed (BS_BYPASS) */
    G_BN_OFF,
    G_BS_ALU, /* the BS stage's ALU is active */
    G_BN_ALU,
    G_BS_RELUX, /* RELUX_EN set */
    G_BN_RELUX,
    G_BS_PRELU, /* MUL_PRELU set */
    G_BN_PRELU,
} guard;

typedef enum quantity {
    Q_CONST = RKSIM_Q_CONST,
    Q_FIELD = RKSIM_Q_FIELD,
    Q_FP32_COMPUTE = RKSIM_Q_DECODER, /* 1 for fp16 (read and written through fp32) */
    Q_DATA_SIZE,                      /* the element's ERDMA/EW data size */
    Q_M,
    Q_M16,
    Q_PP,             /* the S_POINTER ping-pong bits */
    Q_EW_UNDESCRIBED, /* EW_CFG bits outside the captured configuration */
    Q_FORMAT_OTHER,   /* DATA_FORMAT bits other than the three precisions */
    Q_SRC_DMA_OTHER,  /* SRC_DMA_CFG bits other than LINE_NOTCH_ADDR */
    Q_OD_BYPASS,      /* BS_OW_CFG = OD_BYPASS alone (0x2) */
    Q_STAGE_OFF,      /* a bypassed stage's CFG: BYPASS and every unit's bypass (0x53) */
} quantity;

enum {
    SET_STAGE_ALU, /* a stage ALU algorithm: MAX, MIN or SUM */
    SET_EW_OP,     /* EW_ALU_ALGO naming an op row with this EW_OP_TYPE */
    SET_EW_MODE,   /* per-channel (0) or per-element (2) */
    SET_SDP_PREC,  /* an SDP precision row (fp16, int16, int8) */
    SET_FEATURE,   /* the processing precision, or int32 into int16 (the over-fetch) */
};

#define FLD(reg, field) NPK_REG_##reg, NPK_RKF(reg, field)
#define REG(reg) NPK_REG_##reg, RKSIM_RULE_WHOLE
#define IS(v) RKSIM_REL_EQ, Q_CONST, (v)
#define IS_Q(q) RKSIM_REL_EQ, q, 0
#define SAME_AS(reg, field) RKSIM_REL_EQ, Q_FIELD, NPK_RKF(reg, field)
#define CLEAR(q) RKSIM_REL_MASK_CLEAR, q, 0
#define IN(set) RKSIM_REL_IN_SET, Q_CONST, set

static const char pp[] = "ping-pong on an SDP task is not described (off for any SDP task, spec)";
static const char flying[] = "an SDP task takes its feature from the RDMA (FLYING_MODE) and writes "
                             "to memory";
static const char flying_read[] = "only the flying feature read of the captured SDP (0x17849 "
                                  "family) is modelled";
static const char captured_ew[] = "only the captured EW configuration (LUT, ReLU and operand "
                                  "converter bypassed, no CVT/PReLU/binary/equal) is modelled";
static const char no_bs_bn[] = "BS/BN operands from memory: RK3588's BRDMA_CFG is simplified "
                               "(BRDMA_DATA_USE only, no per-kernel mode, spec) and no source "
                               "describes what it reads";
static const char stage_off[] = "a bypassed stage has every unit bypassed (0x53)";
static const char stage_shift[] = "a stage MUL shift: its rounding is not described (facts I.1)";
static const char relux[] = "RELUX clamps the ReLU's output: it needs the ReLU";
static const char prelu[] = "PReLU is a mode of the MUL: it needs the MUL";
static const char ew_src[] = "the EW stage's register operand: the spec names EW_OP_SRC without "
                             "its values or the register holding the operand";
static const char ew_cvt[] = "the EW operand converter: no source gives its arithmetic "
                             "(order, rounding)";
static const char cvt[] = "the output converter is modelled at scale 1, shift 0, offset 0 "
                          "(FP32TOFP16_EN for fp16)";
static const char channels[] = "DPU channel counts agree";
static const char cube[] = "an SDP cube is 1 wide with no min/max control";
static const char rdma_cube[] = "the RDMA cube is 1 x M";
static const char notches[] = "surface notches and padding are not modelled";

static const rksim_rule rows[] = {
    /* ---- modes ---- */
    {REG(DPU_S_POINTER), G_ALL, CLEAR(Q_PP), pp},
    {REG(DPU_RDMA_S_POINTER), G_ALL, CLEAR(Q_PP), pp},
    {FLD(DPU_FEATURE_MODE_CFG, OUTPUT_MODE), G_ALL, IS(NPK_DPU_OUTPUT_MODE_MEMORY), flying},
    {FLD(DPU_FEATURE_MODE_CFG, FLYING_MODE), G_ALL, IS(1), flying},
    {FLD(DPU_FEATURE_MODE_CFG, CONV_MODE), G_ALL, IS(0), flying},
    {FLD(DPU_FEATURE_MODE_CFG, TP_EN), G_ALL, IS(0), flying},
    {FLD(DPU_FEATURE_MODE_CFG, COMB_USE), G_ALL, IS(0), flying},
    {FLD(DPU_FEATURE_MODE_CFG, NONALIGN), G_ALL, IS(0), flying},
    {FLD(DPU_FEATURE_MODE_CFG, RGP_TYPE), G_ALL, IS(0), flying},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE), G_ALL, IS(0),
     "an SDP task reads its feature (MRDMA_DISABLE)"},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, FLYING_MODE), G_ALL, IS(1), flying_read},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, CONV_MODE), G_ALL, IS(0), flying_read},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, COMB_USE), G_ALL, IS(0), flying_read},

    /* ---- stages: the EW op (2 inputs) or the BS ReLU (1 input) ---- */
    /* the BS and BN stages (their fields laid out alike, facts B.4): register operands, ALU
     * MAX/MIN/SUM, MUL (PReLU) without a shift, ReLU (ReLUX) */
    {FLD(DPU_BS_CFG, BS_ALU_SRC), G_ALL, IS(0), no_bs_bn},
    {FLD(DPU_BS_MUL_CFG, BS_MUL_SRC), G_ALL, IS(0), no_bs_bn},
    {FLD(DPU_BN_CFG, BN_ALU_SRC), G_ALL, IS(0), no_bs_bn},
    {FLD(DPU_BN_MUL_CFG, BN_MUL_SRC), G_ALL, IS(0), no_bs_bn},
    {REG(DPU_RDMA_BRDMA_CFG), G_ALL, IS(0), no_bs_bn},
    {REG(DPU_RDMA_NRDMA_CFG), G_ALL, IS(0), no_bs_bn},
    {REG(DPU_BS_CFG), G_BS_OFF, IS_Q(Q_STAGE_OFF), stage_off},
    {REG(DPU_BN_CFG), G_BN_OFF, IS_Q(Q_STAGE_OFF), stage_off},
    {FLD(DPU_BS_CFG, BS_ALU_ALGO), G_BS_ALU, IN(SET_STAGE_ALU), "a stage ALU is MAX, MIN or SUM"},
    {FLD(DPU_BN_CFG, BN_ALU_ALGO), G_BN_ALU, IN(SET_STAGE_ALU), "a stage ALU is MAX, MIN or SUM"},
    {FLD(DPU_BS_MUL_CFG, BS_MUL_SHIFT_VALUE), G_ALL, IS(0), stage_shift},
    {FLD(DPU_BN_MUL_CFG, BN_MUL_SHIFT_VALUE), G_ALL, IS(0), stage_shift},
    {FLD(DPU_BS_MUL_CFG, BS_TRUNCATE_SRC), G_ALL, IS(0), stage_shift},
    {FLD(DPU_BN_MUL_CFG, BN_TRUNCATE_SRC), G_ALL, IS(0), stage_shift},
    {FLD(DPU_BS_CFG, BS_RELU_BYPASS), G_BS_RELUX, IS(0), relux},
    {FLD(DPU_BN_CFG, BN_RELU_BYPASS), G_BN_RELUX, IS(0), relux},
    {FLD(DPU_BS_CFG, BS_MUL_BYPASS), G_BS_PRELU, IS(0), prelu},
    {FLD(DPU_BN_CFG, BN_MUL_BYPASS), G_BN_PRELU, IS(0), prelu},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE), G_EW_BYPASSED, IS(1),
     "an operand read for a bypassed EW stage is not described"},
    {REG(DPU_EW_CFG), G_EW_ON, CLEAR(Q_EW_UNDESCRIBED), captured_ew},
    {FLD(DPU_EW_CFG, EW_RELU_BYPASS), G_EW_ON, IS(1), captured_ew},
    {FLD(DPU_EW_CFG, EW_OP_CVT_BYPASS), G_EW_ON, IS(1), ew_cvt},
    {FLD(DPU_EW_CFG, EW_LUT_BYPASS), G_EW_ON, IS(1), captured_ew},
    {FLD(DPU_EW_CFG, EW_OP_SRC), G_EW_ON, IS(NPK_EW_OP_SRC_MEMORY), ew_src},
    {FLD(DPU_EW_CFG, EW_ALU_ALGO), G_EW_ON, IN(SET_EW_OP),
     "undescribed ops are not modelled"},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE), G_EW_ON, IS(0),
     "an EW op without its operand read is not described"},
    {FLD(DPU_EW_CFG, EW_DATA_MODE), G_EW_ON, IN(SET_EW_MODE), "the described operand modes"},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_MODE), G_EW_ON, SAME_AS(DPU_EW_CFG, EW_DATA_MODE),
     "the ERDMA reads the EW stage's operand mode"},

    /* ---- precisions ---- */
    {FLD(DPU_DATA_FORMAT, PROC_PRECISION), G_ALL, IN(SET_SDP_PREC),
     "the DPU lanes are at most 16 bits"},
    {FLD(DPU_DATA_FORMAT, OUT_PRECISION), G_ALL, SAME_AS(DPU_DATA_FORMAT, PROC_PRECISION),
     "an SDP writes its processing precision"},
    {REG(DPU_DATA_FORMAT), G_ALL, CLEAR(Q_FORMAT_OTHER), "no shift/truncate fields"},
    {FLD(DPU_DATA_FORMAT, IN_PRECISION), G_ALL, SAME_AS(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION),
     "the DPU reads what the RDMA reads"},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, PROC_PRECISION), G_ALL,
     SAME_AS(DPU_DATA_FORMAT, PROC_PRECISION), "the RDMA processes in the DPU's precision"},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION), G_ALL, IN(SET_FEATURE),
     "only the int32 feature into int16 is described besides the SDP's own (spec OVER-FETCH)"},
    {FLD(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN), G_ALL, IS_Q(Q_FP32_COMPUTE),
     "set exactly for an fp16 SDP"},
    {FLD(DPU_OUT_CVT_SCALE, FP32TOFP16_EN), G_ALL, IS_Q(Q_FP32_COMPUTE), cvt},
    {FLD(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE), G_ALL, IS(1), cvt},
    {REG(DPU_OUT_CVT_SHIFT), G_ALL, IS(0), cvt},
    {REG(DPU_OUT_CVT_OFFSET), G_ALL, IS(0), cvt},
    {FLD(DPU_EW_CFG, EDATA_SIZE), G_BINARY, IS_Q(Q_DATA_SIZE), "the operand is the element's size"},
    {FLD(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_SIZE), G_BINARY, IS_Q(Q_DATA_SIZE),
     "the operand is the element's size"},

    /* ---- geometry ---- */
    {FLD(DPU_DATA_CUBE_WIDTH, WIDTH), G_ALL, IS(0), cube},
    {FLD(DPU_DATA_CUBE_HEIGHT, MINMAX_CTL), G_ALL, IS(0), cube},
    {FLD(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL),
     channels},
    {FLD(DPU_WDMA_SIZE_0, CHANNEL_WDMA), G_ALL, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL), channels},
    {FLD(DPU_WDMA_SIZE_1, HEIGHT_WDMA), G_ALL, SAME_AS(DPU_DATA_CUBE_HEIGHT, HEIGHT),
     "the write DMA writes the M rows"},
    {FLD(DPU_WDMA_SIZE_1, WIDTH_WDMA), G_ALL, IS(0), "the write DMA writes the M rows"},
    {REG(DPU_RDMA_DATA_CUBE_WIDTH), G_ALL, IS(0), rdma_cube},
    {REG(DPU_RDMA_DATA_CUBE_HEIGHT), G_ALL, SAME_AS(DPU_DATA_CUBE_HEIGHT, HEIGHT), rdma_cube},
    {REG(DPU_RDMA_DATA_CUBE_CHANNEL), G_FEATURE_NOT_INT32, SAME_AS(DPU_DATA_CUBE_CHANNEL, CHANNEL),
     "RDMA channels differ from the DPU's only for an int32 feature (spec OVER-FETCH)"},
    {REG(DPU_RDMA_DATA_CUBE_CHANNEL), G_ALL, RKSIM_REL_NE, Q_CONST, UINT32_MAX,
     "a channel count that wraps"},
    {REG(DPU_RDMA_SRC_DMA_CFG), G_ALL, CLEAR(Q_SRC_DMA_OTHER), "only LINE_NOTCH_ADDR is modelled"},
    {FLD(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR), G_WIDE, IS(0),
     "a line notch is described for one atom-wide tile of channels"},
    {REG(DPU_RDMA_SURF_NOTCH), G_ALL, IS(0), notches},
    {REG(DPU_RDMA_EW_SURF_NOTCH), G_ALL, IS(0), notches},
    {REG(DPU_RDMA_PAD_CFG), G_ALL, IS(0), notches},
    {REG(DPU_RDMA_EW_SURF_STRIDE), G_PER_ELEMENT, RKSIM_REL_GE, Q_M16, 0,
     "a per-element operand surface holds M atoms"},
    {REG(DPU_RDMA_EW_SURF_STRIDE), G_PER_ELEMENT, RKSIM_REL_MULTIPLE, Q_CONST, 16,
     "a per-element operand surface is whole atoms"},
    {FLD(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE), G_ALL, IS_Q(Q_M),
     "the SDP's output is described in the atom layout, surface stride M x 16 bytes"},
    {REG(DPU_DATA_CUBE_NOTCH_ADDR), G_ALL, IS(0), "no notch with the atom output"},
    {FLD(DPU_SURFACE_ADD, SURF_ADD), G_ALL, SAME_AS(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE),
     "SURFACE_ADD is the surface stride (a wild value wild-writes, spec)"},
    {REG(DPU_BS_OW_CFG), G_ALL, IS_Q(Q_OD_BYPASS),
     "the SDP's write-out is described with SIZE_E 0 and OD_BYPASS (0x2)"},
};

/* A bypassed stage's CFG (BN's bits sit where BS's do): 0x53 in the vendor program. */
static uint32_t stage_off_cfg(void)
{
    return BIT(DPU_BS_CFG, BS_RELU_BYPASS) | BIT(DPU_BS_CFG, BS_MUL_BYPASS) |
           BIT(DPU_BS_CFG, BS_ALU_BYPASS) | BIT(DPU_BS_CFG, BS_BYPASS);
}

static bool applies(int when, const rksim_regfile *rf, const void *ctx)
{
    const sdp_ctx *x = ctx;
    switch ((guard)when) {
    case G_ALL: return true;
    case G_EW_BYPASSED: return F(DPU_EW_CFG, EW_BYPASS);
    case G_EW_ON: return !F(DPU_EW_CFG, EW_BYPASS);
    case G_BINARY:
        return !F(DPU_EW_CFG, EW_BYPASS) &&
               npk_rk_ew_op_decode(F(DPU_EW_CFG, EW_OP_TYPE), F(DPU_EW_CFG, EW_ALU_ALGO));
    case G_FEATURE_NOT_INT32: return F(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION) != NPK_PREC_INT32;
    case G_WIDE: return x->pr && R(DPU_RDMA_DATA_CUBE_CHANNEL) >= 16u / x->pr->bytes;
    case G_PER_ELEMENT:
        return !F(DPU_EW_CFG, EW_BYPASS) &&
               F(DPU_EW_CFG, EW_DATA_MODE) == NPK_EW_DATA_MODE_PER_ELEMENT;
    case G_BS_OFF: return F(DPU_BS_CFG, BS_BYPASS);
    case G_BN_OFF: return F(DPU_BN_CFG, BN_BYPASS);
    case G_BS_ALU: return !F(DPU_BS_CFG, BS_BYPASS) && !F(DPU_BS_CFG, BS_ALU_BYPASS);
    case G_BN_ALU: return !F(DPU_BN_CFG, BN_BYPASS) && !F(DPU_BN_CFG, BN_ALU_BYPASS);
    case G_BS_RELUX: return F(DPU_BS_CFG, BS_RELUX_EN);
    case G_BN_RELUX: return F(DPU_BN_CFG, BN_RELUX_EN);
    case G_BS_PRELU: return F(DPU_BS_CFG, BS_MUL_PRELU);
    case G_BN_PRELU: return F(DPU_BN_CFG, BN_MUL_PRELU);
    }
    return true;
}

static int64_t quantity_of(int q, const rksim_regfile *rf, const void *ctx)
{
    const sdp_ctx *x = ctx;
    uint32_t m = F(DPU_DATA_CUBE_HEIGHT, HEIGHT) + 1;
    switch ((quantity)q) {
    case Q_CONST:
    case Q_FIELD: return 0; /* the engine's own */
    case Q_FP32_COMPUTE: return x->pr ? x->pr->fp32_compute : 0;
    case Q_DATA_SIZE: return x->pr ? x->pr->data_size : 0;
    case Q_M: return m;
    case Q_M16: return (int64_t)m * 16;
    case Q_PP:
        return BIT(DPU_S_POINTER, POINTER_PP_MODE) | BIT(DPU_S_POINTER, EXECUTER_PP_EN) |
               BIT(DPU_S_POINTER, POINTER_PP_EN);
    case Q_EW_UNDESCRIBED:
        return ~(BIT(DPU_EW_CFG, EW_DATA_MODE) | BIT(DPU_EW_CFG, EDATA_SIZE) |
                 BIT(DPU_EW_CFG, EW_ALU_ALGO) | BIT(DPU_EW_CFG, EW_RELU_BYPASS) |
                 BIT(DPU_EW_CFG, EW_OP_CVT_BYPASS) | BIT(DPU_EW_CFG, EW_LUT_BYPASS) |
                 BIT(DPU_EW_CFG, EW_OP_SRC) | BIT(DPU_EW_CFG, EW_OP_TYPE)) &
               UINT32_MAX;
    case Q_FORMAT_OTHER:
        return ~(BIT(DPU_DATA_FORMAT, OUT_PRECISION) | BIT(DPU_DATA_FORMAT, IN_PRECISION) |
                 BIT(DPU_DATA_FORMAT, PROC_PRECISION)) &
               UINT32_MAX;
    case Q_SRC_DMA_OTHER: return ~BIT(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR) & UINT32_MAX;
    case Q_OD_BYPASS: return BIT(DPU_BS_OW_CFG, OD_BYPASS);
    case Q_STAGE_OFF: return stage_off_cfg();
    }
    return 0;
}

static bool in_set(uint32_t set, int64_t v, const rksim_regfile *rf, const void *ctx)
{
    const sdp_ctx *x = ctx;
    unsigned proc = F(DPU_DATA_FORMAT, PROC_PRECISION);
    switch (set) {
    case SET_STAGE_ALU: return v == NPK_EW_ALU_MAX || v == NPK_EW_ALU_MIN || v == NPK_EW_ALU_SUM;
    case SET_EW_OP: return npk_rk_ew_op_decode(F(DPU_EW_CFG, EW_OP_TYPE), (unsigned)v) != NULL;
    case SET_EW_MODE: return v == NPK_EW_DATA_MODE_PER_CHANNEL || v == NPK_EW_DATA_MODE_PER_ELEMENT;
    case SET_SDP_PREC: return npk_rk_sdp_prec_row_of((npk_rk_prec)v) != NULL;
    case SET_FEATURE: return v == proc || (v == NPK_PREC_INT32 && proc == NPK_PREC_INT16);
    }
    (void)x;
    return false;
}

static void set_text(uint32_t set, const void *ctx, char *buf, size_t size)
{
    (void)ctx;
    static const char *const text[] = {
        [SET_STAGE_ALU] = "MAX (0), MIN (1) or SUM (2)",
        [SET_EW_OP] = "an add, max, min or mul of the op rows",
        [SET_EW_MODE] = "per-channel (0) or per-element (2)",
        [SET_SDP_PREC] = "fp16, int16 or int8",
        [SET_FEATURE] = "the SDP's precision, or int32 into an int16 SDP",
    };
    snprintf(buf, size, "%s", set < sizeof text / sizeof text[0] ? text[set] : "?");
}

static const rksim_rule_ops sdp_ops = {applies, quantity_of, in_set, set_text, NULL};

/* A register operand read back as a value: the inverse of the synthesizer's encoding (fp16 SDP:
 * fp32 bits, and fp16 bits for the 16-bit MUL operand; integers two's complement). */
static double wide_value(const npk_rk_sdp_prec_row *pr, uint32_t bits)
{
    if (pr->fp32_compute) {
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    return (int32_t)bits;
}

static double mul_value(const npk_rk_sdp_prec_row *pr, uint32_t bits16)
{
    return pr->fp32_compute ? (double)npk_f16_to_f32((uint16_t)bits16) : (double)(int16_t)bits16;
}

/* One stage from its registers; its CFG read through BS's fields (BN's are laid out alike). */
static void decode_stage(const rksim_regfile *rf, const npk_rk_sdp_stage_row *sr,
                         const npk_rk_sdp_prec_row *pr, npk_rk_sdp_stage *st)
{
    const uint32_t cfg = rksim_reg(rf, (npk_rk_reg_id)sr->cfg_reg);
#define CFG(field) npk_rk_field_get(NPK_RKF(DPU_BS_CFG, field), cfg)
    *st = (npk_rk_sdp_stage){0};
    if (CFG(BS_BYPASS))
        return;
    st->alu = !CFG(BS_ALU_BYPASS);
    st->alu_algo = CFG(BS_ALU_ALGO);
    st->alu_operand = wide_value(pr, rksim_reg(rf, (npk_rk_reg_id)sr->alu_reg));
    st->mul = !CFG(BS_MUL_BYPASS);
    st->prelu = CFG(BS_MUL_PRELU);
    const uint32_t mul = rksim_reg(rf, (npk_rk_reg_id)sr->mul_reg);
    st->mul_operand = mul_value(pr, npk_rk_field_get(NPK_RKF(DPU_BS_MUL_CFG, BS_MUL_OPERAND), mul));
    st->relu = !CFG(BS_RELU_BYPASS);
    st->relux = CFG(BS_RELUX_EN);
    st->relux_value = wide_value(pr, rksim_reg(rf, (npk_rk_reg_id)sr->relux_reg));
#undef CFG
}

bool rksim_sdp_decode(const rksim_regfile *rf, rksim_sdp *t, rksim_core_result *r)
{
    *t = (rksim_sdp){0};
    sdp_ctx x = {t, npk_rk_sdp_prec_row_of((npk_rk_prec)F(DPU_DATA_FORMAT, PROC_PRECISION))};
    if (!rksim_rules_check(rows, sizeof rows / sizeof rows[0], rf, &sdp_ops, &x, r))
        return false;
    /* every value below was checked by the rows */
    for (unsigned i = 0; i < NPK_SDP_STAGE_COUNT; i++)
        decode_stage(rf, npk_rk_sdp_stage_row_of((npk_rk_sdp_stage_id)i), x.pr, &t->stage[i]);
    t->ew_on = !F(DPU_EW_CFG, EW_BYPASS);
    if (!t->ew_on) {
        t->op = NULL;
        t->operand = NPK_EW_NO_OPERAND;
        if (!npk_rk_sdp_stage_active(&t->stage[NPK_SDP_STAGE_BS]) &&
            !npk_rk_sdp_stage_active(&t->stage[NPK_SDP_STAGE_BN]))
            return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                     "unsupported by the model: DPU_BS_CFG (0x4040) = 0x%08X, "
                                     "DPU_BN_CFG (0x4060) = 0x%08X with the EW stage bypassed: "
                                     "an SDP task with every stage bypassed is not described",
                                     R(DPU_BS_CFG), R(DPU_BN_CFG));
    } else {
        t->op = npk_rk_ew_op_decode(F(DPU_EW_CFG, EW_OP_TYPE), F(DPU_EW_CFG, EW_ALU_ALGO));
        t->operand = F(DPU_EW_CFG, EW_DATA_MODE) == NPK_EW_DATA_MODE_PER_ELEMENT
                         ? NPK_EW_PER_ELEMENT
                         : NPK_EW_PER_CHANNEL;
    }
    t->prec = (int)F(DPU_DATA_FORMAT, PROC_PRECISION);
    t->feature = (int)F(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION);
    t->eb = x.pr->bytes;
    t->c2 = 16u / x.pr->bytes;
    t->m = F(DPU_DATA_CUBE_HEIGHT, HEIGHT) + 1;
    t->n = F(DPU_DATA_CUBE_CHANNEL, CHANNEL) + 1;
    t->rdma_ch = R(DPU_RDMA_DATA_CUBE_CHANNEL) + 1;
    t->lanes = t->n;
    t->src = R(DPU_RDMA_SRC_BASE_ADDR);
    t->ew = R(DPU_RDMA_EW_BASE_ADDR);
    t->dst = R(DPU_DST_BASE_ADDR);
    t->line_bytes = 16u + (uint64_t)F(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR) * t->eb;
    t->surf_bytes = t->line_bytes * t->m;
    if (t->operand == NPK_EW_PER_ELEMENT)
        t->ew_surf_bytes = R(DPU_RDMA_EW_SURF_STRIDE);
    t->out_surf_bytes = R(DPU_DST_SURF_STRIDE) & BIT(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE);
    return true;
}
