/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Convolution (npk_rk_conv2d): the user's layer as passes the hardware has a mode for — one
 * dense pass, one depthwise pass, m depthwise passes for a channel multiplier m, or one dense
 * pass per group — with a dilated kernel expanded by zeros; each pass of each image tiled by the
 * planner (plan_conv.c) into conv tasks; each task's input window, weights and bias staged in
 * the core's output buffer, synthesized (synth_conv.c), submitted through the state policy as a
 * job of one task, and its output scattered into the user's NCHW array. Input-channel slices
 * write fp16 partials that the host sums in fp32 before adding the bias and clamping. An int8
 * layer's tasks write int32 accumulators (no bias, no clamp) that the host sums exactly and
 * requantises: the bias, the clamp and the output scale are host work, one step per output
 * plane in stats.host_steps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "policy.h"
#include "rk/layout/rk_conv_layout.h"
#include "rk/plan/rk_plan_conv.h"
#include "rk/program/rk_conv.h"
#include "rk/program/rk_job.h"
#include "runtime_internal.h"

/* The largest tensor a call takes, in elements (the index arithmetic's bound). */
#define CONV_MAX_ELEMS ((uint64_t)1 << 31)

static uint64_t up64(uint64_t v) { return (v + 63) / 64 * 64; }
static uint32_t dil(uint32_t d) { return d ? d : 1; }

/* The tasks' input precision of a call's dtype. */
static npk_rk_prec conv_prec(const npk_rk_conv2d_args *a)
{
    return a->dtype == NPK_RK_CONV_INT8 ? NPK_PREC_INT8 : NPK_PREC_FP16;
}

static bool int8_call(const npk_rk_conv2d_args *a) { return a->dtype == NPK_RK_CONV_INT8; }

/* An int8 call's own arguments: the arrays and the scales. */
static npk_status check_int8(const npk_rk_conv2d_args *a)
{
    if (!a->input_i8 || !a->weights_i8 || !a->w_scales)
        return npk_fail(NPK_EINVAL, "conv2d: int8 needs input_i8, weights_i8 and w_scales (NULL %s)",
                        !a->input_i8 ? "input_i8" : !a->weights_i8 ? "weights_i8" : "w_scales");
    if (!a->acc && !a->output_i8)
        return npk_fail(NPK_EINVAL, "conv2d: int8 with neither acc nor output_i8 to write");
    if (!(isfinite(a->in_scale) && a->in_scale > 0))
        return npk_fail(NPK_EINVAL, "conv2d: in_scale %g: a finite value > 0", (double)a->in_scale);
    if (a->output_i8 && !(isfinite(a->out_scale) && a->out_scale > 0))
        return npk_fail(NPK_EINVAL, "conv2d: out_scale %g: a finite value > 0",
                        (double)a->out_scale);
    for (uint32_t o = 0; o < a->out_c; o++)
        if (!(isfinite(a->w_scales[o]) && a->w_scales[o] > 0))
            return npk_fail(NPK_EINVAL, "conv2d: w_scales[%u] %g: a finite value > 0", o,
                            (double)a->w_scales[o]);
    return NPK_OK;
}

