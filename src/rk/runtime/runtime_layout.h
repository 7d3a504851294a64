/* SPDX-License-Identifier: MIT */
/* Operand layouts and bound weights (runtime_layout.c), above the weights (runtime_weights.h). */
#ifndef NPUKIT_RK_RUNTIME_LAYOUT_H
#define NPUKIT_RK_RUNTIME_LAYOUT_H

#include "runtime_internal.h"

/* Bring bound weights up to date with their buffer before a call: sync the bytes the NPU
 * reads in place, or repack when the checksum changed. */
npk_status npk_rk_weights_refresh(npk_rk *rt, npk_rk_weights *w, npk_rk_stats *st);
/* B in `layout` into row-major [K][N] (the runtime's element convention) in *rows: src itself
 * for row-major, else a buffer the caller frees (*owned). */
npk_status npk_rk_b_rows(npk_rk_prec in, uint32_t k, uint32_t n, const void *src,
                         npk_rk_layout layout, const void **rows, void **owned);

#endif
