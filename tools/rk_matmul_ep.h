/* SPDX-License-Identifier: MIT */
/* `rk matmul --scale/--residual`: the matmul with an element-wise epilogue on the SDP; and the
 * host element-wise reference `rk ew --check` and it are judged by. */
#ifndef NPUKIT_TOOLS_RK_MATMUL_EP_H
#define NPUKIT_TOOLS_RK_MATMUL_EP_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk.h"
#include "rk_operands.h"

typedef struct rk_epilogue_opts {
    const char *scale, *residual; /* a raw fp16 file, "random", or NULL */
    bool no_fuse;
} rk_epilogue_opts;

/* Run C = A.B (.) scale + residual on o (output fp16), print it (and with check, the matmul
 * against the exact product and the epilogue against the host's), return the exit status. */
int rk_matmul_epilogue(npk_rk *rt, const npk_rk_weights *w, rk_operands *o,
                       const rk_epilogue_opts *eo, uint64_t seed, bool check, bool json,
                       const npk_rk_info *info);

/* C = A op B on the host as the SDP computes it: fp16 in fp32 rounded once, integers exact and
 * saturated. */
void rk_ew_reference(npk_rk_ew_op op, npk_rk_prec p, uint32_t m, uint32_t n, const void *a,
                     npk_rk_ew_operand mode, const void *b, void *c);

#endif
