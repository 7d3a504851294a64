/* SPDX-License-Identifier: MIT */
/* The output-stage table: one row per (input, output) precision the DPU is known to handle in
 * a matmul, and the per-dtype defaults (read from the precision rows). */
#include <stddef.h>
#include <stdio.h>

#include "npukit/rk_outstage.h"

static const npk_rk_out_stage stages[] = {
    /* in, out, OD_BYPASS, 0x4084, 0x4088, completes, bytes, host acc, result, requant, evidence */
    {NPK_PREC_FP16, NPK_PREC_FP32, 1, 0x00001, 0, true, 4, NPK_PREC_FP32, true, false,
     "spec \"DPU output stages\"; facts C.1"},
    /* FP32TOFP16_EN (bit 16): without it fp16 output is all zeros (spec). Partials of a
     * K-split add in fp32 on the host and are narrowed once at the end. Line and cube
     * outputs both complete; only a forced atom-8 write-out (SIZE_E 0) hangs (hazard 15). */
    {NPK_PREC_FP16, NPK_PREC_FP16, 1, 0x10001, 0, true, 2, NPK_PREC_FP32, true, false,
     "spec \"fp16 matmul -> fp16 output stage\""},
    /* The vendor int8 capture clears OD_BYPASS (0x7FC). */
    {NPK_PREC_INT8, NPK_PREC_INT32, 0, 0x00001, 0, true, 4, NPK_PREC_INT32, true, false,
     "spec \"DPU output stages\"; facts C.1"},
    /* Requantized outputs: identity multiplier 0x4000 with shift 14 (ork out8); the narrow
     * write-out never completes on RK3588 (spec "int16/narrow-output MATMUL"). */
    {NPK_PREC_INT8, NPK_PREC_INT16, 1, 0x04000, 14, false, 2, NPK_PREC_INT32, false, true,
     "spec \"int16/narrow-output MATMUL does NOT self-complete\""},
    {NPK_PREC_INT8, NPK_PREC_INT8, 0, 0x04000, 14, false, 1, NPK_PREC_INT32, false, true,
     "spec \"int16/narrow-output MATMUL does NOT self-complete\""},
    /* int8 -> fp16 (dequantization on the NPU): the spec gives its DATA_FORMAT (0x40000000,
     * "DPU output stages") and nothing else. Its other rows say int32 is the only output an
     * int8 matmul completes with (the narrow requantized outputs write 0 bytes at every shape,
     * "Timing-ratio + drain tests") and the vendor's matmul API offers no int8 -> fp16 type on
     * RK3588 (type 9, int8 -> fp32, "inconclusive"); facts J.10: its geometry was never
     * demonstrated. So the row is the narrow outputs' one: it never completes, and the
     * converter fields are the identity (no source gives a dequantization scale's encoding:
     * FP32TOFP16_EN narrows an fp32 accumulator, which an int8 matmul does not have). */
    {NPK_PREC_INT8, NPK_PREC_FP16, 1, 0x00001, 0, false, 2, NPK_PREC_INT32, false, false,
     "spec \"DPU output stages\" gives only its 0x4010; \"int16/narrow-output MATMUL\": int32 "
     "is the only completing int8 output; facts J.10"},
    /* int4's int16 accumulator: exact per slice, the host widens the sum to int32 */
    {NPK_PREC_INT4, NPK_PREC_INT16, 1, 0x00001, 0, true, 2, NPK_PREC_INT32, false, false,
     "spec \"The precision enum\"; facts C.1"},
};

const npk_rk_out_stage *npk_rk_out_stage_find(npk_rk_prec in, npk_rk_prec out)
{
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
        if (stages[i].in == in && stages[i].out == out)
            return &stages[i];
    return NULL;
}

const npk_rk_out_stage *npk_rk_out_stage_at(unsigned i)
{
    return i < sizeof stages / sizeof stages[0] ? &stages[i] : NULL;
}

bool npk_rk_host_out_ok(npk_rk_prec in, npk_rk_prec out)
{
    const npk_rk_prec_row *r = npk_rk_input_row(in);
    const npk_rk_out_stage *st = npk_rk_out_stage_find(in, out);
    return r && (out == r->host_acc || (st && st->host_result));
}

const char *npk_rk_host_outs(npk_rk_prec in, char *buf, unsigned size)
{
    const npk_rk_prec_row *r = npk_rk_input_row(in);
    int n = snprintf(buf, size, "%s", r ? npk_rk_prec_name(r->host_acc) : "nothing");
    for (size_t i = 0; r && i < sizeof stages / sizeof stages[0]; i++)
        if (stages[i].in == in && stages[i].host_result && stages[i].out != r->host_acc && n >= 0 &&
            (unsigned)n < size)
            n += snprintf(buf + n, size - (unsigned)n, " or %s", npk_rk_prec_name(stages[i].out));
    return buf;
}

npk_rk_prec npk_rk_default_out(npk_rk_prec in)
{
    const npk_rk_prec_row *r = npk_rk_input_row(in);
    return r ? r->acc : in;
}

npk_rk_mode npk_rk_default_mode(npk_rk_prec in)
{
    const npk_rk_prec_row *r = npk_rk_input_row(in);
    return r ? r->mode : NPK_MODE_LINE;
}

uint32_t npk_rk_n_align(npk_rk_prec in)
{
    const npk_rk_prec_row *r = npk_rk_input_row(in);
    return r ? r->n_tile : 0;
}

uint32_t npk_rk_out_factor(npk_rk_prec in, npk_rk_prec out)
{
    unsigned eb = npk_rk_prec_bits(in);
    return eb ? 2 * npk_rk_prec_bits(out) / eb : 0;
}

uint32_t npk_rk_int4_k_max(void)
{
    /* the worst product (-8)(-8) summed K times stays within the int16 accumulator */
    const npk_rk_prec_row *r = npk_rk_input_row(NPK_PREC_INT4);
    uint32_t worst = (uint32_t)(r->op_min * r->op_min);
    return ((1u << (r->acc_bits - 1)) - 1) / worst;
}
