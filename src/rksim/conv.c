/* SPDX-License-Identifier: MIT */
/* The convolution executor: the task decoded from the registers (conv_decode.c), its operands
 * through bounds-checked DMA, then the arithmetic of its precision's pipeline:
 *
 *   fp16: each fp16 x fp16 product is exact in fp32 and accumulated in fp32 over the input
 *   channels and the kernel window (NVDLA CACC: fp16 accumulates wider and leaves as fp32); the
 *   BS stage adds the fp32 bias, applies ReLU (max(x, 0), NaN kept) and ReLUX (min with the
 *   bound); the output converter rounds to fp16 once, to nearest even (FP32TOFP16_EN).
 *   int8: each int8 x int8 product summed exactly in the int32 accumulator (NVDLA CACC's int8
 *   width), the int32 bias added, the accumulator written as is (two's complement wrap past
 *   32 bits, INF: the conv check keeps C x KH x KW within the bound that cannot reach it).
 *
 * Reads outside the input (the padding) return 0, the fill value CNA_PAD_CON1 = 0. The timing
 * row is the matmul's MAC-array model (a direct convolution is the matmul's array, NVDLA) over
 * OH*OW rows, KH*KW*C contraction and Cout columns, reading the input and weights once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "rk/hw/rk_conv_hw.h"
#include "rksim/conv.h"
#include "rksim/ops.h"
#include "rksim/timing.h"

static bool dma_fail(const rksim_fault *f, rksim_core_result *r)
{
    return rksim_result_dma_fault(r, f->what, f->iova, f->len);
}

/* One element of the input precision (fp16 or int8), exact in a double. */
static double elem(npk_rk_prec p, const uint8_t *at)
{
    if (p == NPK_PREC_INT8)
        return (double)(int8_t)*at;
    uint16_t h;
    memcpy(&h, at, 2);
    return npk_f16_to_f32(h);
}

enum { WA = NPK_RK_CONV_WATOM };

/* The input as planes [C][H][W] and the weights as [Cout or C][C or 1][KH][KW], read out of
 * their layouts once (every fp16 and int8 value is exact in a double). */
static void unpack_feature(const rksim_conv *t, const uint8_t *feat, double *x)
{
    const uint32_t c2 = npk_rk_conv_c2(t->prec), eb = NPK_RK_ATOM_BYTES / c2;
    for (uint32_t ch = 0; ch < t->in_c; ch++)
        for (uint32_t y = 0; y < t->in_h; y++)
            for (uint32_t xx = 0; xx < t->in_w; xx++)
                x[((uint64_t)ch * t->in_h + y) * t->in_w + xx] =
                    elem(t->prec, feat + (ch / c2) * t->surf_bytes + (uint64_t)y * t->row_bytes +
                                      ((uint64_t)xx * c2 + ch % c2) * eb);
}

static void unpack_weights(const rksim_conv *t, const uint8_t *w, double *out)
{
    const uint32_t eb = NPK_RK_ATOM_BYTES / npk_rk_conv_c2(t->prec), kg = npk_rk_conv_kgroup(t->prec);
    const uint64_t win = (uint64_t)t->k_h * t->k_w, ct = ((uint64_t)t->in_c + WA - 1) / WA;
    const uint32_t kernels = t->depthwise ? t->in_c : t->out_c, per = t->depthwise ? 1 : t->in_c;
    for (uint32_t o = 0; o < kernels; o++)
        for (uint32_t i = 0; i < per; i++)
            for (uint64_t k = 0; k < win; k++) {
                uint64_t at = t->depthwise
                                  ? ((o / WA) * win + k) * WA + o % WA
                                  : ((((uint64_t)(o / kg) * ct + i / WA) * win + k) * kg + o % kg) * WA +
                                        i % WA;
                out[((uint64_t)o * per + i) * win + k] = elem(t->prec, w + at * eb);
            }
}

/* One output: the sum over the channels and the window, 0 outside the input; fp16 in fp32 (each
 * product exact in fp32, the running sum rounded there), int8 exactly (every partial sum of
 * int8 products is an integer below 2^53). */
static double accumulate(const rksim_conv *t, const double *x, const double *w, uint32_t o,
                         uint32_t oy, uint32_t ox)
{
    const bool fp32 = t->prec == NPK_PREC_FP16;
    float accf = 0.0f;
    double acc = 0.0;
    const int64_t y0 = (int64_t)oy * t->stride_y - t->pad_top;
    const int64_t x0 = (int64_t)ox * t->stride_x - t->pad_left;
    const uint32_t c0 = t->depthwise ? o : 0, c1 = t->depthwise ? o + 1 : t->in_c;
    const uint64_t win = (uint64_t)t->k_h * t->k_w;
    for (uint32_t ch = c0; ch < c1; ch++) {
        const double *plane = x + (uint64_t)ch * t->in_h * t->in_w;
        const double *kern = w + ((uint64_t)o * (t->depthwise ? 1 : t->in_c) + (ch - c0)) * win;
        for (uint32_t ky = 0; ky < t->k_h; ky++) {
            const int64_t y = y0 + ky;
            if (y < 0 || y >= t->in_h)
                continue;
            for (uint32_t kx = 0; kx < t->k_w; kx++) {
                const int64_t xx = x0 + kx;
                if (xx < 0 || xx >= t->in_w)
                    continue;
                const double v = plane[y * t->in_w + xx] * kern[ky * t->k_w + kx];
                if (fp32)
                    accf += (float)v;
                else
                    acc += v;
            }
        }
    }
    return fp32 ? accf : acc;
}

