/* SPDX-License-Identifier: MIT */
/* The compatible layer against npk_rk_matmul, for `npukit rk bench`. */
#ifndef NPUKIT_TOOLS_RK_BENCH_RKNN_H
#define NPUKIT_TOOLS_RK_BENCH_RKNN_H

#include <stdbool.h>

#include "rk_operands.h"
#include "rk_opts.h"

/* Run o's matmul `warm` + `iters` times through rknn_matmul_run (B row-major, A and C
 * row-major, on the device `device` names) and through npk_rk_matmul on rt with w, interleaved;
 * medians of the wall time per call. false with *why when the layer cannot run the shape. */
/* `rk bench --submit all`: every submission form on the same matmul (rk_bench_forms.c). */
int rk_bench_forms(const rk_shape_opts *so, const rk_operands *o, int iters, int warm, bool json);

bool rk_bench_rknn(struct npk_rk *rt, const struct npk_rk_weights *w, const rk_operands *o,
                   const char *device, int iters, int warm, double *rknn_ns, double *direct_ns,
                   const char **why);

#endif
