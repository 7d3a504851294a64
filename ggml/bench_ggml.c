/* SPDX-License-Identifier: MIT */
/* The ggml backend on llama-7B-shaped layers, and the quantised types' choice.
 *
 * Part 1, for K x N = 4096 x 4096, 4096 x 11008, 11008 x 4096 (fp16 weights, and Q8_0 weights
 * resident as int8) at M = 1, 32, 128, 512, every call on the device: the modelled NPU time of
 * the call (the planner's timing model: a MODEL, not a measurement), the host work per call
 * measured on this machine (the backend's conversions on the wall clock and the runtime's host
 * parts by their threads' CPU time, NPUKIT_RK_HOST_CLOCK=thread unless the environment says
 * wall, driving the simulator), the CPU backend's measured time on this machine, the CPU
 * estimate the offload decision uses, and the decision. (The simulator's buffer syncs are its
 * own work and are not counted as host work.)
 *
 * Part 2, per quantised type at K = 4096 (N = 256, M = 32): the error against an fp64
 * reference of (a) this backend's path (dequantised once to fp16, fp16 activations; run on
 * the simulator), (b) the CPU backend, (c) the NPU's integer path, computed exactly on the host
 * (activations quantised to int8 per 32-element block as ggml's CPU does, integer products per
 * block, scaled): and the modelled time of the fp16 path against the integer path, which must
 * run one K slice per quantisation block (a scale per 32 weights along K) and add the slices
 * on the host, at K x N = 4096 x 4096, M = 128. Beside them the int4 form (npg_int4.c): the
 * activation digits it needs, its error computed exactly on the host and run on the
 * simulator's per-group path, and its modelled cost at M = 1 and 128 (docs/ggml.md).
 *
 * Medians of the repetitions; every figure is measured in this run except those labelled
 * modelled.
 * Part 3: a MUL_MAT_ID node at decode, the experts' matmuls one call each against one batched
 * call: modelled NPU time, submits and calls per node.
 * Part 4: decode where the weights live (part_decode).
 *   usage: bench_ggml [CPU-BACKEND-DIR] [--quick] [--shape 0|1|2] [--part 1|2|3|4] (one part)
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
#include "npg_int4.h"
#include "npg_testlib.h"
#include "npukit/rk.h"
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
static float urand(void) { return npg_test_urand(&rng); }

static ggml_backend_dev_t find_dev(const char *reg_name) { return npg_test_find_dev(reg_name); }

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
    if (!ggml_backend_buft_is_host(buft) && !c->w->extra)
        return true; /* CPU_REPACK takes only what the CPU repacks: the caller checks */
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

/* The least host work per call of the last run() on the device (ms): on a loaded machine the
 * median carries the waits for a CPU, the least is closest to the work itself. */
static double host_least_ms;
/* The median NPU time per call of the last run() on the device (ms): the plan that ran, as the
 * device's counters give it (modelled on the simulator). */
static double npu_run_ms;

/* Median wall time of `reps` computes (ms); for the npukit backend also the median host work
 * per call (its counters). */
static bool run(ggml_backend_t be, op_case *c, int reps, const npu_api *api, double *wall_ms,
                double *host_ms)
{
    double wall[16], host[16], npu[16];
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
            npu[r] = (b.npu_ns - a.npu_ns) / 1e6;
        }
    }
    *wall_ms = median(wall, reps);
    if (api) {
        *host_ms = median(host, reps); /* sorts host[] */
        host_least_ms = host[0];
        npu_run_ms = median(npu, reps);
    }
    return true;
}

static int reps_for(int64_t m, int64_t k, int64_t n)
{
    const double macs = (double)m * (double)k * (double)n;
    return macs < 1e10 ? 5 : 3;
}

static float *random_floats(int64_t n, float scale)
{
    float *f = malloc((size_t)n * sizeof *f);
    for (int64_t i = 0; i < n; i++)
        f[i] = urand() * scale;
    return f;
}

/* Part 1's weight types: fp16, and Q8_0 (resident in the int8 row form unless
 * NPUKIT_GGML_WEIGHTS=fp16). */
static const enum ggml_type layer_types[] = {GGML_TYPE_F16, GGML_TYPE_Q8_0};