npk_status npk_rk_conv2d_shape(const npk_rk_conv2d_args *a, uint32_t *out_h, uint32_t *out_w)
{
    if (!a)
        return npk_fail(NPK_EINVAL, "conv2d: NULL arguments");
    if (!a->n || !a->c || !a->h || !a->w || !a->out_c)
        return npk_fail(NPK_EINVAL, "conv2d: a zero dimension (n %u c %u h %u w %u out_c %u)",
                        a->n, a->c, a->h, a->w, a->out_c);
    if (!a->k_h || !a->k_w)
        return npk_fail(NPK_EINVAL, "conv2d: kernel %ux%u: both must be at least 1", a->k_h,
                        a->k_w);
    if (!a->stride_h || !a->stride_w)
        return npk_fail(NPK_EINVAL, "conv2d: stride %ux%u: both must be at least 1", a->stride_h,
                        a->stride_w);
    const uint32_t g = a->groups ? a->groups : 1;
    if (a->c % g || a->out_c % g)
        return npk_fail(NPK_EINVAL,
                        "conv2d: groups %u must divide the input channels %u and the output "
                        "channels %u",
                        g, a->c, a->out_c);
    if ((unsigned)a->dtype >= NPK_RK_CONV_DTYPE_COUNT)
        return npk_fail(NPK_EINVAL, "conv2d: dtype %d is not fp16 (0) or int8 (1)", (int)a->dtype);
    if ((unsigned)a->act >= NPK_RK_ACT_COUNT)
        return npk_fail(NPK_EINVAL, "conv2d: act %d is not none, relu or clip", (int)a->act);
    if (a->act == NPK_RK_ACT_CLIP && !(isfinite(a->act_max) && a->act_max >= 0))
        return npk_fail(NPK_EINVAL, "conv2d: clip bound %g: a finite value >= 0 (the BS stage "
                        "clamps at 0 below)", (double)a->act_max);
    const uint64_t kh = (uint64_t)(a->k_h - 1) * dil(a->dil_h) + 1;
    const uint64_t kw = (uint64_t)(a->k_w - 1) * dil(a->dil_w) + 1;
    const uint64_t hp = (uint64_t)a->h + a->pad_top + a->pad_bottom;
    const uint64_t wp = (uint64_t)a->w + a->pad_left + a->pad_right;
    if (kh > hp || kw > wp)
        return npk_fail(NPK_EINVAL,
                        "conv2d: the (dilated) kernel %llux%llu is larger than the padded input "
                        "%llux%llu",
                        (unsigned long long)kh, (unsigned long long)kw, (unsigned long long)hp,
                        (unsigned long long)wp);
    const uint64_t kmax = npk_rk_field_get(NPK_RKF(CNA_WEIGHT_SIZE2, WEIGHT_WIDTH), UINT32_MAX);
    if (kh > kmax || kw > kmax)
        return npk_fail(NPK_ELIMIT,
                        "conv2d: the (dilated) kernel %llux%llu exceeds %llu "
                        "(CNA_WEIGHT_SIZE2.WEIGHT_WIDTH/HEIGHT)",
                        (unsigned long long)kh, (unsigned long long)kw, (unsigned long long)kmax);
    const uint64_t smax = npk_rk_field_get(NPK_RKF(CNA_CONV_CON3, CONV_X_STRIDE), UINT32_MAX);
    if (a->stride_h > smax || a->stride_w > smax)
        return npk_fail(NPK_ELIMIT, "conv2d: stride %ux%u exceeds %llu (CNA_CONV_CON3)",
                        a->stride_h, a->stride_w, (unsigned long long)smax);
    const uint64_t oh = (hp - kh) / a->stride_h + 1, ow = (wp - kw) / a->stride_w + 1;
    if ((uint64_t)a->n * a->c * a->h * a->w > CONV_MAX_ELEMS ||
        (uint64_t)a->n * a->out_c * oh * ow > CONV_MAX_ELEMS ||
        (uint64_t)a->out_c * (a->c / g) * kh * kw > CONV_MAX_ELEMS)
        return npk_fail(NPK_ELIMIT, "conv2d: a tensor past %llu elements",
                        (unsigned long long)CONV_MAX_ELEMS);
    const npk_rk_conv_prec *prec = npk_rk_conv_prec_of(conv_prec(a));
    const uint64_t contraction = (uint64_t)(a->c / g) * kh * kw;
    if (prec->k_max && contraction > prec->k_max)
        return npk_fail(NPK_ELIMIT,
                        "conv2d: int8 contraction C/groups x KH x KW = %llu past %llu (the "
                        "int32 accumulator could overflow)",
                        (unsigned long long)contraction, (unsigned long long)prec->k_max);
    if (out_h)
        *out_h = (uint32_t)oh;
    if (out_w)
        *out_w = (uint32_t)ow;
    return NPK_OK;
}

/* One pass: a dense or depthwise convolution of the channels [ci0, ci0 + cin); its output
 * channel i is the layer's out_base + i * out_step. */
typedef struct pass {
    bool depthwise;
    uint32_t ci0, cin, cout, out_base, out_step;
    void *w;     /* dense [cout][cin][kh][kw]; depthwise [cin][kh][kw]; elements of eb bytes */
    float *bias; /* [cout] */
} pass;

typedef struct conv_call {
    npk_rk *rt;
    const npk_rk_conv2d_args *a;
    uint32_t kh, kw, oh, ow; /* the dilated kernel and the output */
    npk_rk_prec prec;        /* the tasks' input precision; eb its element bytes */
    uint32_t eb;
    uint8_t *wd;             /* the dilated weights [out_c][c/g][kh][kw] */
    pass *passes;
    uint32_t npass;
    npk_rk_stats *st;
    uint64_t core_ns[NPK_RK_MAX_CORES];
} conv_call;

