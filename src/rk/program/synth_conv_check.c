/* SPDX-License-Identifier: MIT */
/* Convolution task geometry and limits. Every limit is a register field's width read from the
 * register table (so the check and the registers cannot disagree), the CBUF's banks, or a
 * layout rule of rk_conv.h; the message names the value and the limit. */
#include <math.h>

#include "rk/program/rk_conv.h"
#include "npukit/rk_regs.h"

static uint64_t field_max(npk_rk_field_id f) { return npk_rk_field_get(f, UINT32_MAX); }

int64_t npk_rk_conv_pad_right(const npk_rk_conv *t)
{
    return ((int64_t)t->out_w - 1) * t->stride_x + t->k_w - t->in_w - t->pad_left;
}

int64_t npk_rk_conv_pad_bottom(const npk_rk_conv *t)
{
    return ((int64_t)t->out_h - 1) * t->stride_y + t->k_h - t->in_h - t->pad_top;
}

uint32_t npk_rk_conv_max_data_banks(const npk_rk_soc *soc)
{
    return npk_rk_soc_or_default(soc)->cbuf_banks - 1;
}

void npk_rk_conv_banks(npk_rk_conv *t)
{
    if (t->data_bank || t->weight_bank)
        return;
    const uint32_t banks = npk_rk_soc_or_default(t->soc)->cbuf_banks;
    uint32_t d = npk_rk_conv_data_banks(t->soc, t->prec, t->in_c, t->in_h, t->in_w);
    if (d > banks)
        d = banks; /* the check refuses it, naming the banks */
    t->data_bank = d ? d : 1;
    t->weight_bank = banks - t->data_bank;
}

#define LIMIT(cond, ...)                                                                          \
    do {                                                                                          \
        if (cond)                                                                                 \
            return npk_fail(NPK_ELIMIT, __VA_ARGS__);                                             \
    } while (0)
#define BAD(cond, ...)                                                                            \
    do {                                                                                          \
        if (cond)                                                                                 \
            return npk_fail(NPK_EINVAL, __VA_ARGS__);                                             \
    } while (0)

