/* SPDX-License-Identifier: MIT */
/* Matmul program synthesis. Every register's value is computed once into a value map; the
 * body is then emitted in the vendor's 108-entry order (matmul_order, the operation's driver row
 * at the end of this file), so the registers the vendor writes twice (CBUF_CON0, CONV_CON1, DCOMP_CTRL, DCOMP_REGNUM) always carry the same value: the NPU
 * uses the later copy, and a stale earlier copy would hide on single-tile shapes (spec). */
#include "rk_op_synth.h"
#include "rk_sched.h"
#include "npukit/rk_synth.h"
#include "rk_body_runs.h"

#define PUT(reg, field, v) NPK_RKPUT(reg, field, v)

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
    NPK_RK_RUN_CNA_SIZES,
    NPK_REG_CNA_CBUF_CON0,
    NPK_REG_CNA_CBUF_CON1,
    NPK_RK_RUN_CNA_FEED,
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
    NPK_RK_RUN_CORE,
    NPK_RK_RUN_DPU_STAGES,
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

_Static_assert(sizeof matmul_order / sizeof matmul_order[0] == NPK_RK_MATMUL_BODY,
               "the matmul body is 108 entries");

/* The registers whose value is the same in every matmul (facts C.1, kind K). Everything not
 * listed here or set in compute_values() is 0. */
