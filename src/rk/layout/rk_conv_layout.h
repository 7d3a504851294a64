/* SPDX-License-Identifier: MIT */
/* Host-side layouts of the convolution and pooling engines (rk/hw/rk_conv_hw.h): NCHW planes to
 * and from the feature atoms [ceil(C/C2)][H][W][C2] (C2 = 16 bytes / the precision's width: fp16
 * 8, int8 16, int32 4), and kernels to the conv's weight layout. */
#ifndef NPUKIT_RK_CONV_LAYOUT_H
#define NPUKIT_RK_CONV_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_types.h"
#include "npukit/status.h"

/* A window of c planes of h x w (plane_stride / row_stride elements apart in src) -> feature
 * atoms of precision p, with pt, pl zero rows/columns before and pb, pr after (the cube is
 * (h+pt+pb) x (w+pl+pr)); h or w may be 0 (a cube of padding only). Channels past c are zero. */
npk_status npk_rk_conv_pack_feature(npk_rk_prec p, const void *src, uint64_t plane_stride,
                                    uint64_t row_stride, uint32_t c, uint32_t h, uint32_t w,
                                    uint32_t pt, uint32_t pl, uint32_t pb, uint32_t pr, void *dst,
                                    uint64_t dst_size);
/* Feature atoms of a c x h x w cube of precision p -> c planes of h x w. */
npk_status npk_rk_conv_unpack_feature(npk_rk_prec p, const void *src, uint64_t src_size,
                                      uint32_t c, uint32_t h, uint32_t w, void *dst);
/* Kernels [cout][c][kh][kw] (depthwise: [c][1][kh][kw]) of precision p -> the conv's weight
 * layout. */
npk_status npk_rk_conv_pack_weights(npk_rk_prec p, bool depthwise, const void *src, uint32_t cout,
                                    uint32_t c, uint32_t kh, uint32_t kw, void *dst,
                                    uint64_t dst_size);

#endif
