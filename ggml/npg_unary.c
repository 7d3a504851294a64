/* SPDX-License-Identifier: MIT */
/* UNARY (relu, sigmoid, tanh, gelu, silu, hardswish, hardsigmoid) and SOFT_MAX on the SDP:
 * the source's rows gathered as fp16, one runtime call (npk_rk_act / npk_rk_softmax), the
 * results scattered in the node's type. A source with a finite value beyond fp16's range is
 * computed on the host in ggml's own formula instead (counted as a host fallback). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"
#include "npukit/fp16.h"

/* The ggml unary ops the SDP computes and the activation each is (ggml's GELU is the tanh
 * form, its hardswish and hardsigmoid the (x + 3) / 6 forms: the rows' own functions). */
static const struct {
    enum ggml_unary_op op;
    npk_rk_act_kind act;
} unary_rows[] = {
    {GGML_UNARY_OP_RELU, NPK_ACT_RELU},           {GGML_UNARY_OP_SIGMOID, NPK_ACT_SIGMOID},
    {GGML_UNARY_OP_TANH, NPK_ACT_TANH},           {GGML_UNARY_OP_GELU, NPK_ACT_GELU},
    {GGML_UNARY_OP_SILU, NPK_ACT_SILU},           {GGML_UNARY_OP_HARDSWISH, NPK_ACT_HARDSWISH},
    {GGML_UNARY_OP_HARDSIGMOID, NPK_ACT_HARDSIGMOID},
};

static bool act_of(enum ggml_unary_op op, npk_rk_act_kind *out)
{
    for (size_t i = 0; i < sizeof unary_rows / sizeof unary_rows[0]; i++)
        if (unary_rows[i].op == op) {
            *out = unary_rows[i].act;
            return true;
        }
    return false;
}

/* F32 or F16 in and out, rows of ne0 elements (the source may be a strided view), within the
 * runtime's limits. */
static bool rows_ok(const struct ggml_tensor *op, const struct ggml_tensor *a)
{
    if (!a || (a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16) || op->type != a->type)
        return false;
    if (!ggml_is_contiguous(op) || a->ne[0] == 0 || ggml_nrows(a) == 0)
        return false;
    if (a->ne[0] > NPK_RK_EW_MAX_DIM || ggml_nrows(a) > NPK_RK_EW_MAX_DIM)
        return false;
    return npg_host_buffer_ok(a) && npg_host_buffer_ok(op);
}

bool npg_can_unary(const struct ggml_tensor *op)
{
    npk_rk_act_kind act;
    return op->op == GGML_OP_UNARY && act_of(ggml_get_unary_op(op), &act) &&
           rows_ok(op, op->src[0]);
}

/* The longest softmax row claimed: a row's results average 1 / N, and past 4096 elements they
 * fall towards fp16's subnormals (below 6.1e-5), where the SDP's fp16 output keeps too few
 * bits for ggml's tolerance (its suite: NMSE 9e-6 at 200000 elements, against 1e-6). */
#define SOFT_MAX_MAX_ROW 4096

/* Softmax of plain rows: no mask, no sinks, scale 1, no ALiBi bias (the runtime's softmax). */
bool npg_can_soft_max(const struct ggml_tensor *op)
{
    if (op->op != GGML_OP_SOFT_MAX || op->src[1] || op->src[2] || !op->src[0] ||
        op->src[0]->ne[0] > SOFT_MAX_MAX_ROW)
        return false;
    float scale, max_bias;
    memcpy(&scale, (const float *)op->op_params + 0, sizeof scale);
    memcpy(&max_bias, (const float *)op->op_params + 1, sizeof max_bias);
    return scale == 1.0f && max_bias == 0.0f && rows_ok(op, op->src[0]);
}

/* Element i of row r of t as float. */
static float load(const struct ggml_tensor *t, int64_t r, int64_t i)
{
    const int64_t i1 = r % t->ne[1], i2 = r / t->ne[1] % t->ne[2], i3 = r / t->ne[1] / t->ne[2];
    const uint8_t *p = (const uint8_t *)t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
    return npg_load_float(t->type, p + i * t->nb[0]);
}

