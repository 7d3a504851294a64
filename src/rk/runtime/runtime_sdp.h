/* SPDX-License-Identifier: MIT */
/* The element-wise spine shared by the runtime's SDP entry points: one call's arrays tiled onto
 * SDP tasks and run in jobs of chained tasks. */
#ifndef NPUKIT_RK_RUNTIME_SDP_H
#define NPUKIT_RK_RUNTIME_SDP_H

#include "runtime_internal.h"

typedef struct npk_rk_ew_call {
    npk_rk_ew_op op;
    npk_rk_prec prec;
    uint32_t m, n;
    const void *a;
    npk_rk_ew_operand operand;
    const void *b;
    void *c;
    /* per-channel tiling: rows per task at most m_cap (0: the SDP's limit), each task's
     * channels padded with zeros to a multiple of n_pad (0 or 1: none) */
    uint32_t m_cap, n_pad;
    /* Per element only: a, b and c are the host bytes of these device buffers of the runtime's
     * engine (NULL: host arrays), 16-byte aligned, c overlapping neither a nor b. Tiles that
     * fill their SDP block exactly are then read and written there by the NPU, unstaged. */
    npk_rk_buffer *abuf, *bbuf, *cbuf;
    uint64_t aoff, boff, coff;
    /* op NPK_EW_LUT (operand NPK_EW_NO_OPERAND, b NULL): the fitted LUT every task uploads;
     * with row_lut, tiles never cross a row of N elements and row r's tasks take the LUT
     * row_lut(row_ctx, r, out) gives (softmax: the row's shift and gain) */
    const npk_rk_lut *lut;
    npk_status (*row_lut)(void *row_ctx, uint32_t row, npk_rk_lut *out);
    void *row_ctx;
} npk_rk_ew_call;

/* The checks of npk_rk_ew, for `what` ("ew", "epilogue step 2", ...). */
npk_status npk_rk_ew_check(const npk_rk_ew_call *x, const char *what);
/* Enter the SDP through the state policy's transient row. */
void npk_rk_ew_enter(npk_rk *rt);
/* Run a checked call with the runtime's lock held; adds to st. */
npk_status npk_rk_ew_run(npk_rk *rt, const npk_rk_ew_call *x, npk_rk_stats *st);
/* NPK_EINVAL (naming `what` and the kernel) when the runtime's kernel cannot run SDP tasks:
 * checked before a call does any work, so a refused call leaves C untouched. */
npk_status npk_rk_ew_supported(const npk_rk *rt, const char *what);

#endif
