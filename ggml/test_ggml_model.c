/* SPDX-License-Identifier: MIT */
/* End to end: a small transformer (2 layers, 4 heads, causal attention, GELU MLP, tied to no
 * file: its weights are random numbers this test generates from a fixed seed) generates
 * tokens greedily twice through ggml_backend_sched: once on the CPU backend alone, once with
 * the npukit backend beside it (weights in npukit's buffer type, marked as weights). The
 * tokens must be the same and every logit close (a stated tolerance); the test prints how
 * many matmuls the NPU ran.
 *
 * Weight types are mixed so every path the backend claims takes part: attention projections
 * F16, MLP up Q8_0, MLP down Q4_0, the output head F32; the attention products
 * (K.Q and V.softmax) multiply activations by activations: permuted F32 views.
 *
 *   usage: test_ggml_model [CPU-BACKEND-DIR]   (GGML_BACKEND_PATH names libggml-npukit.so)
 *          test_ggml_model BACKEND-DIR --rpc HOST:PORT
 * The second form is the client of ggml's RPC server hosting the device (ggml-rpc-server -d
 * NPUKIT0): the same generation on the CPU here and whole on the server's device, which must
 * give the same tokens. Exit 0 pass, 1 fail, 77 when a backend cannot be loaded. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-npukit.h"
#include "ggml.h"

enum { VOCAB = 96, DIM = 128, HEADS = 4, FF = 256, LAYERS = 2, PROMPT = 12, GEN = 8 };
#define TMAX (PROMPT + GEN)
/* |logit difference| / max |logit| over every position and step: fp16 products with fp32
 * sums against ggml's CPU (which itself rounds activations to fp16 or q8 per its types). */
#define LOGIT_TOL 2e-2

typedef struct layer {
    struct ggml_tensor *wq, *wk, *wv, *wo, *w1, *w2;
} layer;

typedef struct model {
    struct ggml_context *ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor *tok_emb, *pos_emb, *out;
    layer l[LAYERS];
} model;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static float urand(void) /* uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((rng_state >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

/* Fill t with uniform values * scale, quantised to its type on the way. */
static void fill(struct ggml_tensor *t, float scale)
{
    const int64_t n = ggml_nelements(t);
    float *f = malloc((size_t)n * sizeof *f);
    for (int64_t i = 0; i < n; i++)
        f[i] = urand() * scale;
    void *data = malloc(ggml_nbytes(t));
    if (t->type == GGML_TYPE_F32)
        memcpy(data, f, ggml_nbytes(t));
    else if (t->type == GGML_TYPE_F16)
        ggml_fp32_to_fp16_row(f, data, n);
    else
        ggml_quantize_chunk(t->type, f, data, 0, ggml_nrows(t), t->ne[0], NULL);
    ggml_backend_tensor_set(t, data, 0, ggml_nbytes(t));
    free(data);
    free(f);
}

static struct ggml_tensor *mat(struct ggml_context *ctx, enum ggml_type type, int64_t k, int64_t n,
                               const char *name, int i)
{
    struct ggml_tensor *t = ggml_new_tensor_2d(ctx, type, k, n);
    ggml_format_name(t, "%s.%d", name, i);
    return t;
}

