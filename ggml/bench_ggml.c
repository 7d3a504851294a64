/* SPDX-License-Identifier: MIT */
/* The ggml backend on llama-7B-shaped layers, and the quantised types' choice.
 *
 * Part 1, for K x N = 4096 x 4096, 4096 x 11008, 11008 x 4096 (fp16 weights) at
 * M = 1, 32, 128, 512: the modelled NPU time of the call (the planner's timing model: a
 * MODEL, not a measurement), the host work per call measured on this machine (the backend's
 * conversions and the runtime's host parts, driving the simulator), the CPU backend's measured
 * time on this machine, the CPU estimate the offload decision uses, and the decision. (The
 * simulator's buffer syncs are its own work and are not counted as host work.)
 *
 * Part 2, per quantised type at K = 4096 (N = 256, M = 32): the error against an fp64
 * reference of (a) this backend's path (dequantised once to fp16, fp16 activations; run on
 * the simulator), (b) the CPU backend, (c) the NPU's integer path, computed exactly on the host
 * (activations quantised to int8 per 32-element block as ggml's CPU does, integer products per
 * block, scaled): and the modelled time of the fp16 path against the integer path, which must
 * run one K slice per quantisation block (a scale per 32 weights along K) and add the slices
 * on the host, at K x N = 4096 x 4096, M = 128.
 *
 * Medians of the repetitions; every figure is measured in this run except those labelled
 * modelled.
 *   usage: bench_ggml [CPU-BACKEND-DIR] [--quick] [--shape 0|1|2]
 * (GGML_BACKEND_PATH names the backend, NPUKIT_GGML_DEVICE the runtime (default auto); the
 * backend and the CPU backend's directory default to this build's) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-npukit.h"
#include "ggml.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_soc.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
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

/* One MUL_MAT of weights [K][N] (type) by activations [K][M] on one backend. */
typedef struct op_case {
    struct ggml_context *ctx_w, *ctx;
    ggml_backend_buffer_t buf_w, buf;
    struct ggml_tensor *w, *x, *out;
    struct ggml_cgraph *g;
} op_case;

static void case_free(op_case *c)
{
    if (c->buf)
        ggml_backend_buffer_free(c->buf);
    if (c->ctx)
        ggml_free(c->ctx);
    c->buf = NULL, c->ctx = NULL;
}

static void case_free_all(op_case *c)
{
    case_free(c);
    ggml_backend_buffer_free(c->buf_w);
    ggml_free(c->ctx_w);
}

