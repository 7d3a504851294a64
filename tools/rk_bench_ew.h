/* SPDX-License-Identifier: MIT */
/* `rk bench --epilogue`: the fused matmul->SDP path against the split one, and the
 * per-channel-scaled fp16 path against the spec's figures. */
#ifndef NPUKIT_TOOLS_RK_BENCH_EW_H
#define NPUKIT_TOOLS_RK_BENCH_EW_H

#include <stdbool.h>

#include "npukit/rk.h"
#include "rk_operands.h"

/* Runs after the matmul bench on the same runtime, weights and operands (fp16); prints text
 * lines, or (doc not NULL) adds its members ("epilogue", "scaled_m64_kK") to the bench's JSON
 * document. Sets the runtime's chain to 3. Returns false with a message printed. */
bool rk_bench_ew(npk_rk *rt, const npk_rk_weights *w, const rk_operands *o, int iters, int warm,
                 cJSON *doc);

#endif
