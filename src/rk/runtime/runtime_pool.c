/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Pooling (npk_rk_pool2d) on the PDP: each image's planes packed into the feature atoms, one
 * pooling task per image and stage (synth_pool.c) submitted as a job of one task ending on the
 * PPU interrupt, the output unpacked. A global pool larger than the PDP's kernel runs as two
 * stages of equal windows (k1 x k2 = the plane: the mean of equal windows' means is the mean).
 * An average that excludes the padding (count_include_pad false) has its border windows
 * rescaled on the host by window / real cells. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "rk/layout/rk_conv_layout.h"
#include "rk/program/rk_conv.h"
#include "rk/program/rk_job.h"
#include "rk/program/rk_pool.h"
#include "runtime_internal.h"

static uint64_t up64(uint64_t v) { return (v + 63) / 64 * 64; }
static uint64_t fmax_of(npk_rk_field_id f) { return npk_rk_field_get(f, UINT32_MAX); }

/* The PDP's kernel and padding limits (the fields' widths). */
static uint32_t kmax(void) { return (uint32_t)fmax_of(NPK_RKF(PPU_POOLING_KERNEL_CFG, KERNEL_WIDTH)) + 1; }
static uint32_t smax(void)
{
    return (uint32_t)fmax_of(NPK_RKF(PPU_POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH)) + 1;
}
static uint32_t pmax(void) { return (uint32_t)fmax_of(NPK_RKF(PPU_POOLING_PADDING_CFG, PAD_LEFT)); }
static uint32_t dmax(void)
{
    return (uint32_t)fmax_of(NPK_RKF(PPU_DATA_CUBE_IN_HEIGHT, CUBE_IN_HEIGHT)) + 1;
}

/* A plane extent n as one window (n <= the kernel limit) or two stages k1 * k2 = n. */
static bool split(uint32_t n, uint32_t *k1, uint32_t *k2)
{
    if (n <= kmax()) {
        *k1 = n;
        *k2 = 1;
        return true;
    }
    for (uint32_t k = kmax(); k >= 2; k--)
        if (n % k == 0 && n / k <= kmax()) {
            *k1 = k;
            *k2 = n / k;
            return true;
        }
    return false;
}

npk_status npk_rk_pool2d_shape(const npk_rk_pool2d_args *a, uint32_t *out_h, uint32_t *out_w)
{
    if (!a)
        return npk_fail(NPK_EINVAL, "pool2d: NULL arguments");
    if ((unsigned)a->method >= NPK_RK_POOL2D_METHOD_COUNT)
        return npk_fail(NPK_EINVAL, "pool2d: method %d is not max, avg or min", (int)a->method);
    if (!a->n || !a->c || !a->h || !a->w)
        return npk_fail(NPK_EINVAL, "pool2d: a zero dimension (n %u c %u h %u w %u)", a->n, a->c,
                        a->h, a->w);
    if (a->h > dmax() || a->w > dmax() || a->c > dmax())
        return npk_fail(NPK_ELIMIT, "pool2d: input %ux%ux%u past %u (the PDP cube fields)", a->c,
                        a->h, a->w, dmax());
    if ((uint64_t)a->n * a->c * a->h * a->w > ((uint64_t)1 << 31))
        return npk_fail(NPK_ELIMIT, "pool2d: the input is past 2^31 elements");
    if (a->global) {
        uint32_t k1, k2;
        if (!split(a->h, &k1, &k2) || !split(a->w, &k1, &k2))
            return npk_fail(NPK_ELIMIT,
                            "pool2d: a global pool over %ux%u: each extent must be at most %u, "
                            "or the product of two that are",
                            a->h, a->w, kmax());
        *out_h = *out_w = 1;
        return NPK_OK;
    }
    if (!a->k_h || !a->k_w)
        return npk_fail(NPK_EINVAL, "pool2d: kernel %ux%u: both must be at least 1", a->k_h, a->k_w);
    if (!a->stride_h || !a->stride_w)
        return npk_fail(NPK_EINVAL, "pool2d: stride %ux%u: both must be at least 1", a->stride_h,
                        a->stride_w);
    if (a->pad_top >= a->k_h || a->pad_bottom >= a->k_h || a->pad_left >= a->k_w ||
        a->pad_right >= a->k_w)
        return npk_fail(NPK_EINVAL,
                        "pool2d: padding %u/%u/%u/%u (top/left/bottom/right) must be smaller than "
                        "the kernel %ux%u",
                        a->pad_top, a->pad_left, a->pad_bottom, a->pad_right, a->k_h, a->k_w);
    const uint64_t hp = (uint64_t)a->h + a->pad_top + a->pad_bottom;
    const uint64_t wp = (uint64_t)a->w + a->pad_left + a->pad_right;
    if (a->k_h > hp || a->k_w > wp)
        return npk_fail(NPK_EINVAL, "pool2d: kernel %ux%u is larger than the padded input %llux%llu",
                        a->k_h, a->k_w, (unsigned long long)hp, (unsigned long long)wp);
    if (a->k_h > kmax() || a->k_w > kmax())
        return npk_fail(NPK_ELIMIT, "pool2d: kernel %ux%u exceeds %u (PPU_POOLING_KERNEL_CFG)",
                        a->k_h, a->k_w, kmax());
    if (a->stride_h > smax() || a->stride_w > smax())
        return npk_fail(NPK_ELIMIT, "pool2d: stride %ux%u exceeds %u (PPU_POOLING_KERNEL_CFG)",
                        a->stride_h, a->stride_w, smax());
    if (a->pad_top > pmax() || a->pad_left > pmax() || a->pad_bottom > pmax() || a->pad_right > pmax())
        return npk_fail(NPK_ELIMIT, "pool2d: padding past %u (PPU_POOLING_PADDING_CFG)", pmax());
    *out_h = (uint32_t)((hp - a->k_h) / a->stride_h + 1);
    *out_w = (uint32_t)((wp - a->k_w) / a->stride_w + 1);
    return NPK_OK;
}

/* One stage on one image: planes src [c][h][w] (fp16) -> dst [c][oh][ow]. */
static npk_status run_stage(npk_rk *rt, const npk_rk_pool *shape, const uint16_t *src, uint16_t *dst,
                            npk_rk_stats *st, uint64_t *core_ns)
{
    const unsigned core = rt->core_map[0];
    npk_rk_core_bufs *cb = &rt->core[core];
    const uint64_t in_bytes = npk_rk_conv_feature_bytes(NPK_PREC_FP16, shape->c, shape->in_h, shape->in_w);
    const uint64_t out_bytes =
        npk_rk_conv_feature_bytes(NPK_PREC_FP16, shape->c, shape->out_h, shape->out_w);
    const uint64_t o_off = up64(in_bytes), total = o_off + up64(out_bytes);
    pthread_mutex_lock(&cb->job_lock);
    npk_status s = npk_rk_core_output(rt, core, total);
    uint64_t t0 = npk_now_ns();
    if (s == NPK_OK)
        s = npk_rk_conv_pack_feature(NPK_PREC_FP16, src, (uint64_t)shape->in_h * shape->in_w, shape->in_w,
                                     shape->c, shape->in_h, shape->in_w, 0, 0, 0, 0,
                                     cb->output.host, in_bytes);
    st->pack_ns += npk_now_ns() - t0;
    npk_rk_pool t = *shape;
    t.in = cb->output.iova;
    t.out = cb->output.iova + (uint32_t)o_off;
    const npk_rk_job_task job = {.op = NPK_RK_OP_POOL, .args = &t};
    t0 = npk_now_ns();
    if (s == NPK_OK)
        s = npk_rk_job_write(cb->task.host, cb->task.iova, cb->task.size, &job, 1);
    st->synth_ns += npk_now_ns() - t0;
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->output, 0, total, RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->task, 0, npk_rk_job_bytes(1),
                            RKNPU_MEM_SYNC_TO_DEVICE);
    const uint64_t npu0 = st->npu_ns;
    if (s == NPK_OK)
        s = npk_rk_submit_job(rt, core, 1, st);
    *core_ns += st->npu_ns - npu0;
    st->tasks++;
    st->core_mask |= 1u << core;
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->output, o_off, out_bytes, RKNPU_MEM_SYNC_FROM_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_conv_unpack_feature(NPK_PREC_FP16, (uint8_t *)cb->output.host + o_off, out_bytes, shape->c,
                                       shape->out_h, shape->out_w, dst);
    pthread_mutex_unlock(&cb->job_lock);
    return s;
}

