/* SPDX-License-Identifier: MIT */
/* POOL_2D through npk_rk_pool2d: ggml's planes (ne0 x ne1, ne2 x ne3 of them) gathered as fp16,
 * one runtime call, the fp16 results widened into the F32 node. ggml pads symmetrically (p0
 * left and right, p1 top and bottom), skips the padding in a max and counts it as zeros in an
 * average (it divides by k0 k1): the runtime's count_include_pad. A source with a finite value
 * beyond fp16's range is pooled on the host in ggml's formula (counted as host pooling). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"
#include "npukit/fp16.h"

/* ggml's pool methods and the runtime's. */
typedef struct pool_row {
    enum ggml_op_pool op;
    npk_rk_pool2d_method method;
    bool needs_pdp; /* only the PDP computes it (npk_rk_info.pdp; an average also runs as a
                       depthwise conv where the kernel does not complete PDP tasks) */
    /* claimed only for windows of a power-of-two number of cells: an average's multiplier
     * (the PDP's 17-bit reciprocals with 10 mantissa bits, or the depthwise conv's fp16
     * weight 1/(KH KW)) is exact only then; otherwise its rounding (up to 2^-11 relative,
     * the same for every output) puts ggml's suite at NMSE 1.3e-7 .. 4e-7 for 3- and 9-cell
     * windows, past its 1e-7 */
    bool pow2_window;
} pool_row;

static const pool_row pool_rows[] = {
    {GGML_OP_POOL_MAX, NPK_RK_POOL2D_MAX, true, false},
    {GGML_OP_POOL_AVG, NPK_RK_POOL2D_AVG, false, true},
};

static const pool_row *row_of(const struct ggml_tensor *op)
{
    const enum ggml_op_pool p = (enum ggml_op_pool)((const int32_t *)op->op_params)[0];
    for (size_t i = 0; i < sizeof pool_rows / sizeof pool_rows[0]; i++)
        if (pool_rows[i].op == p)
            return &pool_rows[i];
    return NULL;
}

/* The runtime's arguments for op (no data pointers); false when a parameter is not one the
 * runtime's shape check accepts (its PDP limits) or the shape it gives is not ggml's. */
static bool pool_args(const struct ggml_tensor *op, npk_rk_pool2d_args *a)
{
    const struct ggml_tensor *src = op->src[0];
    const int32_t *p = (const int32_t *)op->op_params;
    const pool_row *row = row_of(op);
    if (!row)
        return false;
    for (int i = 1; i <= 6; i++)
        if (p[i] < 0)
            return false;
    for (int i = 0; i < 4; i++)
        if (src->ne[i] <= 0 || src->ne[i] > UINT32_MAX)
            return false;
    *a = (npk_rk_pool2d_args){.method = row->method, .n = (uint32_t)src->ne[3],
                              .c = (uint32_t)src->ne[2], .h = (uint32_t)src->ne[1],
                              .w = (uint32_t)src->ne[0], .k_w = (uint32_t)p[1],
                              .k_h = (uint32_t)p[2], .stride_w = (uint32_t)p[3],
                              .stride_h = (uint32_t)p[4], .pad_left = (uint32_t)p[5],
                              .pad_right = (uint32_t)p[5], .pad_top = (uint32_t)p[6],
                              .pad_bottom = (uint32_t)p[6], .count_include_pad = true};
    const uint64_t cells = (uint64_t)a->k_h * a->k_w;
    if (row->pow2_window && (cells & (cells - 1)) != 0)
        return false;
    uint32_t oh, ow;
    return npk_rk_pool2d_shape(a, &oh, &ow) == NPK_OK && op->ne[0] == ow && op->ne[1] == oh &&
           op->ne[2] == src->ne[2] && op->ne[3] == src->ne[3];
}

bool npg_can_pool_2d(const struct ggml_tensor *op)
{
    const struct ggml_tensor *src = op->src[0];
    npk_rk_pool2d_args a;
    return op->op == GGML_OP_POOL_2D && src &&
           (src->type == GGML_TYPE_F32 || src->type == GGML_TYPE_F16) &&
           op->type == GGML_TYPE_F32 && ggml_is_contiguous(src) && ggml_is_contiguous(op) &&
           pool_args(op, &a) && npg_host_buffer_ok(src) && npg_host_buffer_ok(op);
}

