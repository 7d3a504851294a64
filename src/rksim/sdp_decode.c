/* SPDX-License-Identifier: MIT */
/* Decoding an SDP task from the register files. Every value comes from a field named by the
 * register table; anything outside what the spec and the facts describe for the SDP is
 * "unsupported by the model", naming the register. The geometry model (rk_sdp.h):
 *
 *   feature  [ceil(C/C2)][M][C2] atoms of 16 bytes at SRC_BASE_ADDR (the RDMA has no source
 *            line stride); with LINE_NOTCH_ADDR = L one atom-wide tile whose rows are
 *            (C2 + L) elements apart (spec "LINE_NOTCH_ADDR = N-8");
 *   operand  per-element: the same atom cube at EW_BASE_ADDR with EW_SURF_STRIDE bytes between
 *            surfaces; per-channel: a contiguous [C] vector (spec ERDMA_CFG);
 *   output   the atom cube at DST_BASE_ADDR, DST_SURF_STRIDE = M x 16 between surfaces, the
 *            SDP's SIZE_E 0 / OD_BYPASS write-out (BS_OW_CFG 0x2).
 */
#include <stdarg.h>
#include <stdio.h>

#include "npukit/rk_regs.h"
#include "rksim/regs_view.h"
#include "rksim/sdp.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define R(reg) rksim_reg(rf, NPK_REG_##reg)
#define BIT(reg, field) npk_rk_field_mask(NPK_RKF(reg, field))

static bool unsup(rksim_core_result *r, const rksim_regfile *rf, npk_rk_reg_id id, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

static bool unsup(rksim_core_result *r, const rksim_regfile *rf, npk_rk_reg_id id, const char *fmt,
                  ...)
{
    char why[120];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    const npk_rk_reg *info = npk_rk_reg_info(id);
    return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                             "unsupported by the model: %s (0x%04X) = 0x%08X: %s", info->name,
                             info->offset, rksim_reg(rf, id), why);
}

/* The stage configuration registers: which values the SDP model knows. */
static bool decode_stages(const rksim_regfile *rf, rksim_sdp *t, rksim_core_result *r)
{
    const uint32_t bypass53 = BIT(DPU_BS_CFG, BS_RELU_BYPASS) | BIT(DPU_BS_CFG, BS_MUL_BYPASS) |
                              BIT(DPU_BS_CFG, BS_ALU_BYPASS) | BIT(DPU_BS_CFG, BS_BYPASS);
    const uint32_t relu_only = BIT(DPU_BS_CFG, BS_MUL_BYPASS) | BIT(DPU_BS_CFG, BS_ALU_BYPASS);
    uint32_t bs = R(DPU_BS_CFG);
    if (bs != bypass53 && bs != relu_only)
        return unsup(r, rf, NPK_REG_DPU_BS_CFG,
                     "an SDP's BS stage is modelled fully bypassed "
                     "(0x53) or with only its ReLU (0x12)");
    if (F(DPU_BS_MUL_CFG, BS_MUL_SRC) || R(DPU_RDMA_BRDMA_CFG) || R(DPU_RDMA_NRDMA_CFG))
        return unsup(r, rf,
                     F(DPU_BS_MUL_CFG, BS_MUL_SRC) ? NPK_REG_DPU_BS_MUL_CFG
                     : R(DPU_RDMA_BRDMA_CFG)       ? NPK_REG_DPU_RDMA_BRDMA_CFG
                                                   : NPK_REG_DPU_RDMA_NRDMA_CFG,
                     "BS/BN operands from memory are not modelled");
    if (!F(DPU_BN_CFG, BN_BYPASS))
        return unsup(r, rf, NPK_REG_DPU_BN_CFG, "the BN stage must be bypassed");

    uint32_t ew = R(DPU_EW_CFG);
    bool erdma = !F(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE);
    if (F(DPU_EW_CFG, EW_BYPASS)) {
        if (erdma)
            return unsup(r, rf, NPK_REG_DPU_RDMA_ERDMA_CFG,
                         "an operand read for a bypassed "
                         "EW stage is not described");
        if (bs != relu_only)
            return unsup(r, rf, NPK_REG_DPU_EW_CFG,
                         "an SDP task with every stage bypassed "
                         "is not described");
        t->op = npk_rk_ew_op_row_of(NPK_EW_RELU);
        t->operand = NPK_EW_NO_OPERAND;
        return true;
    }
    if (bs != bypass53)
        return unsup(r, rf, NPK_REG_DPU_BS_CFG,
                     "the BS ReLU together with an EW op is not "
                     "modelled");
    const uint32_t known = BIT(DPU_EW_CFG, EW_DATA_MODE) | BIT(DPU_EW_CFG, EDATA_SIZE) |
                           BIT(DPU_EW_CFG, EW_ALU_ALGO) | BIT(DPU_EW_CFG, EW_RELU_BYPASS) |
                           BIT(DPU_EW_CFG, EW_OP_CVT_BYPASS) | BIT(DPU_EW_CFG, EW_LUT_BYPASS) |
                           BIT(DPU_EW_CFG, EW_OP_SRC) | BIT(DPU_EW_CFG, EW_OP_TYPE);
    const uint32_t bypasses = BIT(DPU_EW_CFG, EW_RELU_BYPASS) | BIT(DPU_EW_CFG, EW_OP_CVT_BYPASS) |
                              BIT(DPU_EW_CFG, EW_LUT_BYPASS);
    if ((ew & ~known) || (ew & bypasses) != bypasses)
        return unsup(r, rf, NPK_REG_DPU_EW_CFG,
                     "only the captured EW configuration (LUT, ReLU "
                     "and operand converter bypassed, no CVT/PReLU/binary/equal) is modelled");
    if (F(DPU_EW_CFG, EW_OP_SRC) != NPK_EW_OP_SRC_MEMORY)
        return unsup(r, rf, NPK_REG_DPU_EW_CFG,
                     "a register-immediate EW operand is not "
                     "modelled");
    t->op = npk_rk_ew_op_decode(F(DPU_EW_CFG, EW_OP_TYPE), F(DPU_EW_CFG, EW_ALU_ALGO));
    if (!t->op)
        return unsup(r, rf, NPK_REG_DPU_EW_CFG,
                     "EW_ALU_ALGO %u (EQL or undescribed) is not "
                     "modelled",
                     F(DPU_EW_CFG, EW_ALU_ALGO));
    if (!erdma)
        return unsup(r, rf, NPK_REG_DPU_RDMA_ERDMA_CFG,
                     "an EW op without its operand read "
                     "(ERDMA_DISABLE) is not described");
    unsigned mode = F(DPU_EW_CFG, EW_DATA_MODE);
    if (mode != NPK_EW_DATA_MODE_PER_CHANNEL && mode != NPK_EW_DATA_MODE_PER_ELEMENT)
        return unsup(r, rf, NPK_REG_DPU_EW_CFG,
                     "EW_DATA_MODE %u is neither per-channel (0) nor "
                     "per-element (2)",
                     mode);
    if (F(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_MODE) != mode)
        return unsup(r, rf, NPK_REG_DPU_RDMA_ERDMA_CFG,
                     "ERDMA_DATA_MODE differs from "
                     "EW_DATA_MODE %u",
                     mode);
    t->operand = mode == NPK_EW_DATA_MODE_PER_ELEMENT ? NPK_EW_PER_ELEMENT : NPK_EW_PER_CHANNEL;
    return true;
}