static void store(struct ggml_tensor *t, int64_t flat, float v)
{
    if (t->type == GGML_TYPE_F32)
        ((float *)t->data)[flat] = v;
    else
        ((ggml_fp16_t *)t->data)[flat] = ggml_fp32_to_fp16(v);
}

/* The host's formula for a row set the SDP cannot take (a value beyond fp16's range). */
static float host_value(npk_rk_act_kind act, float x)
{
    const npk_rk_act_row *row = npk_rk_act_row_of(act);
    return (float)row->ref(x, row->alpha, row->beta);
}

static void host_softmax(const struct ggml_tensor *a, struct ggml_tensor *dst, int64_t rows)
{
    const int64_t n = a->ne[0];
    for (int64_t r = 0; r < rows; r++) {
        double mx = -INFINITY, sum = 0;
        for (int64_t i = 0; i < n; i++)
            mx = fmax(mx, load(a, r, i));
        for (int64_t i = 0; i < n; i++)
            sum += exp(load(a, r, i) - mx);
        for (int64_t i = 0; i < n; i++)
            store(dst, r * n + i, (float)(exp(load(a, r, i) - mx) / sum));
    }
}

/* Gather, run, scatter; softmax when `softmax`, else activation `act`. */
static bool run(npg_device *d, struct ggml_tensor *dst, bool softmax, npk_rk_act_kind act)
{
    const struct ggml_tensor *a = dst->src[0];
    const int64_t n = a->ne[0], rows = ggml_nrows(a), count = n * rows;
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    uint16_t *x = malloc((size_t)count * sizeof *x), *y = malloc((size_t)count * sizeof *y);
    bool ok = false, in_range = true;
    if (!x || !y) {
        fprintf(stderr, "ggml-npukit: %s: out of memory for %lld elements\n", dst->name,
                (long long)count);
        goto done;
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t i = 0; i < n; i++) {
            float v = load(a, r, i);
            x[r * n + i] = npk_f32_to_f16(v);
            in_range &= !isfinite(v) || isfinite(npk_f16_to_f32(x[r * n + i]));
        }
    if (!in_range) {
        if (softmax)
            host_softmax(a, dst, rows);
        else
            for (int64_t r = 0; r < rows; r++)
                for (int64_t i = 0; i < n; i++)
                    store(dst, r * n + i, host_value(act, load(a, r, i)));
        d->counters.host_elementwise++;
        ok = true;
        goto done;
    }
    npk_rk_stats st;
    npk_status rc;
    if (softmax) {
        rc = npk_rk_softmax(d->rt, NPK_PREC_FP16, (uint32_t)rows, (uint32_t)n, x, y, &st);
    } else {
        npk_rk_act_args args = {.act = act, .prec = NPK_PREC_FP16, .m = (uint32_t)rows,
                                .n = (uint32_t)n, .x = x, .y = y};
        rc = npk_rk_act(d->rt, &args, &st);
    }
    if (rc != NPK_OK) {
        fprintf(stderr, "ggml-npukit: %s (%lld x %lld): %s: %s\n", dst->name, (long long)rows,
                (long long)n, npk_status_name(rc), npk_last_error());
        goto done;
    }
    for (int64_t i = 0; i < count; i++)
        store(dst, i, npk_f16_to_f32(y[i]));
    char what[160];
    snprintf(what, sizeof what, "%s %s %lld x %lld", dst->name, softmax ? "softmax" : "act",
             (long long)rows, (long long)n);
    npg_count_call(d, &st, what, &t0, &runtime_host);
    d->counters.npu_elementwise++;
    ok = true;
done:
    d->counters.host_ns += npg_now_ns() - t0 + runtime_host;
    free(x);
    free(y);
    return ok;
}

bool npg_unary(npg_device *d, struct ggml_tensor *dst)
{
    npk_rk_act_kind act;
    if (!act_of(ggml_get_unary_op(dst), &act))
        return false;
    return run(d, dst, false, act);
}

bool npg_soft_max(npg_device *d, struct ggml_tensor *dst)
{
    return run(d, dst, true, NPK_ACT_EXP);
}