static bool case_weights(op_case *c, ggml_backend_buffer_type_t buft, enum ggml_type type,
                         int64_t k, int64_t n, const float *wf)
{
    struct ggml_init_params p = {ggml_tensor_overhead() * 4, NULL, true};
    c->ctx_w = ggml_init(p);
    c->w = ggml_new_tensor_2d(c->ctx_w, type, k, n);
    c->buf_w = ggml_backend_alloc_ctx_tensors_from_buft(c->ctx_w, buft);
    if (!c->buf_w)
        return false;
    ggml_backend_buffer_set_usage(c->buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    void *data = malloc(ggml_nbytes(c->w));
    if (type == GGML_TYPE_F16)
        ggml_fp32_to_fp16_row(wf, data, k * n);
    else
        ggml_quantize_chunk(type, wf, data, 0, n, k, NULL);
    ggml_backend_tensor_set(c->w, data, 0, ggml_nbytes(c->w));
    free(data);
    return true;
}

static bool case_acts(op_case *c, ggml_backend_buffer_type_t buft, int64_t m, const float *xf)
{
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    c->ctx = ggml_init(p);
    c->x = ggml_new_tensor_2d(c->ctx, GGML_TYPE_F32, c->w->ne[0], m);
    c->out = ggml_mul_mat(c->ctx, c->w, c->x);
    c->g = ggml_new_graph(c->ctx);
    ggml_build_forward_expand(c->g, c->out);
    c->buf = ggml_backend_alloc_ctx_tensors_from_buft(c->ctx, buft);
    if (!c->buf)
        return false;
    ggml_backend_tensor_set(c->x, xf, 0, ggml_nbytes(c->x));
    return true;
}

typedef struct npu_api {
    ggml_backend_dev_t dev;
    ggml_npukit_counters_fn counters;
    ggml_npukit_cost_fn cost;
} npu_api;

/* Median wall time of `reps` computes (ms); for the npukit backend also the median host work
 * per call (its counters). */
static bool run(ggml_backend_t be, op_case *c, int reps, const npu_api *api, double *wall_ms,
                double *host_ms)
{
    double wall[16], host[16];
    for (int r = 0; r < reps; r++) {
        ggml_npukit_counters a, b;
        if (api)
            api->counters(api->dev, &a);
        uint64_t t0 = now_ns();
        if (ggml_backend_graph_compute(be, c->g) != GGML_STATUS_SUCCESS)
            return false;
        wall[r] = (now_ns() - t0) / 1e6;
        if (api) {
            api->counters(api->dev, &b);
            host[r] = (b.host_ns - a.host_ns) / 1e6;
        }
    }
    *wall_ms = median(wall, reps);
    if (api)
        *host_ms = median(host, reps);
    return true;
}

static int reps_for(int64_t m, int64_t k, int64_t n)
{
    const double macs = (double)m * (double)k * (double)n;
    return macs < 1e9 ? 5 : macs < 1e10 ? 3 : 1;
}

static float *random_floats(int64_t n, float scale)
{
    float *f = malloc((size_t)n * sizeof *f);
    for (int64_t i = 0; i < n; i++)
        f[i] = urand() * scale;
    return f;
}

static int part_layers(ggml_backend_t npu, ggml_backend_t cpu, const npu_api *api,
                       ggml_backend_dev_t cpu_dev, bool quick, int only)
{
    static const int64_t kn[3][2] = {{4096, 4096}, {4096, 11008}, {11008, 4096}};
    static const int64_t ms[4] = {1, 32, 128, 512};
    printf("== llama-7B layers, fp16 weights (NPU times MODELLED by the planner's timing model; "
           "host work and CPU times MEASURED here, medians)\n");
    printf("%6s %6s %4s | %12s %12s | %12s | %12s %12s | %8s %s\n", "K", "N", "M", "npu_model_ms",
           "host_mdl_ms", "host_meas_ms", "cpu_meas_ms", "cpu_est_ms", "cpu/npu", "offload(auto)");
    for (int s = 0; s < (quick ? 1 : 3); s++) {
        if (only >= 0 && s != only)
            continue;
        const int64_t k = kn[s][0], n = kn[s][1];
        float *wf = random_floats(k * n, 1.0f / sqrtf((float)k));
        op_case cn = {0}, cc = {0};
        if (!case_weights(&cn, ggml_backend_dev_buffer_type(api->dev), GGML_TYPE_F16, k, n, wf) ||
            !case_weights(&cc, ggml_backend_dev_buffer_type(cpu_dev), GGML_TYPE_F16, k, n, wf))
            return 1;
        free(wf);
        for (int mi = 0; mi < (quick ? 2 : 4); mi++) {
            const int64_t m = ms[mi];
            float *xf = random_floats(k * m, 1.0f);
            if (!case_acts(&cn, ggml_backend_dev_buffer_type(api->dev), m, xf) ||
                !case_acts(&cc, ggml_backend_dev_buffer_type(cpu_dev), m, xf))
                return 1;
            free(xf);
            ggml_npukit_cost cost;
            if (api->cost(api->dev, cn.out, &cost) != 0)
                return 1;
            const int reps = reps_for(m, k, n);
            double wall, host, cpu_ms, unused;
            /* the first call packs the weights (once per shape): not a per-call cost */
            if (mi == 0 && !run(npu, &cn, 1, api, &wall, &host))
                return 1;
            if (!run(npu, &cn, reps, api, &wall, &host) ||
                !run(cpu, &cc, reps, NULL, &cpu_ms, &unused))
                return 1;
            const double npu_total = cost.npu_us / 1e3 + host;
            printf("%6lld %6lld %4lld | %12.3f %12.3f | %12.3f | %12.3f %12.3f | %8.2f %s\n",
                   (long long)k, (long long)n, (long long)m, cost.npu_us / 1e3, cost.host_us / 1e3,
                   host, cpu_ms, cost.cpu_us / 1e3, cpu_ms / npu_total,
                   cost.offload_by_cost ? "NPU" : "CPU");
            fflush(stdout);
            case_free(&cn);
            case_free(&cc);
        }
        case_free_all(&cn);
        case_free_all(&cc);
    }
    printf("cpu/npu: the CPU backend's measured time over (modelled NPU time + measured host "
           "work); offload(auto): the cost model's decision at NPUKIT_GGML_CPU_GFLOPS\n");
    return 0;
}

static double nmse(const double *ref, const float *v, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        num += (v[i] - ref[i]) * (v[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return num / den;
}

/* The modelled time (ms) of an M x K x N call in `in` with K slices of k_slice (0: planner's). */
static double modelled_ms(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, uint32_t k_slice,
                          double *host_ms)
{
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, in, m, k, n);
    req.cores = npk_rk_soc_default()->cores; /* every core of the SoC the planner models */
    req.k_slice = k_slice;
    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan) != NPK_OK)
        return NAN;
    double ms = (plan.model_us + plan.warmup_us) / 1e3;
    *host_ms = plan.host_us / 1e3;
    npk_rk_plan_free(&plan);
    return ms;
}

