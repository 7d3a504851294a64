/* Decoding a matmul from the register files. Every value comes from a register field named
 * through the register table; a combination the spec and the facts do not describe is refused
 * as "unsupported by the model", naming the register. The geometry model:
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
#include <stdarg.h>
#include <stdio.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_outstage.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "rksim/matmul.h"
#include "rksim/regs_view.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define R(reg) rksim_reg(rf, NPK_REG_##reg)

static bool unsup(rksim_core_result *r, const rksim_regfile *rf, npk_rk_reg_id id,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static bool unsup(rksim_core_result *r, const rksim_regfile *rf, npk_rk_reg_id id,
                  const char *fmt, ...)
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

/* The matmul input precisions the facts describe end to end (B.5, C.1): the precision rows'
 * inputs. */
static bool known_input(unsigned p) { return npk_rk_input_row((npk_rk_prec)p) != NULL; }

/* Output precisions per input: the output-stage rows, completing ones and the narrow int8
 * outputs of hazard 16. */
static bool known_pair(unsigned in, unsigned out)
{
    return npk_rk_out_stage_find((npk_rk_prec)in, (npk_rk_prec)out) != NULL;
}

/* A field's value read as two's complement over the field's width (SURF_STRIDE is "negative"
 * for M=1 cube programs: 0x0FFFFFFD = -3, facts C.1 #29). */
static int64_t field_signed(npk_rk_field_id f, uint32_t v)
{
    const npk_rk_field *fi = npk_rk_field_info(f);
    unsigned width = (unsigned)(fi->hi - fi->lo + 1);
    int64_t x = v;
    return (x & (1ll << (width - 1))) ? x - (1ll << width) : x;
}