bool npg_pool_2d_needs_pdp(const struct ggml_tensor *op)
{
    const pool_row *row = row_of(op);
    return !row || row->needs_pdp;
}

/* ggml's formula (its CPU backend's): the padding skipped, an average divided by k_h k_w; for
 * a source the fp16 input cannot hold. x: the planes as float. */
static void host_pool(const npk_rk_pool2d_args *a, const float *x, float *y, int64_t oh,
                      int64_t ow)
{
    const int64_t planes = (int64_t)a->n * a->c;
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oy = 0; oy < oh; oy++)
            for (int64_t ox = 0; ox < ow; ox++) {
                float r = a->method == NPK_RK_POOL2D_MAX ? -FLT_MAX : 0.0f;
                for (int64_t ky = 0; ky < a->k_h; ky++)
                    for (int64_t kx = 0; kx < a->k_w; kx++) {
                        const int64_t iy = oy * a->stride_h + ky - a->pad_top,
                                      ix = ox * a->stride_w + kx - a->pad_left;
                        if (iy < 0 || iy >= a->h || ix < 0 || ix >= a->w)
                            continue;
                        const float v = x[(pl * a->h + iy) * a->w + ix];
                        r = a->method == NPK_RK_POOL2D_MAX ? fmaxf(r, v) : r + v;
                    }
                if (a->method == NPK_RK_POOL2D_AVG)
                    r /= (float)(a->k_h * a->k_w);
                y[(pl * oh + oy) * ow + ox] = r;
            }
}

bool npg_pool_2d(npg_device *d, struct ggml_tensor *dst)
{
    const struct ggml_tensor *src = dst->src[0];
    npk_rk_pool2d_args a;
    if (!pool_args(dst, &a)) {
        fprintf(stderr, "ggml-npukit: %s: POOL_2D parameters the runtime refuses: %s\n",
                dst->name, npk_last_error());
        return false;
    }
    const int64_t count = ggml_nelements(src), out = ggml_nelements(dst);
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    float *xf = malloc((size_t)count * sizeof *xf);
    uint16_t *x = malloc((size_t)count * sizeof *x), *y = malloc((size_t)out * sizeof *y);
    bool ok = false, in_range = true;
    if (!xf || !x || !y) {
        fprintf(stderr, "ggml-npukit: %s: out of memory for %lld elements\n", dst->name,
                (long long)count);
        goto done;
    }
    for (int64_t i = 0; i < count; i++) {
        xf[i] = npg_load_float(src->type, (const uint8_t *)src->data + i * src->nb[0]);
        x[i] = npk_f32_to_f16(xf[i]);
        in_range &= !isfinite(xf[i]) || isfinite(npk_f16_to_f32(x[i]));
    }
    if (!in_range) {
        host_pool(&a, xf, (float *)dst->data, dst->ne[1], dst->ne[0]);
        d->counters.host_pooling++;
        ok = true;
        goto done;
    }
    a.input = x, a.output = y;
    npk_rk_stats st;
    if (npk_rk_pool2d(d->rt, &a, &st) != NPK_OK) {
        fprintf(stderr, "ggml-npukit: %s (POOL_2D %lldx%lldx%lldx%lld): %s\n", dst->name,
                (long long)src->ne[0], (long long)src->ne[1], (long long)src->ne[2],
                (long long)src->ne[3], npk_last_error());
        goto done;
    }
    for (int64_t i = 0; i < out; i++)
        ((float *)dst->data)[i] = npk_f16_to_f32(y[i]);
    char what[160];
    snprintf(what, sizeof what, "%s pool2d %ux%u k%ux%u s%ux%u p%ux%u", dst->name, a.h, a.w,
             a.k_h, a.k_w, a.stride_h, a.stride_w, a.pad_top, a.pad_left);
    npg_count_call(d, &st, what, &t0, &runtime_host);
    d->counters.npu_pooling++;
    ok = true;
done:
    d->counters.host_ns += npg_now_ns() - t0 + runtime_host;
    free(xf);
    free(x);
    free(y);
    return ok;
}
