/* SPDX-License-Identifier: MIT */
/* CONV_2D (ggml_conv_2d_direct) through npk_rk_conv2d in fp16. ggml's kernel [KW, KH, IC, OC],
 * input [W, H, C, N] and output [OW, OH, OC, N] are, read from the slowest dimension, the
 * runtime's [out_c][c][k_h][k_w], [n][c][h][w] and [n][out_c][out_h][out_w]; both sources are
 * gathered through their strides (ggml's CWHN views too) as fp16, the fp16 results widened into
 * the node's type. ggml pads symmetrically (p0 left and right, p1 top and bottom). A source with
 * a finite value beyond fp16's range is convolved on the host in double (counted as host
 * convolution). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"
#include "npukit/fp16.h"

/* op_params: s0, s1, p0, p1, d0, d1 (ggml_conv_2d_direct) */
enum { P_S0, P_S1, P_P0, P_P1, P_D0, P_D1, P_COUNT };

/* The runtime's arguments for op (no data pointers); false when a parameter is not one the
 * runtime's shape check accepts (the CNA's kernel and stride limits) or the shape it gives is
 * not ggml's. */
static bool conv_args(const struct ggml_tensor *op, npk_rk_conv2d_args *a)
{
    const struct ggml_tensor *k = op->src[0], *x = op->src[1];
    const int32_t *p = (const int32_t *)op->op_params;
    for (int i = 0; i < P_COUNT; i++)
        if (p[i] < 0)
            return false;
    for (int i = 0; i < 4; i++)
        if (k->ne[i] <= 0 || k->ne[i] > UINT32_MAX || x->ne[i] <= 0 || x->ne[i] > UINT32_MAX)
            return false;
    if (k->ne[2] != x->ne[2])
        return false;
    *a = (npk_rk_conv2d_args){
        .n = (uint32_t)x->ne[3], .c = (uint32_t)x->ne[2], .h = (uint32_t)x->ne[1],
        .w = (uint32_t)x->ne[0], .out_c = (uint32_t)k->ne[3], .k_h = (uint32_t)k->ne[1],
        .k_w = (uint32_t)k->ne[0], .stride_w = (uint32_t)p[P_S0], .stride_h = (uint32_t)p[P_S1],
        .pad_left = (uint32_t)p[P_P0], .pad_right = (uint32_t)p[P_P0],
        .pad_top = (uint32_t)p[P_P1], .pad_bottom = (uint32_t)p[P_P1],
        .dil_w = (uint32_t)p[P_D0], .dil_h = (uint32_t)p[P_D1], .groups = 1,
        .dtype = NPK_RK_CONV_FP16};
    uint32_t oh, ow;
    return npk_rk_conv2d_shape(a, &oh, &ow) == NPK_OK && op->ne[0] == ow && op->ne[1] == oh &&
           op->ne[2] == k->ne[3] && op->ne[3] == x->ne[3];
}

bool npg_can_conv_2d(const struct ggml_tensor *op)
{
    const struct ggml_tensor *k = op->src[0], *x = op->src[1];
    npk_rk_conv2d_args a;
    return op->op == GGML_OP_CONV_2D && k && x && npg_float_type(k->type) &&
           npg_float_type(x->type) && (op->type == GGML_TYPE_F32 || op->type == GGML_TYPE_F16) &&
           ggml_is_contiguous(op) && conv_args(op, &a) && npg_host_buffer_ok(k) &&
           npg_host_buffer_ok(x) && npg_host_buffer_ok(op);
}

/* t's elements in ggml's order (ne0 fastest), read through its strides, as float. */
static void gather(const struct ggml_tensor *t, float *dst)
{
    size_t i = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++) {
                const uint8_t *row =
                    (const uint8_t *)t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++)
                    dst[i++] = npg_load_float(t->type, row + i0 * t->nb[0]);
            }
}

/* The values as fp16 bits; false when a finite one is beyond fp16's range. */
static bool to_fp16(const float *v, size_t n, uint16_t *h)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        h[i] = npk_f32_to_f16(v[i]);
        ok &= !isfinite(v[i]) || isfinite(npk_f16_to_f32(h[i]));
    }
    return ok;
}

static size_t dil_of(uint32_t d)
{
    return d ? d : 1;
}

