/* Matmul program synthesis: one task of C[M][N] = A[M][K] . B[K][N] as the vendor's
 * 108-entry regcmd body (facts C.1), for fp16->fp32, fp16->fp16, int8->int32, int4->int16
 * (and, refused unless unchecked, the int8->int16 / int8->int8 outputs that never complete). */
#ifndef NPUKIT_RK_SYNTH_H
#define NPUKIT_RK_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

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
} npk_rk_out_stage;

const npk_rk_out_stage *npk_rk_out_stage_find(npk_rk_prec in, npk_rk_prec out);
/* The default output of an input precision: fp16 -> fp32, int8 -> int32, int4 -> int16. */
npk_rk_prec npk_rk_default_out(npk_rk_prec in);
/* The vendor's feature/output mode: line for fp16 and int8, cube for int4 (facts C.0). */
npk_rk_mode npk_rk_default_mode(npk_rk_prec in);
/* The N alignment of a dtype's weight tiles: fp16 16, int8 32, int4 64 (facts D.1). */
uint32_t npk_rk_n_align(npk_rk_prec in);
/* F = 2 * output bits / input bits: the SIZE_E / SURFACE_ADD unit (facts C.1 #71, #94). */
uint32_t npk_rk_out_factor(npk_rk_prec in, npk_rk_prec out);
/* The largest int4 K whose int16 accumulator cannot saturate for full-range operands: the
 * worst product is (-8)(-8) = 64, so K x 64 <= 32767 (facts E.1, I.1) -> 511. */
uint32_t npk_rk_int4_k_max(void);

typedef struct npk_rk_mm {
    npk_rk_prec in;        /* NPK_PREC_FP16, NPK_PREC_INT8 or NPK_PREC_INT4 */
    npk_rk_prec out;       /* see npk_rk_out_stage_find */
    uint32_t m, k, n;      /* rows, contraction, columns of this task */
    int mode;              /* -1: the vendor default for `in`; else an npk_rk_mode */
    int sched;             /* NPK_SCHED_AUTO, NPK_SCHED_0 or NPK_SCHED_1 */
    uint32_t a, b, c;      /* IOVAs of the feature, the packed weights, the output */
    uint32_t a_pitch;      /* line mode: feature row pitch in elements (0: K) */
    uint32_t c_pitch;      /* line mode: output row stride in elements (0: N) */
    uint16_t requant_scale; /* int8->int8/int16 only: OUT_CVT_SCALE (0: identity 0x4000) */
    uint16_t requant_shift; /* ... and OUT_CVT_SHIFT (identity 14) */
    bool unchecked;        /* emit even when a hardware limit is broken (fields truncate) */
    const npk_rk_soc *soc; /* NULL: RK3588 */
} npk_rk_mm;

/* A matmul with the defaults: out = default, mode = vendor, sched = auto, pitches = 0. */
npk_rk_mm npk_rk_mm_default(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n);

/* What synthesis resolved. */
typedef struct npk_rk_synth_info {
    npk_rk_mode mode;
    int sched;
    uint32_t cbuf_con0;
    uint32_t feature_grains;
    uint32_t m_ceiling; /* for the resolved schedule; 0 if it is not valid at this K */
} npk_rk_synth_info;

/* Check every limit of the task and resolve the defaults. With mm->unchecked only the
 * checks that keep the program encodable remain (known dtype pair, M, K, N >= 1). */
npk_status npk_rk_mm_check(const npk_rk_mm *mm, npk_rk_synth_info *info);

/* Synthesize the 108-entry body. The trailer is separate (npk_rk_trailer). */
npk_status npk_rk_synth_matmul(const npk_rk_mm *mm, npk_rk_entry body[NPK_RK_MATMUL_BODY],
                               npk_rk_synth_info *info);

#ifdef __cplusplus
}
#endif
#endif