static int part_types(ggml_backend_t npu, ggml_backend_t cpu, const npu_api *api,
                      ggml_backend_dev_t cpu_dev)
{
    static const enum ggml_type types[] = {GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_K,
                                           GGML_TYPE_Q6_K};
    const int64_t k = 4096, n = 256, m = 32;
    double f16_host, int_host;
    const double f16_ms = modelled_ms(NPK_PREC_FP16, 128, 4096, 4096, 0, &f16_host);
    printf("\n== quantised weights: error vs an fp64 reference (K %lld, N %lld, M %lld; NMSE, "
           "test-backend-ops allows 5e-4) and MODELLED time at 4096 x 4096, M 128\n",
           (long long)k, (long long)n, (long long)m);
    printf("%6s | %12s %12s %12s | %14s %14s\n", "type", "fp16_path", "cpu_backend", "int8_path",
           "fp16_model_ms", "int8_model_ms");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const enum ggml_type type = types[t];
        float *wf = random_floats(k * n, 1.0f / 64), *xf = random_floats(k * m, 1.0f);
        op_case cn = {0}, cc = {0};
        if (!case_weights(&cn, ggml_backend_dev_buffer_type(api->dev), type, k, n, wf) ||
            !case_weights(&cc, ggml_backend_dev_buffer_type(cpu_dev), type, k, n, wf) ||
            !case_acts(&cn, ggml_backend_dev_buffer_type(api->dev), m, xf) ||
            !case_acts(&cc, ggml_backend_dev_buffer_type(cpu_dev), m, xf))
            return 1;
        double wall, host;
        if (!run(npu, &cn, 1, api, &wall, &host) || !run(cpu, &cc, 1, NULL, &wall, &host))
            return 1;
        /* the weights as stored (dequantised exactly) */
        float *wq = malloc((size_t)(k * n) * sizeof *wq), *row = malloc((size_t)k * sizeof *row);
        void *blocks = malloc(ggml_nbytes(cc.w));
        ggml_backend_tensor_get(cc.w, blocks, 0, ggml_nbytes(cc.w));
        ggml_get_type_traits(type)->to_float(blocks, wq, k * n);
        /* the integer path's activations: int8 per 32-element block (Q8_0), as the CPU does */
        float *xq = malloc((size_t)(k * m) * sizeof *xq);
        void *xb = malloc(ggml_row_size(GGML_TYPE_Q8_0, k) * (size_t)m);
        ggml_quantize_chunk(GGML_TYPE_Q8_0, xf, xb, 0, m, k, NULL);
        ggml_get_type_traits(GGML_TYPE_Q8_0)->to_float(xb, xq, k * m);
        double *ref = malloc((size_t)(m * n) * sizeof *ref);
        float *on_npu = malloc((size_t)(m * n) * sizeof *on_npu);
        float *on_cpu = malloc((size_t)(m * n) * sizeof *on_cpu);
        float *int_path = malloc((size_t)(m * n) * sizeof *int_path);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0, acc_q = 0;
                for (int64_t e = 0; e < k; e++) {
                    acc += (double)wq[j * k + e] * xf[i * k + e];
                    acc_q += (double)wq[j * k + e] * xq[i * k + e];
                }
                ref[i * n + j] = acc;
                int_path[i * n + j] = (float)acc_q;
            }
        ggml_backend_tensor_get(cn.out, on_npu, 0, ggml_nbytes(cn.out));
        ggml_backend_tensor_get(cc.out, on_cpu, 0, ggml_nbytes(cc.out));
        /* the integer path: one K slice of one 32-weight block per task (its scale), int8
         * (4-bit types: int4) products, the slices summed on the host */
        const npk_rk_prec in =
            (type == GGML_TYPE_Q8_0 || type == GGML_TYPE_Q6_K) ? NPK_PREC_INT8 : NPK_PREC_INT4;
        const double int_ms = modelled_ms(in, 128, 4096, 4096, 32, &int_host);
        printf("%6s | %12.3g %12.3g %12.3g | %14.3f %14.3f\n", ggml_type_name(type),
               nmse(ref, on_npu, m * n), nmse(ref, on_cpu, m * n), nmse(ref, int_path, m * n),
               f16_ms + f16_host, int_ms + int_host);
        free(wf), free(xf), free(wq), free(row), free(blocks), free(xq), free(xb);
        free(ref), free(on_npu), free(on_cpu), free(int_path);
        case_free_all(&cn);
        case_free_all(&cc);
    }
    printf("(modelled times: NPU plus the host model's work; the integer path's slices are "
           "one quantisation block of K each)\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    bool quick = false;
    int only = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else
            dir = argv[i];
    }