static bool model_make(model *m, ggml_backend_buffer_type_t buft)
{
    struct ggml_init_params p = {ggml_tensor_overhead() * 64, NULL, true};
    m->ctx = ggml_init(p);
    m->tok_emb = mat(m->ctx, GGML_TYPE_F32, DIM, VOCAB, "tok_emb", 0);
    m->pos_emb = mat(m->ctx, GGML_TYPE_F32, DIM, TMAX, "pos_emb", 0);
    for (int i = 0; i < LAYERS; i++) {
        layer *l = &m->l[i];
        l->wq = mat(m->ctx, GGML_TYPE_F16, DIM, DIM, "wq", i);
        l->wk = mat(m->ctx, GGML_TYPE_F16, DIM, DIM, "wk", i);
        l->wv = mat(m->ctx, GGML_TYPE_F16, DIM, DIM, "wv", i);
        l->wo = mat(m->ctx, GGML_TYPE_F16, DIM, DIM, "wo", i);
        l->w1 = mat(m->ctx, GGML_TYPE_Q8_0, DIM, FF, "w1", i);
        l->w2 = mat(m->ctx, GGML_TYPE_Q4_0, FF, DIM, "w2", i);
    }
    m->out = mat(m->ctx, GGML_TYPE_F32, DIM, VOCAB, "out", 0);
    m->buf = ggml_backend_alloc_ctx_tensors_from_buft(m->ctx, buft);
    if (!m->buf)
        return false;
    ggml_backend_buffer_set_usage(m->buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    rng_state = 0x9e3779b97f4a7c15ull; /* both copies hold the same numbers */
    fill(m->tok_emb, 1.0f);
    fill(m->pos_emb, 0.5f);
    const float s_dim = 1.0f / sqrtf(DIM), s_ff = 1.0f / sqrtf(FF);
    for (int i = 0; i < LAYERS; i++) {
        layer *l = &m->l[i];
        fill(l->wq, 2 * s_dim), fill(l->wk, 2 * s_dim), fill(l->wv, 1.7f * s_dim);
        fill(l->wo, 1.7f * s_dim), fill(l->w1, 1.7f * s_dim), fill(l->w2, 1.7f * s_ff);
    }
    fill(m->out, 4 * s_dim);
    return true;
}

static void model_free(model *m)
{
    ggml_backend_buffer_free(m->buf);
    ggml_free(m->ctx);
}

/* How a forward graph runs: through ggml_backend_sched over the backends (the device computes
 * what it claims), or whole on one backend with every tensor in its buffer type, as ggml's RPC
 * server runs the graphs its clients send (the device must compute every node itself, leaving
 * what it does not take to the CPU backend inside its graph_compute). */
typedef struct runner {
    ggml_backend_sched_t sched; /* or: */
    ggml_backend_t whole;
    ggml_backend_buffer_type_t whole_buft;
} runner;

/* Logits [T][VOCAB] of the sequence; counts the graph's MUL_MAT nodes. */
static bool forward(const runner *r, const model *m, const int32_t *tokens, int t, float *logits,
                    int *matmuls)
{
    struct ggml_init_params p = {ggml_tensor_overhead() * 512 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *tok = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, t);
    struct ggml_tensor *pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, t);
    ggml_set_input(tok), ggml_set_input(pos);
    const int hd = DIM / HEADS;
    struct ggml_tensor *x =
        ggml_add(ctx, ggml_get_rows(ctx, m->tok_emb, tok), ggml_get_rows(ctx, m->pos_emb, pos));
    for (int i = 0; i < LAYERS; i++) {
        const layer *l = &m->l[i];
        struct ggml_tensor *h = ggml_rms_norm(ctx, x, 1e-5f);
        struct ggml_tensor *q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wq, h), hd, HEADS, t);
        struct ggml_tensor *k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wk, h), hd, HEADS, t);
        struct ggml_tensor *v = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, l->wv, h), hd, HEADS, t);
        q = ggml_permute(ctx, q, 0, 2, 1, 3); /* [hd, t, heads] */
        k = ggml_permute(ctx, k, 0, 2, 1, 3);
        struct ggml_tensor *kq = ggml_mul_mat(ctx, k, q); /* [t_k, t_q, heads] */
        kq = ggml_soft_max(ctx, ggml_diag_mask_inf(ctx, ggml_scale(ctx, kq, 1.0f / sqrtf(hd)), 0));
        struct ggml_tensor *vt =
            ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3)); /* [t, hd, heads] */
        struct ggml_tensor *a = ggml_mul_mat(ctx, vt, kq);    /* [hd, t_q, heads] */
        a = ggml_reshape_2d(ctx, ggml_cont(ctx, ggml_permute(ctx, a, 0, 2, 1, 3)), DIM, t);
        x = ggml_add(ctx, x, ggml_mul_mat(ctx, l->wo, a));
        h = ggml_gelu(ctx, ggml_mul_mat(ctx, l->w1, ggml_rms_norm(ctx, x, 1e-5f)));
        x = ggml_add(ctx, x, ggml_mul_mat(ctx, l->w2, h));
    }
    struct ggml_tensor *out = ggml_mul_mat(ctx, m->out, ggml_rms_norm(ctx, x, 1e-5f));
    ggml_set_output(out);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, out);
    *matmuls = 0;
    for (int i = 0; i < ggml_graph_n_nodes(g); i++)
        *matmuls += ggml_graph_node(g, i)->op == GGML_OP_MUL_MAT;
    ggml_gallocr_t galloc = NULL;
    bool ok;
    if (r->sched) {
        ggml_backend_sched_reset(r->sched);
        ok = ggml_backend_sched_alloc_graph(r->sched, g);
    } else {
        galloc = ggml_gallocr_new(r->whole_buft);
        ok = galloc && ggml_gallocr_alloc_graph(galloc, g);
    }
    if (ok) {
        int32_t positions[TMAX];
        for (int i = 0; i < t; i++)
            positions[i] = i;
        ggml_backend_tensor_set(tok, tokens, 0, (size_t)t * sizeof *tokens);
        ggml_backend_tensor_set(pos, positions, 0, (size_t)t * sizeof *positions);
        ok = (r->sched ? ggml_backend_sched_graph_compute(r->sched, g)
                       : ggml_backend_graph_compute(r->whole, g)) == GGML_STATUS_SUCCESS;
    }
    if (ok)
        ggml_backend_tensor_get(out, logits, 0, (size_t)t * VOCAB * sizeof *logits);
    if (galloc)
        ggml_gallocr_free(galloc);
    ggml_free(ctx);
    return ok;
}

