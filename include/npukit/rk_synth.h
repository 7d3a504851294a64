/* SPDX-License-Identifier: MIT */
/* Matmul program synthesis: one task of C[M][N] = A[M][K] . B[K][N] as the vendor's
 * 108-entry regcmd body (facts C.1), for fp16->fp32, fp16->fp16, int8->int32, int4->int16
 * (and, refused unless unchecked, the int8->int16 / int8->int8 outputs that never complete). */
#ifndef NPUKIT_RK_SYNTH_H
#define NPUKIT_RK_SYNTH_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_outstage.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_rk_mm {
    npk_rk_prec in;         /* NPK_PREC_FP16, NPK_PREC_INT8 or NPK_PREC_INT4 */
    npk_rk_prec out;        /* see npk_rk_out_stage_find */
    uint32_t m, k, n;       /* rows, contraction, columns of this task */
    int mode;               /* -1: the vendor default for `in`; else an npk_rk_mode */
    int sched;              /* NPK_SCHED_AUTO, NPK_SCHED_0, NPK_SCHED_1 or 2 (M-tile chain) */
    uint32_t a, b, c;       /* IOVAs of the feature, the packed weights, the output */
    uint32_t a_pitch;       /* line mode: feature row pitch in elements (0: K) */
    uint32_t c_pitch;       /* line mode: output row stride in elements (0: N) */
    uint16_t requant_scale; /* int8->int8/int16 only: OUT_CVT_SCALE (0: identity 0x4000) */
    uint16_t requant_shift; /* ... and OUT_CVT_SHIFT (identity 14) */
    /* The output surface: rows it holds from DST (0: m; more when several M-tiles write one
     * surface — the write DMA's row bound), and the int8 destination row offset the task's
     * rows land at (0x1068 CNA_PAD_CON0.PAD_TOP, 0..15: spec "0x1068"). */
    uint32_t c_rows;
    uint32_t row_offset;
    bool unchecked;        /* emit even when a hardware limit is broken (fields truncate) */
    const npk_rk_soc *soc; /* NULL: RK3588 */
    /* sched 2 (the PC-chained M-tile schedule): a tile after the first of one matmul, whose
     * weights the tile before it used — 0x1040's WEIGHT_REUSE bit (0x2000, spec "The
     * M-tiling scheduler"). */
    bool next_m_tile;
} npk_rk_mm;

/* A matmul with the defaults: out = default, mode = vendor, sched = auto, pitches = 0. */
NPUKIT_API npk_rk_mm npk_rk_mm_default(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n);

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
NPUKIT_API npk_status npk_rk_mm_check(const npk_rk_mm *mm, npk_rk_synth_info *info);

/* Synthesize the 108-entry body. The trailer is separate (npk_rk_trailer). */
NPUKIT_API npk_status npk_rk_synth_matmul(const npk_rk_mm *mm, npk_rk_entry body[NPK_RK_MATMUL_BODY],
                               npk_rk_synth_info *info);

#ifdef __cplusplus
}
#endif
#endif