static void passes_free(conv_call *x)
{
    for (uint32_t i = 0; x->passes && i < x->npass; i++) {
        free(x->passes[i].w);
        free(x->passes[i].bias);
    }
    free(x->passes);
    free(x->wd);
}

/* The dilated weights: the kernel's taps d apart, zeros between. */
static npk_status dilate(conv_call *x)
{
    const npk_rk_conv2d_args *a = x->a;
    const uint32_t cg = a->c / (a->groups ? a->groups : 1);
    const uint64_t kernels = (uint64_t)a->out_c * cg;
    const uint8_t *src = int8_call(a) ? (const uint8_t *)a->weights_i8 : (const uint8_t *)a->weights;
    x->wd = calloc(kernels * x->kh * x->kw, x->eb);
    if (!x->wd)
        return npk_fail(NPK_ENOMEM, "conv2d: no memory for the weights");
    for (uint64_t k = 0; k < kernels; k++)
        for (uint32_t y = 0; y < a->k_h; y++)
            for (uint32_t xx = 0; xx < a->k_w; xx++)
                memcpy(x->wd + ((k * x->kh + (uint64_t)y * dil(a->dil_h)) * x->kw +
                                (uint64_t)xx * dil(a->dil_w)) * x->eb,
                       src + ((k * a->k_h + y) * a->k_w + xx) * x->eb, x->eb);
    return NPK_OK;
}

static npk_status add_pass(conv_call *x, bool dw, uint32_t ci0, uint32_t cin, uint32_t cout,
                           uint32_t out_base, uint32_t out_step)
{
    const npk_rk_conv2d_args *a = x->a;
    const uint32_t cg = a->c / (a->groups ? a->groups : 1);
    const uint64_t win = (uint64_t)x->kh * x->kw;
    pass *p = &x->passes[x->npass++];
    *p = (pass){dw, ci0, cin, cout, out_base, out_step, NULL, NULL};
    p->w = malloc((dw ? cin : (uint64_t)cout * cin) * win * x->eb);
    p->bias = calloc(cout, sizeof *p->bias);
    if (!p->w || !p->bias)
        return npk_fail(NPK_ENOMEM, "conv2d: no memory for a pass's weights");
    for (uint32_t o = 0; o < cout; o++) {
        const uint32_t lo = out_base + o * out_step; /* the layer's output channel */
        if (a->bias)
            p->bias[o] = a->bias[lo];
        /* dense: all of the group's cg input channels; depthwise: the one (cg = 1) */
        memcpy((uint8_t *)p->w + (uint64_t)o * (dw ? 1 : cin) * win * x->eb,
               x->wd + (uint64_t)lo * cg * win * x->eb, (dw ? 1 : cin) * win * x->eb);
    }
    return NPK_OK;
}

/* The passes of the layer (see the file's comment). */
static npk_status make_passes(conv_call *x)
{
    const npk_rk_conv2d_args *a = x->a;
    const uint32_t g = a->groups ? a->groups : 1;
    const bool dw = g > 1 && g == a->c;
    const uint32_t count = g == 1 ? 1 : dw ? a->out_c / a->c : g;
    x->passes = calloc(count, sizeof *x->passes);
    if (!x->passes)
        return npk_fail(NPK_ENOMEM, "conv2d: no memory for the passes");
    npk_status s = NPK_OK;
    for (uint32_t i = 0; s == NPK_OK && i < count; i++) {
        if (g == 1)
            s = add_pass(x, false, 0, a->c, a->out_c, 0, 1);
        else if (dw) /* multiplier pass i: channel ch feeds output ch * m + i */
            s = add_pass(x, true, 0, a->c, a->c, i, count);
        else
            s = add_pass(x, false, i * (a->c / g), a->c / g, a->out_c / g, i * (a->out_c / g), 1);
    }
    return s;
}

static double clamp(const npk_rk_conv2d_args *a, double v)
{
    if (a->act != NPK_RK_ACT_NONE && v < 0.0f)
        v = 0.0f;
    if (a->act == NPK_RK_ACT_CLIP && v > a->act_max)
        v = a->act_max;
    return v;
}