static int argmax(const float *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}

/* Greedy generation; all_logits [GEN][TMAX][VOCAB] gets every step's logits. n backends
 * through ggml_backend_sched, or (n = 0) the graph whole on backends[0] in buft. */
static bool generate(ggml_backend_t *backends, int n, ggml_backend_buffer_type_t buft,
                     const model *m, int32_t *tokens, float *all_logits, int *matmuls)
{
    runner r = {.whole = backends[0], .whole_buft = buft};
    if (n)
        r.sched = ggml_backend_sched_new(backends, NULL, n, 2048, false, true);
    bool ok = !n || r.sched != NULL;
    for (int step = 0; ok && step < GEN; step++) {
        const int t = PROMPT + step;
        float *logits = all_logits + (size_t)step * TMAX * VOCAB;
        int mm;
        ok = forward(&r, m, tokens, t, logits, &mm);
        *matmuls += mm;
        if (ok)
            tokens[t] = argmax(logits + (size_t)(t - 1) * VOCAB, VOCAB);
    }
    if (r.sched)
        ggml_backend_sched_free(r.sched);
    return ok;
}

static ggml_backend_dev_t find_dev(const char *reg_name)
{
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (strcmp(ggml_backend_reg_name(ggml_backend_dev_backend_reg(d)), reg_name) == 0)
            return d;
    }
    return NULL;
}

/* Weights and activations fp16 cannot hold (|x| up to 1e6): the device must compute them on
 * the host in fp32 (counted), never return infinities; compared with the CPU backend. */
