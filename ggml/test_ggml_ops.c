/* SPDX-License-Identifier: MIT */
/* The backend's SOFT_MAX, POOL_2D and CONV_2D on inputs ggml's suite does not draw (its values lie in
 * [-1, 1]), through ggml's API, against ggml's CPU backend:
 *
 *   - SOFT_MAX of F32 rows offset by 1e4, -3e4 and 6e4 (fp16's spacing there is 8 to 32: rows
 *     converted as they are would lose every difference and come out uniform); the same with
 *     a row spanning 1e5 (beyond fp16's range as it is, within it once shifted by its
 *     maximum): both on the device (npu_elementwise counts them; none on the host), NMSE below ggml's 1e-6;
 *   - POOL_2D: a 4x4 average with stride 4 and a 2x2 average with padding on a 33x20 plane of
 *     two images, 5 channels (power-of-two windows: the PDP), a 3x3 average with padding and
 *     a 1x3 one padded past its width (window sums), on the device (npu_pooling), NMSE below
 *     ggml's 1e-7; a 3x3 average of a source holding 1e4 (its window sums pass fp16's range)
 *     and a max pool of a source holding 1e6 (beyond fp16's range): on the host
 *     (host_pooling), exactly ggml's result;
 *   - CONV_2D: a padded 3x3 conv of a contiguous input and of a channel-first input permuted
 *     into ggml's order (a strided view), on the device (npu_convs), NMSE below ggml's 5e-4;
 *     and of an input holding 1e6: on the host (host_convs), in double; the suite's CWHN
 *     form (the input made channel-contiguous by a CONT, then permuted back): the conv on the
 *     device, the CONT on the host (host_copies, never NPU work);
 *   - which layout copies the device claims: a CONT under NPUKIT_GGML_OFFLOAD=always (never
 *     offload_op: a CPU graph's copies are not pulled to the device), none under auto or never.
 *   usage: test_ggml_ops CPU-BACKEND-DIR   (GGML_BACKEND_PATH names the backend; the device
 *   must run SDP tasks, the rknpu front end) */
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

/* ggml's test-backend-ops tolerances */
#define SOFT_MAX_TOL 1e-6
#define POOL_TOL 1e-7
#define CONV_TOL 5e-4

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static float urand(void) { return npg_test_urand(&rng_state); }

static ggml_backend_dev_t find_dev(const char *reg_name) { return npg_test_find_dev(reg_name); }

