/* SPDX-License-Identifier: MIT */
/* The CPU references of convolution and pooling: straight loops in double over the NCHW
 * arrays, sharing nothing with the engines' layouts, tiling or programs (groups and dilation
 * taken as the definition gives them, not as the planner maps them). */
#ifndef NPUKIT_RK_REFERENCE_CONV_H
#define NPUKIT_RK_REFERENCE_CONV_H

#include "npukit/rk.h"

/* out [n][out_c][oh][ow] in double, from a's fp16 arrays (the act applied). */
npk_status npk_rk_reference_conv2d(const npk_rk_conv2d_args *a, double *out);
/* out [n][c][oh][ow] in double. */
npk_status npk_rk_reference_pool2d(const npk_rk_pool2d_args *a, double *out);

#endif