static int check_fp16_range(ggml_backend_t npu, ggml_backend_t cpu, ggml_backend_dev_t npu_dev,
                            ggml_backend_dev_t cpu_dev, ggml_npukit_counters_fn get_counters)
{
    enum { K = 64, N = 8, M = 3 };
    float w[N * K], x[M * K], out[2][M * N];
    for (int i = 0; i < N * K; i++)
        w[i] = urand() * (i % 7 == 0 ? 1e6f : 1.0f);
    for (int i = 0; i < M * K; i++)
        x[i] = urand();
    ggml_backend_t be[2] = {npu, cpu};
    ggml_backend_dev_t dev[2] = {npu_dev, cpu_dev};
    ggml_npukit_counters before, after;
    get_counters(npu_dev, &before);
    for (int b = 0; b < 2; b++) {
        struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL,
                                     true};
        struct ggml_context *ctx = ggml_init(p);
        struct ggml_tensor *tw = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
        struct ggml_tensor *tx = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
        struct ggml_tensor *to = ggml_mul_mat(ctx, tw, tx);
        struct ggml_cgraph *g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, to);
        ggml_backend_buffer_t buf =
            ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(dev[b]));
        ggml_backend_tensor_set(tw, w, 0, sizeof w);
        ggml_backend_tensor_set(tx, x, 0, sizeof x);
        bool ok = ggml_backend_graph_compute(be[b], g) == GGML_STATUS_SUCCESS;
        if (ok)
            ggml_backend_tensor_get(to, out[b], 0, sizeof out[b]);
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
        if (!ok) {
            printf("FAIL: the fp16-range matmul did not compute on %s\n", b ? "CPU" : "npukit");
            return 1;
        }
    }
    get_counters(npu_dev, &after);
    double worst = 0;
    for (int i = 0; i < M * N; i++) {
        if (!isfinite(out[0][i])) {
            printf("FAIL: fp16-range matmul: element %d is %g\n", i, out[0][i]);
            return 1;
        }
        worst = fmax(worst, fabs((double)out[0][i] - out[1][i]) / fmax(1.0, fabs(out[1][i])));
    }
    const uint64_t host = after.host_matmuls - before.host_matmuls;
    printf("fp16 range: weights up to 1e6 computed on the host (%llu matrices), worst relative "
           "difference from the CPU backend %.3g\n",
           (unsigned long long)host, worst);
    if (host != 1 || worst > 1e-5) {
        printf("FAIL: expected 1 host matrix and a difference <= 1e-5\n");
        return 1;
    }
    return 0;
}

/* fp16 weights and float activations the NPU reads as they are (the runtime rounds them to
 * fp16 as it packs them, and reports a finite one beyond fp16's range): a node of `mats`
 * weight matrices, each with M rows of activations, `big` (0: none) at one activation of matrix
 * `bad`. That matrix, and only it, is computed again on the host (counted); every result
 * against a double product of the fp16 weights and the floats. */
static int fp16_acts_case(ggml_backend_t npu, ggml_backend_dev_t npu_dev,
                          ggml_npukit_counters_fn get_counters, int mats, int bad, float big)
{
    enum { K = 64, N = 8, M = 3 };
    static float x[4 * M * K], w[4 * N * K], out[4 * M * N];
    static ggml_fp16_t wh[4 * N * K];
    for (int i = 0; i < mats * N * K; i++) {
        wh[i] = ggml_fp32_to_fp16(urand());
        w[i] = ggml_fp16_to_fp32(wh[i]);
    }
    for (int i = 0; i < mats * M * K; i++)
        x[i] = urand();
    if (big != 0)
        x[bad * M * K + K + 17] = big; /* matrix `bad`, its second row */
    ggml_npukit_counters before, after;
    get_counters(npu_dev, &before);
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *tw = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, K, N, mats);
    struct ggml_tensor *tx = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, M, mats);
    struct ggml_tensor *to = ggml_mul_mat(ctx, tw, tx);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, to);
    ggml_backend_buffer_t buf =
        ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(npu_dev));
    ggml_backend_tensor_set(tw, wh, 0, (size_t)mats * N * K * sizeof *wh);
    ggml_backend_tensor_set(tx, x, 0, (size_t)mats * M * K * sizeof *x);
    bool ok = buf && ggml_backend_graph_compute(npu, g) == GGML_STATUS_SUCCESS;
    if (ok)
        ggml_backend_tensor_get(to, out, 0, (size_t)mats * M * N * sizeof *out);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    if (!ok) {
        printf("FAIL: the fp16-weight matmul (%d matrices) did not compute\n", mats);
        return 1;
    }
    get_counters(npu_dev, &after);
    const uint64_t want = big != 0 && fabsf(big) > 65504.0f && isfinite(big) ? 1 : 0;
    double worst = 0;
    for (int q = 0; q < mats; q++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int e = 0; e < K; e++)
                    acc += (double)w[(q * N + j) * K + e] * x[(q * M + i) * K + e];
                const float got = out[(q * M + i) * N + j];
                /* the NPU's matrices round the activations to fp16: within fp16's precision;
                 * the host's is fp32 with double sums */
                const double tol = q == bad && want ? 1e-5 : 2e-2;
                const double rel = fabs(got - acc) / fmax(1.0, fabs(acc));
                if (!isfinite(got) || rel > tol) {
                    if (isfinite(worst)) /* the first only */
                        printf("  matrix %d row %d column %d: %g, want %g\n", q, i, j, got, acc);
                    worst = INFINITY;
                }
                else if (rel > worst)
                    worst = rel;
            }
    const uint64_t host = after.host_matmuls - before.host_matmuls;
    printf("fp16 weights, float activations, %d matrices, %g in matrix %d: %llu on the host "
           "(want %llu), worst relative difference from a double product %.3g\n",
           mats, big, bad, (unsigned long long)host, (unsigned long long)want, worst);
    return host == want && isfinite(worst) ? 0 : 1;
}