static int part_layers(ggml_backend_t npu, ggml_backend_t cpu, const npu_api *api,
                       ggml_backend_dev_t cpu_dev, ggml_npukit_reload_fn reload, bool quick,
                       int only)
{
    static const int64_t kn[3][2] = {{4096, 4096}, {4096, 11008}, {11008, 4096}};
    static const int64_t ms[4] = {1, 32, 128, 512};
    /* every size on the device, decode included (the cost model leaves M = 1 to the CPU): the
     * host work is measured where the NPU runs; offload(auto) still shows the decision */
    setenv("NPUKIT_GGML_OFFLOAD", "always", 1);
    reload();
    printf("== llama-7B layers (NPU times MODELLED by the planner's timing model; host work and "
           "CPU times MEASURED here, medians; each size run once before it is timed; the "
           "runtime's host parts on the %s clock)\n",
           strcmp(getenv("NPUKIT_RK_HOST_CLOCK"), "thread") ? "wall" : "thread CPU-time");
    printf("%5s %6s %6s %4s | %12s %10s %12s | %12s %7s %10s | %12s %12s | %8s %s\n", "type",
           "K", "N", "M", "npu_model_ms", "npu_run_ms", "host_mdl_ms", "host_meas_ms", "host%",
           "least_ms", "cpu_meas_ms",
           "cpu_est_ms", "cpu/npu", "offload(auto)");
    int rc = 0;
    double decode_host[3][2] = {{0}}; /* M = 1, per shape and type */
    for (int s = 0; rc == 0 && s < (quick ? 1 : 3); s++)
        for (size_t t = 0; rc == 0 && t < sizeof layer_types / sizeof layer_types[0]; t++) {
            if (only >= 0 && s != only)
                continue;
            const enum ggml_type type = layer_types[t];
            const int64_t k = kn[s][0], n = kn[s][1];
            float *wf = random_floats(k * n, 1.0f / sqrtf((float)k));
            op_case cn = {0}, cc = {0};
            if (!case_weights(&cn, ggml_backend_dev_buffer_type(api->dev), type, k, n, wf) ||
                !case_weights(&cc, ggml_backend_dev_buffer_type(cpu_dev), type, k, n, wf))
                return 1;
            free(wf);
            for (int mi = 0; rc == 0 && mi < (quick ? 2 : 4); mi++) {
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
                /* once untimed: the first call packs the weights (once per shape) and the
                 * first touch of a fresh output tensor is the allocator's, not a call's */
                if (!run(npu, &cn, 1, api, &wall, &host) || !run(cpu, &cc, 1, NULL, &wall, &host) ||
                    !run(npu, &cn, reps, api, &wall, &host) ||
                    !run(cpu, &cc, reps, NULL, &cpu_ms, &unused))
                    rc = 1;
                const double npu_ms = cost.npu_us / 1e3;
                if (m == 1)
                    decode_host[s][t] = host;
                if (rc == 0)
                    printf("%5s %6lld %6lld %4lld | %12.3f %10.3f %12.3f | %12.3f %6.1f%% %10.3f | "
                           "%12.3f %12.3f | %8.2f %s\n",
                           ggml_type_name(type), (long long)k, (long long)n, (long long)m, npu_ms,
                           npu_run_ms, cost.host_us / 1e3, host, 100.0 * host / npu_run_ms,
                           host_least_ms, cpu_ms,
                           cost.cpu_us / 1e3, cpu_ms / (npu_ms + host),
                           cost.offload_by_cost ? "NPU" : "CPU");
                fflush(stdout);
                case_free(&cn);
                case_free(&cc);
            }
            case_free_all(&cn);
            case_free_all(&cc);
        }
    unsetenv("NPUKIT_GGML_OFFLOAD");
    reload();
    /* a llama-7B token: 32 layers of four 4096 x 4096 (q, k, v, o), two 4096 x 11008 (gate, up)
     * and one 11008 x 4096 (down), one call each */
    for (size_t t = 0; rc == 0 && !quick && only < 0 && t < 2; t++)
        printf("decode, %s weights: host work per llama-7B token (224 calls at M = 1, one "
               "each): %.2f ms\n",
               ggml_type_name(layer_types[t]),
               32 * (4 * decode_host[0][t] + 2 * decode_host[1][t] + decode_host[2][t]));
    printf("npu_model_ms: the planner's best plan for this M (what the cost model decides by); "
           "npu_run_ms: the NPU time of the plan that ran (its K slicing fixed when the weights "
           "were packed); host%%: measured host work over npu_run_ms (the target is at most 10 %% "
           "from M = 32); least_ms: the least host work of the timed calls; cpu/npu: the CPU "
           "backend's measured time over (modelled NPU time + "
           "measured host work); offload(auto): the cost model's decision at "
           "NPUKIT_GGML_CPU_GFLOPS\n");
    return rc;
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
    req.chain = NPK_RK_MAX_CHAIN; /* the backend's tasks per SUBMIT (NPUKIT_GGML_CHAIN) */
    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan) != NPK_OK)
        return NAN;
    double ms = (plan.model_us + plan.warmup_us) / 1e3;
    *host_ms = plan.host_us / 1e3;
    npk_rk_plan_free(&plan);
    return ms;
}

/* x (K) requantised as the int8 row form does, returned dequantised: one scale s for the row,
 * values rounded to int8 (-127..127); with two digits (its activations) the remainder again
 * in units of s / 254. */
static void int8_row(const float *x, int64_t k, int digits, float *out)
{
    float amax = 0;
    for (int64_t i = 0; i < k; i++)
        amax = fmaxf(amax, fabsf(x[i]));
    const float scale = amax / 127.0f, inv = amax > 0 ? 127.0f / amax : 0;
    for (int64_t i = 0; i < k; i++) {
        const float q1 = rintf(x[i] * inv);
        out[i] = q1 * scale;
        if (digits == 2)
            out[i] += rintf((x[i] - q1 * scale) * inv * 254.0f) * (scale / 254.0f);
    }
}

/* ---- the int4 form (npg_int4.c), computed exactly on the host -------------------------- */

/* The K slices the int4 form is measured at: one ggml block (32: a Q4_0 block is held exactly)
 * and the longest the int4 accumulator allows (npk_rk_int4_k_max 511, in whole 32-element
 * K tiles: 480). */
static const int64_t int4_slices[] = {32, 480};
/* The activation digits the form's columns use: the fewest whose activation error stays far
 * below the CPU backend's own (the digits table below measures 1..4). */
#define INT4_DIGITS 3

/* Rows of x (rows x K) as the int4 form holds them, back as floats: weights (digits 0: int4
 * with a scale per slice) or activations (that many digits per slice). */
static void int4_rows(const float *x, int64_t rows, int64_t k, int64_t slice, int digits,
                      float *out)
{
    int8_t *q = malloc((size_t)k * NPG_INT4_MAX_DIGITS);
    float *scale = malloc((size_t)npg_int4_slices(k, slice) * sizeof *scale);
    for (int64_t r = 0; r < rows; r++) {
        if (digits ? !npg_int4_digits(x + r * k, k, slice, digits, q, scale)
                   : !npg_int4_weights(x + r * k, k, slice, q, scale))
            abort(); /* the bench's values are finite */
        npg_int4_value(q, scale, k, slice, digits ? digits : 1, out + r * k);
    }
    free(q), free(scale);
}