static bool decode_precision(const rksim_regfile *rf, rksim_sdp *t, rksim_core_result *r)
{
    unsigned proc = F(DPU_DATA_FORMAT, PROC_PRECISION);
    const npk_rk_sdp_prec_row *pr = npk_rk_sdp_prec_row_of((npk_rk_prec)proc);
    if (!pr)
        return unsup(r, rf, NPK_REG_DPU_DATA_FORMAT,
                     "SDP precision %u is not fp16, int16 or "
                     "int8 (the DPU lanes are at most 16 bits)",
                     proc);
    if (F(DPU_DATA_FORMAT, OUT_PRECISION) != proc ||
        (R(DPU_DATA_FORMAT) &
         ~(BIT(DPU_DATA_FORMAT, OUT_PRECISION) | BIT(DPU_DATA_FORMAT, IN_PRECISION) |
           BIT(DPU_DATA_FORMAT, PROC_PRECISION))))
        return unsup(r, rf, NPK_REG_DPU_DATA_FORMAT,
                     "an SDP writes its processing precision, "
                     "with no shift/truncate fields");
    unsigned in = F(DPU_RDMA_FEATURE_MODE_CFG, IN_PRECISION);
    if (F(DPU_DATA_FORMAT, IN_PRECISION) != in)
        return unsup(r, rf, NPK_REG_DPU_DATA_FORMAT, "IN_PRECISION differs from the RDMA's %u", in);
    if (F(DPU_RDMA_FEATURE_MODE_CFG, PROC_PRECISION) != proc)
        return unsup(r, rf, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
                     "PROC_PRECISION differs from the "
                     "DPU's %u",
                     proc);
    if (in != proc && !(in == NPK_PREC_INT32 && proc == NPK_PREC_INT16))
        return unsup(r, rf, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
                     "feature precision %u into a %s "
                     "SDP is not described (only the int32 feature into int16, spec "
                     "OVER-FETCH)",
                     in, npk_rk_prec_name((npk_rk_prec)proc));
    if (F(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN) != pr->fp32_compute)
        return unsup(r, rf, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
                     "MRDMA_FP16TOFP32_EN must be "
                     "set exactly for an fp16 SDP");
    if (F(DPU_OUT_CVT_SCALE, FP32TOFP16_EN) != pr->fp32_compute ||
        F(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE) != 1 || R(DPU_OUT_CVT_SHIFT) || R(DPU_OUT_CVT_OFFSET))
        return unsup(r, rf,
                     F(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE) != 1 ||
                             F(DPU_OUT_CVT_SCALE, FP32TOFP16_EN) != pr->fp32_compute
                         ? NPK_REG_DPU_OUT_CVT_SCALE
                     : R(DPU_OUT_CVT_SHIFT) ? NPK_REG_DPU_OUT_CVT_SHIFT
                                            : NPK_REG_DPU_OUT_CVT_OFFSET,
                     "the output converter is modelled at scale 1, shift 0, offset 0 "
                     "(FP32TOFP16_EN for fp16)");
    if (t->op->binary && (F(DPU_EW_CFG, EDATA_SIZE) != pr->data_size ||
                          F(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_SIZE) != pr->data_size))
        return unsup(r, rf,
                     F(DPU_EW_CFG, EDATA_SIZE) != pr->data_size ? NPK_REG_DPU_EW_CFG
                                                                : NPK_REG_DPU_RDMA_ERDMA_CFG,
                     "operand data size differs from the %s element's %u",
                     npk_rk_prec_name((npk_rk_prec)proc), pr->data_size);
    t->prec = (int)proc;
    t->feature = (int)in;
    t->eb = pr->bytes;
    t->c2 = 16u / pr->bytes;
    return true;
}