static uint16_t clamp_round(const npk_rk_conv2d_args *a, float v)
{
    return npk_f32_to_f16((float)clamp(a, v));
}

/* The host's requantisation of one output plane of an int8 layer (npk_rk_conv2d_args): the
 * exact sums to acc, and y = sum x in_scale x w_scale + bias, clamped, over out_scale,
 * rounded to nearest even and saturated to output_i8. */
static void requantise(conv_call *x, const pass *p, uint32_t b, uint32_t o, const int64_t *sum)
{
    const npk_rk_conv2d_args *a = x->a;
    const uint32_t lo = p->out_base + o * p->out_step; /* the layer's channel */
    const uint64_t plane = (uint64_t)x->oh * x->ow, at = ((uint64_t)b * a->out_c + lo) * plane;
    const double scale = (double)a->in_scale * a->w_scales[lo];
    for (uint64_t e = 0; e < plane; e++) {
        if (a->acc) /* exact: the contraction bound keeps the sum within int32 */
            a->acc[at + e] = (int32_t)sum[e];
        if (!a->output_i8)
            continue;
        double y = clamp(a, (double)sum[e] * scale + p->bias[o]) / (double)a->out_scale;
        y = nearbyint(y);
        a->output_i8[at + e] = (int8_t)(y < -128 ? -128 : y > 127 ? 127 : y);
    }
    x->st->host_steps++;
}

/* Where a tile's outputs go: the user's fp16 array, or the pass's sums [cout][oh][ow] (an fp16
 * slice's fp32 partials, an int8 tile's int32 accumulators). */
typedef struct tile_sink {
    float *acc;
    int64_t *iacc;
} tile_sink;

/* Run one tile of a pass on image b on core `core` into its sink, accounting in st (the core's
 * group's own). */