#ifdef NPUKIT_GGML_DEFAULT_PLUGIN
    if (!dir)
        dir = NPUKIT_GGML_DEFAULT_BIN;
    if (!getenv("GGML_BACKEND_PATH"))
        setenv("GGML_BACKEND_PATH", NPUKIT_GGML_DEFAULT_PLUGIN, 0);
#endif
    ggml_backend_load_all_from_path(dir);
    ggml_backend_dev_t cpu_dev = find_dev("CPU"), npu_dev = find_dev("NPUKIT");
    if (!cpu_dev || !npu_dev) {
        fprintf(stderr, "bench_ggml: the CPU backend or libggml-npukit.so did not load "
                        "(GGML_BACKEND_PATH names the backend; argument 1 the CPU's directory)\n");
        return 1;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(npu_dev);
    npu_api api = {
        npu_dev,
        (ggml_npukit_counters_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_COUNTERS),
        (ggml_npukit_cost_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_COST)};
    ggml_backend_t npu = ggml_backend_dev_init(npu_dev, NULL),
                   cpu = ggml_backend_dev_init(cpu_dev, NULL);
    printf("device: %s (%s); CPU backend: %s\n", ggml_backend_dev_name(npu_dev),
           ggml_backend_dev_description(npu_dev), ggml_backend_dev_description(cpu_dev));
    int rc = part_layers(npu, cpu, &api, cpu_dev, quick, only);
    if (rc == 0)
        rc = part_types(npu, cpu, &api, cpu_dev);
    ggml_backend_free(npu);
    ggml_backend_free(cpu);
    return rc;
}
