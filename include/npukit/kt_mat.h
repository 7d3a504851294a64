/* SPDX-License-Identifier: MIT */
/* The matmul cluster ('MG' 0x4D47, facts §3.1) as hardware: its type code, instruction layout
 * and the FILL / GEMM / DRAIN encoders (src/kt/hw/units/mat.c; the simulator's datapath is
 * src/ktsim/unit_mat.c).
 *
 * FILL n (1..255) entries of L1 A (sel 0) or B (sel 1) at {fbank, eoff + i} from FP16 in memory
 * (quantised to MXFP7 by the memory port) or, preq, MXFP7 already; GEMM gm x gn sub-tiles over
 * nk K blocks of 32 from L1 A {abank, aoff + g nk + kb} and B {bbank, boff + h nk + kb}, acc
 * adding into the resident tile; DRAIN sub-tiles 0..n-1 as FP16 words to addr + 32 t.
 * Addresses 40 bits, 32-byte aligned. */
#ifndef NPUKIT_KT_MAT_H
#define NPUKIT_KT_MAT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/kt_flit.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

NPUKIT_API extern const kt_field kt_layout_mat[];
enum { KT_MAT_TYPE = 0x4D47, KT_MAT_FILL_MAX_N = 255 };
NPUKIT_API npk_status kt_mat_fill(kt_flit *f, uint64_t addr, uint32_t n, bool sel, bool preq,
                                  bool fbank, uint8_t eoff, uint8_t txn, bool last);
NPUKIT_API npk_status kt_mat_gemm(kt_flit *f, uint8_t gm, uint8_t gn, uint8_t nk, bool acc,
                                  uint8_t aoff, uint8_t boff, bool abank, bool bbank,
                                  uint8_t txn, bool last);
NPUKIT_API npk_status kt_mat_drain(kt_flit *f, uint64_t addr, uint32_t n, uint8_t txn,
                                   bool last);
/* A GEMM that emits: each sub-tile t leaves as FP16 to addr + 32 t as the sweep's last K block
 * completes it, with no DRAIN pass. nk = 1 needs acc (the unit has no load-and-emit: refused). */
NPUKIT_API npk_status kt_mat_gemm_emit(kt_flit *f, uint8_t gm, uint8_t gn, uint8_t nk, bool acc,
                                       uint8_t aoff, uint8_t boff, bool abank, bool bbank,
                                       uint64_t addr, uint8_t txn, bool last);
/* A fused DRAIN: the barrier that retires once the n sub-tiles the last emitting GEMM emits have
 * left; addr and n are that GEMM's (addr + 32 t, gm x gn). */
NPUKIT_API npk_status kt_mat_drain_fused(kt_flit *f, uint64_t addr, uint32_t n, uint8_t txn,
                                         bool last);

#ifdef __cplusplus
}
#endif
#endif
