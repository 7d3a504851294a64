/* SPDX-License-Identifier: MIT */
/* `rk matmul --batch L`: the matmul L times over in one npk_rk_matmul_batch call. */
#ifndef NPUKIT_TOOLS_RK_MATMUL_BATCH_H
#define NPUKIT_TOOLS_RK_MATMUL_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk.h"
#include "rk_operands.h"

/* Run o's matmul `count` times in one batch (each item its own C; the first is o->c), print the
 * per-matmul modelled NPU time and submits (with check: the first C judged against the exact
 * product, every other C equal to it), return the exit status. */
int rk_matmul_batch(npk_rk *rt, const npk_rk_weights *w, rk_operands *o, uint32_t count, bool check,
                    bool json, const npk_rk_info *info);

#endif
