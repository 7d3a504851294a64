/* SPDX-License-Identifier: MIT */
/* MUL_MAT_ID (mixture of experts) on the NPU. src0 holds one weight matrix per expert
 * (K x N x n_expert), src1 the activations (K x B x T, B = 1 or the experts used per token),
 * src2 the ids (I32, U x T: the experts each token uses); dst (N x U x T):
 *   dst[:, u, t] = src0[:, :, ids[u, t]] . src1[:, u % B, t].
 * Every expert's rows (the (u, t) that chose it) are gathered into one matmul of its packed
 * weights, so each expert's weights are streamed once per node; an expert nobody chose costs
 * nothing; the picked experts' matmuls go to the runtime together (npg_calls.c: one batched
 * call, its tasks sharing submits). An id outside [0, n_expert) fails the node (named), never
 * reads past the weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"
#include "npukit/rk_plan.h" /* NPK_RK_PLAN_MAX_DIM */

bool npg_can_mul_mat_id(const struct ggml_tensor *op)
{
    const struct ggml_tensor *a = op->src[0], *b = op->src[1], *ids = op->src[2];
    if (op->op != GGML_OP_MUL_MAT_ID || !a || !b || !ids || !npg_type_of(a->type))
        return false;
    if (!npg_float_type(b->type) || ids->type != GGML_TYPE_I32 || op->type != GGML_TYPE_F32 ||
        op->nb[0] != sizeof(float))
        return false;
    if (ggml_is_quantized(a->type) && a->nb[0] != ggml_type_size(a->type))
        return false;
    if (a->ne[3] != 1 || b->ne[1] == 0 || a->ne[0] > NPK_RK_PLAN_MAX_DIM ||
        a->ne[1] > NPK_RK_PLAN_MAX_DIM || ids->ne[0] * ids->ne[1] > NPK_RK_PLAN_MAX_DIM)
        return false;
    return npg_weights_readable(a) && npg_host_buffer_ok(b) && npg_host_buffer_ok(ids) &&
           npg_host_buffer_ok(op);
}

typedef struct pick {
    int32_t u, t;
} pick;

static int32_t id_at(const struct ggml_tensor *ids, int64_t u, int64_t t)
{
    int32_t v;
    memcpy(&v, (const uint8_t *)ids->data + u * ids->nb[0] + t * ids->nb[1], sizeof v);
    return v;
}

static const uint8_t *b_row(const struct ggml_tensor *b, const pick *p)
{
    return (const uint8_t *)b->data + (p->u % b->ne[1]) * b->nb[1] + p->t * b->nb[2];
}

static float *dst_row(struct ggml_tensor *dst, const pick *p)
{
    return (float *)((uint8_t *)dst->data + p->u * dst->nb[1] + p->t * dst->nb[2]);
}

/* One expert's rows on the host in fp32 (operands beyond fp16's range). */
static bool host_expert(struct ggml_tensor *dst, int64_t e, const pick *rows, int64_t count)
{
    const struct ggml_tensor *a = dst->src[0], *b = dst->src[1];
    const int64_t k = a->ne[0], n = a->ne[1];
    float *w = malloc((size_t)(n * k) * sizeof *w), *x = malloc((size_t)k * sizeof *x);
    void *unpacked; /* weights the CPU keeps repacked, in ggml's layout */
    const uint8_t *plain = npg_weights_plain(a, &unpacked);
    if (!w || !x || !plain) {
        free(w), free(x), free(unpacked);
        return false;
    }
    for (int64_t i = 0; i < n; i++)
        npg_tensor_row_f32(a, plain + e * a->nb[2] + i * a->nb[1], w + i * k);
    for (int64_t r = 0; r < count; r++) {
        npg_tensor_row_f32(b, b_row(b, &rows[r]), x);
        float *out = dst_row(dst, &rows[r]);
        for (int64_t i = 0; i < n; i++) {
            double acc = 0;
            for (int64_t j = 0; j < k; j++)
                acc += (double)w[i * k + j] * x[j];
            out[i] = (float)acc;
        }
    }
    free(w), free(x), free(unpacked);
    return true;
}