static bool decode_modes(const rksim_regfile *rf, rksim_core_result *r)
{
    const uint32_t pp = BIT(DPU_S_POINTER, POINTER_PP_MODE) | BIT(DPU_S_POINTER, EXECUTER_PP_EN) |
                        BIT(DPU_S_POINTER, POINTER_PP_EN);
    if (R(DPU_S_POINTER) & pp)
        return unsup(r, rf, NPK_REG_DPU_S_POINTER,
                     "ping-pong on an SDP task is not described "
                     "(off for any SDP task, spec)");
    if (R(DPU_RDMA_S_POINTER) & pp)
        return unsup(r, rf, NPK_REG_DPU_RDMA_S_POINTER,
                     "ping-pong on an SDP task is not "
                     "described (off for any SDP task, spec)");
    if (F(DPU_FEATURE_MODE_CFG, OUTPUT_MODE) != NPK_DPU_OUTPUT_MODE_MEMORY ||
        !F(DPU_FEATURE_MODE_CFG, FLYING_MODE) || F(DPU_FEATURE_MODE_CFG, CONV_MODE) ||
        F(DPU_FEATURE_MODE_CFG, TP_EN) || F(DPU_FEATURE_MODE_CFG, COMB_USE) ||
        F(DPU_FEATURE_MODE_CFG, NONALIGN) || F(DPU_FEATURE_MODE_CFG, RGP_TYPE))
        return unsup(r, rf, NPK_REG_DPU_FEATURE_MODE_CFG,
                     "an SDP task takes its feature from "
                     "the RDMA (FLYING_MODE) and writes to memory");
    if (F(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE))
        return unsup(r, rf, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
                     "MRDMA_DISABLE: an SDP task "
                     "without its feature read");
    if (!F(DPU_RDMA_FEATURE_MODE_CFG, FLYING_MODE) || F(DPU_RDMA_FEATURE_MODE_CFG, CONV_MODE) ||
        F(DPU_RDMA_FEATURE_MODE_CFG, COMB_USE))
        return unsup(r, rf, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG,
                     "only the flying feature read "
                     "of the captured SDP (0x17849 family) is modelled");
    return true;
}

