/* SPDX-License-Identifier: MIT */
/* The backend's batched calls (NPUKIT_GGML_BATCH) and weight forms, through ggml's API:
 *
 *   - a graph of MUL_MATs (decode-sized, M = 1, and M = 3): three projections of one input
 *     (fp16, Q8_0 and Q4_0 weights: both forms), one matmul of the first projection's result
 *     (it must not join their batch) and one more projection after it (it joins them, run
 *     ahead of the dependent one); and a MUL_MAT_ID node (4 experts, 2 per token, 3 tokens).
 *     Run whole on the device with batching on and off: the results must be identical bit for
 *     bit, the batched run must make exactly one call per weight form of each batch, and both
 *     must agree with ggml's CPU backend (NMSE per node below NMSE_TOL);
 *   - a Q8_0 weight row of zeros and an activation row of zeros (a zero int8 scale): zeros out,
 *     never NaN;
 *   - Q8_0 weights by an activation row whose values are all about 1e-36 (int8 scales whose
 *     inverses overflow float): that matrix computed on the host, against a double product.
 *   usage: test_ggml_batch CPU-BACKEND-DIR   (GGML_BACKEND_PATH names the backend) */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-npukit.h"
#include "ggml.h"
#include "npg_testlib.h"

enum { K = 96, N = 40, EXPERTS = 4, USED = 2, TOKENS = 3, NODES = 6 };
/* ggml's test-backend-ops tolerance for MUL_MAT */
#define NMSE_TOL 5e-4

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static float urand(void) { return npg_test_urand(&rng_state); }

static ggml_backend_dev_t find_dev(const char *reg_name) { return npg_test_find_dev(reg_name); }

/* Random values into t (any type ggml can quantise); zero_row: row 0 of t all zeros. */
static void fill(struct ggml_tensor *t, bool zero_row)
{
    const int64_t n = ggml_nelements(t), k = t->ne[0];
    float *f = malloc((size_t)n * sizeof *f);
    for (int64_t i = 0; i < n; i++)
        f[i] = zero_row && i < k ? 0.0f : urand() * 0.25f;
    if (t->type == GGML_TYPE_F32) {
        ggml_backend_tensor_set(t, f, 0, ggml_nbytes(t));
    } else {
        void *q = malloc(ggml_nbytes(t));
        if (t->type == GGML_TYPE_F16)
            ggml_fp32_to_fp16_row(f, q, n);
        else
            ggml_quantize_chunk(t->type, f, q, 0, n / k, k, NULL);
        ggml_backend_tensor_set(t, q, 0, ggml_nbytes(t));
        free(q);
    }
    free(f);
}

typedef struct graph {
    struct ggml_context *ctx;
    ggml_backend_buffer_t buf;
    struct ggml_cgraph *g;
    struct ggml_tensor *out[NODES];
} graph;

/* The graph in `buft`, every input drawn from the same seed. */
static bool graph_make(graph *gr, ggml_backend_buffer_type_t buft, int64_t m)
{
    rng_state = 0x2545f4914f6cdd1dull;
    struct ggml_init_params p = {ggml_tensor_overhead() * 32 + ggml_graph_overhead(), NULL, true};
    gr->ctx = ggml_init(p);
    struct ggml_context *c = gr->ctx;
    struct ggml_tensor *x = ggml_new_tensor_2d(c, GGML_TYPE_F32, K, m);
    struct ggml_tensor *wq = ggml_new_tensor_2d(c, GGML_TYPE_F16, K, N);
    struct ggml_tensor *wk = ggml_new_tensor_2d(c, GGML_TYPE_Q8_0, K, N);
    struct ggml_tensor *wv = ggml_new_tensor_2d(c, GGML_TYPE_Q4_0, K, N);
    struct ggml_tensor *wo = ggml_new_tensor_2d(c, GGML_TYPE_F16, N, N);
    struct ggml_tensor *wu = ggml_new_tensor_2d(c, GGML_TYPE_Q8_0, K, N);
    struct ggml_tensor *we = ggml_new_tensor_3d(c, GGML_TYPE_Q8_0, K, N, EXPERTS);
    struct ggml_tensor *xe = ggml_new_tensor_3d(c, GGML_TYPE_F32, K, 1, TOKENS);
    struct ggml_tensor *ids = ggml_new_tensor_2d(c, GGML_TYPE_I32, USED, TOKENS);
    gr->out[0] = ggml_mul_mat(c, wq, x);
    gr->out[1] = ggml_mul_mat(c, wk, x);
    gr->out[2] = ggml_mul_mat(c, wv, x);
    gr->out[3] = ggml_mul_mat(c, wo, gr->out[0]); /* reads a result of the run before it */
    gr->out[4] = ggml_mul_mat(c, wu, x);
    gr->out[5] = ggml_mul_mat_id(c, we, xe, ids);
    gr->g = ggml_new_graph(c);
    for (int i = 0; i < NODES; i++)
        ggml_build_forward_expand(gr->g, gr->out[i]);
    gr->buf = ggml_backend_alloc_ctx_tensors_from_buft(c, buft);
    if (!gr->buf)
        return false;
    fill(x, m > 1), fill(wq, false), fill(wk, true), fill(wv, false), fill(wo, false);
    fill(wu, false), fill(we, false), fill(xe, false);
    int32_t pick[USED * TOKENS] = {0, 3, 3, 1, 2, 0}; /* expert 0 and 3 twice, 1 and 2 once */
    ggml_backend_tensor_set(ids, pick, 0, sizeof pick);
    return true;
}