/* The real cells of output (y, x)'s window. */
static uint32_t cells(const npk_rk_pool2d_args *a, uint32_t y, uint32_t x)
{
    int64_t y0 = (int64_t)y * a->stride_h - a->pad_top, x0 = (int64_t)x * a->stride_w - a->pad_left;
    int64_t y1 = y0 + a->k_h, x1 = x0 + a->k_w;
    y0 = y0 < 0 ? 0 : y0;
    x0 = x0 < 0 ? 0 : x0;
    y1 = y1 > a->h ? a->h : y1;
    x1 = x1 > a->w ? a->w : x1;
    return (uint32_t)((y1 - y0) * (x1 - x0));
}

/* The windows of output (y, x) the padding reaches, rescaled from the whole window to its real
 * cells (count_include_pad false). */
static void rescale_border(const npk_rk_pool2d_args *a, uint16_t *dst, uint32_t oh, uint32_t ow)
{
    for (uint32_t ch = 0; ch < a->c; ch++)
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t x = 0; x < ow; x++) {
                uint32_t n = cells(a, y, x);
                if (n == a->k_h * a->k_w || !n)
                    continue;
                uint16_t *v = &dst[((uint64_t)ch * oh + y) * ow + x];
                *v = npk_f32_to_f16(npk_f16_to_f32(*v) * (float)(a->k_h * a->k_w) / (float)n);
            }
}

