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
#include "npukit/rk_plan.h" /* NPK_RK_PLAN_MAX_DIM */

bool npg_host_buffer_ok(const struct ggml_tensor *t)
{
    return !t->buffer || ggml_backend_buffer_is_host(t->buffer);
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
    return npg_host_buffer_ok(a) && npg_host_buffer_ok(b) && npg_host_buffer_ok(op);
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
    if (ggml_is_quantized(t->type))
        ggml_get_type_traits(t->type)->to_float(p, dst, k);
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
    if (!w || !x || !c) {
        free(w), free(x), free(c);
        return false;
    }
    const uint8_t *mat = (const uint8_t *)s->a->data + s->i02 * s->a->nb[2] + s->i03 * s->a->nb[3];
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
    free(w), free(x), free(c);
    return true;
}

void npg_count_call(npg_device *d, const npk_rk_stats *st, const char *name, int64_t m, int64_t k,
                    int64_t n, uint64_t *t0, uint64_t *runtime_host)
{
    if (npg_settings_get()->verbose)
        fprintf(stderr,
                "ggml-npukit: %s M %lld K %lld N %lld: %u tasks %u submits, call %.3f ms (synth "
                "%.3f pack %.3f sync %.3f submit %.3f accumulate %.3f), NPU %.3f ms\n",
                name, (long long)m, (long long)k, (long long)n, st->tasks, st->submits,
                st->host_ns / 1e6, st->synth_ns / 1e6, st->pack_ns / 1e6, st->sync_ns / 1e6,
                st->submit_ns / 1e6, st->accumulate_ns / 1e6, st->npu_span_ns / 1e6);
    d->counters.npu_calls++;
    d->counters.npu_ns += st->npu_span_ns;
    /* The call's wall time leaves the caller's clock (t0 moves past it) and only the runtime's
     * host parts come back; a simulated device's syncs copy the simulator's memory (its work,
     * not the host's), so they count only on hardware. */
    *t0 += st->host_ns;
    *runtime_host +=
        st->synth_ns + st->pack_ns + st->accumulate_ns + (d->simulated ? 0 : st->sync_ns);
}

bool npg_mul_mat(npg_device *d, struct ggml_tensor *dst)
{
    const struct ggml_tensor *a = dst->src[0], *b = dst->src[1];
    const int64_t k = a->ne[0], n = a->ne[1], m = b->ne[1];
    if (k == 0 || n == 0 || m == 0 || ggml_nelements(b) == 0)
        return true;
    slice s = {.a = a, .b = b, .dst = dst, .r2 = b->ne[2] / a->ne[2], .r3 = b->ne[3] / a->ne[3]};
    const int64_t rows = m * s.r2 * s.r3;
    uint64_t t0 = npg_now_ns(), runtime_host = 0;
    bool owned, ok = false;
    npg_packed *p = npg_packed_get(d, a, (uint32_t)rows, &owned);
    uint16_t *a16 = malloc((size_t)(rows * k) * sizeof *a16);
    float *c = malloc((size_t)(rows * n) * sizeof *c), *tmp = malloc((size_t)(2 * k) * sizeof *tmp);
    if (!p || !a16 || !c || !tmp)
        goto done;
    for (s.i03 = 0; s.i03 < a->ne[3]; s.i03++)
        for (s.i02 = 0; s.i02 < a->ne[2]; s.i02++) {
            const npk_rk_weights *w = p->w[s.i03 * a->ne[2] + s.i02];
            bool in_range = w != NULL;
            for (int64_t r = 0; r < rows && in_range; r++) {
                uint8_t *out;
                in_range = npg_tensor_row_fp16(b, stacked_row(&s, r, &out), tmp, a16 + r * k);
            }
            if (!in_range) {
                if (!host_slice(&s, rows)) {
                    fprintf(stderr, "ggml-npukit: %s: out of memory on the host path\n", dst->name);
                    goto done;
                }
                d->counters.host_matmuls++;
                continue;
            }
            npk_rk_stats st;
            npk_status rc = npk_rk_matmul(d->rt, w, (uint32_t)rows, a16, NPK_PREC_FP32, c, &st);
            if (rc != NPK_OK) {
                fprintf(stderr, "ggml-npukit: %s (M %lld, K %lld, N %lld): %s: %s\n", dst->name,
                        (long long)rows, (long long)k, (long long)n, npk_status_name(rc),
                        npk_last_error());
                goto done;
            }
            scatter(&s, rows, c);
            npg_count_call(d, &st, dst->name, rows, k, n, &t0, &runtime_host);
        }
    d->counters.npu_matmuls++;
    ok = true;
done:
    d->counters.host_ns += npg_now_ns() - t0 + runtime_host;
    if (owned)
        npg_packed_free(d, p);
    free(a16), free(c), free(tmp);
    return ok;
}
