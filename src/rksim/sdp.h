/* SPDX-License-Identifier: MIT */
/* The DPU's SDP element-wise task (op-enable DPU | DPU_RDMA) as the registers configure it:
 * the decoded operation and geometry, the hazard rows decided per SDP task, and the executor. */
#ifndef NPUKIT_RKSIM_SDP_H
#define NPUKIT_RKSIM_SDP_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_act_hw.h"
#include "npukit/rk_sdp_hw.h"
#include "rksim/result.h"
#include "rksim/sim.h"

typedef struct rksim_sdp {
    /* the EW stage's op from EW_CFG (a binary op, the LUT); NULL with the stage bypassed */
    const npk_rk_ew_op_row *op;
    bool ew_on;                                  /* the EW stage runs (EW_BYPASS clear) */
    npk_rk_sdp_stage stage[NPK_SDP_STAGE_COUNT]; /* BS, BN from their registers */
    bool lut;                                    /* the EW stage's LUT (rksim/lut.h) */
    npk_rk_lut lut_prog;     /* its tables and registers, decoded by rksim_lut_decode */
    int operand;             /* npk_rk_ew_operand */
    int prec;                /* DPU PROC/OUT precision: what is computed and written */
    int feature;             /* RDMA IN_PRECISION: prec, or int32 (the over-fetch) */
    uint32_t m;              /* rows: DATA_CUBE_HEIGHT + 1 */
    uint32_t n;              /* DPU channels: DATA_CUBE_CHANNEL + 1 */
    uint32_t rdma_ch;        /* RDMA channels: DPU_RDMA_DATA_CUBE_CHANNEL + 1 */
    uint32_t lanes;          /* channels computed and written (n; 2n for two-lane int32) */
    uint32_t src, ew, dst;   /* SRC_BASE_ADDR, EW_BASE_ADDR, DST_BASE_ADDR */
    unsigned eb, c2;         /* element bytes and channels per 16-byte atom */
    uint64_t line_bytes;     /* feature: from a row to the next (16 + LINE_NOTCH * eb) */
    uint64_t surf_bytes;     /* feature: from an atom-wide surface to the next */
    uint64_t ew_surf_bytes;  /* per-element operand: EW_SURF_STRIDE */
    uint64_t out_surf_bytes; /* output: DST_SURF_STRIDE */
} rksim_sdp;

/* Decode and check the SDP registers; false with r = "unsupported" naming the register. */
bool rksim_sdp_decode(const rksim_regfile *rf, rksim_sdp *t, rksim_core_result *r);

#endif