/* An average on a kernel that cannot wait for the PDP's interrupt: the conv engine's depthwise
 * convolution with every weight 1/(KH*KW) (fp16-rounded), which ends on the DPU's — the
 * vendor's global average pool runs on the CNA and DPU too (spec "Op -> engine-block map"). */
static npk_status avg_as_conv(npk_rk *rt, const npk_rk_pool2d_args *a, uint32_t oh, uint32_t ow,
                              npk_rk_stats *st)
{
    const uint32_t kh = a->global ? a->h : a->k_h, kw = a->global ? a->w : a->k_w;
    npk_rk_conv2d_args c = {.n = a->n, .c = a->c, .h = a->h, .w = a->w, .out_c = a->c,
                            .k_h = kh, .k_w = kw, .stride_h = a->global ? 1 : a->stride_h,
                            .stride_w = a->global ? 1 : a->stride_w, .groups = a->c,
                            .input = a->input, .output = a->output};
    if (!a->global) {
        c.pad_top = a->pad_top, c.pad_left = a->pad_left;
        c.pad_bottom = a->pad_bottom, c.pad_right = a->pad_right;
    }
    const uint64_t n = (uint64_t)a->c * kh * kw;
    uint16_t *w = malloc(n * sizeof *w);
    if (!w)
        return npk_fail(NPK_ENOMEM, "pool2d: no memory for the averaging weights");
    const uint16_t recip = npk_f32_to_f16(1.0f / (float)(kh * kw));
    for (uint64_t i = 0; i < n; i++)
        w[i] = recip;
    c.weights = w;
    npk_status s = npk_rk_conv2d(rt, &c, st);
    free(w);
    for (uint32_t b = 0; s == NPK_OK && !a->global && !a->count_include_pad && b < a->n; b++)
        rescale_border(a, a->output + (uint64_t)b * a->c * oh * ow, oh, ow);
    return s;
}

