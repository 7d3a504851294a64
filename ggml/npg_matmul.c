/* SPDX-License-Identifier: MIT */
/* MUL_MAT on the NPU. ggml computes dst = src1 . src0^T per matrix: src0 (the weights) is
 * N rows of K, which is the runtime's transposed-B layout, src1 is M rows of K, dst M rows of
 * N. Batches broadcast as ggml defines them: src0 matrix (i02, i03) serves the src1 matrices
 * i12 in [i02 r2, (i02 + 1) r2) and i13 in [i03 r3, (i03 + 1) r3), r2 = ne12 / ne02,
 * r3 = ne13 / ne03; those r2 r3 matrices are stacked into one call of M r2 r3 rows, so the
 * weights are streamed once for all of them.
 *
 * Activations become fp16 at each call (the product is fp16 x fp16 with fp32 accumulation);
 * a matrix whose operands fp16 cannot hold (a finite value beyond 65504) is computed on the
 * host in fp32 instead, never returned as infinities. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"
#include "common/dense.h"     /* npk_f16le_to_f32_runs */
#include "npukit/rk_plan.h" /* NPK_RK_PLAN_MAX_DIM */

bool npg_host_buffer_ok(const struct ggml_tensor *t)
{
    return !t->buffer || ggml_backend_buffer_is_host(t->buffer);
}

bool npg_weights_readable(const struct ggml_tensor *t)
{
    return npg_repack_held(t) ? npg_repack_readable(t) : npg_host_buffer_ok(t);
}

