/* SPDX-License-Identifier: MIT */
/* The convolution task (op-enable CNA|CORE|DPU|DPU_RDMA with the spec's conv feed mode in the
 * 0x50xx block, docs/facts-engines.md) as the registers configure it, and its executor. */
#ifndef NPUKIT_RKSIM_CONV_H
#define NPUKIT_RKSIM_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "rksim/result.h"
#include "rksim/sim.h"

typedef struct rksim_conv {
    npk_rk_prec prec, out_prec; /* the input's and the output's (a conv row, rk_conv_hw.h) */
    bool depthwise;
    uint32_t in_h, in_w, in_c, cin_atoms; /* cin_atoms: DATAIN_CHANNEL (C rounded to the atom) */
    uint32_t out_h, out_w, out_c;
    uint32_t k_h, k_w, stride_y, stride_x, pad_top, pad_left;
    bool bias, relu, relux;
    float relux_bound;
    uint32_t in, weights, bias_addr, out;
    uint64_t row_bytes, surf_bytes;  /* feature: row and surface pitch */
    uint64_t out_surf_bytes;         /* output: DST_SURF_STRIDE */
    uint64_t kernel_bytes, weight_bytes;
} rksim_conv;

/* Decode and check the registers; false with r = "unsupported" naming the register. */
bool rksim_conv_decode(const npk_rk_soc *soc, const rksim_regfile *rf, rksim_conv *t,
                       rksim_core_result *r);

#endif