/* Weights and activations of one distribution: "uniform" (every value uniform), or "skewed"
 * (each 32-weight block scaled by 0.05..1, log-uniform, and 1 % of the activation channels 20
 * times the others: the outliers real models have, where one scale per row loses most). */
static void fill_case(bool skewed, int64_t k, int64_t n, int64_t m, float **wf, float **xf)
{
    *wf = random_floats(k * n, 1.0f / 64);
    *xf = random_floats(k * m, 1.0f);
    if (!skewed)
        return;
    for (int64_t b = 0; b < k * n / 32; b++) {
        const float f = expf(logf(0.05f) * (0.5f * urand() + 0.5f));
        for (int64_t i = 0; i < 32; i++)
            (*wf)[b * 32 + i] *= f;
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t e = 0; e < k; e += 100)
            (*xf)[i * k + e] *= 20.0f;
}

/* The int4 form run through the runtime's per-group path on the device (npk_rk_qweights, int4,
 * a group per slice): w (N rows of K) and x (M rows of K) quantised as int4_rows does, the
 * activations' INT4_DIGITS digits as INT4_DIGITS x M rows, each with its slice's scale over
 * 14^d; out (M x N) the digits' results added. False and a message when the runtime fails. */
static bool int4_on_device(npk_rk *rt, const float *w, const float *x, int64_t k, int64_t n,
                           int64_t m, int64_t slice, float *out)
{
    const int64_t groups = npg_int4_slices(k, slice), rows = INT4_DIGITS * m;
    int8_t *qw = malloc((size_t)(n * k)), *qx = malloc((size_t)(rows * k));
    int8_t *digits = malloc((size_t)k * INT4_DIGITS);
    float *ws = malloc((size_t)(n * groups) * sizeof *ws);
    float *xs = malloc((size_t)(rows * groups) * sizeof *xs);
    float *token_scale = malloc((size_t)groups * sizeof *token_scale);
    float *c = malloc((size_t)(rows * n) * sizeof *c);
    bool ok = true;
    for (int64_t j = 0; j < n; j++) /* [N][groups]: B transposed, K replaced by the groups */
        ok = ok && npg_int4_weights(w + j * k, k, slice, qw + j * k, ws + j * groups);
    for (int64_t i = 0; ok && i < m; i++) {
        ok = npg_int4_digits(x + i * k, k, slice, INT4_DIGITS, digits, token_scale);
        if (ok)
            npg_int4_digit_rows(digits, token_scale, i, m, k, groups, INT4_DIGITS, qx, xs);
    }
    const npk_rk_qweights_desc desc = npg_int4_desc(qw, ws, k, n, slice, rows);
    npk_rk_qweights *q = NULL;
    ok = ok && npk_rk_qweights_pack(rt, &desc, &q) == NPK_OK &&
         npk_rk_matmul_quant(rt, q, (uint32_t)rows, qx, xs, (uint64_t)(rows * groups),
                             NPK_PREC_FP32, c, NULL) == NPK_OK;
    if (!ok)
        fprintf(stderr, "bench_ggml: the int4 form on the device: %s\n", npk_last_error());
    for (int64_t i = 0; ok && i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double y = 0;
            for (int d = 0; d < INT4_DIGITS; d++)
                y += c[(d * m + i) * n + j];
            out[i * n + j] = (float)y;
        }
    npk_rk_qweights_free(rt, q);
    free(qw), free(qx), free(digits), free(ws), free(xs), free(token_scale), free(c);
    return ok;
}

/* out [M][N] = x [M][K] . w [N][K]^T in double. */
static void product(const float *w, const float *x, int64_t k, int64_t n, int64_t m, double *out)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t e = 0; e < k; e++)
                acc += (double)w[j * k + e] * x[i * k + e];
            out[i * n + j] = acc;
        }
}

/* How many int4 digits the activations need: the error of the activations alone (weights as
 * given, fp32) with 1..4 digits per token and slice, beside the CPU backend's activations (int8
 * per 32-element block, Q8_0) and the int8 row form's two digits. */
static void int4_digit_table(int64_t k, int64_t n, int64_t m)
{
    printf("\n== int4 activation digits: error of the activations alone (K %lld, N %lld, M %lld; "
           "NMSE vs fp64; a8_blk32: the CPU backend's int8 per 32-element block; a8_2digit: the "
           "int8 row form's; a4_sS_D: D int4 digits with a scale per token and K slice of S)\n",
           (long long)k, (long long)n, (long long)m);
    printf("%8s | %10s %10s |", "data", "a8_blk32", "a8_2digit");
    for (size_t v = 0; v < sizeof int4_slices / sizeof int4_slices[0]; v++)
        for (int d = 1; d <= NPG_INT4_MAX_DIGITS; d++)
            printf(" a4_s%lld_%d%*s", (long long)int4_slices[v], d, int4_slices[v] < 100 ? 2 : 1,
                   "");
    printf("\n");
    for (int skewed = 0; skewed < 2; skewed++) {
        float *wf, *xf;
        fill_case(skewed, k, n, m, &wf, &xf);
        float *xa = malloc((size_t)(k * m) * sizeof *xa);
        double *ref = malloc((size_t)(m * n) * sizeof *ref);
        double *sums = malloc((size_t)(m * n) * sizeof *sums);
        float *got = malloc((size_t)(m * n) * sizeof *got);
        void *xb = malloc(ggml_row_size(GGML_TYPE_Q8_0, k) * (size_t)m);
        product(wf, xf, k, n, m, ref);
        printf("%8s |", skewed ? "skewed" : "uniform");
        /* variant -2: Q8_0 blocks, -1: two int8 digits, then slice x digits */
        const int variants =
            (int)(sizeof int4_slices / sizeof int4_slices[0]) * NPG_INT4_MAX_DIGITS;
        for (int v = -2; v < variants; v++) {
            if (v == -2) {
                ggml_quantize_chunk(GGML_TYPE_Q8_0, xf, xb, 0, m, k, NULL);
                ggml_get_type_traits(GGML_TYPE_Q8_0)->to_float(xb, xa, k * m);
            } else if (v == -1) {
                for (int64_t i = 0; i < m; i++)
                    int8_row(xf + i * k, k, 2, xa + i * k);
            } else {
                int4_rows(xf, m, k, int4_slices[v / NPG_INT4_MAX_DIGITS],
                          v % NPG_INT4_MAX_DIGITS + 1, xa);
            }
            product(wf, xa, k, n, m, sums);
            for (int64_t i = 0; i < m * n; i++)
                got[i] = (float)sums[i];
            printf(" %10.3g%s", nmse(ref, got, m * n), v == -1 ? " |" : "");
        }
        printf("\n");
        fflush(stdout);
        free(wf), free(xf), free(xa), free(ref), free(sums), free(got), free(xb);
    }
}