bool npg_float_type(enum ggml_type t)
{
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

bool npg_can_mul_mat(const struct ggml_tensor *op)
{
    const struct ggml_tensor *a = op->src[0], *b = op->src[1];
    if (op->op != GGML_OP_MUL_MAT || !a || !b || !npg_type_of(a->type))
        return false;
    if (!npg_float_type(b->type) || op->type != GGML_TYPE_F32 || op->nb[0] != sizeof(float))
        return false;
    /* quantised rows are read whole (blocks); float rows may be strided (permuted views) */
    if (ggml_is_quantized(a->type) && a->nb[0] != ggml_type_size(a->type))
        return false;
    if (a->ne[2] == 0 || a->ne[3] == 0 || b->ne[2] % a->ne[2] || b->ne[3] % a->ne[3])
        return false;
    const int64_t rows = b->ne[1] * (b->ne[2] / a->ne[2]) * (b->ne[3] / a->ne[3]);
    if (a->ne[0] > NPK_RK_PLAN_MAX_DIM || a->ne[1] > NPK_RK_PLAN_MAX_DIM ||
        rows > NPK_RK_PLAN_MAX_DIM)
        return false;
    return npg_weights_readable(a) && npg_host_buffer_ok(b) && npg_host_buffer_ok(op);
}

/* Row of K elements at p with element stride nb0 as fp16 (false: beyond fp16's range). */
bool npg_tensor_row_fp16(const struct ggml_tensor *t, const uint8_t *p, float *tmp, uint16_t *dst)
{
    const int64_t k = t->ne[0];
    if (t->nb[0] == ggml_type_size(t->type))
        return npg_row_to_fp16(t->type, p, k, tmp, dst);
    float *strided = tmp + k; /* tmp holds 2 K floats */
    for (int64_t i = 0; i < k; i++)
        strided[i] = npg_load_float(t->type, p + i * t->nb[0]);
    return npg_row_to_fp16(GGML_TYPE_F32, strided, k, tmp, dst);
}

/* Row of K elements as float, any supported type or stride. */
void npg_tensor_row_f32(const struct ggml_tensor *t, const uint8_t *p, float *dst)
{
    const int64_t k = t->ne[0];
    const bool packed = t->nb[0] == ggml_type_size(t->type);
    if (ggml_is_quantized(t->type))
        ggml_get_type_traits(t->type)->to_float(p, dst, k);
    else if (packed && t->type == GGML_TYPE_F32)
        memcpy(dst, p, (size_t)k * sizeof *dst);
    else if (packed && t->type == GGML_TYPE_F16) /* vectorised where the CPU allows */
        npk_f16le_to_f32_runs(p, (size_t)k, 1, dst, (size_t)k);
    else
        for (int64_t i = 0; i < k; i++)
            dst[i] = npg_load_float(t->type, p + i * t->nb[0]);
}

typedef struct slice {
    const struct ggml_tensor *a, *b;
    struct ggml_tensor *dst;
    int64_t i02, i03, r2, r3;
} slice;

/* src1 row `r` of the stacked rows of a slice: (m, i12, i13). */
static const uint8_t *stacked_row(const slice *s, int64_t r, uint8_t **dst_row)
{
    const int64_t m = s->b->ne[1];
    const int64_t j = r / m, mi = r % m;
    const int64_t i12 = s->i02 * s->r2 + j % s->r2, i13 = s->i03 * s->r3 + j / s->r2;
    *dst_row =
        (uint8_t *)s->dst->data + mi * s->dst->nb[1] + i12 * s->dst->nb[2] + i13 * s->dst->nb[3];
    return (const uint8_t *)s->b->data + mi * s->b->nb[1] + i12 * s->b->nb[2] + i13 * s->b->nb[3];
}

static void scatter(const slice *s, int64_t rows, const float *c)
{
    const int64_t n = s->a->ne[1];
    for (int64_t r = 0; r < rows; r++) {
        uint8_t *out;
        stacked_row(s, r, &out);
        memcpy(out, c + r * n, (size_t)n * sizeof(float)); /* dst rows are contiguous */
    }
}

/* The slice on the host in fp32 with double sums: the operands fp16 cannot hold. */
static bool host_slice(const slice *s, int64_t rows)
{
    const int64_t k = s->a->ne[0], n = s->a->ne[1];
    float *w = malloc((size_t)(n * k) * sizeof *w), *x = malloc((size_t)k * sizeof *x);
    float *c = malloc((size_t)n * sizeof *c);
    void *unpacked; /* weights the CPU keeps repacked, in ggml's layout */
    const uint8_t *plain = npg_weights_plain(s->a, &unpacked);
    if (!w || !x || !c || !plain) {
        free(w), free(x), free(c), free(unpacked);
        return false;
    }
    const uint8_t *mat = plain + s->i02 * s->a->nb[2] + s->i03 * s->a->nb[3];
    for (int64_t i = 0; i < n; i++)
        npg_tensor_row_f32(s->a, mat + i * s->a->nb[1], w + i * k);
    for (int64_t r = 0; r < rows; r++) {
        uint8_t *out;
        npg_tensor_row_f32(s->b, stacked_row(s, r, &out), x);
        for (int64_t i = 0; i < n; i++) {
            double acc = 0;
            for (int64_t e = 0; e < k; e++)
                acc += (double)w[i * k + e] * x[e];
            c[i] = (float)acc;
        }
        memcpy(out, c, (size_t)n * sizeof *c);
    }
    free(w), free(x), free(c), free(unpacked);
    return true;
}

/* The slice's stacked src1 rows as one matrix of K floats a row, when they are that (F32
 * elements, each row right after the one before): the runtime reads them there and rounds
 * them to fp16 as it packs them (npk_rk_matmul_f32), so no fp16 copy is made. NULL otherwise. */
static const float *f32_rows(const slice *s, int64_t rows)
{
    const int64_t k = s->b->ne[0];
    if (s->b->type != GGML_TYPE_F32 || s->b->nb[0] != sizeof(float))
        return NULL;
    uint8_t *out;
    const uint8_t *first = stacked_row(s, 0, &out);
    for (int64_t r = 1; r < rows; r++)
        if (stacked_row(s, r, &out) != first + (size_t)(r * k) * sizeof(float))
            return NULL;
    return (const float *)(const void *)first;
}

/* One MUL_MAT node prepared: its weights, its activations in their form and its results,
 * every (i02, i03) matrix's rows at offset mat x rows. */
typedef struct prepared {
    slice s;
    int64_t rows;
    npg_packed *p;
    bool owned;
    /* in the device's scratch: */
    uint8_t *a;     /* mats x act_rows x rows x K activation elements of the form */
    float *a_scale; /* mats x rows (int8 row form) */
    float *c;       /* mats x act_rows x rows x N: dst itself when its rows are the calls' */
    bool c_in_dst;  /* the runtime writes dst in place: nothing to scatter */
    bool sums_to_dst; /* the int8 form's sums are scaled back straight into dst */
    bool *on_npu;   /* mats: the matrix is one of the calls (else done on the host) */
} prepared;

static void prepared_free(npg_device *d, prepared *q)
{
    if (q->owned)
        npg_packed_free(d, q->p);
    free(q->on_npu);
}

/* Packs dst's weights, converts its activations and appends one call per matrix to calls
 * (matrices their form cannot hold are computed on the host now). */
static bool prepare(npg_device *d, struct ggml_tensor *dst, prepared *q, npg_call *calls,
                    size_t *ncalls)
{
    const struct ggml_tensor *a = dst->src[0], *b = dst->src[1];
    const int64_t k = a->ne[0], n = a->ne[1], mats = a->ne[2] * a->ne[3];
    q->s = (slice){.a = a, .b = b, .dst = dst, .r2 = b->ne[2] / a->ne[2], .r3 = b->ne[3] / a->ne[3]};
    q->rows = b->ne[1] * q->s.r2 * q->s.r3;
    const int64_t rows = q->rows;
    q->p = npg_packed_get(d, a, (uint32_t)rows, &q->owned);
    const npg_form form = q->p ? q->p->form : NPG_FORM_FP16;
    const npg_form_row *f = npg_form_info(form);
    const size_t esz = f->act_bytes, per_row = f->act_rows; /* a matrix's rows: per_row x rows */
    /* the activations' scratch is taken at the first matrix that needs converting (floats
     * the runtime reads in place need none: 11 MB of pages at M = 512, K = 11008) */
    const size_t a_bytes = (size_t)(mats * rows * k) * per_row * esz;
    q->a_scale = npg_scratch_get(&d->scratch, (size_t)(mats * rows) * sizeof *q->a_scale);
    /* Each matrix's result rows are consecutive rows of dst when dst is contiguous and either
     * one weight matrix serves every src1 matrix of a dim-3 index (ne02 = 1) or there is no
     * dim 3 (ne13 = 1): the stacked order (m, i12, i13) is then dst's own. With one runtime row
     * per activation row (fp16) the runtime writes dst directly, no copy; the int8 form's
     * sums are scaled back straight into dst. */
    const bool in_order = ggml_is_contiguous(dst) && (a->ne[2] == 1 || b->ne[3] == 1);
    q->c_in_dst = per_row == 1 && in_order;
    q->sums_to_dst = form == NPG_FORM_INT8_ROW && in_order;
    q->c = q->c_in_dst
               ? (float *)dst->data
               : npg_scratch_get(&d->scratch, (size_t)(mats * rows * n) * per_row * sizeof *q->c);
    q->on_npu = calloc((size_t)mats, sizeof *q->on_npu);
    float *tmp = malloc((size_t)(2 * k) * sizeof *tmp);
    bool ok = q->p && q->a_scale && q->c && q->on_npu && tmp;
    for (slice *s = &q->s; ok && s->i03 < a->ne[3]; s->i03++)
        for (s->i02 = 0; ok && s->i02 < a->ne[2]; s->i02++) {
            const int64_t idx = s->i03 * a->ne[2] + s->i02;
            const npg_matrix *mat = &q->p->mat[idx];
            float *scale = q->a_scale + idx * rows;
            bool in_range = mat->w != NULL;
            const float *direct = form == NPG_FORM_FP16 ? f32_rows(s, rows) : NULL;
            if (!direct && !q->a && !(q->a = npg_scratch_get(&d->scratch, a_bytes))) {
                ok = false;
                fprintf(stderr, "ggml-npukit: %s: out of memory for the activations\n", dst->name);
                break;
            }
            uint8_t *act = q->a ? q->a + (size_t)(idx * rows * k) * per_row * esz : NULL;
            if (direct) /* the range only: the runtime converts */
                in_range = in_range && npg_f32_fits_fp16(direct, rows * k);
            for (int64_t r = 0; r < rows && in_range && !direct; r++) {
                uint8_t *out;
                in_range = npg_act_row(form, b, stacked_row(s, r, &out), tmp,
                                       act + (size_t)(r * k) * esz, (size_t)(rows * k) * esz,
                                       scale + r);
            }
            if (!in_range) {
                if (!host_slice(s, rows)) {
                    fprintf(stderr, "ggml-npukit: %s: out of memory on the host path\n", dst->name);
                    ok = false;
                }
                d->counters.host_matmuls++;
                continue;
            }
            q->on_npu[idx] = true;
            calls[(*ncalls)++] =
                (npg_call){.mat = mat,
                           .form = form,
                           .m = (uint32_t)rows,
                           .k = (uint32_t)k,
                           .n = (uint32_t)n,
                           .a = direct ? (const void *)direct : act,
                           .a_f32 = direct != NULL,
                           .a_scale = scale,
                           .c = q->c + (size_t)(idx * rows * n) * per_row,
                           .out = q->sums_to_dst ? (float *)dst->data + idx * rows * n : NULL};
        }
    if (!(q->p && q->a_scale && q->c && q->on_npu && tmp))
        fprintf(stderr, "ggml-npukit: %s: out of memory\n", dst->name);
    free(tmp);
    return ok;
}

/* The results of the matrices that ran on the NPU into dst. */
static void finish(prepared *q)
{
    const struct ggml_tensor *a = q->s.a;
    const size_t per_row = npg_form_info(q->p->form)->act_rows;
    for (q->s.i03 = 0; q->s.i03 < a->ne[3]; q->s.i03++)
        for (q->s.i02 = 0; q->s.i02 < a->ne[2]; q->s.i02++) {
            const int64_t idx = q->s.i03 * a->ne[2] + q->s.i02;
            if (q->on_npu[idx] && !q->c_in_dst && !q->sums_to_dst)
                scatter(&q->s, q->rows, q->c + (size_t)(idx * q->rows * a->ne[1]) * per_row);
        }
}

static bool empty_mul_mat(const struct ggml_tensor *dst)
{
    return dst->src[0]->ne[0] == 0 || dst->src[0]->ne[1] == 0 || dst->src[1]->ne[1] == 0 ||
           ggml_nelements(dst->src[1]) == 0;
}

bool npg_mul_mat_nodes(npg_device *d, struct ggml_tensor *const *nodes, int count)
{
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    size_t total = 0, ncalls = 0;
    for (int i = 0; i < count; i++)
        total += (size_t)(nodes[i]->src[0]->ne[2] * nodes[i]->src[0]->ne[3]);
    npg_scratch_begin(&d->scratch);
    prepared *q = calloc((size_t)count, sizeof *q);
    npg_call *calls = malloc((total ? total : 1) * sizeof *calls);
    bool ok = q && calls;
    if (!ok)
        fprintf(stderr, "ggml-npukit: %s: out of memory for %d nodes\n", nodes[0]->name, count);
    for (int i = 0; ok && i < count; i++)
        if (!empty_mul_mat(nodes[i]))
            ok = prepare(d, nodes[i], &q[i], calls, &ncalls);
    ok = ok && npg_calls_run(d, calls, ncalls, nodes[0]->name, &t0, &runtime_host);
    for (int i = 0; q && i < count; i++) {
        if (ok && !empty_mul_mat(nodes[i])) {
            finish(&q[i]);
            d->counters.npu_matmuls++;
        }
        prepared_free(d, &q[i]);
    }
    d->counters.host_ns += npg_now_ns() - t0 + runtime_host;
    free(q), free(calls);
    return ok;
}

bool npg_mul_mat(npg_device *d, struct ggml_tensor *dst) { return npg_mul_mat_nodes(d, &dst, 1); }
