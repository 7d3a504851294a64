/* SPDX-License-Identifier: MIT */
/* SDP element-wise programs: one DPU-only task (op-enable DPU | DPU_RDMA, no CNA) computing
 * out = a OP b over an M x N feature, its limits, the fusion rule for chaining it behind a
 * matmul, and the atom layout its feature, per-element operand and output use.
 *
 * The atom layout: the DPU_RDMA has no source line stride (spec "0x107c ... (Contrast: the
 * DPU-RDMA has NO src line stride)"), so the SDP reads its feature as [ceil(N/C2)][M][C2]
 * 16-byte atoms, C2 = 16 / element bytes (fp16 and int16 8, int8 16), and writes its output the
 * same way (surface stride M x 16, BS_OW_CFG 0x2 — the SDP's own self-completing SIZE_E 0,
 * spec). A per-channel operand is a contiguous [N] vector (spec, ERDMA_CFG). One atom-wide tile
 * of a contiguous [M][P] buffer can be read directly with LINE_NOTCH_ADDR = P - C2 (spec
 * "0x5048 SRC_DMA_CFG.LINE_NOTCH_ADDR = N-8"). */
#ifndef NPUKIT_RK_SDP_H
#define NPUKIT_RK_SDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_sdp_hw.h"
#include "npukit/rk_synth.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Body entries of an SDP task program (the trailer is separate, npk_rk_trailer). */
#define NPK_RK_SDP_BODY 49

typedef struct npk_rk_sdp {
    npk_rk_ew_op op;
    npk_rk_ew_operand operand; /* NPK_EW_NO_OPERAND for a 1-input op */
    npk_rk_prec prec;          /* fp16, int16 or int8: what the SDP computes and writes */
    npk_rk_prec feature;       /* what the RDMA is told it reads: `prec`, or int32 (the spec's
                                  over-fetch experiments; refused unless unchecked) */
    uint32_t m, n;             /* rows, channels */
    uint32_t a, b, c;          /* IOVAs: feature, second operand, output (16-byte aligned) */
    uint32_t line_notch;       /* 0: dense atom feature; else one atom-wide tile of a
                                  contiguous buffer of row pitch C2 + line_notch elements */
    uint32_t rdma_channels;    /* 0: N; the RDMA's own channel count (the over-fetch: 2N) */
    bool unchecked;            /* emit even when a limit or a described combination is broken */
    /* NPK_EW_IMMEDIATE: the operand's value (batchnorm: scale, then shift), held in a stage
     * register (npk_rk_sdp_stages): integral and within the register for integer SDPs. */
    double imm[2];
    /* An immediate add/mul/max/min through the EW stage's own register operand (EW_OP_SRC set,
     * the value in EW_OP_VALUE_0) rather than the BS stage. Synthesized and decoded; the
     * simulator refuses it: the spec names EW_OP_SRC without saying which value selects the
     * register or which register holds it (EW_OP_VALUE_0 is an inference). */
    bool ew_imm;
    /* The EW operand converter (EW_OP_CVT_BYPASS clear): EW_CVT_OFFSET_VALUE, and
     * EW_CVT_SCALE_VALUE's scale and shift, on a memory operand. Synthesized and decoded; the
     * simulator refuses it: no source gives the converter's arithmetic (order, rounding). */
    struct {
        bool on;
        int32_t offset;
        uint16_t scale;
        unsigned shift;
    } ew_cvt;
} npk_rk_sdp;

/* The BS and BN stages the task's op configures (all bypassed for the EW stage's memory ops):
 * relu, relu6 (RELUX 6), leakyrelu (PReLU), an immediate add/max/min (BS ALU) or mul (BS
 * MUL), batchnorm (BS MUL, then BN ALU SUM). */
void npk_rk_sdp_stages(const npk_rk_sdp *t, npk_rk_sdp_stage st[NPK_SDP_STAGE_COUNT]);
/* Whether the task runs the EW stage (a 2-input op on a memory operand, or ew_imm). */
bool npk_rk_sdp_uses_ew(const npk_rk_sdp *t);

/* A task with the defaults: feature = prec, no notch, RDMA channels = N. */
npk_rk_sdp npk_rk_sdp_default(npk_rk_ew_op op, npk_rk_ew_operand operand, npk_rk_prec prec,
                              uint32_t m, uint32_t n);

/* Every limit of the task, with a message naming the value and the limit. */
npk_status npk_rk_sdp_check(const npk_rk_sdp *t);

/* The body, in the order below (DPU then DPU_RDMA registers). */
npk_status npk_rk_synth_sdp(const npk_rk_sdp *t, npk_rk_entry body[NPK_RK_SDP_BODY]);

/* The fusion rule (spec "Chained 2-input SDP — the DTYPE-PATH rule"): a 2-input SDP runs as a
 * chained non-first task only when the task before it wrote the SDP's own precision; a 1-input
 * SDP chains regardless. NPK_EINVAL naming the rule otherwise. */
npk_status npk_rk_sdp_chain_check(npk_rk_prec prev_out, const npk_rk_sdp *t);

/* ---- the atom layout ---- */

/* Bytes of an M x N block in the atom layout: ceil(N / C2) x M x 16. 0 for a precision the
 * SDP does not take. */
uint64_t npk_rk_atom_bytes(npk_rk_prec p, size_t m, size_t n);
/* Row-major src (pitch elements per row) -> atom dst; channels past N in the last atom are
 * zero. */
npk_status npk_rk_atom_pack(npk_rk_prec p, size_t m, size_t n, const void *src, size_t pitch,
                            void *dst, size_t dst_size);
/* Atom src -> row-major dst (pitch elements per row); only the M x N elements are written. */
npk_status npk_rk_atom_unpack(npk_rk_prec p, size_t m, size_t n, const void *src, size_t src_size,
                              void *dst, size_t pitch);

#ifdef __cplusplus
}
#endif
#endif