static int check_fp16_acts(ggml_backend_t npu, ggml_backend_dev_t npu_dev,
                           ggml_npukit_counters_fn get_counters)
{
    int fails = 0;
    fails += fp16_acts_case(npu, npu_dev, get_counters, 1, 0, 0);       /* all fit */
    fails += fp16_acts_case(npu, npu_dev, get_counters, 1, 0, 7e4f);    /* one call */
    fails += fp16_acts_case(npu, npu_dev, get_counters, 3, 1, -7e4f);   /* one of a batch */
    fails += fp16_acts_case(npu, npu_dev, get_counters, 3, 2, 65505.f); /* rounds to 65504 */
    fails += fp16_acts_case(npu, npu_dev, get_counters, 2, 0, 65504.f); /* fp16's largest */
    return fails;
}

/* A matmul whose weights sit in a buffer not marked as weights (what test-backend-ops does):
 * run twice, packed once; its bytes changed behind the buffer's back (as a CPU op writes them),
 * packed again and the new product computed. Each result against a host product in double. */
static int check_unmarked_cache(ggml_backend_t npu, ggml_backend_dev_t npu_dev,
                                ggml_npukit_counters_fn get_counters)
{
    enum { K = 64, N = 16, M = 4 };
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *tw = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
    struct ggml_tensor *tx = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    struct ggml_tensor *to = ggml_mul_mat(ctx, tw, tx);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, to);
    ggml_backend_buffer_t buf =
        ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(npu_dev));
    float w[N * K], x[M * K], out[M * N];
    for (int i = 0; i < N * K; i++)
        w[i] = (float)((i * 7) % 17 - 8) / 8.0f;
    for (int i = 0; i < M * K; i++)
        x[i] = (float)((i * 5) % 13 - 6) / 4.0f;
    ggml_backend_tensor_set(tw, w, 0, sizeof w);
    ggml_backend_tensor_set(tx, x, 0, sizeof x);
    ggml_npukit_counters c0, c1;
    get_counters(npu_dev, &c0);
    int fails = 0;
    for (int run = 0; run < 3; run++) {
        if (run == 2) { /* written behind the buffer's back, as a CPU op writes */
            w[5] = 3.0f;
            ((float *)tw->data)[5] = 3.0f;
        }
        if (ggml_backend_graph_compute(npu, g) != GGML_STATUS_SUCCESS) {
            printf("FAIL: the unmarked-buffer matmul did not compute\n");
            fails++;
            break;
        }
        ggml_backend_tensor_get(to, out, 0, sizeof out);
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double ref = 0;
                for (int k = 0; k < K; k++)
                    ref += (double)w[n * K + k] * x[m * K + k];
                if (out[m * N + n] != (float)ref) { /* exact: multiples of 1/32, small sums */
                    printf("FAIL: unmarked buffer, run %d: [%d][%d] = %g, expected %g\n", run, m,
                           n, out[m * N + n], ref);
                    fails++;
                    m = M;
                    break;
                }
            }
    }
    get_counters(npu_dev, &c1);
    printf("unmarked weights buffer: 3 runs (the bytes changed before the third), %llu packs\n",
           (unsigned long long)(c1.packs - c0.packs));
    if (c1.packs - c0.packs != 2) {
        printf("FAIL: expected 2 packs (the first run, and the run after the bytes changed)\n");
        fails++;
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    return fails;
}

/* The memory the device reports: what its NPU address spaces can hold of packed weights (at
 * most 16 IOMMU domains of 4 GiB less 256 MiB on rknpu, one such space on rocket), at most the
 * host's memory. */