/* The int4 form's modelled cost on the runtime's per-group path (npk_rk_qweights, int4, a group
 * per slice): K x N weights packed on the simulator for M tokens of INT4_DIGITS rows each, the
 * runtime's own choice of groups per pass and its modelled time (NPU and host models, its
 * combine included), and the K-sliced time (one group per pass) beside it. False when the
 * runtime refuses. */
static bool int4_cost(npk_rk *rt, uint32_t k, uint32_t n, uint32_t slice, uint32_t m,
                      npk_rk_qweights_info *info)
{
    const uint32_t groups = (uint32_t)npg_int4_slices(k, slice);
    int8_t *b = malloc((size_t)k * n);
    float *scale = malloc((size_t)groups * n * sizeof *scale);
    for (size_t i = 0; i < (size_t)k * n; i++)
        b[i] = (int8_t)(urand() * 7.5f);
    for (size_t i = 0; i < (size_t)groups * n; i++)
        scale[i] = 1.0f / 64;
    const npk_rk_qweights_desc d = npg_int4_desc(b, scale, k, n, slice, INT4_DIGITS * m);
    npk_rk_qweights *qw = NULL;
    bool ok =
        npk_rk_qweights_pack(rt, &d, &qw) == NPK_OK && npk_rk_qweights_query(qw, info) == NPK_OK;
    if (!ok)
        fprintf(stderr, "bench_ggml: int4 slice %u, M %u: %s\n", slice, m, npk_last_error());
    npk_rk_qweights_free(rt, qw);
    free(b), free(scale);
    return ok;
}