static void constant_values(uint32_t *v)
{
    /* PP_MODE | EXECUTER_PP_EN | POINTER_PP_EN = 0xE */
    v[NPK_REG_DPU_S_POINTER] = PUT(DPU_S_POINTER, POINTER_PP_MODE, 1) |
                               PUT(DPU_S_POINTER, EXECUTER_PP_EN, 1) |
                               PUT(DPU_S_POINTER, POINTER_PP_EN, 1);
    /* A 1x1 convolution with x/y stride 1. */
    v[NPK_REG_CNA_CONV_CON3] =
        PUT(CNA_CONV_CON3, CONV_Y_STRIDE, 1) | PUT(CNA_CONV_CON3, CONV_X_STRIDE, 1);
    v[NPK_REG_CNA_DATA_SIZE2] = PUT(CNA_DATA_SIZE2, DATAOUT_WIDTH, 1);
    /* Input convert bypassed: DATA_SIGN | CVT_TYPE | CVT_BYPASS = 0xB; scale 1, offset 0. */
    v[NPK_REG_CNA_CVT_CON0] = PUT(CNA_CVT_CON0, DATA_SIGN, NPK_DATA_SIGN_SIGNED) |
                              PUT(CNA_CVT_CON0, CVT_TYPE, NPK_CVT_TYPE_DESCRIBED) |
                              PUT(CNA_CVT_CON0, CVT_BYPASS, 1);
    v[NPK_REG_CNA_CVT_CON1] = PUT(CNA_CVT_CON1, CVT_SCALE0, 1);
    v[NPK_REG_CNA_CVT_CON2] = PUT(CNA_CVT_CON2, CVT_SCALE1, 1);
    v[NPK_REG_CNA_CVT_CON3] = PUT(CNA_CVT_CON3, CVT_SCALE2, 1);
    v[NPK_REG_CNA_CVT_CON4] = PUT(CNA_CVT_CON4, CVT_SCALE3, 1);
    /* The longest weight and data bursts (15). */
    v[NPK_REG_CNA_DMA_CON0] = PUT(CNA_DMA_CON0, WEIGHT_BURST_LEN, NPK_BURST_LEN_LONGEST) |
                              PUT(CNA_DMA_CON0, DATA_BURST_LEN, NPK_BURST_LEN_LONGEST);
    /* DPU writes to memory: BURST_LEN 15, OUTPUT_MODE 2 = 0x1E4. */
    v[NPK_REG_DPU_FEATURE_MODE_CFG] =
        PUT(DPU_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
        PUT(DPU_FEATURE_MODE_CFG, OUTPUT_MODE, NPK_DPU_OUTPUT_MODE_MEMORY);
    /* BS and BN stages fully bypassed (0x53); the conv's BS-active value hangs a matmul. */
    v[NPK_REG_DPU_BS_CFG] = PUT(DPU_BS_CFG, BS_RELU_BYPASS, 1) | PUT(DPU_BS_CFG, BS_MUL_BYPASS, 1) |
                            PUT(DPU_BS_CFG, BS_ALU_BYPASS, 1) | PUT(DPU_BS_CFG, BS_BYPASS, 1);
    v[NPK_REG_DPU_BN_CFG] = PUT(DPU_BN_CFG, BN_RELU_BYPASS, 1) | PUT(DPU_BN_CFG, BN_MUL_BYPASS, 1) |
                            PUT(DPU_BN_CFG, BN_ALU_BYPASS, 1) | PUT(DPU_BN_CFG, BN_BYPASS, 1);
    /* EW stage bypassed (0x383) with scale 1. */
    v[NPK_REG_DPU_EW_CFG] = PUT(DPU_EW_CFG, EW_RELU_BYPASS, 1) |
                            PUT(DPU_EW_CFG, EW_OP_CVT_BYPASS, 1) |
                            PUT(DPU_EW_CFG, EW_LUT_BYPASS, 1) | PUT(DPU_EW_CFG, EW_OP_BYPASS, 1) |
                            PUT(DPU_EW_CFG, EW_BYPASS, 1);
    v[NPK_REG_DPU_EW_CVT_SCALE_VALUE] = PUT(DPU_EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, 1);
}

/* Cube-mode feature surface stride: LINE_STRIDE * (M/4 - 1), +1 when negative, in 28 bits
 * (facts C.1 #29; M=1 gives 0x0FFFFFFD, the vendor int4 value). */
static uint32_t cube_surf_stride(uint32_t m)
{
    int64_t s = 4 * ((int64_t)(m / 4) - 1);
    if (s < 0)
        s += 1;
    return (uint32_t)s & 0x0FFFFFFFu;
}

static void compute_values(const npk_rk_mm *mm, const npk_rk_synth_info *info, uint32_t *v)
{
    const npk_rk_out_stage *st = npk_rk_out_stage_find(mm->in, mm->out);
    const bool line = info->mode == NPK_MODE_LINE;
    const uint32_t m = mm->m, k = mm->k, n = mm->n;
    const uint32_t ebits = npk_rk_prec_bits(mm->in), obits = npk_rk_prec_bits(mm->out);
    const uint32_t f = npk_rk_out_factor(mm->in, mm->out);
    const uint32_t a_pitch = mm->a_pitch ? mm->a_pitch : k;
    const uint32_t c_pitch = mm->c_pitch ? mm->c_pitch : n;

    constant_values(v);
    v[NPK_REG_CNA_CONV_CON1] = PUT(CNA_CONV_CON1, GROUP_LINE_OFF, line) |
                               PUT(CNA_CONV_CON1, PROC_PRECISION, mm->in) |
                               PUT(CNA_CONV_CON1, IN_PRECISION, mm->in);
    v[NPK_REG_CNA_CONV_CON2] = PUT(CNA_CONV_CON2, FEATURE_GRAINS, info->feature_grains);
    /* The feature is a W=1, H=M image of K channels. */
    v[NPK_REG_CNA_DATA_SIZE0] =
        PUT(CNA_DATA_SIZE0, DATAIN_WIDTH, 1) | PUT(CNA_DATA_SIZE0, DATAIN_HEIGHT, m);
    v[NPK_REG_CNA_DATA_SIZE1] =
        PUT(CNA_DATA_SIZE1, DATAIN_CHANNEL_REAL, k - 1) | PUT(CNA_DATA_SIZE1, DATAIN_CHANNEL, k);
    v[NPK_REG_CNA_DATA_SIZE3] = PUT(CNA_DATA_SIZE3, DATAOUT_ATOMICS, m);
    /* N kernels of 1x1xK. */
    v[NPK_REG_CNA_WEIGHT_SIZE0] = (uint32_t)((uint64_t)k * n * ebits / 8);
    v[NPK_REG_CNA_WEIGHT_SIZE1] = PUT(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL, k * ebits / 8);
    v[NPK_REG_CNA_WEIGHT_SIZE2] = PUT(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH, 1) |
                                  PUT(CNA_WEIGHT_SIZE2, WEIGHT_HEIGHT, 1) |
                                  PUT(CNA_WEIGHT_SIZE2, WEIGHT_KERNELS, n);
    v[NPK_REG_CNA_CBUF_CON0] = info->cbuf_con0;
    /* DATA_ENTRIES = ceil(K * eb / the SoC's entry bytes): fp16 K/32, int8 ceil(K/64), int4
     * ceil(K/128) in RK3588's 64-byte entries. */
    v[NPK_REG_CNA_CBUF_CON1] =
        PUT(CNA_CBUF_CON1, DATA_ENTRIES, npk_rk_cbuf_data_entries(mm->soc, mm->in, k));
    v[NPK_REG_CNA_FEATURE_DATA_ADDR] = mm->a;
    if (line) {
        /* One feature row in 16-byte units: fp16 K/8, int8 K/16, and int4 K/16 too (it uses
         * int8's 16-element CBUF entry, spec "0x107c"). The surface stride is unused. */
        uint32_t per16 = npk_rk_input_row(mm->in)->line_unit;
        v[NPK_REG_CNA_DMA_CON1] = PUT(CNA_DMA_CON1, LINE_STRIDE, a_pitch / per16);
        v[NPK_REG_CNA_DMA_CON2] = 0;
    } else {
        v[NPK_REG_CNA_DMA_CON1] = PUT(CNA_DMA_CON1, LINE_STRIDE, 4); /* 4 * W */
        v[NPK_REG_CNA_DMA_CON2] = PUT(CNA_DMA_CON2, SURF_STRIDE, cube_surf_stride(m));
    }
    v[NPK_REG_CNA_FC_DATA_SIZE0] =
        PUT(CNA_FC_DATA_SIZE0, DMA_WIDTH, 1) | PUT(CNA_FC_DATA_SIZE0, DMA_HEIGHT, m);
    v[NPK_REG_CNA_FC_DATA_SIZE1] = PUT(CNA_FC_DATA_SIZE1, DMA_CHANNEL, k);
    v[NPK_REG_CNA_DCOMP_ADDR0] = mm->b;

    v[NPK_REG_CORE_MISC_CFG] =
        PUT(CORE_MISC_CFG, PROC_PRECISION, mm->in) | PUT(CORE_MISC_CFG, QD_EN, 1);
    v[NPK_REG_CORE_DATAOUT_SIZE_0] = PUT(CORE_DATAOUT_SIZE_0, DATAOUT_HEIGHT, m - 1);
    v[NPK_REG_CORE_DATAOUT_SIZE_1] = PUT(CORE_DATAOUT_SIZE_1, DATAOUT_CHANNEL, n - 1);

    v[NPK_REG_DPU_DATA_FORMAT] = PUT(DPU_DATA_FORMAT, OUT_PRECISION, mm->out) |
                                 PUT(DPU_DATA_FORMAT, IN_PRECISION, mm->in) |
                                 PUT(DPU_DATA_FORMAT, PROC_PRECISION, mm->in);
    v[NPK_REG_DPU_DST_BASE_ADDR] = mm->c;
    /* Surface stride in 16-byte units: one unit in line mode, M units in cube mode. */
    v[NPK_REG_CNA_PAD_CON0] = PUT(CNA_PAD_CON0, PAD_TOP, mm->row_offset);
    const uint32_t rows = mm->c_rows ? mm->c_rows : m; /* of the output surface */
    v[NPK_REG_DPU_DST_SURF_STRIDE] = PUT(DPU_DST_SURF_STRIDE, DST_SURF_STRIDE, line ? 1 : rows);
    v[NPK_REG_DPU_DATA_CUBE_HEIGHT] = PUT(DPU_DATA_CUBE_HEIGHT, HEIGHT, m - 1);
    if (line) {
        /* The row-major output enabler: row stride and row width in 16-byte units, minus 1. */
        v[NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR] =
            PUT(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1, c_pitch * obits / 128 - 1) |
            PUT(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0, n * obits / 128 - 1);
    }
    v[NPK_REG_DPU_DATA_CUBE_CHANNEL] = PUT(DPU_DATA_CUBE_CHANNEL, ORIG_CHANNEL, n - 1) |
                                       PUT(DPU_DATA_CUBE_CHANNEL, CHANNEL, n - 1);
    v[NPK_REG_DPU_BS_OW_CFG] =
        PUT(DPU_BS_OW_CFG, SIZE_E_2, f - 1) | PUT(DPU_BS_OW_CFG, SIZE_E_1, f - 1) |
        PUT(DPU_BS_OW_CFG, SIZE_E_0, f - 1) | PUT(DPU_BS_OW_CFG, OD_BYPASS, st->od_bypass);
    v[NPK_REG_DPU_WDMA_SIZE_0] = PUT(DPU_WDMA_SIZE_0, CHANNEL_WDMA, n - 1);
    v[NPK_REG_DPU_WDMA_SIZE_1] = PUT(DPU_WDMA_SIZE_1, HEIGHT_WDMA, rows - 1);
    uint32_t scale = st->out_cvt_scale, shift = st->out_cvt_shift;
    if (st->requant && mm->requant_scale) {
        scale = mm->requant_scale;
        shift = mm->requant_shift;
    }
    v[NPK_REG_DPU_OUT_CVT_SCALE] = scale;
    v[NPK_REG_DPU_OUT_CVT_SHIFT] = PUT(DPU_OUT_CVT_SHIFT, OUT_CVT_SHIFT, shift);
    v[NPK_REG_DPU_SURFACE_ADD] = PUT(DPU_SURFACE_ADD, SURF_ADD, line ? f : rows * f);
}

npk_status npk_rk_synth_matmul(const npk_rk_mm *mm, npk_rk_entry body[NPK_RK_MATMUL_BODY],
                               npk_rk_synth_info *info)
{
    npk_rk_synth_info r;
    npk_status s = npk_rk_mm_check(mm, &r);
    if (s)
        return s;
    uint32_t values[NPK_REG_COUNT] = {0};
    compute_values(mm, &r, values);
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        body[i] = npk_rk_entry_reg_write(matmul_order[i], values[matmul_order[i]]);
    if (info)
        *info = r;
    return NPK_OK;
}

/* The matmul's driver row (rk_op_synth.h); its task's arguments are an npk_rk_mm. */
static npk_status matmul_check(const void *args) { return npk_rk_mm_check(args, NULL); }

static npk_status matmul_synth(const void *args, npk_rk_entry *body)
{
    return npk_rk_synth_matmul(args, body, NULL);
}

static npk_rk_prec matmul_out(const void *args) { return ((const npk_rk_mm *)args)->out; }

static void matmul_sample(void *args, uint32_t in, uint32_t in2, uint32_t out)
{
    npk_rk_mm *mm = args;
    *mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 32);
    mm->a = in, mm->b = in2, mm->c = out;
}

const npk_rk_op_synth npk_rk_op_synth_matmul = {
    .order = matmul_order,
    .body = NPK_RK_MATMUL_BODY,
    .args_size = sizeof(npk_rk_mm),
    .check = matmul_check,
    .synth = matmul_synth,
    .out_prec = matmul_out,
    .sample = matmul_sample,
};