npk_status npk_rk_pool2d(npk_rk *rt, const npk_rk_pool2d_args *a, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!rt)
        return npk_fail(NPK_EINVAL, "pool2d: NULL runtime");
    uint32_t oh, ow;
    npk_status s = npk_rk_pool2d_shape(a, &oh, &ow);
    if (s)
        return s;
    if (!a->input || !a->output)
        return npk_fail(NPK_EINVAL, "pool2d: NULL %s", !a->input ? "input" : "output");
    const bool pdp = npk_rk_kernel_runs_op(rt->form, NPK_RK_OP_POOL);
    if (!pdp && a->method == NPK_RK_POOL2D_AVG)
        return avg_as_conv(rt, a, oh, ow, st);
    if (!pdp)
        return npk_fail(NPK_EINVAL,
                        "pool2d: the %s kernel waits only for the DPU interrupt (INTERRUPT_MASK "
                        "0x%x for every job, facts A.2) and the PDP ends its task on the PPU's "
                        "(0x%x): max and min pooling run on rknpu only (an average runs as a "
                        "depthwise conv)",
                        rt->form->name, rt->form->int_mask_fixed,
                        npk_rk_op_desc_of(NPK_RK_OP_POOL)->int_mask);
    /* the stages: one task, or two for a global pool past the kernel limit */
    npk_rk_pool stage[2];
    unsigned stages = 1;
    const npk_rk_pool_method m = a->method == NPK_RK_POOL2D_MAX   ? NPK_RK_POOL_MAX
                                 : a->method == NPK_RK_POOL2D_AVG ? NPK_RK_POOL_AVG
                                                                  : NPK_RK_POOL_MIN;
    if (a->global) {
        uint32_t h1, h2, w1, w2;
        split(a->h, &h1, &h2);
        split(a->w, &w1, &w2);
        stage[0] = (npk_rk_pool){.method = m, .in_h = a->h, .in_w = a->w, .c = a->c,
                                 .out_h = a->h / h1, .out_w = a->w / w1, .k_h = h1, .k_w = w1,
                                 .stride_y = h1, .stride_x = w1};
        stage[1] = (npk_rk_pool){.method = m, .in_h = h2, .in_w = w2, .c = a->c, .out_h = 1,
                                 .out_w = 1, .k_h = h2, .k_w = w2, .stride_y = h2, .stride_x = w2};
        stages = h2 * w2 > 1 ? 2 : 1;
    } else {
        stage[0] = (npk_rk_pool){.method = m, .in_h = a->h, .in_w = a->w, .c = a->c, .out_h = oh,
                                 .out_w = ow, .k_h = a->k_h, .k_w = a->k_w,
                                 .stride_y = a->stride_h, .stride_x = a->stride_w,
                                 .pad_top = a->pad_top, .pad_left = a->pad_left,
                                 .pad_bottom = a->pad_bottom, .pad_right = a->pad_right};
    }
    uint64_t start = npk_now_ns(), core_ns = 0;
    if ((s = npk_rk_call_begin(rt, "pool2d")))
        return s;
    const uint64_t plane_in = (uint64_t)a->c * a->h * a->w, plane_out = (uint64_t)a->c * oh * ow;
    uint16_t *mid = stages > 1 ? malloc((uint64_t)a->c * stage[0].out_h * stage[0].out_w * 2) : NULL;
    if (stages > 1 && !mid)
        s = npk_fail(NPK_ENOMEM, "pool2d: no memory for the first stage's output");
    for (uint32_t b = 0; s == NPK_OK && b < a->n; b++) {
        const uint16_t *src = a->input + b * plane_in;
        uint16_t *dst = a->output + b * plane_out;
        s = run_stage(rt, &stage[0], src, stages > 1 ? mid : dst, st, &core_ns);
        if (s == NPK_OK && stages > 1)
            s = run_stage(rt, &stage[1], mid, dst, st, &core_ns);
        /* an average over the real cells only: rescale the windows the padding reaches */
        if (s == NPK_OK && !a->global && a->method == NPK_RK_POOL2D_AVG && !a->count_include_pad)
            rescale_border(a, dst, oh, ow);
    }
    free(mid);
    st->npu_span_ns = core_ns;
    st->cores_used = 1;
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}
