/* SPDX-License-Identifier: MIT */
/* POOL_2D: ggml's planes (ne0 x ne1, ne2 x ne3 of them) gathered as fp16, one runtime call, the
 * results widened into the F32 node. A max, and an average of a power-of-two window, run
 * through npk_rk_pool2d; any other average as window sums on the conv path (pool_rows below).
 * ggml pads symmetrically (p0 left and right, p1 top and bottom), skips the padding in a max
 * and counts it as zeros in an average (it divides by k0 k1): the runtime's
 * count_include_pad. A source with a finite value beyond fp16's range (or, for window sums, a
 * window sum that could be) is pooled on the host in ggml's formula (counted as host
 * pooling). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"
#include "npukit/fp16.h"

/* How a row computes its windows. */
typedef enum pool_engine {
    POOL_ON_PDP,      /* npk_rk_pool2d: the PDP (an average on rocket: the runtime's depthwise
                         conv with the weight 1/(KH KW)) */
    POOL_WINDOW_SUMS, /* an average as window sums: npk_rk_conv2d depthwise with the fp16
                         weight 1 (exact: fp32 sums rounded once to fp16), divided by KH KW on
                         the host in fp32 as ggml divides */
} pool_engine;

/* The most cells a window sum takes: each of its N hi terms is below 2^10 / N + 1/2 quanta
 * (window_sums), so the sum stays below 2^10 + N / 2 <= 2^11 quanta, exact in fp16's 11
 * significant bits. */
#define WINDOW_SUMS_MAX_CELLS 2048u

/* Which windows a row takes, by their number of cells. */
typedef enum pool_cells { CELLS_ANY, CELLS_POW2, CELLS_OTHER } pool_cells;

/* ggml's pool methods and how each runs: the first row whose op and cells match and whose
 * engine accepts the shape. An average's multiplier 1/(KH KW) — the PDP's 17-bit reciprocals
 * with 10 mantissa bits, or the depthwise conv's fp16 weight — is exact only for a power-of-two
 * number of cells; otherwise its rounding (up to 2^-11 relative, the same for every output)
 * puts ggml's suite at NMSE 1.3e-7 .. 4e-7 for 3- and 9-cell windows, past its 1e-7. Window
 * sums round only the sum (2^-12 relative, as a power-of-two average's single rounding), and
 * take the padding the PDP refuses (padding not below the kernel). */
typedef struct pool_row {
    enum ggml_op_pool op;
    pool_cells cells;
    pool_engine engine;
    npk_rk_pool2d_method method;
    bool needs_pdp; /* only the PDP computes it (npk_rk_info.pdp) */
} pool_row;

static const pool_row pool_rows[] = {
    {GGML_OP_POOL_MAX, CELLS_ANY, POOL_ON_PDP, NPK_RK_POOL2D_MAX, true},
    {GGML_OP_POOL_AVG, CELLS_POW2, POOL_ON_PDP, NPK_RK_POOL2D_AVG, false},
    {GGML_OP_POOL_AVG, CELLS_ANY, POOL_WINDOW_SUMS, NPK_RK_POOL2D_AVG, false},
};

/* The node's geometry as the runtime's pooling arguments (no data pointers); false for a
 * negative or oversized parameter. */
static bool pool_geometry(const struct ggml_tensor *op, npk_rk_pool2d_args *a)
{
    const struct ggml_tensor *src = op->src[0];
    const int32_t *p = (const int32_t *)op->op_params;
    for (int i = 1; i <= 6; i++)
        if (p[i] < 0)
            return false;
    for (int i = 0; i < 4; i++)
        if (src->ne[i] <= 0 || src->ne[i] > UINT32_MAX)
            return false;
    *a = (npk_rk_pool2d_args){.n = (uint32_t)src->ne[3], .c = (uint32_t)src->ne[2],
                              .h = (uint32_t)src->ne[1], .w = (uint32_t)src->ne[0],
                              .k_w = (uint32_t)p[1], .k_h = (uint32_t)p[2],
                              .stride_w = (uint32_t)p[3], .stride_h = (uint32_t)p[4],
                              .pad_left = (uint32_t)p[5], .pad_right = (uint32_t)p[5],
                              .pad_top = (uint32_t)p[6], .pad_bottom = (uint32_t)p[6],
                              .count_include_pad = true};
    return true;
}

/* The depthwise conv that sums each window of a (weights and data pointers left to the caller). */
static npk_rk_conv2d_args window_sums_args(const npk_rk_pool2d_args *a)
{
    return (npk_rk_conv2d_args){.n = a->n, .c = a->c, .h = a->h, .w = a->w, .out_c = a->c,
                                .k_h = a->k_h, .k_w = a->k_w, .stride_h = a->stride_h,
                                .stride_w = a->stride_w, .pad_top = a->pad_top,
                                .pad_left = a->pad_left, .pad_bottom = a->pad_bottom,
                                .pad_right = a->pad_right, .groups = a->c};
}