/* Part 2 with rt, the simulator the int4 form runs on. */
static int types_with(npk_rk *rt, ggml_backend_t npu, ggml_backend_t cpu, const npu_api *api,
                      ggml_backend_dev_t cpu_dev, ggml_npukit_reload_fn reload)
{
    static const enum ggml_type types[] = {
        GGML_TYPE_Q8_0,   GGML_TYPE_Q4_0,   GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
        GGML_TYPE_Q2_K,   GGML_TYPE_Q3_K,   GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,
        GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4};
    const int64_t k = 4096, n = 256, m = 32;
    double host_f16, host_row, host_k32, host_f16_1, host_row_1;
    const double f16_ms = modelled_ms(NPK_PREC_FP16, 128, 4096, 4096, 0, &host_f16);
    /* the int8 row form runs two rows (digits) per activation row */
    const double row_ms = modelled_ms(NPK_PREC_INT8, 2 * 128, 4096, 4096, 0, &host_row);
    const double f16_1 = modelled_ms(NPK_PREC_FP16, 1, 4096, 4096, 0, &host_f16_1);
    const double row_1 = modelled_ms(NPK_PREC_INT8, 2 * 1, 4096, 4096, 0, &host_row_1);
    int4_digit_table(k, n, m);
    printf("\n== quantised weights: error vs an fp64 reference (K %lld, N %lld, M %lld; NMSE, "
           "test-backend-ops allows 5e-4); fp16 and auto: this backend on the device; int8_row "
           "and int8_blk32: the integer forms computed exactly on the host (int8_row: weights in "
           "int8 rows, activations two int8 digits per token; w8_row: only the weights; "
           "a8_1digit: only the activations, one digit per token; int4_sS: weights int4 with "
           "a scale per row and K slice of S, activations %d int4 digits per token and slice; "
           "w4_sS: only the weights)\n",
           (long long)k, (long long)n, (long long)m, INT4_DIGITS);
    printf("%6s %8s | %10s %10s %10s %10s %10s %10s %10s | %10s %10s %10s %10s %10s\n", "type",
           "data", "fp16", "auto", "cpu_backend", "int8_row", "w8_row", "a8_1digit", "int8_blk32",
           "w4_s32", "int4_s32", "s32_device", "w4_s480", "int4_s480");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int skewed = 0; skewed < 2; skewed++) {
            const enum ggml_type type = types[t];
            float *wf, *xf;
            fill_case(skewed, k, n, m, &wf, &xf);
            op_case cn = {0}, cc = {0};
            if (!case_weights(&cn, ggml_backend_dev_buffer_type(api->dev), type, k, n, wf) ||
                !case_weights(&cc, ggml_backend_dev_buffer_type(cpu_dev), type, k, n, wf) ||
                !case_acts(&cn, ggml_backend_dev_buffer_type(api->dev), m, xf) ||
                !case_acts(&cc, ggml_backend_dev_buffer_type(cpu_dev), m, xf))
                return 1;
            double wall, host;
            float *on_fp16 = malloc((size_t)(m * n) * sizeof *on_fp16);
            float *on_auto = malloc((size_t)(m * n) * sizeof *on_auto);
            setenv("NPUKIT_GGML_WEIGHTS", "fp16", 1);
            reload();
            if (!run(npu, &cn, 1, api, &wall, &host))
                return 1;
            ggml_backend_tensor_get(cn.out, on_fp16, 0, ggml_nbytes(cn.out));
            unsetenv("NPUKIT_GGML_WEIGHTS");
            reload();
            if (!run(npu, &cn, 1, api, &wall, &host) || !run(cpu, &cc, 1, NULL, &wall, &host))
                return 1;
            ggml_backend_tensor_get(cn.out, on_auto, 0, ggml_nbytes(cn.out));
            /* the weights as stored (dequantised exactly), and as the int8 row form holds them */
            float *wq = malloc((size_t)(k * n) * sizeof *wq);
            float *wr = malloc((size_t)(k * n) * sizeof *wr);
            void *blocks = malloc(ggml_nbytes(cc.w));
            ggml_backend_tensor_get(cc.w, blocks, 0, ggml_nbytes(cc.w));
            ggml_get_type_traits(type)->to_float(blocks, wq, k * n);
            for (int64_t j = 0; j < n; j++)
                int8_row(wq + j * k, k, 1, wr + j * k);
            /* activations: int8 per 32-element block (Q8_0, as the CPU does), and per row */
            float *xq = malloc((size_t)(k * m) * sizeof *xq);
            float *xr = malloc((size_t)(k * m) * sizeof *xr);
            float *x2 = malloc((size_t)(k * m) * sizeof *x2);
            void *xb = malloc(ggml_row_size(GGML_TYPE_Q8_0, k) * (size_t)m);
            ggml_quantize_chunk(GGML_TYPE_Q8_0, xf, xb, 0, m, k, NULL);
            ggml_get_type_traits(GGML_TYPE_Q8_0)->to_float(xb, xq, k * m);
            for (int64_t i = 0; i < m; i++) {
                int8_row(xf + i * k, k, 1, xr + i * k);
                int8_row(xf + i * k, k, 2, x2 + i * k);
            }
            /* the int4 form at each slice: weights alone, and with its activation digits */
            float *w4[2], *x4[2], *w4_only[2], *int4[2];
            for (int v = 0; v < 2; v++) {
                w4[v] = malloc((size_t)(k * n) * sizeof *w4[v]);
                x4[v] = malloc((size_t)(k * m) * sizeof *x4[v]);
                w4_only[v] = malloc((size_t)(m * n) * sizeof *w4_only[v]);
                int4[v] = malloc((size_t)(m * n) * sizeof *int4[v]);
                int4_rows(wq, n, k, int4_slices[v], 0, w4[v]);
                int4_rows(xf, m, k, int4_slices[v], INT4_DIGITS, x4[v]);
            }
            double *ref = malloc((size_t)(m * n) * sizeof *ref);
            float *on_cpu = malloc((size_t)(m * n) * sizeof *on_cpu);
            float *blk = malloc((size_t)(m * n) * sizeof *blk);
            float *row = malloc((size_t)(m * n) * sizeof *row);
            float *w_only = malloc((size_t)(m * n) * sizeof *w_only);
            float *a_only = malloc((size_t)(m * n) * sizeof *a_only);
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double acc = 0, acc_q = 0, acc_r = 0, acc_w = 0, acc_a = 0;
                    double acc_4w[2] = {0}, acc_4[2] = {0};
                    for (int64_t e = 0; e < k; e++) {
                        for (int v = 0; v < 2; v++) {
                            acc_4w[v] += (double)w4[v][j * k + e] * xf[i * k + e];
                            acc_4[v] += (double)w4[v][j * k + e] * x4[v][i * k + e];
                        }
                        acc += (double)wq[j * k + e] * xf[i * k + e];
                        acc_q += (double)wq[j * k + e] * xq[i * k + e];
                        acc_r += (double)wr[j * k + e] * x2[i * k + e];
                        acc_w += (double)wr[j * k + e] * xf[i * k + e];
                        acc_a += (double)wq[j * k + e] * xr[i * k + e];
                    }
                    ref[i * n + j] = acc;
                    blk[i * n + j] = (float)acc_q;
                    row[i * n + j] = (float)acc_r;
                    w_only[i * n + j] = (float)acc_w;
                    a_only[i * n + j] = (float)acc_a;
                    for (int v = 0; v < 2; v++) {
                        w4_only[v][i * n + j] = (float)acc_4w[v];
                        int4[v][i * n + j] = (float)acc_4[v];
                    }
                }
            ggml_backend_tensor_get(cc.out, on_cpu, 0, ggml_nbytes(cc.out));
            float *on_device = malloc((size_t)(m * n) * sizeof *on_device);
            if (!int4_on_device(rt, wq, xf, k, n, m, int4_slices[0], on_device))
                return 1;
            printf("%6s %8s | %10.3g %10.3g %10.3g %10.3g %10.3g %10.3g %10.3g | %10.3g %10.3g "
                   "%10.3g %10.3g %10.3g\n",
                   ggml_type_name(type), skewed ? "skewed" : "uniform", nmse(ref, on_fp16, m * n),
                   nmse(ref, on_auto, m * n), nmse(ref, on_cpu, m * n), nmse(ref, row, m * n),
                   nmse(ref, w_only, m * n), nmse(ref, a_only, m * n), nmse(ref, blk, m * n),
                   nmse(ref, w4_only[0], m * n), nmse(ref, int4[0], m * n),
                   nmse(ref, on_device, m * n), nmse(ref, w4_only[1], m * n),
                   nmse(ref, int4[1], m * n));
            free(on_device);
            for (int v = 0; v < 2; v++)
                free(w4[v]), free(x4[v]), free(w4_only[v]), free(int4[v]);
            fflush(stdout);
            free(wf), free(xf), free(wq), free(wr), free(blocks), free(xq), free(xr), free(xb);
            free(ref), free(on_fp16), free(on_auto), free(on_cpu), free(blk), free(row);
            free(w_only), free(a_only), free(x2);
            case_free_all(&cn);
            case_free_all(&cc);
        }
    /* the integer path with a scale per 32 weights: one K slice of one block per task (int8;
     * 4-bit types would run int4, no faster per slice), the slices summed on the host */
    const double k32_ms = modelled_ms(NPK_PREC_INT8, 128, 4096, 4096, 32, &host_k32);
    /* the int4 form (weights half a byte each on the NPU, a float scale per row and slice on
     * the host; INT4_DIGITS rows per token) at each slice, M = 128 and 1: the runtime's
     * per-group path, and one_call: every slice in one K-sliced matmul, as if the runtime
     * returned each slice's partial sums instead of adding them (a bound: the per-group path
     * runs a pass per group of slices) */
    enum { SLICES = sizeof int4_slices / sizeof int4_slices[0] };
    npk_rk_qweights_info at[SLICES][2];
    double one[SLICES][2];
    for (size_t v = 0; v < SLICES; v++)
        for (int i = 0; i < 2; i++) {
            const uint32_t slice = (uint32_t)int4_slices[v], rows = i ? 1 : 128;
            double host;
            if (!int4_cost(rt, 4096, 4096, slice, rows, &at[v][i]))
                return 1;
            one[v][i] = modelled_ms(NPK_PREC_INT4, INT4_DIGITS * rows, 4096, 4096, slice, &host);
            one[v][i] += host;
        }
    const double int4_bytes =
        npk_rk_b_layout_bytes(NPK_PREC_INT4, 4096, 4096, NPK_RK_NATIVE) / (4096.0 * 4096.0);
    printf("\n== the forms at 4096 x 4096 (MODELLED: NPU plus the host model's work, %u cores, "
           "%u tasks per SUBMIT; bytes per weight in NPU memory, packed, + scales on the host; "
           "int4: the runtime's per-group path, %d rows per token)\n",
           npk_rk_soc_default()->cores, (unsigned)NPK_RK_MAX_CHAIN, INT4_DIGITS);
    printf("%10s | %12s %12s | %14s\n", "form", "M=128 ms", "M=1 ms", "bytes/weight");
    printf("%10s | %12.3f %12.3f | %14.3f\n", "fp16", f16_ms + host_f16, f16_1 + host_f16_1,
           npk_rk_b_layout_bytes(NPK_PREC_FP16, 4096, 4096, NPK_RK_NATIVE) / (4096.0 * 4096.0));
    printf("%10s | %12.3f %12.3f | %14.3f\n", "int8_row", row_ms + host_row, row_1 + host_row_1,
           npk_rk_b_layout_bytes(NPK_PREC_INT8, 4096, 4096, NPK_RK_NATIVE) / (4096.0 * 4096.0));
    printf("%10s | %12.3f %12s | %14s\n", "int8_blk32", k32_ms + host_k32, "-", "1 + scales");
    char name[SLICES][16];
    for (size_t v = 0; v < SLICES; v++) {
        snprintf(name[v], sizeof name[v], "int4_s%lld", (long long)int4_slices[v]);
        printf("%10s | %12.3f %12.3f | %7.3f + %.3f\n", name[v], at[v][0].chosen_us / 1e3,
               at[v][1].chosen_us / 1e3, int4_bytes, 4.0 / (double)int4_slices[v]);
    }
    printf("\n== the int4 form's paths (MODELLED, ms): the runtime's choice of groups per pass, "
           "K-sliced tasks (a group per pass), and one call\n");
    printf("%10s | %10s %10s %8s %10s | %10s %10s %8s %10s\n", "form", "M=128", "ksliced",
           "per_pass", "one_call", "M=1", "ksliced", "per_pass", "one_call");
    for (size_t v = 0; v < SLICES; v++)
        printf("%10s | %10.3f %10.3f %8u %10.3f | %10.3f %10.3f %8u %10.3f\n", name[v],
               at[v][0].chosen_us / 1e3, at[v][0].ksliced_us / 1e3, at[v][0].groups_per_pass,
               one[v][0], at[v][1].chosen_us / 1e3, at[v][1].ksliced_us / 1e3,
               at[v][1].groups_per_pass, one[v][1]);
    return 0;
}