npk_status npk_rk_conv_check(const npk_rk_conv *t)
{
    const npk_rk_conv_prec *prec = npk_rk_conv_prec_of(t->prec);
    BAD(!prec, "conv: precision %s: the conv task is built for %s",
        npk_rk_prec_name(t->prec) ? npk_rk_prec_name(t->prec) : "?", npk_rk_conv_prec_names());
    BAD(prec->out != NPK_PREC_FP16 && t->clamp != NPK_RK_CLAMP_NONE,
        "conv: a clamp on the %s accumulator: the host clamps after requantising (%s)",
        npk_rk_prec_name(prec->out), prec->why);
    BAD(!t->in_h || !t->in_w || !t->in_c || !t->out_h || !t->out_w || !t->out_c,
        "conv: a zero dimension (in %ux%ux%u, out %ux%ux%u)", t->in_c, t->in_h, t->in_w, t->out_c,
        t->out_h, t->out_w);
    BAD(!t->k_h || !t->k_w, "conv: kernel %ux%u: both must be at least 1", t->k_h, t->k_w);
    BAD(!t->stride_x || !t->stride_y, "conv: stride %ux%u: both must be at least 1", t->stride_y,
        t->stride_x);
    BAD(t->depthwise && t->out_c != t->in_c,
        "conv: depthwise with %u outputs of %u channels: depthwise keeps the channels", t->out_c,
        t->in_c);
    BAD((unsigned)t->clamp >= NPK_RK_CLAMP_COUNT, "conv: clamp %d is not none, relu or relux",
        (int)t->clamp);
    BAD(t->clamp == NPK_RK_CLAMP_RELUX && !(isfinite(t->relux) && t->relux >= 0),
        "conv: relux bound %g: a finite value >= 0", (double)t->relux);
    LIMIT(t->in_h > field_max(NPK_RKF(CNA_DATA_SIZE0, DATAIN_HEIGHT)),
          "conv: input height %u exceeds %llu (CNA_DATA_SIZE0.DATAIN_HEIGHT)", t->in_h,
          (unsigned long long)field_max(NPK_RKF(CNA_DATA_SIZE0, DATAIN_HEIGHT)));
    LIMIT(t->in_w > field_max(NPK_RKF(CNA_DATA_SIZE0, DATAIN_WIDTH)),
          "conv: input width %u exceeds %llu (CNA_DATA_SIZE0.DATAIN_WIDTH)", t->in_w,
          (unsigned long long)field_max(NPK_RKF(CNA_DATA_SIZE0, DATAIN_WIDTH)));
    LIMIT(t->in_c - 1 > field_max(NPK_RKF(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL)),
          "conv: %u input channels exceed %llu (CNA_DATA_SIZE1.DATAIN_CHANNEL_REAL)", t->in_c,
          (unsigned long long)field_max(NPK_RKF(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL)) + 1);
    LIMIT(t->out_w > field_max(NPK_RKF(CNA_DATA_SIZE2, DATAOUT_WIDTH)),
          "conv: output width %u exceeds %llu (CNA_DATA_SIZE2.DATAOUT_WIDTH)", t->out_w,
          (unsigned long long)field_max(NPK_RKF(CNA_DATA_SIZE2, DATAOUT_WIDTH)));
    LIMIT(t->out_h - 1 > field_max(NPK_RKF(DPU_DATA_CUBE_HEIGHT, HEIGHT)),
          "conv: output height %u exceeds %llu (DPU_DATA_CUBE_HEIGHT)", t->out_h,
          (unsigned long long)field_max(NPK_RKF(DPU_DATA_CUBE_HEIGHT, HEIGHT)) + 1);
    LIMIT(t->out_c - 1 > field_max(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL)),
          "conv: %u output channels exceed %llu (DPU_DATA_CUBE_CHANNEL)", t->out_c,
          (unsigned long long)field_max(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL)) + 1);
    LIMIT((uint64_t)t->out_w * t->out_h > field_max(NPK_RKF(CNA_DATA_SIZE3, DATAOUT_ATOMICS)),
          "conv: %ux%u output positions exceed %llu (CNA_DATA_SIZE3.DATAOUT_ATOMICS)", t->out_h,
          t->out_w, (unsigned long long)field_max(NPK_RKF(CNA_DATA_SIZE3, DATAOUT_ATOMICS)));
    LIMIT(t->k_w > field_max(NPK_RKF(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH)) ||
              t->k_h > field_max(NPK_RKF(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT)),
          "conv: kernel %ux%u exceeds %llu (CNA_WEIGHT_SIZE2.WEIGHT_WIDTH/HEIGHT)", t->k_h, t->k_w,
          (unsigned long long)field_max(NPK_RKF(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH)));
    LIMIT(t->stride_x > field_max(NPK_RKF(CNA_CONV_CON3, CONV_X_STRIDE)) ||
              t->stride_y > field_max(NPK_RKF(CNA_CONV_CON3, CONV_Y_STRIDE)),
          "conv: stride %ux%u exceeds %llu (CNA_CONV_CON3.CONV_X/Y_STRIDE)", t->stride_y,
          t->stride_x, (unsigned long long)field_max(NPK_RKF(CNA_CONV_CON3, CONV_X_STRIDE)));
    const uint64_t pad_max = field_max(NPK_RKF(CNA_PAD_CON0, PAD_LEFT));
    LIMIT(t->pad_left > pad_max || t->pad_top > pad_max,
          "conv: padding top %u left %u exceeds %llu (CNA_PAD_CON0)", t->pad_top, t->pad_left,
          (unsigned long long)pad_max);
    int64_t pr = npk_rk_conv_pad_right(t), pb = npk_rk_conv_pad_bottom(t);
    LIMIT(pr > (int64_t)pad_max || pb > (int64_t)pad_max,
          "conv: the output %ux%u implies padding bottom %lld right %lld, past %llu", t->out_h,
          t->out_w, (long long)pb, (long long)pr, (unsigned long long)pad_max);
    BAD(pr <= -(int64_t)t->stride_x || pb <= -(int64_t)t->stride_y,
        "conv: the output %ux%u is smaller than the input %ux%u gives at stride %ux%u", t->out_h,
        t->out_w, t->in_h, t->in_w, t->stride_y, t->stride_x);
    const uint64_t contraction = (uint64_t)(t->depthwise ? 1 : t->in_c) * t->k_h * t->k_w;
    LIMIT(prec->k_max && contraction > prec->k_max,
          "conv: %s contraction C x KH x KW = %llu past %llu (the int32 accumulator could "
          "overflow)",
          npk_rk_prec_name(t->prec), (unsigned long long)contraction,
          (unsigned long long)prec->k_max);
    const uint64_t kbytes = npk_rk_conv_kernel_bytes(t->prec, t->in_c, t->k_h, t->k_w);
    LIMIT(kbytes > field_max(NPK_RKF(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL)),
          "conv: one kernel is %llu bytes, past %llu (CNA_WEIGHT_SIZE1)", (unsigned long long)kbytes,
          (unsigned long long)field_max(NPK_RKF(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL)));
    LIMIT(npk_rk_conv_weight_bytes(t->prec, t->depthwise, t->out_c, t->in_c, t->k_h, t->k_w) >
              UINT32_MAX,
          "conv: the weights exceed 4 GiB (CNA_WEIGHT_SIZE0)");
    LIMIT(npk_rk_conv_row_entries(t->soc, t->prec, t->in_c, t->in_w) >
              field_max(NPK_RKF(CNA_CBUF_CON1, DATA_ENTRIES)),
          "conv: an input row of %u entries exceeds %llu (CNA_CBUF_CON1.DATA_ENTRIES)",
          npk_rk_conv_row_entries(t->soc, t->prec, t->in_c, t->in_w),
          (unsigned long long)field_max(NPK_RKF(CNA_CBUF_CON1, DATA_ENTRIES)));
    const uint32_t banks = npk_rk_soc_or_default(t->soc)->cbuf_banks;
    uint32_t need = npk_rk_conv_data_banks(t->soc, t->prec, t->in_c, t->in_h, t->in_w);
    LIMIT(need > npk_rk_conv_max_data_banks(t->soc),
          "conv: the input (%ux%ux%u) needs %u CBUF banks, past the %u a task can give it (one "
          "stays with the weights): split it into row bands",
          t->in_c, t->in_h, t->in_w, need, npk_rk_conv_max_data_banks(t->soc));
    LIMIT(t->data_bank < need || !t->weight_bank || t->data_bank + t->weight_bank > banks,
          "conv: CBUF split DATA_BANK %u + WEIGHT_BANK %u: the input needs %u, the weights at "
          "least 1, of %u banks",
          t->data_bank, t->weight_bank, need, banks);
    BAD(!t->in || !t->weights || !t->bias || !t->out,
        "conv: a zero IOVA (in 0x%x weights 0x%x bias 0x%x out 0x%x; a conv always reads its "
        "bias, zeros when the layer has none)",
        t->in, t->weights, t->bias, t->out);
    BAD((t->in | t->weights | t->out | t->bias) % NPK_RK_ATOM_BYTES,
        "conv: an IOVA is not 16-byte aligned (in 0x%x weights 0x%x bias 0x%x out 0x%x)", t->in,
        t->weights, t->bias, t->out);
    return NPK_OK;
}