static bool cells_match(pool_cells c, uint64_t cells)
{
    const bool pow2 = cells && (cells & (cells - 1)) == 0;
    return c == CELLS_ANY || (c == CELLS_POW2) == pow2;
}

/* The row op runs by and its pooling arguments: the first row of its op and window whose
 * engine's shape check accepts it with ggml's output shape; NULL when none does. */
static const pool_row *pool_plan(const struct ggml_tensor *op, npk_rk_pool2d_args *a)
{
    const enum ggml_op_pool p = (enum ggml_op_pool)((const int32_t *)op->op_params)[0];
    if (!pool_geometry(op, a))
        return NULL;
    const uint64_t cells = (uint64_t)a->k_h * a->k_w;
    for (size_t i = 0; i < sizeof pool_rows / sizeof pool_rows[0]; i++) {
        const pool_row *row = &pool_rows[i];
        if (row->op != p || !cells_match(row->cells, cells))
            continue;
        a->method = row->method;
        uint32_t oh, ow;
        const npk_rk_conv2d_args c = window_sums_args(a);
        const bool accepted = row->engine == POOL_ON_PDP
                                  ? npk_rk_pool2d_shape(a, &oh, &ow) == NPK_OK
                                  : cells <= WINDOW_SUMS_MAX_CELLS &&
                                        npk_rk_conv2d_shape(&c, &oh, &ow) == NPK_OK;
        if (accepted && op->ne[0] == ow && op->ne[1] == oh && op->ne[2] == op->src[0]->ne[2] &&
            op->ne[3] == op->src[0]->ne[3])
            return row;
    }
    return NULL;
}

bool npg_can_pool_2d(const struct ggml_tensor *op)
{
    const struct ggml_tensor *src = op->src[0];
    npk_rk_pool2d_args a;
    return op->op == GGML_OP_POOL_2D && src &&
           (src->type == GGML_TYPE_F32 || src->type == GGML_TYPE_F16) &&
           op->type == GGML_TYPE_F32 && ggml_is_contiguous(src) && ggml_is_contiguous(op) &&
           pool_plan(op, &a) && npg_host_buffer_ok(src) && npg_host_buffer_ok(op);
}

