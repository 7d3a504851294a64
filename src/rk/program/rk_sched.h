/* SPDX-License-Identifier: MIT */
/* The internal M-tiling scheduler's choice: which schedule a task of M rows uses. The formulas
 * the choice weighs (bank split, rows per tile, M ceilings, validity) are hardware facts in
 * rk_cbuf.h, which this header includes. */
#ifndef NPUKIT_RK_SCHED_H
#define NPUKIT_RK_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "rk/hw/rk_cbuf.h"
#include "npukit/rk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schedule auto picks for M rows: sched 0 while M fits one bank, else sched 1 when it
 * is valid and M fits its ceiling. Returns NPK_SCHED_AUTO (-1) when neither holds. */
int npk_rk_sched_choose(const npk_rk_soc *soc, npk_rk_prec p, uint32_t m, uint32_t k);

#ifdef __cplusplus
}
#endif
#endif
