/* SPDX-License-Identifier: MIT */
/* Tiling a convolution pass onto conv tasks: output row bands (the input rows each band reads
 * within the CBUF's data banks), output column tiles when even one band of kernel rows is too
 * wide, input-channel slices when one band of all channels does not fit (partials summed on the
 * host), and output-channel tiles within the DPU's channel field. A pass is one dense or one
 * depthwise convolution of a single image; every tile is a task within every limit of
 * npk_rk_conv_check. Padding beyond the registers' 15 is added as zero rows/columns by the
 * host's pack (host_* below). */
#ifndef NPUKIT_RK_PLAN_CONV_H
#define NPUKIT_RK_PLAN_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

typedef struct npk_rk_conv_geom {
    npk_rk_prec prec; /* the input's (fp16, int8): the CBUF's and the weights' bytes */
    bool depthwise;
    uint32_t c, h, w, out_c; /* depthwise: out_c = c */
    uint32_t k_h, k_w, stride_h, stride_w;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    uint32_t out_h, out_w;
} npk_rk_conv_geom;

typedef struct npk_rk_conv_tile {
    uint32_t oy0, oh, ox0, ow; /* output rows / columns */
    uint32_t co0, co;          /* output channels (depthwise: the channels) */
    uint32_t ci0, ci;          /* input channels (depthwise: = co0, co) */
    /* the input window read: real rows [iy0, iy0 + ih), columns [ix0, ix0 + iw) (may be empty) */
    uint32_t iy0, ih, ix0, iw;
    uint32_t pad_top, pad_left;      /* in the registers */
    uint32_t host_top, host_left, host_bottom, host_right; /* zero rows/columns the pack adds */
    uint32_t slice;                  /* index of the input-channel slice (0 .. slices-1) */
} npk_rk_conv_tile;

typedef struct npk_rk_conv_plan {
    npk_rk_conv_tile *tiles;
    size_t count;
    uint32_t slices; /* input-channel slices: > 1 sums partials on the host */
} npk_rk_conv_plan;

npk_status npk_rk_plan_conv(const npk_rk_soc *soc, const npk_rk_conv_geom *g, npk_rk_conv_plan *out);
void npk_rk_conv_plan_free(npk_rk_conv_plan *p);

#endif