/* The BS stage and the output converter on one accumulator: the fp16 pipeline's bias, clamp
 * and rounding, or int8's int32 bias and the accumulator as is. */
static void write_out(const rksim_conv *t, double acc, const uint8_t *bias, uint32_t o,
                      uint8_t *dst)
{
    if (t->out_prec == NPK_PREC_INT32) {
        int32_t b = 0;
        if (bias)
            memcpy(&b, bias + (uint64_t)o * 4, 4);
        const uint32_t v = (uint32_t)(int64_t)acc + (uint32_t)b; /* wraps as 32 bits */
        memcpy(dst, &v, 4);
        return;
    }
    float b = 0.0f;
    if (bias)
        memcpy(&b, bias + (uint64_t)o * 4, 4);
    float v = (float)acc + b;
    if (t->relu && v < 0.0f)
        v = 0.0f;
    if (t->relux && v > t->relux_bound)
        v = t->relux_bound;
    const uint16_t h = npk_f32_to_f16(v);
    memcpy(dst, &h, 2);
}

/* Run one convolution task. */
static void conv_op(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                    rksim_core_result *r)
{
    (void)blocks, (void)first_in_job; /* the row's set; no hazard row keys on the job's order */
    rksim_conv t;
    if (!rksim_conv_decode(s->soc, &s->core[core].regs, &t, r))
        return;
    rksim_fault f = {0};
    const uint32_t c2 = npk_rk_conv_c2(t.prec), oc2 = npk_rk_conv_c2(t.out_prec);
    const uint32_t oeb = NPK_RK_ATOM_BYTES / oc2;
    const uint64_t surfaces = ((uint64_t)t.in_c + c2 - 1) / c2;
    const uint64_t feat_len = surfaces * t.surf_bytes;
    const uint8_t *feat = rksim_dma(&s->mem, t.in, feat_len, false, "conv feature read", &f);
    if (!feat) {
        dma_fail(&f, r);
        return;
    }
    const uint8_t *w = rksim_dma(&s->mem, t.weights, t.weight_bytes, false, "conv weight read", &f);
    if (!w) {
        dma_fail(&f, r);
        return;
    }
    const uint8_t *bias = NULL;
    if (t.bias && !(bias = rksim_dma(&s->mem, t.bias_addr, (uint64_t)t.out_c * 4, false,
                                     "conv bias read", &f))) {
        dma_fail(&f, r);
        return;
    }
    const uint64_t out_surfaces = ((uint64_t)t.out_c + oc2 - 1) / oc2;
    const uint64_t out_len = out_surfaces * t.out_surf_bytes;
    uint8_t *out = rksim_dma(&s->mem, t.out, out_len, true, "conv output write", &f);
    if (!out) {
        dma_fail(&f, r);
        return;
    }
    double *x = malloc((uint64_t)t.in_c * t.in_h * t.in_w * sizeof *x);
    double *wf = malloc((uint64_t)(t.depthwise ? t.in_c : (uint64_t)t.out_c * t.in_c) * t.k_h *
                       t.k_w * sizeof *wf);
    if (!x || !wf) {
        free(x), free(wf);
        rksim_result_fail(r, RKSIM_UNSUPPORTED, "unsupported by the model: no host memory for "
                                                "a %ux%ux%u conv", t.in_c, t.in_h, t.in_w);
        return;
    }
    unpack_feature(&t, feat, x);
    unpack_weights(&t, w, wf);
    for (uint32_t o = 0; o < t.out_c; o++) {
        uint8_t *surf = out + (o / oc2) * t.out_surf_bytes + (o % oc2) * oeb;
        for (uint32_t oy = 0; oy < t.out_h; oy++)
            for (uint32_t ox = 0; ox < t.out_w; ox++)
                write_out(&t, accumulate(&t, x, wf, o, oy, ox), bias, o,
                          surf + ((uint64_t)oy * t.out_w + ox) * NPK_RK_ATOM_BYTES);
    }
    free(x), free(wf);
    const uint64_t k = t.depthwise ? (uint64_t)t.k_h * t.k_w
                                   : (uint64_t)t.k_h * t.k_w * t.in_c;
    r->model_us += npk_rk_time_matmul_us(s->soc, t.prec, (uint64_t)t.out_h * t.out_w, k,
                                         t.out_c, (double)feat_len + (double)t.weight_bytes,
                                         (double)out_len);
    s->core[core].job_out_prec = t.out_prec;
}

/* The convolution's simulator row (ops.h). */
const rksim_op_row rksim_op_conv = {conv_op};
