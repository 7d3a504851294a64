/* SPDX-License-Identifier: MIT */
/* `rk matmul --scale-a/--scale-b/--group`: the quantised matmul (npk_rk_matmul_quant). */
#ifndef NPUKIT_TOOLS_RK_MATMUL_QUANT_H
#define NPUKIT_TOOLS_RK_MATMUL_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_operands.h"
#include "rk_opts.h"

typedef struct rk_quant_opts {
    const char *scale_a, *scale_b; /* a raw float32 file, "random", a number, or NULL (1) */
    const char *group;             /* K per group, "channel" or 0 (NULL: per channel) */
    uint32_t per_pass;             /* groups per NPU pass (0: the cost model's choice) */
} rk_quant_opts;

/* True when any quantised-matmul option was given. */
bool rk_quant_wanted(const rk_quant_opts *q);
/* Run it on o (int8 or int4 operands, output fp32 or fp16), print it (with check, the verdict of
 * npk_rk_check_matmul_quant), return the exit status. */
int rk_matmul_quant(const rk_shape_opts *so, rk_operands *o, const rk_quant_opts *q, bool check,
                    bool json);

#endif
