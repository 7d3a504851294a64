/* SPDX-License-Identifier: MIT */
/* The CPU references of convolution and pooling (rk_reference_conv.h). */
#include <math.h>

#include "npukit/fp16.h"
#include "rk/check/rk_reference_conv.h"

/* One input element and one weight of either dtype, exact in a double. */
static double in_at(const npk_rk_conv2d_args *a, uint64_t i)
{
    return a->dtype == NPK_RK_CONV_INT8 ? a->input_i8[i] : npk_f16_to_f32(a->input[i]);
}

static double w_at(const npk_rk_conv2d_args *a, uint64_t i)
{
    return a->dtype == NPK_RK_CONV_INT8 ? a->weights_i8[i] : npk_f16_to_f32(a->weights[i]);
}

npk_status npk_rk_reference_conv2d(const npk_rk_conv2d_args *a, double *out, double *mag)
{
    uint32_t oh, ow;
    npk_status s = npk_rk_conv2d_shape(a, &oh, &ow);
    if (s)
        return s;
    const uint32_t g = a->groups ? a->groups : 1, cg = a->c / g, og = a->out_c / g;
    const uint32_t dh = a->dil_h ? a->dil_h : 1, dw = a->dil_w ? a->dil_w : 1;
    for (uint32_t b = 0; b < a->n; b++)
        for (uint32_t o = 0; o < a->out_c; o++) {
            const uint32_t grp = o / og;
            for (uint32_t y = 0; y < oh; y++)
                for (uint32_t x = 0; x < ow; x++) {
                    const bool fp = a->dtype != NPK_RK_CONV_INT8;
                    double acc = fp && a->bias ? a->bias[o] : 0.0, m = fabs(acc);
                    for (uint32_t i = 0; i < cg; i++) {
                        const uint32_t ch = grp * cg + i;
                        for (uint32_t ky = 0; ky < a->k_h; ky++)
                            for (uint32_t kx = 0; kx < a->k_w; kx++) {
                                int64_t iy = (int64_t)y * a->stride_h - a->pad_top + (int64_t)ky * dh;
                                int64_t ix = (int64_t)x * a->stride_w - a->pad_left + (int64_t)kx * dw;
                                if (iy < 0 || ix < 0 || iy >= a->h || ix >= a->w)
                                    continue;
                                double v = in_at(a, (((uint64_t)b * a->c + ch) * a->h + iy) * a->w + ix);
                                double wt = w_at(a, (((uint64_t)o * cg + i) * a->k_h + ky) * a->k_w + kx);
                                acc += v * wt;
                                m += fabs(v * wt);
                            }
                    }
                    if (fp && a->act != NPK_RK_ACT_NONE && acc < 0)
                        acc = 0;
                    if (fp && a->act == NPK_RK_ACT_CLIP && acc > a->act_max)
                        acc = a->act_max;
                    out[(((uint64_t)b * a->out_c + o) * oh + y) * ow + x] = acc;
                    if (mag)
                        mag[(((uint64_t)b * a->out_c + o) * oh + y) * ow + x] = m;
                }
        }
    return NPK_OK;
}

npk_status npk_rk_reference_conv2d_int8(const npk_rk_conv2d_args *a, double *sum, int8_t *q)
{
    uint32_t oh, ow;
    npk_status s = npk_rk_reference_conv2d(a, sum, NULL);
    if (s || !q)
        return s;
    npk_rk_conv2d_shape(a, &oh, &ow);
    const uint64_t plane = (uint64_t)oh * ow;
    for (uint64_t i = 0; i < (uint64_t)a->n * a->out_c * plane; i++) {
        const uint32_t o = (uint32_t)(i / plane % a->out_c);
        double y = sum[i] * ((double)a->in_scale * a->w_scales[o]) + (a->bias ? a->bias[o] : 0.0);
        if (a->act != NPK_RK_ACT_NONE)
            y = y < 0 ? 0 : y;
        if (a->act == NPK_RK_ACT_CLIP)
            y = y > a->act_max ? a->act_max : y;
        y = nearbyint(y / a->out_scale);
        q[i] = (int8_t)(y < -128 ? -128 : y > 127 ? 127 : y);
    }
    return NPK_OK;
}

double npk_rk_conv_tolerance(double ref, double mag)
{
    return ldexp(fabs(ref), -11) + ldexp(mag, -8);
}

npk_status npk_rk_reference_pool2d(const npk_rk_pool2d_args *a, double *out)
{
    uint32_t oh, ow;
    npk_status s = npk_rk_pool2d_shape(a, &oh, &ow);
    if (s)
        return s;
    const uint32_t kh = a->global ? a->h : a->k_h, kw = a->global ? a->w : a->k_w;
    const uint32_t sh = a->global ? 1 : a->stride_h, sw = a->global ? 1 : a->stride_w;
    const uint32_t pt = a->global ? 0 : a->pad_top, pl = a->global ? 0 : a->pad_left;
    for (uint64_t plane = 0; plane < (uint64_t)a->n * a->c; plane++)
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t x = 0; x < ow; x++) {
                double acc = a->method == NPK_RK_POOL2D_AVG ? 0.0 : NAN;
                uint32_t cells = 0;
                for (uint32_t ky = 0; ky < kh; ky++)
                    for (uint32_t kx = 0; kx < kw; kx++) {
                        int64_t iy = (int64_t)y * sh - pt + ky, ix = (int64_t)x * sw - pl + kx;
                        if (iy < 0 || ix < 0 || iy >= a->h || ix >= a->w)
                            continue;
                        double v = npk_f16_to_f32(a->input[(plane * a->h + iy) * a->w + ix]);
                        cells++;
                        if (a->method == NPK_RK_POOL2D_AVG)
                            acc += v;
                        else if (isnan(acc) || (a->method == NPK_RK_POOL2D_MAX ? v > acc : v < acc))
                            acc = v;
                    }
                if (a->method == NPK_RK_POOL2D_AVG)
                    acc /= a->count_include_pad ? (double)kh * kw : (double)cells;
                out[(plane * oh + y) * ow + x] = acc;
            }
    return NPK_OK;
}
