/* The output-stage table: one row per (input, output) precision the DPU is known to handle in
 * a matmul, and the per-dtype defaults. */
#include <stddef.h>

#include "npukit/rk_outstage.h"

static const npk_rk_out_stage stages[] = {
    /* in             out              OD  0x4084    0x4088 completes */
    {NPK_PREC_FP16, NPK_PREC_FP32, 1, 0x00001, 0, true},
    /* FP32TOFP16_EN (bit 16): without it fp16 output is all zeros (spec). */
    {NPK_PREC_FP16, NPK_PREC_FP16, 1, 0x10001, 0, true},
    /* The vendor int8 capture clears OD_BYPASS (0x7FC). */
    {NPK_PREC_INT8, NPK_PREC_INT32, 0, 0x00001, 0, true},
    /* Requantized outputs: identity multiplier 0x4000 with shift 14 (ork out8); the narrow
     * write-out never completes on RK3588 (spec "int16/narrow-output MATMUL"). */
    {NPK_PREC_INT8, NPK_PREC_INT16, 1, 0x04000, 14, false},
    {NPK_PREC_INT8, NPK_PREC_INT8, 0, 0x04000, 14, false},
    {NPK_PREC_INT4, NPK_PREC_INT16, 1, 0x00001, 0, true},
};

const npk_rk_out_stage *npk_rk_out_stage_find(npk_rk_prec in, npk_rk_prec out)
{
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
        if (stages[i].in == in && stages[i].out == out)
            return &stages[i];
    return NULL;
}

npk_rk_prec npk_rk_default_out(npk_rk_prec in)
{
    switch (in) {
    case NPK_PREC_FP16:
        return NPK_PREC_FP32;
    case NPK_PREC_INT4:
        return NPK_PREC_INT16;
    default:
        return NPK_PREC_INT32;
    }
}

npk_rk_mode npk_rk_default_mode(npk_rk_prec in)
{
    return in == NPK_PREC_INT4 ? NPK_MODE_CUBE : NPK_MODE_LINE;
}

uint32_t npk_rk_n_align(npk_rk_prec in)
{
    switch (in) {
    case NPK_PREC_FP16:
        return 16;
    case NPK_PREC_INT4:
        return 64;
    default:
        return 32;
    }
}

uint32_t npk_rk_out_factor(npk_rk_prec in, npk_rk_prec out)
{
    unsigned eb = npk_rk_prec_bits(in);
    return eb ? 2 * npk_rk_prec_bits(out) / eb : 0;
}

uint32_t npk_rk_int4_k_max(void) { return 32767 / 64; }