bool rksim_mm_decode(rksim *s, const rksim_regfile *rf, rksim_mm *mm, uint32_t *hazards,
                     rksim_core_result *r)
{
    const npk_rk_soc *soc = s->soc;
    *mm = (rksim_mm){0};

    /* ---- CNA: a 1x1 direct convolution over a W=1, H=M, C=K feature ---- */
    unsigned in = F(CNA_CONV_CON1, IN_PRECISION);
    if (!known_input(in))
        return unsup(r, rf, NPK_REG_CNA_CONV_CON1, "input precision %u is not fp16/int8/int4",
                     in);
    if (F(CNA_CONV_CON1, PROC_PRECISION) != in)
        return unsup(r, rf, NPK_REG_CNA_CONV_CON1, "PROC_PRECISION differs from IN_PRECISION");
    if (F(CNA_CONV_CON1, CONV_MODE) != NPK_CONV_MODE_DIRECT || F(CNA_CONV_CON1, DECONV) ||
        F(CNA_CONV_CON1, ARGB_IN) || F(CNA_CONV_CON1, NONALIGN_DMA))
        return unsup(r, rf, NPK_REG_CNA_CONV_CON1, "only the plain direct convolution is modelled");
    if (F(CNA_CONV_CON3, CONV_X_STRIDE) != 1 || F(CNA_CONV_CON3, CONV_Y_STRIDE) != 1 ||
        F(CNA_CONV_CON3, NN_MODE))
        return unsup(r, rf, NPK_REG_CNA_CONV_CON3, "a matmul convolves with stride 1");
    if (F(CORE_MISC_CFG, PROC_PRECISION) != in)
        return unsup(r, rf, NPK_REG_CORE_MISC_CFG, "CORE precision differs from the CNA's");
    mm->in = (int)in;
    mm->in_bits = npk_rk_prec_bits((npk_rk_prec)in);
    mm->line = F(CNA_CONV_CON1, GROUP_LINE_OFF);
    mm->m = F(CNA_DATA_SIZE0, DATAIN_HEIGHT);
    mm->k = F(CNA_DATA_SIZE1, DATAIN_CHANNEL);
    mm->n = F(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS);
    if (F(CNA_DATA_SIZE0, DATAIN_WIDTH) != 1)
        return unsup(r, rf, NPK_REG_CNA_DATA_SIZE0, "DATAIN_WIDTH must be 1 (W=1 feature)");
    if (mm->m == 0 || mm->k == 0 || mm->n == 0)
        return unsup(r, rf, mm->m == 0 ? NPK_REG_CNA_DATA_SIZE0
                            : mm->k == 0 ? NPK_REG_CNA_DATA_SIZE1
                                         : NPK_REG_CNA_WEIGHT_SIZE2,
                     "a zero dimension");
    if (F(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL) != mm->k - 1)
        return unsup(r, rf, NPK_REG_CNA_DATA_SIZE1, "DATAIN_CHANNEL_REAL is not K-1");
    if (mm->k % 32)
        return unsup(r, rf, NPK_REG_CNA_DATA_SIZE1, "K=%u is not a multiple of the 32-wide K tile",
                     mm->k);
    if (F(CNA_FC_DATA_SIZE1, DMA_CHANNEL) != mm->k)
        return unsup(r, rf, NPK_REG_CNA_FC_DATA_SIZE1, "DMA_CHANNEL differs from K=%u", mm->k);
    if (F(CNA_FC_DATA_SIZE0, DMA_HEIGHT) != mm->m || F(CNA_FC_DATA_SIZE0, DMA_WIDTH) != 1)
        return unsup(r, rf, NPK_REG_CNA_FC_DATA_SIZE0, "DMA size differs from 1 x M=%u", mm->m);
    if (F(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH) != 1 || F(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT) != 1)
        return unsup(r, rf, NPK_REG_CNA_WEIGHT_SIZE2, "kernels must be 1x1");
    uint64_t kbytes = (uint64_t)mm->k * mm->in_bits / 8;
    if (F(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL) != kbytes)
        return unsup(r, rf, NPK_REG_CNA_WEIGHT_SIZE1, "bytes per kernel is not K*eb = %llu",
                     (unsigned long long)kbytes);
    mm->ntile = npk_rk_input_row((npk_rk_prec)in)->n_tile; /* facts D.1 */
    if (mm->n % mm->ntile)
        return unsup(r, rf, NPK_REG_CNA_WEIGHT_SIZE2, "N=%u is not a multiple of the %u-wide "
                     "weight tile", mm->n, mm->ntile);
    if (F(CNA_WEIGHT_SIZE0, WEIGHT_BYTES) != kbytes * mm->n)
        return unsup(r, rf, NPK_REG_CNA_WEIGHT_SIZE0, "weight bytes is not K*N*eb = %llu",
                     (unsigned long long)(kbytes * mm->n));
    if (F(CNA_DCOMP_CTRL, DECOMP_CONTROL) || R(CNA_DCOMP_REGNUM))
        return unsup(r, rf, NPK_REG_CNA_DCOMP_CTRL, "weight decompression is not modelled");
    if (F(CNA_CVT_CON0, CVT_BYPASS) != 1)
        return unsup(r, rf, NPK_REG_CNA_CVT_CON0, "the input converter must be bypassed");
    if (R(CNA_FC_CON0) || R(CNA_FC_CON1) || R(CNA_FC_CON2) || F(CNA_CVT_CON5, PER_CHANNEL_CVT_EN))
        return unsup(r, rf, R(CNA_FC_CON0) ? NPK_REG_CNA_FC_CON0
                            : R(CNA_FC_CON1) ? NPK_REG_CNA_FC_CON1
                            : R(CNA_FC_CON2) ? NPK_REG_CNA_FC_CON2
                                             : NPK_REG_CNA_CVT_CON5,
                     "skips, offsets and per-channel converts are not modelled");
    /* CNA_PAD_CON0: measured only for int8, and only as a top pad (spec "0x1068 ... int8
     * output row-offset": v shifts every output row to physrow m + v; rows pushed past the
     * M-row output are lost), with a zero pad value */
    mm->pad_top = F(CNA_PAD_CON0, PAD_TOP);
    if (F(CNA_PAD_CON0, PAD_LEFT) || (mm->pad_top && in != NPK_PREC_INT8))
        return unsup(r, rf, NPK_REG_CNA_PAD_CON0, "padding is described only as the int8 top "
                     "row offset");
    if (mm->pad_top && R(CNA_PAD_CON1))
        return unsup(r, rf, NPK_REG_CNA_PAD_CON1, "only a zero pad value is described");
    if (F(CNA_DATA_SIZE2, DATAOUT_WIDTH) != 1)
        return unsup(r, rf, NPK_REG_CNA_DATA_SIZE2, "DATAOUT_WIDTH must be 1 (it perturbs the "
                     "output incoherently otherwise, spec)");
    uint32_t entries = (uint32_t)((kbytes + 63) / 64); /* facts C.1 #16: ceil(K*eb/64) */
    if (F(CNA_CBUF_CON1, DATA_ENTRIES) != entries)
        return unsup(r, rf, NPK_REG_CNA_CBUF_CON1, "DATA_ENTRIES is not ceil(K*eb/64) = %u",
                     entries);
    mm->feat = R(CNA_FEATURE_DATA_ADDR);
    mm->weight = R(CNA_DCOMP_ADDR0);
    mm->c2 = 128 / mm->in_bits;

    /* feature geometry */
    uint32_t ls = F(CNA_DMA_CON1, LINE_STRIDE);
    uint32_t ss = F(CNA_DMA_CON2, SURF_STRIDE);
    if (mm->line) {
        if (ss != 0)
            return unsup(r, rf, NPK_REG_CNA_DMA_CON2, "line mode reads with SURF_STRIDE 0");
        if (ls == 0 || (uint64_t)ls * 16 < kbytes)
            return unsup(r, rf, NPK_REG_CNA_DMA_CON1, "a feature row of K=%u does not fit a "
                         "LINE_STRIDE of %u x 16 bytes", mm->k, ls);
        mm->row_bytes = (uint64_t)ls * 16;
    } else {
        if (ls != 4)
            return unsup(r, rf, NPK_REG_CNA_DMA_CON1, "cube mode reads with LINE_STRIDE 4*W = 4");
        mm->row_bytes = 16;
        mm->group_bytes = (uint64_t)ls * 16;
        mm->surf_bytes = ((int64_t)ls + field_signed(NPK_RKF(CNA_DMA_CON2, SURF_STRIDE), ss)) * 16;
        if (mm->surf_bytes <= 0)
            return unsup(r, rf, NPK_REG_CNA_DMA_CON2, "the surface pitch LINE_STRIDE + "
                         "SURF_STRIDE is not positive");
    }

    /* CBUF bank split (spec "The M-tiling scheduler"): DATA_BANK + WEIGHT_BANK banks */
    mm->cbuf_con0 = R(CNA_CBUF_CON0);
    mm->data_bank = F(CNA_CBUF_CON0, DATA_BANK);
    mm->weight_bank = F(CNA_CBUF_CON0, WEIGHT_BANK);
    if (F(CNA_CBUF_CON0, DATA_REUSE) || F(CNA_CBUF_CON0, FC_DATA_BANK))
        return unsup(r, rf, NPK_REG_CNA_CBUF_CON0, "DATA_REUSE / FC_DATA_BANK are not modelled");

    /* ---- CORE ---- */
    if (F(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT) != mm->m - 1 ||
        F(CORE_DATAOUT_SIZE_0, DATAOUT_WIDTH) != 0)
        return unsup(r, rf, NPK_REG_CORE_DATAOUT_SIZE_0, "CORE output is not 1 x M=%u", mm->m);
    if (F(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL) != mm->n - 1)
        return unsup(r, rf, NPK_REG_CORE_DATAOUT_SIZE_1, "CORE channels differ from N=%u", mm->n);
    if (R(CORE_CLIP_TRUNCATE))
        return unsup(r, rf, NPK_REG_CORE_CLIP_TRUNCATE, "accumulator clipping is not modelled");

    /* ---- DPU ---- */
    unsigned out = F(DPU_DATA_FORMAT, OUT_PRECISION);
    if (F(DPU_DATA_FORMAT, IN_PRECISION) != in || F(DPU_DATA_FORMAT, PROC_PRECISION) != in)
        return unsup(r, rf, NPK_REG_DPU_DATA_FORMAT, "DPU in/proc precision differ from the CNA's");
    if (!known_pair(in, out))
        return unsup(r, rf, NPK_REG_DPU_DATA_FORMAT, "%s input to output precision %u is not in "
                     "the facts", npk_rk_prec_name((npk_rk_prec)in), out);
    if (R(DPU_DATA_FORMAT) & ~(npk_rk_field_mask(NPK_RKF(DPU_DATA_FORMAT, OUT_PRECISION)) |
                               npk_rk_field_mask(NPK_RKF(DPU_DATA_FORMAT, IN_PRECISION)) |
                               npk_rk_field_mask(NPK_RKF(DPU_DATA_FORMAT, PROC_PRECISION))))
        return unsup(r, rf, NPK_REG_DPU_DATA_FORMAT, "shift/truncate fields are not modelled");
    mm->out = (int)out;
    mm->out_bits = npk_rk_prec_bits((npk_rk_prec)out);
    mm->c2o = 128 / mm->out_bits;
    mm->factor = 2 * mm->out_bits / mm->in_bits;
    if (F(DPU_FEATURE_MODE_CFG, OUTPUT_MODE) != NPK_DPU_OUTPUT_MODE_MEMORY ||
        F(DPU_FEATURE_MODE_CFG, FLYING_MODE) ||
        F(DPU_FEATURE_MODE_CFG, CONV_MODE) != NPK_CONV_MODE_DIRECT || F(DPU_FEATURE_MODE_CFG, TP_EN) ||
        F(DPU_FEATURE_MODE_CFG, COMB_USE))
        return unsup(r, rf, NPK_REG_DPU_FEATURE_MODE_CFG, "only the write-to-memory output mode "
                     "(0x1E4 family) is modelled");
    if (F(DPU_DATA_CUBE_WIDTH, WIDTH) != 0)
        return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_WIDTH, "output width must be 1");
    if (F(DPU_DATA_CUBE_HEIGHT, HEIGHT) != mm->m - 1 || F(DPU_DATA_CUBE_HEIGHT, MINMAX_CTL))
        return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_HEIGHT, "output height differs from M=%u", mm->m);
    if (F(DPU_WDMA_SIZE_1, HEIGHT_WDMA) != mm->m - 1 || F(DPU_WDMA_SIZE_1, WIDTH_WDMA) != 0)
        return unsup(r, rf, NPK_REG_DPU_WDMA_SIZE_1, "WDMA height differs from M=%u", mm->m);
    mm->n_dpu = F(DPU_DATA_CUBE_CHANNEL, CHANNEL) + 1;
    if (F(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL) + 1 != mm->n_dpu ||
        F(DPU_WDMA_SIZE_0, CHANNEL_WDMA) + 1 != mm->n_dpu)
        return unsup(r, rf, F(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL) + 1 != mm->n_dpu
                                ? NPK_REG_DPU_DATA_CUBE_CHANNEL
                                : NPK_REG_DPU_WDMA_SIZE_0,
                     "DPU channel counts disagree");
    if (mm->n_dpu != mm->n) {
        /* Hazard 7: the 13-bit DPU channel field cannot hold N > 8192; the CNA computes N
         * columns, the DPU writes the truncated count. */
        uint32_t trunc = ((mm->n - 1) & (npk_rk_field_mask(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL)) >>
                                         npk_rk_field_info(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL))->lo)) + 1;
        if (mm->n <= soc->n_max || mm->n_dpu != trunc)
            return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_CHANNEL, "DPU channels differ from N=%u",
                         mm->n);
        *hazards |= RKSIM_HZ_BIT(RKSIM_HZ_N_CEILING);
        if (!rksim_faithful(s, RKSIM_HZ_N_CEILING))
            mm->n_dpu = mm->n;
    }
    mm->bs_cfg = R(DPU_BS_CFG);
    /* A stage is bypassed when its BYPASS bit is set (0x53 in the vendor program). */
    if (!F(DPU_BN_CFG, BN_BYPASS))
        return unsup(r, rf, NPK_REG_DPU_BN_CFG, "the BN stage must be bypassed");
    if (!F(DPU_EW_CFG, EW_BYPASS))
        return unsup(r, rf, NPK_REG_DPU_EW_CFG, "the EW stage must be bypassed");
    if (F(DPU_BS_OW_CFG, SIZE_E_0) != F(DPU_BS_OW_CFG, SIZE_E_1) ||
        F(DPU_BS_OW_CFG, SIZE_E_0) != F(DPU_BS_OW_CFG, SIZE_E_2))
        return unsup(r, rf, NPK_REG_DPU_BS_OW_CFG, "the three SIZE_E fields differ");
    mm->size_e = F(DPU_BS_OW_CFG, SIZE_E_0);
    /* SIZE_E = F - 1 in every described program (facts C.1 #71); an fp16 output with SIZE_E 0
     * is the atom-8 trap of hazard 15, left to the hazard table in the faithful mode */
    bool atom8 = out == NPK_PREC_FP16 && mm->size_e == 0;
    if (mm->size_e != mm->factor - 1 && !(atom8 && rksim_faithful(s, RKSIM_HZ_FP16_OUT_STAGE)))
        return unsup(r, rf, NPK_REG_DPU_BS_OW_CFG, "SIZE_E %u is not F-1 = %u", mm->size_e,
                     mm->factor - 1);
    /* the BS stage must be bypassed; the conv's BS-active 0x20150 is hazard 15 */
    if (!F(DPU_BS_CFG, BS_BYPASS) &&
        (mm->bs_cfg != 0x20150 || !rksim_faithful(s, RKSIM_HZ_FP16_OUT_STAGE)))
        return unsup(r, rf, NPK_REG_DPU_BS_CFG, "the BS stage must be bypassed");
    mm->fp32tofp16 = F(DPU_OUT_CVT_SCALE, FP32TOFP16_EN);
    /* the narrow int8 outputs (hazard 16) program a requantizing converter */
    bool narrow_int = !npk_rk_out_stage_find((npk_rk_prec)in, (npk_rk_prec)out)->completes;
    if (!narrow_int) {
        if (F(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE) != 1 || R(DPU_OUT_CVT_SHIFT) ||
            R(DPU_OUT_CVT_OFFSET))
            return unsup(r, rf, F(DPU_OUT_CVT_SCALE, OUT_CVT_SCALE) != 1
                                    ? NPK_REG_DPU_OUT_CVT_SCALE
                                    : R(DPU_OUT_CVT_SHIFT) ? NPK_REG_DPU_OUT_CVT_SHIFT
                                                           : NPK_REG_DPU_OUT_CVT_OFFSET,
                         "the output converter is modelled at scale 1, shift 0, offset 0");
        if (mm->fp32tofp16 && out != NPK_PREC_FP16)
            return unsup(r, rf, NPK_REG_DPU_OUT_CVT_SCALE, "FP32TOFP16_EN with a non-fp16 output");
    }

    /* output geometry */
    mm->dst = R(DPU_DST_BASE_ADDR);
    /* both fields hold bits [31:4] of a byte count: the field in place is the byte value */
    mm->out_surf_bytes = R(DPU_DST_SURF_STRIDE) & npk_rk_field_mask(NPK_RKF(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE));
    mm->out_tile_bytes = R(DPU_SURFACE_ADD) & npk_rk_field_mask(NPK_RKF(DPU_SURFACE_ADD, SURF_ADD));
    mm->out_tile_expected = (uint64_t)mm->factor * mm->out_surf_bytes;
    uint32_t notch0 = F(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0);
    uint32_t notch1 = F(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1);
    if (mm->out_surf_bytes == 0)
        return unsup(r, rf, NPK_REG_DPU_DST_SURF_STRIDE, "a zero surface stride");
    if (mm->out_surf_bytes == 16) {
        /* row-major rows: NOTCH_ADDR_0 is the row's width, NOTCH_ADDR_1 its stride, in 16 B */
        /* the width the CNA's N implies (with hazard 7 the DPU writes fewer channels into
         * rows of this width) */
        uint32_t width16 = (uint32_t)(((uint64_t)mm->n * mm->out_bits + 127) / 128);
        if (notch0 + 1 != width16 && !(mm->m == 1 && notch0 == 0 && notch1 == 0))
            return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR, "NOTCH_ADDR_0 is not the row "
                         "width N*ob/16-1 = %u", width16 - 1);
        if (notch1 < notch0)
            return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR, "row stride below the row width");
        mm->out_line_bytes = ((uint64_t)notch1 + 1) * 16;
    } else {
        if (notch0 || notch1)
            return unsup(r, rf, NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR, "a notch with a cube output "
                         "(surface stride %llu bytes)", (unsigned long long)mm->out_surf_bytes);
        mm->out_line_bytes = 16;
    }
    return true;
}