static npk_status run_tile(conv_call *x, const pass *p, uint32_t b, const npk_rk_conv_plan *plan,
                           const npk_rk_conv_tile *t, const uint8_t *wpacked, uint64_t wbytes,
                           tile_sink sink, unsigned core, npk_rk_stats *st)
{
    npk_rk *rt = x->rt;
    const npk_rk_conv2d_args *a = x->a;
    npk_rk_core_bufs *cb = &rt->core[core];
    const uint32_t ih = t->ih + t->host_top + t->host_bottom;
    const uint32_t iw = t->iw + t->host_left + t->host_right;
    const npk_rk_prec out_prec = npk_rk_conv_prec_of(x->prec)->out;
    const uint64_t in_bytes = npk_rk_conv_feature_bytes(x->prec, t->ci, ih, iw);
    const uint64_t bias_bytes = (uint64_t)t->co * sizeof(float); /* fp32 or int32 */
    const uint64_t out_bytes = npk_rk_conv_feature_bytes(out_prec, t->co, t->oh, t->ow);
    const uint64_t w_off = up64(in_bytes), b_off = w_off + up64(wbytes);
    const uint64_t o_off = b_off + up64(bias_bytes), total = o_off + up64(out_bytes);
    uint8_t *tmp = malloc(out_bytes);
    if (!tmp)
        return npk_fail(NPK_ENOMEM, "conv2d: no memory for a tile's output");
    pthread_mutex_lock(&cb->job_lock);
    npk_status s = npk_rk_core_output(rt, core, total);
    uint64_t t0 = npk_now_ns();
    if (s == NPK_OK) {
        uint8_t *base = cb->output.host;
        const uint8_t *in = int8_call(a) ? (const uint8_t *)a->input_i8 : (const uint8_t *)a->input;
        const uint8_t *src =
            in + ((((uint64_t)b * a->c + p->ci0 + t->ci0) * a->h + t->iy0) * a->w + t->ix0) * x->eb;
        s = npk_rk_conv_pack_feature(x->prec, src, (uint64_t)a->h * a->w, a->w, t->ci, t->ih,
                                     t->iw, t->host_top, t->host_left, t->host_bottom,
                                     t->host_right, base, in_bytes);
        memcpy(base + w_off, wpacked, wbytes);
        float *bias = (float *)(base + b_off);
        /* a slice's partial adds the bias on the host, as does an int8 requantisation (its
         * int32 zeros and the fp32 zeros share their bits) */
        for (uint32_t o = 0; o < t->co; o++)
            bias[o] = plan->slices > 1 || int8_call(a) ? 0.0f : p->bias[t->co0 + o];
    }
    st->pack_ns += npk_now_ns() - t0;
    npk_rk_conv task = {
        .soc = rt->soc,
        .prec = x->prec,
        .depthwise = p->depthwise,
        .in_h = ih, .in_w = iw, .in_c = t->ci,
        .out_h = t->oh, .out_w = t->ow, .out_c = t->co,
        .k_h = x->kh, .k_w = x->kw,
        .stride_y = a->stride_h, .stride_x = a->stride_w,
        .pad_top = t->pad_top, .pad_left = t->pad_left,
        .clamp = plan->slices > 1 || int8_call(a) || a->act == NPK_RK_ACT_NONE ? NPK_RK_CLAMP_NONE
                 : a->act == NPK_RK_ACT_RELU                   ? NPK_RK_CLAMP_RELU
                                                               : NPK_RK_CLAMP_RELUX,
        .relux = a->act_max,
        .in = cb->output.iova,
        .weights = cb->output.iova + (uint32_t)w_off,
        .bias = cb->output.iova + (uint32_t)b_off,
        .out = cb->output.iova + (uint32_t)o_off,
    };
    const npk_rk_job_task job = {.op = NPK_RK_OP_CONV, .args = &task};
    t0 = npk_now_ns();
    if (s == NPK_OK)
        s = npk_rk_job_write(cb->task.host, cb->task.iova, cb->task.size, &job, 1);
    st->synth_ns += npk_now_ns() - t0;
    t0 = npk_now_ns();
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->output, 0, total, RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->task, 0, npk_rk_job_bytes(1),
                            RKNPU_MEM_SYNC_TO_DEVICE);
    st->sync_ns += npk_now_ns() - t0;
    if (s == NPK_OK)
        s = npk_rk_submit_job(rt, core, 1, st);
    st->tasks++;
    st->core_mask |= 1u << core;
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->output, o_off, out_bytes, RKNPU_MEM_SYNC_FROM_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_conv_unpack_feature(out_prec, (uint8_t *)cb->output.host + o_off, out_bytes,
                                       t->co, t->oh, t->ow, tmp);
    pthread_mutex_unlock(&cb->job_lock);
    t0 = npk_now_ns();
    for (uint32_t o = 0; s == NPK_OK && o < t->co; o++)
        for (uint32_t y = 0; y < t->oh; y++)
            for (uint32_t xx = 0; xx < t->ow; xx++) {
                const uint64_t e = ((uint64_t)o * t->oh + y) * t->ow + xx;
                const uint64_t at = ((uint64_t)(t->oy0 + y)) * x->ow + t->ox0 + xx;
                const uint64_t sum_at = (uint64_t)(t->co0 + o) * x->oh * x->ow + at;
                int32_t iv;
                uint16_t v;
                if (sink.iacc) {
                    memcpy(&iv, tmp + e * 4, 4);
                    sink.iacc[sum_at] += iv;
                    continue;
                }
                memcpy(&v, tmp + e * 2, 2);
                if (sink.acc)
                    sink.acc[sum_at] += npk_f16_to_f32(v);
                else
                    a->output[(((uint64_t)b * a->out_c + p->out_base + (t->co0 + o) * p->out_step) *
                               x->oh * x->ow) + at] = v;
            }
    st->accumulate_ns += npk_now_ns() - t0;
    free(tmp);
    return s;
}

/* The packed weights of a tile (its output channels and input-channel slice). */
static npk_status pack_tile_weights(const conv_call *x, const pass *p, const npk_rk_conv_tile *t,
                                    uint8_t **out, uint64_t *bytes)
{
    const uint64_t win = (uint64_t)x->kh * x->kw;
    const uint32_t kernels = p->depthwise ? t->ci : t->co, per = p->depthwise ? 1 : t->ci;
    uint8_t *g = malloc((uint64_t)kernels * per * win * x->eb);
    *bytes = npk_rk_conv_weight_bytes(x->prec, p->depthwise, t->co, t->ci, x->kh, x->kw);
    *out = malloc(*bytes);
    if (!g || !*out) {
        free(g);
        free(*out);
        *out = NULL;
        return npk_fail(NPK_ENOMEM, "conv2d: no memory for a tile's weights");
    }
    for (uint32_t k = 0; k < kernels; k++) /* dense: kernel co0+k, channels [ci0, ci0+ci) */
        memcpy(g + (uint64_t)k * per * win * x->eb,
               (const uint8_t *)p->w +
                   ((uint64_t)(p->depthwise ? t->ci0 + k : t->co0 + k) * (p->depthwise ? 1 : p->cin) +
                    (p->depthwise ? 0 : t->ci0)) * win * x->eb,
               (uint64_t)per * win * x->eb);
    npk_status s = npk_rk_conv_pack_weights(x->prec, p->depthwise, g, t->co, t->ci, x->kh, x->kw,
                                            *out, *bytes);
    free(g);
    return s;
}