bool npg_pool_2d_needs_pdp(const struct ggml_tensor *op)
{
    npk_rk_pool2d_args a;
    const pool_row *row = op->src[0] ? pool_plan(op, &a) : NULL;
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

/* The windows' sums on the NPU, divided by KH KW on the host as ggml divides. The fp16 input
 * and the fp16 output would each round once (about 2^-12 relative apiece, NMSE near ggml's
 * 1e-7), so each value is split without error into hi + lo: hi a multiple of the quantum
 * q = 2^(e - 10), with max|x| KH KW < 2^e, so that every window's sum of hi is an integer
 * multiple of q below 2^11 q — exact in fp16, as the conv's fp32 sum rounded once to fp16 is —
 * and lo = x - hi (|lo| <= q/2) the only part rounded, in and out, at 2^-12 of its small size.
 * hi and lo are 2C channels of one depthwise conv with fp16 weights 1; y = (sum hi + sum lo) /
 * (KH KW). xf: the source as float, finite, max|x| KH KW within fp16's range. */
static npk_status window_sums(npg_device *d, const npk_rk_pool2d_args *a, const float *xf,
                              float max_abs, float *y, npk_rk_stats *st)
{
    const uint64_t plane = (uint64_t)a->h * a->w, cells = (uint64_t)a->k_h * a->k_w;
    npk_rk_conv2d_args c = window_sums_args(a);
    c.c = c.out_c = c.groups = 2 * a->c;
    uint32_t oh, ow;
    npk_status s = npk_rk_conv2d_shape(&c, &oh, &ow);
    if (s != NPK_OK)
        return s;
    const uint64_t out_plane = (uint64_t)oh * ow, taps = (uint64_t)c.c * cells,
                   planes = (uint64_t)c.c * a->n;
    uint16_t *x2 = malloc((size_t)(planes * plane) * sizeof *x2);
    uint16_t *ones = malloc((size_t)taps * sizeof *ones);
    uint16_t *sums = malloc((size_t)(planes * out_plane) * sizeof *sums);
    if (!x2 || !ones || !sums) {
        s = npk_fail(NPK_ENOMEM, "window sums: %llu values", (unsigned long long)(planes * plane));
        goto done;
    }
    int e;
    frexpf(max_abs * (float)cells, &e);
    const float q = fmaxf(ldexpf(1.0f, e - 10), ldexpf(1.0f, -24)); /* fp16's least step */
    for (uint64_t img = 0; img < a->n; img++)
        for (uint64_t ch = 0; ch < a->c; ch++) {
            const float *src = xf + (img * a->c + ch) * plane;
            uint16_t *hi = x2 + (img * 2 * a->c + ch) * plane, *lo = hi + a->c * plane;
            for (uint64_t i = 0; i < plane; i++) {
                const float h = rintf(src[i] / q) * q;
                hi[i] = npk_f32_to_f16(h);
                lo[i] = npk_f32_to_f16(src[i] - h);
            }
        }
    for (uint64_t i = 0; i < taps; i++)
        ones[i] = npk_f32_to_f16(1.0f);
    c.input = x2, c.weights = ones, c.output = sums;
    s = npk_rk_conv2d(d->rt, &c, st);
    if (s != NPK_OK)
        goto done;
    for (uint64_t img = 0; img < a->n; img++)
        for (uint64_t ch = 0; ch < a->c; ch++) {
            const uint16_t *hi = sums + (img * 2 * a->c + ch) * out_plane,
                           *lo = hi + a->c * out_plane;
            float *dst = y + (img * a->c + ch) * out_plane;
            for (uint64_t i = 0; i < out_plane; i++)
                dst[i] = (npk_f16_to_f32(hi[i]) + npk_f16_to_f32(lo[i])) / (float)cells;
        }
    st->host_steps += 2; /* the split and the division */
done:
    free(x2);
    free(ones);
    free(sums);
    return s;
}

bool npg_pool_2d(npg_device *d, struct ggml_tensor *dst)
{
    const struct ggml_tensor *src = dst->src[0];
    npk_rk_pool2d_args a;
    const pool_row *row = pool_plan(dst, &a);
    if (!row) {
        fprintf(stderr, "ggml-npukit: %s: POOL_2D parameters the runtime refuses: %s\n",
                dst->name, npk_last_error());
        return false;
    }
    const int64_t count = ggml_nelements(src), out = ggml_nelements(dst);
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    float *xf = malloc((size_t)count * sizeof *xf);
    uint16_t *x = malloc((size_t)count * sizeof *x), *y = malloc((size_t)out * sizeof *y);
    bool ok = false, in_range = true;
    float max_abs = 0.0f;
    if (!xf || !x || !y) {
        fprintf(stderr, "ggml-npukit: %s: out of memory for %lld elements\n", dst->name,
                (long long)count);
        goto done;
    }
    for (int64_t i = 0; i < count; i++) {
        xf[i] = npg_load_float(src->type, (const uint8_t *)src->data + i * src->nb[0]);
        x[i] = npk_f32_to_f16(xf[i]);
        in_range &= !isfinite(xf[i]) || isfinite(npk_f16_to_f32(x[i]));
        if (isfinite(xf[i]))
            max_abs = fmaxf(max_abs, fabsf(xf[i]));
    }
    /* a window's sum must stay within fp16's range too */
    if (row->engine == POOL_WINDOW_SUMS && (double)max_abs * a.k_h * a.k_w > 65504.0)
        in_range = false;
    if (!in_range) {
        host_pool(&a, xf, (float *)dst->data, dst->ne[1], dst->ne[0]);
        d->counters.host_pooling++;
        ok = true;
        goto done;
    }
    a.input = x, a.output = y;
    npk_rk_stats st;
    const npk_status s = row->engine == POOL_ON_PDP
                             ? npk_rk_pool2d(d->rt, &a, &st)
                             : window_sums(d, &a, xf, max_abs, (float *)dst->data, &st);
    if (s != NPK_OK) {
        fprintf(stderr, "ggml-npukit: %s (POOL_2D %lldx%lldx%lldx%lld): %s\n", dst->name,
                (long long)src->ne[0], (long long)src->ne[1], (long long)src->ne[2],
                (long long)src->ne[3], npk_last_error());
        goto done;
    }
    if (row->engine == POOL_ON_PDP)
        for (int64_t i = 0; i < out; i++)
            ((float *)dst->data)[i] = npk_f16_to_f32(y[i]);
    char what[160];
    snprintf(what, sizeof what, "%s %s %ux%u k%ux%u s%ux%u p%ux%u", dst->name,
             row->engine == POOL_ON_PDP ? "pool2d" : "window sums", a.h, a.w, a.k_h, a.k_w,
             a.stride_h, a.stride_w, a.pad_top, a.pad_left);
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