static void graph_free(graph *gr)
{
    ggml_backend_buffer_free(gr->buf);
    ggml_free(gr->ctx);
}

static double nmse(const float *ref, const float *v, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += ((double)v[i] - ref[i]) * ((double)v[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    return den > 0 ? num / den : num;
}

/* Every output of the graph computed on `be`, concatenated into out (floats). */
static bool compute(ggml_backend_t be, graph *gr, float *out)
{
    if (ggml_backend_graph_compute(be, gr->g) != GGML_STATUS_SUCCESS)
        return false;
    for (int i = 0; i < NODES; i++) {
        ggml_backend_tensor_get(gr->out[i], out, 0, ggml_nbytes(gr->out[i]));
        out += ggml_nelements(gr->out[i]);
    }
    return true;
}

static int check_m(ggml_backend_t npu, ggml_backend_t cpu, ggml_backend_dev_t npu_dev,
                   ggml_backend_dev_t cpu_dev, ggml_npukit_counters_fn counters,
                   ggml_npukit_reload_fn reload, int64_t m)
{
    graph gn, gc;
    if (!graph_make(&gn, ggml_backend_dev_buffer_type(npu_dev), m) ||
        !graph_make(&gc, ggml_backend_dev_buffer_type(cpu_dev), m)) {
        printf("FAIL: cannot allocate the graphs\n");
        return 1;
    }
    size_t total = 0, len[NODES];
    for (int i = 0; i < NODES; i++)
        total += len[i] = (size_t)ggml_nelements(gn.out[i]);
    float *res[2] = {malloc(total * sizeof(float)), malloc(total * sizeof(float))};
    float *ref = malloc(total * sizeof(float));
    uint64_t calls[2];
    int fails = 0;
    for (int batch = 0; batch < 2; batch++) {
        setenv("NPUKIT_GGML_BATCH", batch ? "1" : "0", 1);
        reload();
        ggml_npukit_counters a, b;
        counters(npu_dev, &a);
        if (!compute(npu, &gn, res[batch])) {
            printf("FAIL: M %lld: the graph did not compute (batch %d)\n", (long long)m, batch);
            return 1;
        }
        counters(npu_dev, &b);
        calls[batch] = b.npu_calls - a.npu_calls;
    }
    if (!compute(cpu, &gc, ref)) {
        printf("FAIL: the CPU backend did not compute the graph\n");
        return 1;
    }
    /* unbatched, one call per matrix: 5 MUL_MATs and the 4 experts picked; batched: the four
     * projections of x (the last one run ahead of the dependent matmul, which it passes) in
     * two calls (fp16, int8), the dependent matmul after them, the experts in one */
    const uint64_t want[2] = {5 + EXPERTS, 2 + 1 + 1};
    printf("M %lld: runtime calls %llu unbatched, %llu batched (expected %llu, %llu); results %s",
           (long long)m, (unsigned long long)calls[0], (unsigned long long)calls[1],
           (unsigned long long)want[0], (unsigned long long)want[1],
           memcmp(res[0], res[1], total * sizeof(float)) ? "DIFFER" : "identical");
    if (calls[0] != want[0] || calls[1] != want[1] ||
        memcmp(res[0], res[1], total * sizeof(float)) != 0)
        fails++;
    printf("; NMSE vs the CPU backend per node:");
    size_t off = 0;
    for (int i = 0; i < NODES; i++) {
        const double e = nmse(ref + off, res[1] + off, len[i]);
        bool finite = true;
        for (size_t j = 0; j < len[i]; j++)
            finite &= isfinite(res[1][off + j]) != 0;
        printf(" %.2g%s", e, finite ? "" : " (NOT FINITE)");
        if (!(e <= NMSE_TOL) || !finite)
            fails++;
        off += len[i];
    }
    printf("\n");
    unsetenv("NPUKIT_GGML_BATCH");
    reload();
    free(res[0]), free(res[1]), free(ref);
    graph_free(&gn);
    graph_free(&gc);
    return fails;
}

/* One Q8_0 matmul whose second activation row is all tiny (~1e-36), against a double product
 * of the dequantised weights: the matrix (both rows) computed on the host, exact. (ggml's
 * CPU backend is no reference here: its Q8_0 activation scale, an fp16, flushes such a row to
 * zero.) */
static int check_tiny(ggml_backend_t npu, ggml_backend_dev_t npu_dev,
                      ggml_npukit_counters_fn counters)
{
    enum { M = 2 };
    float x[M * K], out[M * N], w[N * K];
    for (int i = 0; i < M * K; i++)
        x[i] = urand() * (i >= K ? 1e-36f : 1.0f);
    ggml_npukit_counters a, b;
    counters(npu_dev, &a);
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *tw = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, K, N);
    struct ggml_tensor *tx = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    struct ggml_tensor *to = ggml_mul_mat(ctx, tw, tx);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, to);
    ggml_backend_buffer_t buf =
        ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(npu_dev));
    fill(tw, false);
    ggml_backend_tensor_set(tx, x, 0, sizeof x);
    bool ok = buf && ggml_backend_graph_compute(npu, g) == GGML_STATUS_SUCCESS;
    if (ok) {
        void *blocks = malloc(ggml_nbytes(tw));
        ggml_backend_tensor_get(tw, blocks, 0, ggml_nbytes(tw));
        ggml_get_type_traits(GGML_TYPE_Q8_0)->to_float(blocks, w, N * K);
        free(blocks);
        ggml_backend_tensor_get(to, out, 0, sizeof out);
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    if (!ok) {
        printf("FAIL: the tiny-row matmul did not compute\n");
        return 1;
    }
    counters(npu_dev, &b);
    float ref[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int e = 0; e < K; e++)
                acc += (double)w[j * K + e] * x[i * K + e];
            ref[i * N + j] = (float)acc;
        }
    const double e0 = nmse(ref, out, N), e1 = nmse(ref + N, out + N, N);
    const uint64_t host = b.host_matmuls - a.host_matmuls;
    printf("tiny activations (~1e-36): %llu matrix on the host; NMSE against a double product: "
           "%.2g (the normal row), %.2g (the tiny row)\n",
           (unsigned long long)host, e0, e1);
    return host == 1 && e0 <= 1e-10 && e1 <= 1e-10 ? 0 : 1;
}