static int check_memory(ggml_backend_dev_t npu_dev)
{
    size_t free_bytes = 0, total = 0;
    ggml_backend_dev_memory(npu_dev, &free_bytes, &total);
    printf("device memory: %.2f GiB free of %.2f GiB\n", free_bytes / 1073741824.0,
           total / 1073741824.0);
    long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES);
    uint64_t host = page > 0 && pages > 0 ? (uint64_t)page * (uint64_t)pages : UINT64_MAX;
    const uint64_t spaces = 16ull * ((1ull << 32) - (256ull << 20));
    if (total == 0 || (uint64_t)total > spaces || (uint64_t)total > host || free_bytes > total) {
        printf("FAIL: expected 0 < free <= total <= min(the host's memory, 16 x 3.75 GiB)\n");
        return 1;
    }
    return 0;
}

/* The client of an RPC server at `endpoint`: the generation on the local CPU backend and whole
 * on the server's first device (the server computes every node: the device takes what it
 * claims, the CPU backend there the rest), tokens compared exactly, logits within the
 * tolerance. */
static int rpc_main(const char *endpoint)
{
    ggml_backend_dev_t cpu_dev = find_dev("CPU");
    ggml_backend_reg_t rpc = ggml_backend_reg_by_name("RPC");
    typedef ggml_backend_reg_t (*add_server_fn)(const char *endpoint);
    add_server_fn add =
        rpc ? (add_server_fn)ggml_backend_reg_get_proc_address(rpc, "ggml_backend_rpc_add_server")
            : NULL;
    if (!cpu_dev || !add) {
        printf("SKIP: the %s backend is not loaded\n", cpu_dev ? "RPC" : "CPU");
        return 77;
    }
    ggml_backend_reg_t server = add(endpoint);
    if (!server || ggml_backend_reg_dev_count(server) == 0) {
        printf("FAIL: no device at the RPC server %s\n", endpoint);
        return 1;
    }
    ggml_backend_dev_t rdev = ggml_backend_reg_dev_get(server, 0);
    printf("devices: %s (%s), %s\n", ggml_backend_dev_name(rdev),
           ggml_backend_dev_description(rdev), ggml_backend_dev_name(cpu_dev));
    ggml_backend_t cpu = ggml_backend_dev_init(cpu_dev, NULL);
    ggml_backend_t remote = ggml_backend_dev_init(rdev, NULL);
    model m_cpu, m_rpc;
    if (!cpu || !remote || !model_make(&m_cpu, ggml_backend_dev_buffer_type(cpu_dev)) ||
        !model_make(&m_rpc, ggml_backend_dev_buffer_type(rdev))) {
        printf("FAIL: cannot set up the backends or the weights\n");
        return 1;
    }
    int32_t tok_cpu[TMAX], tok_rpc[TMAX];
    for (int i = 0; i < PROMPT; i++)
        tok_cpu[i] = tok_rpc[i] = (int32_t)((i * 37 + 5) % VOCAB);
    float *lg_cpu = calloc((size_t)GEN * TMAX * VOCAB, sizeof(float));
    float *lg_rpc = calloc((size_t)GEN * TMAX * VOCAB, sizeof(float));
    int mm_cpu = 0, mm_rpc = 0, fails = 0;
    ggml_backend_t only_cpu[1] = {cpu}, only_remote[1] = {remote};
    if (!generate(only_cpu, 1, NULL, &m_cpu, tok_cpu, lg_cpu, &mm_cpu) ||
        !generate(only_remote, 0, ggml_backend_dev_buffer_type(rdev), &m_rpc, tok_rpc, lg_rpc,
                  &mm_rpc)) {
        printf("FAIL: a graph did not compute\n");
        return 1;
    }
    double max_abs = 0, max_diff = 0;
    for (size_t i = 0; i < (size_t)GEN * TMAX * VOCAB; i++) {
        max_abs = fmax(max_abs, fabs(lg_cpu[i]));
        max_diff = fmax(max_diff, fabs((double)lg_cpu[i] - lg_rpc[i]));
    }
    printf("tokens cpu:");
    for (int i = 0; i < TMAX; i++)
        printf(" %d", tok_cpu[i]);
    printf("\ntokens rpc:");
    for (int i = 0; i < TMAX; i++)
        printf(" %d", tok_rpc[i]);
    printf("\nlogits: max |cpu - rpc| %.3g, max |logit| %.3g, relative %.3g (tolerance %.3g); "
           "%d matmuls in the graphs sent to %s\n",
           max_diff, max_abs, max_diff / max_abs, LOGIT_TOL, mm_rpc, endpoint);
    if (memcmp(tok_cpu, tok_rpc, sizeof tok_cpu) != 0 || !(max_diff / max_abs <= LOGIT_TOL)) {
        printf("FAIL: the tokens differ or the logits are beyond the tolerance\n");
        fails++;
    }
    model_free(&m_cpu);
    model_free(&m_rpc);
    free(lg_cpu);
    free(lg_rpc);
    ggml_backend_free(remote);
    ggml_backend_free(cpu);
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    ggml_backend_load_all_from_path(argc > 1 ? argv[1] : NULL);
    if (argc > 3 && strcmp(argv[2], "--rpc") == 0)
        return rpc_main(argv[3]);
    ggml_backend_dev_t cpu_dev = find_dev("CPU"), npu_dev = find_dev("NPUKIT");
    if (!cpu_dev || !npu_dev) {
        printf("SKIP: %s not loaded (GGML_BACKEND_PATH=%s)\n", cpu_dev ? "npukit" : "CPU",
               getenv("GGML_BACKEND_PATH") ? getenv("GGML_BACKEND_PATH") : "(unset)");
        return 77;
    }
    printf("devices: %s (%s), %s\n", ggml_backend_dev_name(npu_dev),
           ggml_backend_dev_description(npu_dev), ggml_backend_dev_name(cpu_dev));
    ggml_backend_t cpu = ggml_backend_dev_init(cpu_dev, NULL);
    ggml_backend_t npu = ggml_backend_dev_init(npu_dev, NULL);
    ggml_npukit_counters_fn get_counters =
        (ggml_npukit_counters_fn)ggml_backend_reg_get_proc_address(
            ggml_backend_dev_backend_reg(npu_dev), GGML_NPUKIT_COUNTERS);

    model m_cpu, m_npu;
    if (!model_make(&m_cpu, ggml_backend_dev_buffer_type(cpu_dev)) ||
        !model_make(&m_npu, ggml_backend_dev_buffer_type(npu_dev))) {
        printf("FAIL: cannot allocate the weights\n");
        return 1;
    }
    int32_t tok_cpu[TMAX], tok_npu[TMAX];
    for (int i = 0; i < PROMPT; i++)
        tok_cpu[i] = tok_npu[i] = (int32_t)((i * 37 + 5) % VOCAB);
    float *lg_cpu = calloc((size_t)GEN * TMAX * VOCAB, sizeof(float));
    float *lg_npu = calloc((size_t)GEN * TMAX * VOCAB, sizeof(float));
    int mm_cpu = 0, mm_npu = 0, fails = 0;
    ggml_npukit_counters before, after;
    get_counters(npu_dev, &before);
    ggml_backend_t only_cpu[1] = {cpu}, both[2] = {npu, cpu};
    if (!generate(only_cpu, 1, NULL, &m_cpu, tok_cpu, lg_cpu, &mm_cpu) ||
        !generate(both, 2, NULL, &m_npu, tok_npu, lg_npu, &mm_npu)) {
        printf("FAIL: a graph did not compute\n");
        return 1;
    }
    get_counters(npu_dev, &after);

    /* compare: tokens exactly, logits within LOGIT_TOL of the largest CPU logit */
    double max_abs = 0, max_diff = 0, min_margin = INFINITY;
    for (int step = 0; step < GEN; step++)
        for (int t = 0; t < PROMPT + step; t++) {
            const float *a = lg_cpu + ((size_t)step * TMAX + t) * VOCAB;
            const float *b = lg_npu + ((size_t)step * TMAX + t) * VOCAB;
            for (int v = 0; v < VOCAB; v++) {
                max_abs = fmax(max_abs, fabs(a[v]));
                max_diff = fmax(max_diff, fabs((double)a[v] - b[v]));
            }
            if (t == PROMPT + step - 1) { /* the greedy pick's margin over the runner-up */
                int best = argmax(a, VOCAB);
                float second = -INFINITY;
                for (int v = 0; v < VOCAB; v++)
                    if (v != best && a[v] > second)
                        second = a[v];
                min_margin = fmin(min_margin, a[best] - second);
            }
        }
    printf("tokens cpu:");
    for (int i = 0; i < TMAX; i++)
        printf(" %d", tok_cpu[i]);
    printf("\ntokens npu:");
    for (int i = 0; i < TMAX; i++)
        printf(" %d", tok_npu[i]);
    printf("\n");
    if (memcmp(tok_cpu, tok_npu, sizeof tok_cpu) != 0) {
        printf("FAIL: the greedy tokens differ\n");
        fails++;
    }
    const double rel = max_diff / max_abs;
    printf("logits: max |cpu - npu| %.3g, max |logit| %.3g, relative %.3g (tolerance %.3g); "
           "smallest greedy margin %.3g\n",
           max_diff, max_abs, rel, LOGIT_TOL, min_margin);
    if (!(rel <= LOGIT_TOL)) {
        printf("FAIL: logits beyond the tolerance\n");
        fails++;
    }
    const uint64_t on_npu = after.npu_matmuls - before.npu_matmuls;
    printf("matmuls: %d in the graphs, %llu on the NPU (%llu runtime calls, %llu weight "
           "matrices packed, %llu on the host for fp16's range); NPU time %.3f ms (modelled on "
           "the simulator), host work %.3f ms\n",
           mm_npu, (unsigned long long)on_npu,
           (unsigned long long)(after.npu_calls - before.npu_calls),
           (unsigned long long)(after.packs - before.packs),
           (unsigned long long)(after.host_matmuls - before.host_matmuls),
           (after.npu_ns - before.npu_ns) / 1e6, (after.host_ns - before.host_ns) / 1e6);
    const char *policy = getenv("NPUKIT_GGML_OFFLOAD");
    if (policy && strcmp(policy, "always") == 0 && on_npu != (uint64_t)mm_npu) {
        printf("FAIL: NPUKIT_GGML_OFFLOAD=always but %llu of %d matmuls ran on the NPU\n",
               (unsigned long long)on_npu, mm_npu);
        fails++;
    }
    /* the whole graph on the device alone, as ggml's RPC server gives it: the same tokens */
    int32_t tok_whole[TMAX];
    memcpy(tok_whole, tok_npu, PROMPT * sizeof *tok_whole);
    int mm_whole = 0;
    ggml_npukit_counters w0, w1;
    get_counters(npu_dev, &w0);
    ggml_backend_t only_npu[1] = {npu};
    if (!generate(only_npu, 0, ggml_backend_dev_buffer_type(npu_dev), &m_npu, tok_whole, lg_npu,
                  &mm_whole)) {
        printf("FAIL: a whole graph did not compute on the device\n");
        fails++;
    } else {
        get_counters(npu_dev, &w1);
        printf("whole graphs on the device: %llu matmuls on the NPU, %llu other nodes on the CPU "
               "backend inside its graph_compute; tokens %s\n",
               (unsigned long long)(w1.npu_matmuls - w0.npu_matmuls),
               (unsigned long long)(w1.cpu_nodes - w0.cpu_nodes),
               memcmp(tok_whole, tok_cpu, sizeof tok_whole) ? "DIFFER" : "the CPU's");
        if (memcmp(tok_whole, tok_cpu, sizeof tok_whole) != 0 || w1.cpu_nodes == w0.cpu_nodes) {
            printf("FAIL: expected the CPU's tokens and nodes left to the CPU backend\n");
            fails++;
        }
    }
    fails += check_unmarked_cache(npu, npu_dev, get_counters);
    fails += check_memory(npu_dev);
    fails += check_fp16_range(npu, cpu, npu_dev, cpu_dev, get_counters);
    fails += check_fp16_acts(npu, npu_dev, get_counters);
    model_free(&m_cpu);
    model_free(&m_npu);
    free(lg_cpu);
    free(lg_npu);
    ggml_backend_free(npu);
    ggml_backend_free(cpu);
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