/* One image of a pass spread over the cores: tile i runs in group i % groups, on core
 * core_map[group]; each group runs its tiles in order on its own thread (the caller's for group
 * 0, the runtime's persistent core workers for the others, as the matmul's cores run), packs
 * its own weights, and sums partials (an fp16 slice's, an int8 tile's) into its own buffer,
 * which the caller adds in group order afterwards, so the result does not depend on which
 * thread finishes first. Unsliced fp16 tiles write disjoint parts of the user's array. */
typedef struct pass_image {
    conv_call *x;
    const pass *p;
    uint32_t b;
    const npk_rk_conv_plan *plan;
    unsigned groups;
    uint64_t sums; /* elements of one group's partial buffer (0: none) */
    float *acc;    /* [groups][sums], or NULL */
    int64_t *iacc; /* [groups][sums], or NULL */
} pass_image;

/* The worker's entry: job g is group g (its `first`; count unused). */
static npk_status image_group(void *ctx, size_t first, size_t count, npk_rk_stats *st)
{
    (void)count;
    const pass_image *pi = ctx;
    conv_call *x = pi->x;
    const unsigned g = (unsigned)first, core = x->rt->core_map[g];
    const tile_sink sink = {pi->acc ? pi->acc + g * pi->sums : NULL,
                            pi->iacc ? pi->iacc + g * pi->sums : NULL};
    uint8_t *wp = NULL;
    uint64_t wbytes = 0;
    uint32_t key_co = UINT32_MAX, key_ci = UINT32_MAX;
    npk_status s = NPK_OK;
    for (size_t i = g; s == NPK_OK && i < pi->plan->count; i += pi->groups) {
        const npk_rk_conv_tile *t = &pi->plan->tiles[i];
        if (t->co0 != key_co || t->ci0 != key_ci) { /* a new weight block */
            free(wp);
            key_co = t->co0;
            key_ci = t->ci0;
            uint64_t t0 = npk_now_ns();
            s = pack_tile_weights(x, pi->p, t, &wp, &wbytes);
            st->pack_ns += npk_now_ns() - t0;
        }
        if (s == NPK_OK)
            s = run_tile(x, pi->p, pi->b, pi->plan, t, wp, wbytes, sink, core, st);
    }
    free(wp);
    return s;
}

/* Run image b's tiles on the cores; the groups' partial buffers added into group 0's. */
static npk_status run_image(pass_image *pi)
{
    conv_call *x = pi->x;
    npk_rk_core_job job[NPK_RK_MAX_CORES];
    for (unsigned g = 0; g < pi->groups; g++)
        job[g] = (npk_rk_core_job){.first = g, .count = 1};
    if (pi->acc)
        memset(pi->acc, 0, pi->groups * pi->sums * sizeof *pi->acc);
    if (pi->iacc)
        memset(pi->iacc, 0, pi->groups * pi->sums * sizeof *pi->iacc);
    npk_status s = npk_rk_workers_run(&x->rt->workers, image_group, pi, job, pi->groups);
    for (unsigned g = 0; s == NPK_OK && g < pi->groups; g++) {
        npk_rk_stats_add(x->st, &job[g].st);
        x->core_ns[x->rt->core_map[g]] += job[g].st.npu_ns;
        if (job[g].status && s == NPK_OK)
            s = npk_fail(job[g].status, "%s", job[g].msg);
    }
    uint64_t t0 = npk_now_ns();
    for (unsigned g = 1; s == NPK_OK && g < pi->groups; g++)
        for (uint64_t e = 0; e < pi->sums; e++) {
            if (pi->acc)
                pi->acc[e] += pi->acc[g * pi->sums + e];
            if (pi->iacc)
                pi->iacc[e] += pi->iacc[g * pi->sums + e];
        }
    x->st->accumulate_ns += npk_now_ns() - t0;
    return s;
}