static double nmse(const float *ref, const float *v, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += ((double)v[i] - ref[i]) * ((double)v[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    return den > 0 ? num / den : num;
}

/* Builds one node of the input `x` (ne given, values `vals`); its other leaves get values of a
 * fixed seed. */
typedef struct ggml_tensor *(*node_fn)(struct ggml_context *c, struct ggml_tensor *x);

/* The node on `be` (its device's buffer type), the result into out. */
static bool run(ggml_backend_t be, ggml_backend_dev_t dev, node_fn make, const int64_t ne[4],
                const float *vals, float *out, size_t out_count)
{
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *c = ggml_init(p);
    struct ggml_tensor *x = ggml_new_tensor(c, GGML_TYPE_F32, 4, ne);
    struct ggml_tensor *y = make(c, x);
    struct ggml_cgraph *g = ggml_new_graph(c);
    ggml_build_forward_expand(g, y);
    ggml_backend_buffer_t buf =
        ggml_backend_alloc_ctx_tensors_from_buft(c, ggml_backend_dev_buffer_type(dev));
    bool ok = buf && (size_t)ggml_nelements(y) == out_count;
    if (ok) {
        ggml_backend_tensor_set(x, vals, 0, ggml_nbytes(x));
        /* the node's other sources (a conv's kernel): the same values on both backends */
        uint64_t state = 0x2545f4914f6cdd1dull;
        for (struct ggml_tensor *t = ggml_get_first_tensor(c); t; t = ggml_get_next_tensor(c, t))
            if (t != x && t->op == GGML_OP_NONE && t->type == GGML_TYPE_F32 && t->data) {
                const uint64_t saved = rng_state;
                rng_state = state;
                for (int64_t i = 0; i < ggml_nelements(t); i++) {
                    const float v = urand() * 0.5f;
                    ggml_backend_tensor_set(t, &v, (size_t)i * sizeof v, sizeof v);
                }
                state = rng_state;
                rng_state = saved;
            }
        ok = ggml_backend_graph_compute(be, g) == GGML_STATUS_SUCCESS;
    }
    if (ok)
        ggml_backend_tensor_get(y, out, 0, ggml_nbytes(y));
    ggml_backend_buffer_free(buf);
    ggml_free(c);
    return ok;
}

typedef enum kind { SOFT_MAX, POOLING, CONV } kind;

typedef struct ctx {
    ggml_backend_t npu, cpu;
    ggml_backend_dev_t npu_dev, cpu_dev;
    ggml_npukit_counters_fn counters;
} ctx;

/* One case: the node on both backends; its NMSE against the CPU's at most tol, and the
 * counters' change: `on_npu` nodes computed by the device, `on_host` on its host path. */
static int check(const ctx *t, const char *name, node_fn make, const int64_t ne[4],
                 const float *vals, size_t out_count, double tol, kind k, uint64_t on_npu,
                 uint64_t on_host)
{
    float *res = malloc(out_count * sizeof *res), *ref = malloc(out_count * sizeof *ref);
    ggml_npukit_counters a, b;
    t->counters(t->npu_dev, &a);
    const bool ok = res && ref && run(t->npu, t->npu_dev, make, ne, vals, res, out_count) &&
                    run(t->cpu, t->cpu_dev, make, ne, vals, ref, out_count);
    t->counters(t->npu_dev, &b);
    int fails = 0;
    if (!ok) {
        printf("FAIL: %s: did not compute\n", name);
        fails = 1;
    } else {
        const uint64_t npu = k == POOLING ? b.npu_pooling - a.npu_pooling
                             : k == CONV  ? b.npu_convs - a.npu_convs
                                          : b.npu_elementwise - a.npu_elementwise;
        const uint64_t host = k == POOLING ? b.host_pooling - a.host_pooling
                              : k == CONV  ? b.host_convs - a.host_convs
                                           : b.host_elementwise - a.host_elementwise;
        const double e = nmse(ref, res, out_count);
        fails = !(e <= tol) || npu != on_npu || host != on_host;
        printf("%s %s: NMSE %.3g (limit %.0e), device %llu, host %llu (expected %llu, %llu)\n",
               fails ? "FAIL" : "ok", name, e, tol, (unsigned long long)npu,
               (unsigned long long)host, (unsigned long long)on_npu, (unsigned long long)on_host);
    }
    free(res);
    free(ref);
    return fails;
}

static struct ggml_tensor *soft_max(struct ggml_context *c, struct ggml_tensor *x)
{
    return ggml_soft_max(c, x);
}

static struct ggml_tensor *avg_4x4(struct ggml_context *c, struct ggml_tensor *x)
{
    return ggml_pool_2d(c, x, GGML_OP_POOL_AVG, 4, 4, 4, 4, 0, 0);
}

static struct ggml_tensor *avg_2x2_padded(struct ggml_context *c, struct ggml_tensor *x)
{
    return ggml_pool_2d(c, x, GGML_OP_POOL_AVG, 2, 2, 1, 2, 1, 1);
}

static struct ggml_tensor *avg_3x3_padded(struct ggml_context *c, struct ggml_tensor *x)
{
    return ggml_pool_2d(c, x, GGML_OP_POOL_AVG, 3, 3, 1, 1, 1, 1);
}

/* a 1-wide kernel padded by 1 left and right (padding the PDP refuses: not below the kernel) */
static struct ggml_tensor *avg_1x3_padded(struct ggml_context *c, struct ggml_tensor *x)
{
    return ggml_pool_2d(c, x, GGML_OP_POOL_AVG, 1, 3, 2, 1, 1, 0);
}

static struct ggml_tensor *max_3x3(struct ggml_context *c, struct ggml_tensor *x)
{
    return ggml_pool_2d(c, x, GGML_OP_POOL_MAX, 3, 3, 2, 2, 1, 1);
}

enum { CW = 9, CH = 7, CC = 3, CN = 2, COC = 4 };

/* A 3x3 conv, stride 1, padding 1, of the input as ggml lays it out ([W, H, C, N]). */
static struct ggml_tensor *conv_whcn(struct ggml_context *c, struct ggml_tensor *x)
{
    struct ggml_tensor *k = ggml_new_tensor_4d(c, GGML_TYPE_F32, 3, 3, CC, COC);
    return ggml_conv_2d_direct(c, k, x, 1, 1, 1, 1, 1, 1);
}

/* The same of an input stored channel-first ([C, W, H, N]) and permuted to [W, H, C, N]: a
 * view with strides the backend gathers through. */
static struct ggml_tensor *conv_cwhn(struct ggml_context *c, struct ggml_tensor *x)
{
    return conv_whcn(c, ggml_permute(c, x, 2, 0, 1, 3));
}

/* The suite's CWHN form: the input made channel-contiguous by a CONT ([C, W, H, N] in memory),
 * then permuted back to [W, H, C, N] for the conv. */
static struct ggml_tensor *conv_cont_cwhn(struct ggml_context *c, struct ggml_tensor *x)
{
    struct ggml_tensor *cwhn = ggml_cont(c, ggml_permute(c, x, 1, 2, 0, 3));
    return conv_whcn(c, ggml_permute(c, cwhn, 2, 0, 1, 3));
}

static int check_conv(const ctx *t)
{
    enum { COUNT = CW * CH * CC * CN, OUT = CW * CH * COC * CN };
    float x[COUNT];
    for (int i = 0; i < COUNT; i++)
        x[i] = urand();
    const int64_t whcn[4] = {CW, CH, CC, CN}, cwhn[4] = {CC, CW, CH, CN};
    int fails = check(t, "CONV_2D 3x3 padded", conv_whcn, whcn, x, OUT, CONV_TOL, CONV, 1, 0);
    fails += check(t, "CONV_2D 3x3 of a CWHN view", conv_cwhn, cwhn, x, OUT, CONV_TOL, CONV, 1,
                   0);
    ggml_npukit_counters a, b;
    t->counters(t->npu_dev, &a);
    fails += check(t, "CONV_2D 3x3 of a CONT made CWHN", conv_cont_cwhn, whcn, x, OUT, CONV_TOL,
                   CONV, 1, 0);
    t->counters(t->npu_dev, &b);
    if (b.host_copies - a.host_copies != 1) {
        printf("FAIL: the CWHN CONT: %llu host copies, expected 1\n",
               (unsigned long long)(b.host_copies - a.host_copies));
        fails++;
    }
    x[10] = 1e6f; /* beyond fp16's range: convolved on the host */
    fails += check(t, "CONV_2D of an input holding 1e6", conv_whcn, whcn, x, OUT, 1e-10, CONV,
                   0, 1);
    return fails;
}

static int check_soft_max(const ctx *t)
{
    enum { N = 64, ROWS = 4 };
    const float offset[ROWS] = {1e4f, -3e4f, 6e4f, 0.0f};
    float x[ROWS * N];
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < N; i++)
            x[r * N + i] = offset[r] + urand() * 3.0f;
    const int64_t ne[4] = {N, ROWS, 1, 1};
    int fails = check(t, "SOFT_MAX of rows offset by 1e4, -3e4, 6e4 and 0", soft_max, ne, x,
                      ROWS * N, SOFT_MAX_TOL, SOFT_MAX, 1, 0);
    x[3 * N + 5] = -1e5f; /* the last row spans 1e5: beyond fp16 unless shifted */
    fails += check(t, "SOFT_MAX with a row spanning 1e5", soft_max, ne, x, ROWS * N,
                   SOFT_MAX_TOL, SOFT_MAX, 1, 0);
    return fails;
}

static int check_pool(const ctx *t)
{
    enum { W = 33, H = 20, C = 5, B = 2, COUNT = W * H * C * B };
    float *x = malloc(COUNT * sizeof *x);
    if (!x)
        return 1;
    for (int i = 0; i < COUNT; i++)
        x[i] = urand();
    const int64_t ne[4] = {W, H, C, B};
    /* output extents: (33 - 4) / 4 + 1 = 8 by (20 - 4) / 4 + 1 = 5; (33 + 2 - 2) + 1 = 34 by
     * (20 + 2 - 2) / 2 + 1 = 11; (33 + 2 - 3) / 2 + 1 = 17 by (20 + 2 - 3) / 2 + 1 = 10 */
    int fails = check(t, "POOL_2D avg 4x4 stride 4", avg_4x4, ne, x, 8 * 5 * C * B, POOL_TOL,
                      POOLING, 1, 0);
    fails += check(t, "POOL_2D avg 2x2 stride 1x2 padding 1", avg_2x2_padded, ne, x,
                   34 * 11 * C * B, POOL_TOL, POOLING, 1, 0);
    /* windows of 9 and 3 cells: window sums split hi + lo (npg_pool.c) */
    fails += check(t, "POOL_2D avg 3x3 padding 1 (window sums)", avg_3x3_padded, ne, x,
                   33 * 20 * C * B, POOL_TOL, POOLING, 1, 0);
    fails += check(t, "POOL_2D avg 1x3 stride 2x1 padding 1x0 (window sums)", avg_1x3_padded,
                   ne, x, 18 * 18 * C * B, POOL_TOL, POOLING, 1, 0);
    x[4 * W + 9] = 1e4f; /* within fp16, but a 9-cell sum of it is not: on the host, exactly */
    fails += check(t, "POOL_2D avg 3x3 of a source holding 1e4", avg_3x3_padded, ne, x,
                   33 * 20 * C * B, 0.0, POOLING, 0, 1);
    x[7 * W + 3] = 1e6f; /* beyond fp16's range: pooled on the host, exactly */
    fails += check(t, "POOL_2D max 3x3 of a source holding 1e6", max_3x3, ne, x,
                   17 * 10 * C * B, 0.0, POOLING, 0, 1);
    free(x);
    return fails;
}

/* Whether the device claims a CONT (supports_op) and asks for it (offload_op) under the
 * offload policy `policy`. */
static int check_claim(const ctx *t, const char *policy, bool claims)
{
    ggml_npukit_reload_fn reload = (ggml_npukit_reload_fn)ggml_backend_reg_get_proc_address(
        ggml_backend_dev_backend_reg(t->npu_dev), GGML_NPUKIT_RELOAD);
    struct ggml_init_params p = {ggml_tensor_overhead() * 4, NULL, true};
    struct ggml_context *c = ggml_init(p);
    if (!reload || !c || setenv("NPUKIT_GGML_OFFLOAD", policy, 1) != 0) {
        printf("FAIL: CONT claim under %s: no reload function or context\n", policy);
        ggml_free(c);
        return 1;
    }
    reload();
    struct ggml_tensor *x = ggml_new_tensor_4d(c, GGML_TYPE_F32, CW, CH, CC, CN);
    struct ggml_tensor *copy = ggml_cont(c, ggml_permute(c, x, 1, 2, 0, 3));
    const bool supported = ggml_backend_dev_supports_op(t->npu_dev, copy),
               offloaded = ggml_backend_dev_offload_op(t->npu_dev, copy);
    const int fails = supported != claims || offloaded;
    printf("%s CONT under %s: supports_op %d (expected %d), offload_op %d (expected 0)\n",
           fails ? "FAIL" : "ok", policy, supported, claims, offloaded);
    ggml_free(c);
    return fails;
}

static int check_claims(const ctx *t)
{
    int fails = check_claim(t, "auto", false) + check_claim(t, "never", false) +
                check_claim(t, "always", true);
    return fails;
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
    ctx t = {.npu_dev = npu_dev, .cpu_dev = cpu_dev,
             .counters = (ggml_npukit_counters_fn)ggml_backend_reg_get_proc_address(
                 reg, GGML_NPUKIT_COUNTERS)};
    t.cpu = ggml_backend_dev_init(cpu_dev, NULL);
    t.npu = ggml_backend_dev_init(npu_dev, NULL);
    int fails = check_soft_max(&t) + check_pool(&t) + check_conv(&t) + check_claims(&t);
    ggml_backend_free(t.npu);
    ggml_backend_free(t.cpu);
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