static int part_types(ggml_backend_t npu, ggml_backend_t cpu, const npu_api *api,
                      ggml_backend_dev_t cpu_dev, ggml_npukit_reload_fn reload)
{
    /* the int4 form runs on the simulator, at the backend's tasks per SUBMIT */
    npk_rk *rt = NULL;
    int rc = 1;
    if (npk_rk_open("sim", &rt) != NPK_OK || npk_rk_set_chain(rt, NPK_RK_MAX_CHAIN) != NPK_OK)
        fprintf(stderr, "bench_ggml: the simulator: %s\n", npk_last_error());
    else
        rc = types_with(rt, npu, cpu, api, cpu_dev, reload);
    npk_rk_close(rt);
    return rc;
}

/* Part 3: one MUL_MAT_ID node at decode (one token): the picked experts' GEMVs one runtime
 * call each (NPUKIT_GGML_BATCH=0) against one batched call (=1): modelled NPU time, submits and
 * runtime calls per node, from the device's counters; the results must agree bit for bit. */
static int part_moe(ggml_backend_t npu, const npu_api *api, ggml_npukit_reload_fn reload)
{
    static const struct {
        int64_t k, n, experts, used;
        enum ggml_type type;
    } rows[] = {
        {2048, 1408, 8, 2, GGML_TYPE_F16},  {2048, 1408, 64, 8, GGML_TYPE_F16},
        {2048, 1408, 64, 8, GGML_TYPE_Q8_0}, {4096, 14336, 8, 2, GGML_TYPE_Q8_0},
    };
    /* the node on the device in both arms: under auto the cost model leaves one token's
     * experts on the CPU, and there would be nothing to count */
    setenv("NPUKIT_GGML_OFFLOAD", "always", 1);
    reload();
    printf("\n== MUL_MAT_ID at decode (1 token): per node, the experts one call each vs one "
           "batched call (NPU time MODELLED; submits and calls counted)\n");
    printf("%6s %6s %7s %4s %5s | %12s %8s %6s | %12s %8s %6s | %6s\n", "K", "N", "experts",
           "used", "type", "npu_ms(1x1)", "submits", "calls", "npu_ms(batch)", "submits",
           "calls", "same");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const int64_t k = rows[r].k, n = rows[r].n, e = rows[r].experts, u = rows[r].used;
        struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL,
                                     true};
        struct ggml_context *ctx = ggml_init(p);
        struct ggml_tensor *w = ggml_new_tensor_3d(ctx, rows[r].type, k, n, e);
        struct ggml_tensor *x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, k, 1, 1);
        struct ggml_tensor *ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, u, 1);
        struct ggml_tensor *out = ggml_mul_mat_id(ctx, w, x, ids);
        struct ggml_cgraph *g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, out);
        ggml_backend_buffer_t buf =
            ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(api->dev));
        if (!buf)
            return 1;
        ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        float *wf = random_floats(k * n * e, 1.0f / sqrtf((float)k)), *xf = random_floats(k, 1);
        void *data = malloc(ggml_nbytes(w));
        if (rows[r].type == GGML_TYPE_F16)
            ggml_fp32_to_fp16_row(wf, data, k * n * e);
        else
            ggml_quantize_chunk(rows[r].type, wf, data, 0, n * e, k, NULL);
        ggml_backend_tensor_set(w, data, 0, ggml_nbytes(w));
        ggml_backend_tensor_set(x, xf, 0, ggml_nbytes(x));
        int32_t pick[64];
        for (int64_t i = 0; i < u; i++)
            pick[i] = (int32_t)((i * 7 + 3) % e); /* distinct experts */
        ggml_backend_tensor_set(ids, pick, 0, ggml_nbytes(ids));
        float *res[2] = {malloc(ggml_nbytes(out)), malloc(ggml_nbytes(out))};
        double npu_ms[2];
        uint64_t submits[2], calls[2];
        for (int batch = 0; batch < 2; batch++) {
            setenv("NPUKIT_GGML_BATCH", batch ? "1" : "0", 1);
            reload();
            ggml_npukit_counters a, b;
            /* the first compute packs the weights: the second is the per-node figure */
            if (ggml_backend_graph_compute(npu, g) != GGML_STATUS_SUCCESS)
                return 1;
            api->counters(api->dev, &a);
            if (ggml_backend_graph_compute(npu, g) != GGML_STATUS_SUCCESS)
                return 1;
            api->counters(api->dev, &b);
            npu_ms[batch] = (b.npu_ns - a.npu_ns) / 1e6;
            submits[batch] = b.submits - a.submits;
            calls[batch] = b.npu_calls - a.npu_calls;
            ggml_backend_tensor_get(out, res[batch], 0, ggml_nbytes(out));
        }
        unsetenv("NPUKIT_GGML_BATCH");
        const bool same = memcmp(res[0], res[1], ggml_nbytes(out)) == 0;
        printf("%6lld %6lld %7lld %4lld %5s | %12.3f %8llu %6llu | %12.3f %8llu %6llu | %6s\n",
               (long long)k, (long long)n, (long long)e, (long long)u,
               ggml_type_name(rows[r].type), npu_ms[0], (unsigned long long)submits[0],
               (unsigned long long)calls[0], npu_ms[1], (unsigned long long)submits[1],
               (unsigned long long)calls[1], same ? "yes" : "NO");
        free(wf), free(xf), free(data), free(res[0]), free(res[1]);
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
        if (!same)
            return 1;
    }
    unsetenv("NPUKIT_GGML_OFFLOAD");
    reload();
    return 0;
}