int main(int argc, char **argv)
{
    ggml_backend_load_all_from_path(argc > 1 ? argv[1] : NULL);
    ggml_backend_dev_t cpu_dev = find_dev("CPU"), npu_dev = find_dev("NPUKIT");
    if (!cpu_dev || !npu_dev) {
        printf("SKIP: %s not loaded (GGML_BACKEND_PATH=%s)\n", cpu_dev ? "npukit" : "CPU",
               getenv("GGML_BACKEND_PATH") ? getenv("GGML_BACKEND_PATH") : "(unset)");
        return 77;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(npu_dev);
    ggml_npukit_counters_fn counters =
        (ggml_npukit_counters_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_COUNTERS);
    ggml_npukit_reload_fn reload =
        (ggml_npukit_reload_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_RELOAD);
    ggml_backend_t cpu = ggml_backend_dev_init(cpu_dev, NULL);
    ggml_backend_t npu = ggml_backend_dev_init(npu_dev, NULL);
    int fails = 0;
    for (int64_t m = 1; m <= 3; m += 2)
        fails += check_m(npu, cpu, npu_dev, cpu_dev, counters, reload, m);
    fails += check_tiny(npu, npu_dev, counters);
    ggml_backend_free(npu);
    ggml_backend_free(cpu);
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