static bool decode_geometry(const rksim_regfile *rf, rksim_sdp *t, rksim_core_result *r)
{
    t->m = F(DPU_DATA_CUBE_HEIGHT, HEIGHT) + 1;
    t->n = F(DPU_DATA_CUBE_CHANNEL, CHANNEL) + 1;
    if (F(DPU_DATA_CUBE_WIDTH, WIDTH) || F(DPU_DATA_CUBE_HEIGHT, MINMAX_CTL))
        return unsup(r, rf,
                     F(DPU_DATA_CUBE_WIDTH, WIDTH) ? NPK_REG_DPU_DATA_CUBE_WIDTH
                                                   : NPK_REG_DPU_DATA_CUBE_HEIGHT,
                     "an SDP cube is 1 wide with no min/max control");
    if (F(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL) + 1 != t->n ||
        F(DPU_WDMA_SIZE_0, CHANNEL_WDMA) + 1 != t->n)
        return unsup(r, rf,
                     F(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL) + 1 != t->n
                         ? NPK_REG_DPU_DATA_CUBE_CHANNEL
                         : NPK_REG_DPU_WDMA_SIZE_0,
                     "DPU channel counts disagree");
    if (F(DPU_WDMA_SIZE_1, HEIGHT_WDMA) + 1 != t->m || F(DPU_WDMA_SIZE_1, WIDTH_WDMA))
        return unsup(r, rf, NPK_REG_DPU_WDMA_SIZE_1, "WDMA height differs from M=%u", t->m);
    if (R(DPU_RDMA_DATA_CUBE_WIDTH) || R(DPU_RDMA_DATA_CUBE_HEIGHT) + 1 != t->m)
        return unsup(r, rf,
                     R(DPU_RDMA_DATA_CUBE_WIDTH) ? NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH
                                                 : NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT,
                     "the RDMA cube is not 1 x M=%u", t->m);
    t->rdma_ch = R(DPU_RDMA_DATA_CUBE_CHANNEL) + 1;
    if (t->rdma_ch == 0 || (t->feature != NPK_PREC_INT32 && t->rdma_ch != t->n))
        return unsup(r, rf, NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL,
                     "RDMA channels differ from the "
                     "DPU's %u (described only for an int32 feature, spec OVER-FETCH)",
                     t->n);
    t->lanes = t->n;
    t->src = R(DPU_RDMA_SRC_BASE_ADDR);
    t->ew = R(DPU_RDMA_EW_BASE_ADDR);
    t->dst = R(DPU_DST_BASE_ADDR);

    /* feature: dense atoms, or one atom-wide tile of a contiguous buffer */
    uint32_t notch = F(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR);
    if (R(DPU_RDMA_SRC_DMA_CFG) & ~BIT(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR))
        return unsup(r, rf, NPK_REG_DPU_RDMA_SRC_DMA_CFG, "only LINE_NOTCH_ADDR is modelled");
    if (notch && t->rdma_ch > t->c2)
        return unsup(r, rf, NPK_REG_DPU_RDMA_SRC_DMA_CFG,
                     "a line notch is described for one "
                     "%u-channel tile, not %u channels",
                     t->c2, t->rdma_ch);
    if (R(DPU_RDMA_SURF_NOTCH) || R(DPU_RDMA_EW_SURF_NOTCH) || R(DPU_RDMA_PAD_CFG))
        return unsup(r, rf,
                     R(DPU_RDMA_SURF_NOTCH)      ? NPK_REG_DPU_RDMA_SURF_NOTCH
                     : R(DPU_RDMA_EW_SURF_NOTCH) ? NPK_REG_DPU_RDMA_EW_SURF_NOTCH
                                                 : NPK_REG_DPU_RDMA_PAD_CFG,
                     "surface notches and padding are not modelled");
    t->line_bytes = 16u + (uint64_t)notch * t->eb;
    t->surf_bytes = t->line_bytes * t->m;

    if (t->operand == NPK_EW_PER_ELEMENT) {
        t->ew_surf_bytes = R(DPU_RDMA_EW_SURF_STRIDE);
        if (t->ew_surf_bytes < (uint64_t)t->m * 16 || t->ew_surf_bytes % 16)
            return unsup(r, rf, NPK_REG_DPU_RDMA_EW_SURF_STRIDE,
                         "a per-element operand surface "
                         "stride is a multiple of 16 bytes of at least M x 16 = %u",
                         t->m * 16);
    }

    /* output: the atom cube */
    t->out_surf_bytes = R(DPU_DST_SURF_STRIDE) & BIT(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE);
    if (t->out_surf_bytes != (uint64_t)t->m * 16)
        return unsup(r, rf, NPK_REG_DPU_DST_SURF_STRIDE,
                     "the SDP's output is described in the "
                     "atom layout, surface stride M x 16 = %u bytes",
                     t->m * 16);
    if (R(DPU_DATA_CUBE_NOTCH_ADDR))
        return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR, "a notch with the atom output");
    if ((R(DPU_SURFACE_ADD) & BIT(DPU_SURFACE_ADD, SURF_ADD)) != t->out_surf_bytes)
        return unsup(r, rf, NPK_REG_DPU_SURFACE_ADD,
                     "SURFACE_ADD is not the surface stride "
                     "(a wild value wild-writes, spec)");
    if (R(DPU_BS_OW_CFG) != BIT(DPU_BS_OW_CFG, OD_BYPASS))
        return unsup(r, rf, NPK_REG_DPU_BS_OW_CFG,
                     "the SDP's write-out is described with "
                     "SIZE_E 0 and OD_BYPASS (0x2)");
    return true;
}

bool rksim_sdp_decode(const rksim_regfile *rf, rksim_sdp *t, rksim_core_result *r)
{
    *t = (rksim_sdp){0};
    return decode_modes(rf, r) && decode_stages(rf, t, r) && decode_precision(rf, t, r) &&
           decode_geometry(rf, t, r);
}