/* Part 4: decode (M = 1) where the weights live, per type the CPU repacks here, K x N =
 * 4096 x 4096: ggml's CPU backend with the weight in its CPU_REPACK buffer (the CPU alone),
 * the CPU backend with the weight in the device's buffer (ggml's own layout: what a device
 * that takes every weight leaves the CPU for the matmuls it gives back), and
 * ggml_backend_sched over the device and the CPU under NPUKIT_GGML_OFFLOAD=auto with the weight
 * in CPU_REPACK (what llama.cpp gets now). The three alternate, in a rotating order; medians
 * of the rounds. */
static int part_decode(ggml_backend_t npu, ggml_backend_t cpu, const npu_api *api,
                       ggml_backend_dev_t cpu_dev, ggml_npukit_reload_fn reload, bool quick)
{
    enum { K = 4096, N = 4096 };
    /* an odd count of rounds: the median is one round; three arms: CPU alone, the weight in
     * our buffer, the scheduler */
    enum { DECODE_ROUNDS = 61, ARMS = 3 };
    const int rounds = quick ? 5 : DECODE_ROUNDS;
    ggml_backend_buffer_type_t repack = npg_test_find_repack(cpu_dev);
    if (!repack) {
        printf("part 4: this CPU backend has no CPU_REPACK buffer type\n");
        return 0;
    }
    /* one CPU thread: the kernels compared, not the thread barriers of a loaded machine */
    ggml_backend_set_n_threads_t set_threads =
        (ggml_backend_set_n_threads_t)ggml_backend_reg_get_proc_address(
            ggml_backend_dev_backend_reg(cpu_dev), "ggml_backend_set_n_threads");
    if (set_threads)
        set_threads(cpu, 1);
    setenv("NPUKIT_GGML_OFFLOAD", "auto", 1);
    reload();
    printf("part 4: decode (M = 1), %d x %d, one CPU thread, medians of %d alternating rounds (ms "
           "per matmul; ratio to the CPU alone)\n",
           K, N, rounds);
    printf("%-6s %12s %18s %10s %18s %10s\n", "type", "CPU_REPACK", "device's buffer", "ratio",
           "sched, auto", "ratio");
    static const enum ggml_type types[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_IQ4_NL};
    float *wf = random_floats((int64_t)K * N, 0.05f), *xf = random_floats(K, 1.0f);
    int rc = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0] && rc == 0; t++) {
        op_case in_repack = {0}, in_ours = {0};
        bool ok = case_weights(&in_repack, repack, types[t], K, N, wf);
        if (ok && !in_repack.w->extra) {
            printf("%-6s the CPU does not repack it here\n", ggml_type_name(types[t]));
            case_free_all(&in_repack);
            continue;
        }
        ok = ok && case_acts(&in_repack, ggml_backend_cpu_buffer_type(), 1, xf) &&
             case_weights(&in_ours, ggml_backend_dev_buffer_type(api->dev), types[t], K, N, wf) &&
             case_acts(&in_ours, ggml_backend_cpu_buffer_type(), 1, xf);
        ggml_backend_t both[2] = {npu, cpu};
        ggml_backend_sched_t sched =
            ok ? ggml_backend_sched_new(both, NULL, 2, 64, false, true) : NULL;
        ok = sched && ggml_backend_sched_alloc_graph(sched, in_repack.g);
        ggml_npukit_counters c0, c1;
        api->counters(api->dev, &c0);
        double ms[ARMS][DECODE_ROUNDS];
        /* the arms in a rotating order: each follows each other one as often (an arm that
         * follows one reading the same weight finds it in the cache) */
        for (int r = 0; ok && r < rounds; r++)
            for (int i = 0; ok && i < ARMS; i++) {
                const int arm = (r + i) % ARMS;
                uint64_t t0 = now_ns();
                ok = arm == 2 ? ggml_backend_sched_graph_compute(sched, in_repack.g) ==
                                    GGML_STATUS_SUCCESS
                              : ggml_backend_graph_compute(cpu, arm ? in_ours.g : in_repack.g) ==
                                    GGML_STATUS_SUCCESS;
                ms[arm][r] = (now_ns() - t0) / 1e6;
            }
        api->counters(api->dev, &c1);
        if (!ok) {
            printf("%-6s FAILED to run\n", ggml_type_name(types[t]));
            rc = 1;
        } else {
            const double a = median(ms[0], rounds), b = median(ms[1], rounds),
                         c = median(ms[2], rounds);
            printf("%-6s %12.3f %18.3f %10.2f %18.3f %10.2f%s\n", ggml_type_name(types[t]), a, b,
                   b / a, c, c / a,
                   c1.npu_matmuls != c0.npu_matmuls ? " (the device took decode!)" : "");
        }
        if (sched)
            ggml_backend_sched_free(sched);
        case_free_all(&in_repack);
        case_free_all(&in_ours);
    }
    free(wf), free(xf);
    unsetenv("NPUKIT_GGML_OFFLOAD");
    reload();
    return rc;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    bool quick = false;
    int only = -1, part = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (strcmp(argv[i], "--part") == 0 && i + 1 < argc)
            part = atoi(argv[++i]);
        else
            dir = argv[i];
    }