/* The convolution in double, for sources fp16 cannot hold. y: [n][out_c][oh][ow]. */
static void host_conv(const npk_rk_conv2d_args *a, const float *x, const float *w, float *y,
                      int64_t oh, int64_t ow)
{
    const int64_t dh = (int64_t)dil_of(a->dil_h), dw = (int64_t)dil_of(a->dil_w);
    for (int64_t b = 0; b < a->n; b++)
        for (int64_t o = 0; o < a->out_c; o++)
            for (int64_t oy = 0; oy < oh; oy++)
                for (int64_t ox = 0; ox < ow; ox++) {
                    double acc = 0;
                    for (int64_t c = 0; c < a->c; c++)
                        for (int64_t ky = 0; ky < a->k_h; ky++) {
                            const int64_t iy = oy * a->stride_h + ky * dh - a->pad_top;
                            if (iy < 0 || iy >= a->h)
                                continue;
                            for (int64_t kx = 0; kx < a->k_w; kx++) {
                                const int64_t ix = ox * a->stride_w + kx * dw - a->pad_left;
                                if (ix < 0 || ix >= a->w)
                                    continue;
                                acc += (double)x[((b * a->c + c) * a->h + iy) * a->w + ix] *
                                       w[((o * a->c + c) * a->k_h + ky) * a->k_w + kx];
                            }
                        }
                    y[((b * a->out_c + o) * oh + oy) * ow + ox] = (float)acc;
                }
}

static void store_all(struct ggml_tensor *dst, const float *v, size_t n)
{
    if (dst->type == GGML_TYPE_F32)
        memcpy(dst->data, v, n * sizeof *v);
    else
        ggml_fp32_to_fp16_row(v, dst->data, (int64_t)n);
}

bool npg_conv_2d(npg_device *d, struct ggml_tensor *dst)
{
    const struct ggml_tensor *k = dst->src[0], *x = dst->src[1];
    npk_rk_conv2d_args a;
    if (!conv_args(dst, &a)) {
        fprintf(stderr, "ggml-npukit: %s: CONV_2D parameters the runtime refuses: %s\n",
                dst->name, npk_last_error());
        return false;
    }
    const size_t nx = (size_t)ggml_nelements(x), nk = (size_t)ggml_nelements(k),
                 ny = (size_t)ggml_nelements(dst);
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    float *xf = malloc(nx * sizeof *xf), *kf = malloc(nk * sizeof *kf),
          *yf = malloc(ny * sizeof *yf);
    uint16_t *xh = malloc(nx * sizeof *xh), *kh = malloc(nk * sizeof *kh),
             *yh = malloc(ny * sizeof *yh);
    bool ok = false;
    if (!xf || !kf || !yf || !xh || !kh || !yh) {
        fprintf(stderr, "ggml-npukit: %s: out of memory for %zu + %zu + %zu elements\n",
                dst->name, nx, nk, ny);
        goto done;
    }
    gather(x, xf);
    gather(k, kf);
    const bool in_x = to_fp16(xf, nx, xh), in_k = to_fp16(kf, nk, kh);
    if (!in_x || !in_k) {
        host_conv(&a, xf, kf, yf, dst->ne[1], dst->ne[0]);
        store_all(dst, yf, ny);
        d->counters.host_convs++;
        ok = true;
        goto done;
    }
    a.input = xh, a.weights = kh, a.output = yh;
    npk_rk_stats st;
    if (npk_rk_conv2d(d->rt, &a, &st) != NPK_OK) {
        fprintf(stderr, "ggml-npukit: %s (CONV_2D %ux%ux%ux%u, kernel %ux%u, %u out): %s\n",
                dst->name, a.w, a.h, a.c, a.n, a.k_w, a.k_h, a.out_c, npk_last_error());
        goto done;
    }
    for (size_t i = 0; i < ny; i++)
        yf[i] = npk_f16_to_f32(yh[i]);
    store_all(dst, yf, ny);
    char what[160];
    snprintf(what, sizeof what, "%s conv2d %ux%ux%u -> %u k%ux%u s%ux%u p%ux%u d%ux%u",
             dst->name, a.c, a.h, a.w, a.out_c, a.k_h, a.k_w, a.stride_h, a.stride_w, a.pad_top,
             a.pad_left, a.dil_h, a.dil_w);
    npg_count_call(d, &st, what, &t0, &runtime_host);
    d->counters.npu_convs++;
    ok = true;
done:
    d->counters.host_ns += npg_now_ns() - t0 + runtime_host;
    free(xf), free(kf), free(yf), free(xh), free(kh), free(yh);
    return ok;
}
