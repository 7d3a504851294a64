/* SPDX-License-Identifier: MIT */
/* The CPU references of convolution and pooling: straight loops in double over the NCHW
 * arrays, sharing nothing with the engines' layouts, tiling or programs (groups and dilation
 * taken as the definition gives them, not as the planner maps them). */
#ifndef NPUKIT_RK_REFERENCE_CONV_H
#define NPUKIT_RK_REFERENCE_CONV_H

#include "npukit/rk.h"

/* out [n][out_c][oh][ow] in double, from a's fp16 arrays (the act applied); mag (may be NULL)
 * the sum of |each term| (the bias included) per output, what a rounding bound scales with.
 * An int8 call (dtype): the exact sums of the int8 products, no bias, no act. */
npk_status npk_rk_reference_conv2d(const npk_rk_conv2d_args *a, double *out, double *mag);
/* An int8 call: sum [n][out_c][oh][ow] the exact int8 product sums, and q (may be NULL) their
 * requantisation as npk_rk_conv2d_args defines it (double precision, nearest even, saturated). */
npk_status npk_rk_reference_conv2d_int8(const npk_rk_conv2d_args *a, double *sum, int8_t *q);
/* The bound an fp16 conv result is checked with: one fp16 rounding of the result (2^-11 of it)
 * and of each input-channel slice's partial, fp32 accumulation, within 2^-8 of mag. */
double npk_rk_conv_tolerance(double ref, double mag);
/* out [n][c][oh][ow] in double. */
npk_status npk_rk_reference_pool2d(const npk_rk_pool2d_args *a, double *out);

#endif