#ifdef NPUKIT_GGML_DEFAULT_PLUGIN
    if (!dir)
        dir = NPUKIT_GGML_DEFAULT_BIN;
    if (!getenv("GGML_BACKEND_PATH"))
        setenv("GGML_BACKEND_PATH", NPUKIT_GGML_DEFAULT_PLUGIN, 0);
#endif
    /* The runtime's host parts timed by their threads' CPU time (docs/rk-runtime.md): they run
     * beside the simulator's computing on the same CPUs, whose waits for a CPU are no host
     * work on a board. NPUKIT_RK_HOST_CLOCK=wall in the environment keeps the wall clock. */
    setenv("NPUKIT_RK_HOST_CLOCK", "thread", 0);
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
    ggml_npukit_reload_fn reload =
        (ggml_npukit_reload_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_RELOAD);
    int rc = 0;
    if (part == 0 || part == 1)
        rc = part_layers(npu, cpu, &api, cpu_dev, reload, quick, only);
    if (rc == 0 && (part == 0 || part == 2))
        rc = part_types(npu, cpu, &api, cpu_dev, reload);
    if (rc == 0 && (part == 0 || part == 3))
        rc = part_moe(npu, &api, reload);
    if (rc == 0 && (part == 0 || part == 4))
        rc = part_decode(npu, cpu, &api, cpu_dev, reload, quick);
    ggml_backend_free(npu);
    ggml_backend_free(cpu);
    return rc;
}
