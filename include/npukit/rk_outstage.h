/* SPDX-License-Identifier: MIT */
/* The DPU output stage as data: one row per (input, output) precision pair a matmul can
 * produce, and the per-dtype defaults the synthesizer, the planner and the simulator share. */
#ifndef NPUKIT_RK_OUTSTAGE_H
#define NPUKIT_RK_OUTSTAGE_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row per (input, output) precision pair the output stage knows (facts C.1 #59, #71,
 * #84, #85; spec "DPU output stages", "int16/narrow-output MATMUL does NOT self-complete"). */
typedef struct npk_rk_out_stage {
    npk_rk_prec in, out;
    unsigned od_bypass;     /* DPU_BS_OW_CFG.OD_BYPASS as the vendor/ork programs set it */
    uint32_t out_cvt_scale; /* DPU_OUT_CVT_SCALE (FP32TOFP16_EN | scale) */
    uint32_t out_cvt_shift; /* DPU_OUT_CVT_SHIFT */
    bool completes;         /* false: the hardware never raises the done interrupt */
    unsigned out_bytes;     /* bytes of one output element */
    npk_rk_prec host_acc;   /* the precision the host adds this stage's partials in */
    bool host_result;       /* the runtime and the CPU reference offer it as a result */
    bool requant;           /* OUT_CVT is a requantizing multiplier and shift the caller
                               may set (the narrow integer outputs) */
    const char *evidence;   /* the spec/facts sections that settle the row's behaviour */
} npk_rk_out_stage;

NPUKIT_API const npk_rk_out_stage *npk_rk_out_stage_find(npk_rk_prec in, npk_rk_prec out);
/* The i-th row of the table, NULL past its end. */
NPUKIT_API const npk_rk_out_stage *npk_rk_out_stage_at(unsigned i);
/* Whether the runtime and the CPU reference give `out` for `in` inputs: the input's host
 * accumulator (fp16: fp32, int8 and int4: int32) or a stage offered as a result (fp16). */
NPUKIT_API bool npk_rk_host_out_ok(npk_rk_prec in, npk_rk_prec out);
/* Those outputs as text for a message ("fp32 or fp16"). */
NPUKIT_API const char *npk_rk_host_outs(npk_rk_prec in, char *buf, unsigned size);
/* The default output of an input precision: fp16 -> fp32, int8 -> int32, int4 -> int16. */
NPUKIT_API npk_rk_prec npk_rk_default_out(npk_rk_prec in);
/* The vendor's feature/output mode: line for fp16 and int8, cube for int4 (facts C.0). */
NPUKIT_API npk_rk_mode npk_rk_default_mode(npk_rk_prec in);
/* The N alignment of a dtype's weight tiles: fp16 16, int8 32, int4 64 (facts D.1); 0 for a
 * precision that is no matmul input. */
NPUKIT_API uint32_t npk_rk_n_align(npk_rk_prec in);
/* F = 2 * output bits / input bits: the SIZE_E / SURFACE_ADD unit (facts C.1 #71, #94). */
NPUKIT_API uint32_t npk_rk_out_factor(npk_rk_prec in, npk_rk_prec out);
/* The largest int4 K whose int16 accumulator cannot saturate for full-range operands: the
 * worst product is (-8)(-8) = 64, so K x 64 <= 32767 (facts E.1, I.1) -> 511. */
NPUKIT_API uint32_t npk_rk_int4_k_max(void);

#ifdef __cplusplus
}
#endif
#endif
