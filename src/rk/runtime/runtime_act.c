/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Activations, softmax and norms (rk.h): a LUT or clamp SDP call on the element-wise spine
 * (runtime_sdp.c), softmax as two chained passes of the exp LUT around the host's row
 * reductions, and the norms as a named host fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "runtime_sdp.h"

/* One checked 1-input call on the spine, under the runtime's lock. */
static npk_status unary_call(npk_rk *rt, npk_rk_ew_call *x, const char *what, npk_rk_stats *st)
{
    npk_status s = npk_rk_ew_supported(rt, what);
    if (s || (s = npk_rk_call_begin(rt, what)))
        return s;
    s = npk_rk_ew_run(rt, x, st);
    npk_rk_call_end(rt);
    return s;
}

/* The shape and pointers every call checks, naming `what`. */
static npk_status check_shape(const char *what, uint32_t m, uint32_t n, const void *x,
                              const void *y)
{
    if (!x || !y)
        return npk_fail(NPK_EINVAL, "%s: NULL %s", what, !x ? "X" : "Y");
    if (!m || !n)
        return npk_fail(NPK_EINVAL, "%s: M=%u N=%u: both must be at least 1", what, m, n);
    if (m > NPK_RK_EW_MAX_DIM || n > NPK_RK_EW_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "%s: %s=%u exceeds %u", what, m > n ? "M" : "N",
                        m > n ? m : n, NPK_RK_EW_MAX_DIM);
    return NPK_OK;
}

static npk_status check_fp16(const char *what, npk_rk_prec p, const char *why)
{
    if (p == NPK_PREC_FP16)
        return NPK_OK;
    const char *name = npk_rk_prec_name(p);
    return npk_fail(NPK_EINVAL, "%s: precision %s: %s runs in fp16 only (%s)", what,
                    name ? name : "?", what, why);
}

static const char lut_fp16[] = "the LUT is described for an fp16 SDP only";

static void stats_begin(npk_rk_stats **st, npk_rk_stats *local, uint64_t *start)
{
    if (!*st)
        *st = local;
    memset(*st, 0, sizeof **st);
    *start = npk_now_ns();
}

npk_status npk_rk_act(npk_rk *rt, const npk_rk_act_args *args, npk_rk_stats *stats)
{
    npk_rk_stats local;
    uint64_t start;
    stats_begin(&stats, &local, &start);
    if (!rt || !args)
        return npk_fail(NPK_EINVAL, "act: NULL %s", !rt ? "runtime" : "arguments");
    const npk_rk_act_row *row = npk_rk_act_row_of(args->act);
    if (!row)
        return npk_fail(NPK_EINVAL, "act: activation %d is not one of %s", (int)args->act,
                        npk_rk_act_names());
    npk_status s = check_shape("act", args->m, args->n, args->x, args->y);
    if (s)
        return s;
    npk_rk_ew_call x = {.prec = args->prec,
                        .m = args->m,
                        .n = args->n,
                        .a = args->x,
                        .operand = NPK_EW_NO_OPERAND,
                        .c = args->y};
    npk_rk_lut lut;
    if (row->engine == NPK_ACT_ENGINE_CLAMP) {
        if (!npk_rk_sdp_prec_row_of(args->prec))
            return npk_fail(NPK_EINVAL,
                            "act: %s in precision %s: an SDP precision is fp16, int16 or int8",
                            row->name,
                            npk_rk_prec_name(args->prec) ? npk_rk_prec_name(args->prec) : "?");
        x.op = row->op;
    } else {
        if ((s = check_fp16("act", args->prec, lut_fp16)))
            return s;
        bool defaults = args->alpha == 0 && args->beta == 0;
        if ((s = npk_rk_lut_fit(args->act, defaults ? row->alpha : args->alpha,
                                defaults ? row->beta : args->beta, &lut)))
            return s;
        x.op = row->op;
        x.lut = &lut;
    }
    s = unary_call(rt, &x, "act", stats);
    stats->host_ns = npk_now_ns() - start;
    return s;
}

/* ---- softmax ---- */

/* Each row's LUT: exp shifted by -max (pass 1), or also scaled by 1 / sum with the table's
 * scale raised to keep the row's largest output at full resolution (pass 2). */
typedef struct softmax_rows {
    const npk_rk_lut *exp; /* pass 1's LUT */
    const float *max;      /* per row */
    const double *sum;     /* per row; NULL in pass 1 */
} softmax_rows;

static npk_status softmax_row_lut(void *ctx, uint32_t row, npk_rk_lut *out)
{
    const softmax_rows *c = ctx;
    npk_status s = NPK_OK;
    if (!c->sum)
        *out = *c->exp;
    else if (isfinite(c->sum[row]) && c->sum[row] >= 1)
        s = npk_rk_lut_fit_scaled(NPK_ACT_EXP, 0, 0, 1.0 / c->sum[row], out);
    else /* a NaN row (or one whose maximum is not finite) stays what pass 1 made of it */
        *out = *c->exp;
    out->in_offset = -c->max[row];
    return s;
}