static npk_status run_pass(conv_call *x, const pass *p)
{
    const npk_rk_conv2d_args *a = x->a;
    npk_rk_conv_geom g = {
        .prec = x->prec, .depthwise = p->depthwise, .c = p->cin, .h = a->h, .w = a->w, .out_c = p->cout,
        .k_h = x->kh, .k_w = x->kw, .stride_h = a->stride_h, .stride_w = a->stride_w,
        .pad_top = a->pad_top, .pad_left = a->pad_left, .pad_bottom = a->pad_bottom,
        .pad_right = a->pad_right, .out_h = x->oh, .out_w = x->ow,
    };
    npk_rk_conv_plan plan;
    npk_status s = npk_rk_plan_conv(x->rt->soc, &g, &plan);
    if (s)
        return s;
    const uint64_t plane = (uint64_t)x->oh * x->ow;
    const unsigned groups = plan.count < x->rt->cores ? (unsigned)plan.count : x->rt->cores;
    pass_image pi = {.x = x, .p = p, .plan = &plan, .groups = groups ? groups : 1};
    if (int8_call(a) || plan.slices > 1)
        pi.sums = (uint64_t)p->cout * plane;
    if (int8_call(a))
        pi.iacc = malloc(pi.groups * pi.sums * sizeof *pi.iacc);
    else if (plan.slices > 1)
        pi.acc = malloc(pi.groups * pi.sums * sizeof *pi.acc);
    if (pi.sums && !pi.acc && !pi.iacc) {
        npk_rk_conv_plan_free(&plan);
        return npk_fail(NPK_ENOMEM, "conv2d: no memory for the partial sums");
    }
    float *acc = pi.acc;
    int64_t *iacc = pi.iacc;
    for (uint32_t b = 0; s == NPK_OK && b < a->n; b++) {
        pi.b = b;
        s = run_image(&pi);
        for (uint32_t o = 0; s == NPK_OK && acc && o < p->cout; o++) {
            uint16_t *dst = a->output + ((uint64_t)b * a->out_c + p->out_base + o * p->out_step) * plane;
            for (uint64_t e = 0; e < plane; e++)
                dst[e] = clamp_round(a, acc[o * plane + e] + p->bias[o]);
        }
        for (uint32_t o = 0; s == NPK_OK && iacc && o < p->cout; o++)
            requantise(x, p, b, o, iacc + o * plane);
    }
    free(acc);
    free(iacc);
    npk_rk_conv_plan_free(&plan);
    return s;
}

npk_status npk_rk_conv2d(npk_rk *rt, const npk_rk_conv2d_args *a, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!rt)
        return npk_fail(NPK_EINVAL, "conv2d: NULL runtime");
    conv_call x = {.rt = rt, .a = a, .st = st};
    npk_status s = npk_rk_conv2d_shape(a, &x.oh, &x.ow);
    if (s)
        return s;
    if (int8_call(a)) {
        if ((s = check_int8(a)))
            return s;
    } else if (!a->input || !a->weights || !a->output) {
        return npk_fail(NPK_EINVAL, "conv2d: NULL %s",
                        !a->input ? "input" : !a->weights ? "weights" : "output");
    }
    x.prec = conv_prec(a);
    x.eb = npk_rk_prec_bits(x.prec) / 8;
    x.kh = (a->k_h - 1) * dil(a->dil_h) + 1;
    x.kw = (a->k_w - 1) * dil(a->dil_w) + 1;
    uint64_t start = npk_now_ns();
    if ((s = npk_rk_call_begin(rt, "conv2d")))
        return s;
    if ((s = dilate(&x)) == NPK_OK && (s = make_passes(&x)) == NPK_OK) {
        npk_rk_engine *e = rt->eng;
        pthread_mutex_lock(&e->policy_lock);
        npk_rk_policy_due(rt, npk_rk_policy_on_enter(e->have_prec, e->last_prec, x.prec));
        e->have_prec = true;
        e->last_prec = x.prec;
        pthread_mutex_unlock(&e->policy_lock);
        for (uint32_t i = 0; s == NPK_OK && i < x.npass; i++)
            s = run_pass(&x, &x.passes[i]);
    }
    passes_free(&x);
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++) {
        st->npu_span_ns = x.core_ns[c] > st->npu_span_ns ? x.core_ns[c] : st->npu_span_ns;
        st->cores_used += x.core_ns[c] > 0;
    }
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}