bool npg_mul_mat_id(npg_device *d, struct ggml_tensor *dst)
{
    const struct ggml_tensor *a = dst->src[0], *b = dst->src[1], *ids = dst->src[2];
    const int64_t k = a->ne[0], n = a->ne[1], experts = a->ne[2];
    const int64_t used = ids->ne[0], tokens = ids->ne[1], total = used * tokens;
    if (k == 0 || n == 0 || total == 0)
        return true;
    /* every id checked before anything runs */
    for (int64_t t = 0; t < tokens; t++)
        for (int64_t u = 0; u < used; u++) {
            int32_t e = id_at(ids, u, t);
            if (e < 0 || e >= experts) {
                fprintf(stderr, "ggml-npukit: %s: id %d at (%lld, %lld) outside [0, %lld)\n",
                        dst->name, e, (long long)u, (long long)t, (long long)experts);
                return false;
            }
        }
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    bool owned, ok = false;
    npg_packed *p = npg_packed_get(d, a, (uint32_t)(total / experts + 1), &owned);
    const npg_form form = p ? p->form : NPG_FORM_FP16;
    const npg_form_row *f = npg_form_info(form);
    /* an expert's call: per_row x count runtime rows (the int8 form's digits) */
    const size_t esz = f->act_bytes, per_row = f->act_rows;
    /* rows grouped by expert: expert e's rows are rows[first[e] .. first[e + 1]) */
    pick *rows = malloc((size_t)total * sizeof *rows);
    int64_t *first = calloc((size_t)experts + 1, sizeof *first);
    npg_scratch_begin(&d->scratch); /* the activations and sums: kept from call to call */
    uint8_t *act = npg_scratch_get(&d->scratch, (size_t)(total * k) * per_row * esz);
    float *a_scale = npg_scratch_get(&d->scratch, (size_t)total * sizeof *a_scale);
    float *c = npg_scratch_get(&d->scratch, (size_t)(total * n) * per_row * sizeof *c),
          *tmp = malloc((size_t)(2 * k) * sizeof *tmp);
    npg_call *calls = malloc((size_t)experts * sizeof *calls);
    bool *on_npu = calloc((size_t)experts, sizeof *on_npu);
    size_t ncalls = 0;
    if (!p || !rows || !first || !act || !a_scale || !c || !tmp || !calls || !on_npu)
        goto done;
    for (int64_t e = 0, count = 0; e < experts; e++) {
        first[e] = count;
        for (int64_t t = 0; t < tokens; t++)
            for (int64_t u = 0; u < used; u++)
                if (id_at(ids, u, t) == e)
                    rows[count++] = (pick){(int32_t)u, (int32_t)t};
        first[e + 1] = count;
    }
    for (int64_t e = 0; e < experts; e++) {
        const int64_t lo = first[e], count = first[e + 1] - lo;
        if (count == 0)
            continue;
        const npg_matrix *mat = &p->mat[e];
        uint8_t *a_e = act + (size_t)(lo * k) * per_row * esz;
        bool in_range = mat->w != NULL;
        for (int64_t r = 0; r < count && in_range; r++)
            in_range = npg_act_row(form, b, b_row(b, &rows[lo + r]), tmp,
                                   a_e + (size_t)(r * k) * esz, (size_t)(count * k) * esz,
                                   a_scale + lo + r);
        if (!in_range) {
            if (!host_expert(dst, e, rows + lo, count))
                goto done;
            d->counters.host_matmuls++;
            continue;
        }
        on_npu[e] = true;
        calls[ncalls++] = (npg_call){.mat = mat,
                                     .form = form,
                                     .m = (uint32_t)count,
                                     .k = (uint32_t)k,
                                     .n = (uint32_t)n,
                                     .a = a_e,
                                     .a_scale = a_scale + lo,
                                     .c = c + (size_t)(lo * n) * per_row};
    }
    if (!npg_calls_run(d, calls, ncalls, dst->name, &t0, &runtime_host))
        goto done;
    for (int64_t e = 0; e < experts; e++)
        for (int64_t r = first[e]; on_npu[e] && r < first[e + 1]; r++)
            memcpy(dst_row(dst, &rows[r]), c + (size_t)(first[e] * n) * per_row + (r - first[e]) * n,
                   (size_t)n * sizeof *c);
    d->counters.npu_matmuls++;
    ok = true;
done:
    if (!ok && (!p || !rows || !first || !act || !a_scale || !c || !tmp || !calls || !on_npu))
        fprintf(stderr, "ggml-npukit: %s: out of memory\n", dst->name);
    d->counters.host_ns += npg_now_ns() - t0 + runtime_host;
    if (owned)
        npg_packed_free(d, p);
    free(rows), free(first), free(tmp), free(calls), free(on_npu);
    return ok;
}