npk_status npk_rk_softmax(npk_rk *rt, npk_rk_prec prec, uint32_t m, uint32_t n, const void *x,
                          void *y, npk_rk_stats *stats)
{
    npk_rk_stats local;
    uint64_t start;
    stats_begin(&stats, &local, &start);
    if (!rt)
        return npk_fail(NPK_EINVAL, "softmax: NULL runtime");
    npk_status s = check_shape("softmax", m, n, x, y);
    if (s || (s = check_fp16("softmax", prec, lut_fp16)))
        return s;
    const uint16_t *xs = x;
    npk_rk_lut lut;
    float *max = malloc((size_t)m * sizeof *max);
    double *sum = malloc((size_t)m * sizeof *sum);
    uint16_t *e = malloc((size_t)m * n * sizeof *e);
    if (!max || !sum || !e) {
        free(max);
        free(sum);
        free(e);
        return npk_fail(NPK_ENOMEM, "softmax: no memory for %u x %u", m, n);
    }
    s = npk_rk_lut_fit(NPK_ACT_EXP, 0, 0, &lut);
    /* host: each row's maximum (a NaN keeps the row NaN) */
    for (uint32_t r = 0; r < m; r++) {
        float mx = -INFINITY;
        for (uint32_t j = 0; j < n; j++) {
            float v = npk_f16_to_f32(xs[(size_t)r * n + j]);
            mx = isnan(v) || v > mx ? v : mx;
        }
        max[r] = mx;
    }
    softmax_rows rows = {&lut, max, NULL};
    npk_rk_ew_call call = {.op = NPK_EW_LUT,
                           .prec = NPK_PREC_FP16,
                           .m = m,
                           .n = n,
                           .a = x,
                           .operand = NPK_EW_NO_OPERAND,
                           .c = e,
                           .lut = &lut,
                           .row_lut = softmax_row_lut,
                           .row_ctx = &rows};
    /* pass 1: e = exp(x - max) */
    if (s == NPK_OK)
        s = unary_call(rt, &call, "softmax", stats);
    /* host: each row's sum; pass 2: y = exp(x - max) / sum, the division in the table */
    for (uint32_t r = 0; s == NPK_OK && r < m; r++) {
        sum[r] = 0;
        for (uint32_t j = 0; j < n; j++)
            sum[r] += npk_f16_to_f32(e[(size_t)r * n + j]);
    }
    stats->host_steps = 2 * m;
    rows.sum = sum;
    call.c = y;
    if (s == NPK_OK)
        s = unary_call(rt, &call, "softmax", stats);
    free(max);
    free(sum);
    free(e);
    stats->host_ns = npk_now_ns() - start;
    return s;
}

/* ---- norms: a named host fallback ---- */

npk_status npk_rk_norm(npk_rk *rt, const npk_rk_norm_args *a, npk_rk_stats *stats)
{
    npk_rk_stats local;
    uint64_t start;
    stats_begin(&stats, &local, &start);
    if (!rt || !a)
        return npk_fail(NPK_EINVAL, "norm: NULL %s", !rt ? "runtime" : "arguments");
    if (a->kind != NPK_NORM_RMS && a->kind != NPK_NORM_LAYER)
        return npk_fail(NPK_EINVAL, "norm: kind %d is not rms (0) or layer (1)", (int)a->kind);
    npk_status s = check_shape("norm", a->m, a->n, a->x, a->y);
    if (s || (s = check_fp16("norm", a->prec, "its host fallback computes fp16 rows")))
        return s;
    if (!(a->eps >= 0) || !isfinite(a->eps))
        return npk_fail(NPK_EINVAL, "norm: eps=%g must be finite and >= 0", (double)a->eps);
    const uint16_t *x = a->x, *g = a->gamma, *b = a->beta;
    uint16_t *y = a->y;
    for (uint32_t r = 0; r < a->m; r++) {
        const uint16_t *xr = x + (size_t)r * a->n;
        double mean = 0, var = 0;
        for (uint32_t j = 0; j < a->n; j++)
            mean += npk_f16_to_f32(xr[j]);
        mean /= a->n;
        /* LayerNorm: the variance about the mean (two passes); RMSNorm: the mean square */
        double center = a->kind == NPK_NORM_LAYER ? mean : 0;
        for (uint32_t j = 0; j < a->n; j++) {
            double d = npk_f16_to_f32(xr[j]) - center;
            var += d * d;
        }
        var /= a->n;
        double rstd = 1.0 / sqrt(var + a->eps);
        for (uint32_t j = 0; j < a->n; j++) {
            double v = (npk_f16_to_f32(xr[j]) - center) * rstd;
            if (g)
                v *= npk_f16_to_f32(g[j]);
            if (b)
                v += npk_f16_to_f32(b[j]);
            y[(size_t)r * a->n + j] = npk_f32_to_f16((float)v);
        }
    }
    stats->host_steps = a->m;
    stats->host_ns = npk_now_ns() - start;
    return NPK_OK;
}
