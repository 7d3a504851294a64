/* SPDX-License-Identifier: MIT */
/* Weights the CPU backend keeps repacked (its CPU_REPACK buffer type), through ggml's API:
 *
 *   - every type this CPU repacks: a weight in a CPU_REPACK buffer multiplied on the device
 *     must give, bit for bit, what the same blocks in the device's own buffer give (the
 *     device rebuilds ggml's layout from the CPU's interleaved bytes exactly), agree with
 *     ggml's CPU backend on its repacked kernels (NMSE below ggml's MUL_MAT tolerance), and
 *     be packed once; a type whose interleaved form the device cannot read must not be claimed
 *     (the CPU computes it); the same for Q4_0 experts (MUL_MAT_ID);
 *   - placement as llama.cpp does it (the first buffer type whose device takes a 512-row matmul
 *     of the weight): under NPUKIT_GGML_OFFLOAD=auto a Q4_0 weight the CPU repacks goes to
 *     CPU_REPACK, an F16 weight to the device;
 *   - ggml_backend_sched over the device and the CPU, with a Q4_0 weight in CPU_REPACK, under
 *     auto: the prefill-sized matmul runs on the device, the decode-sized one (M = 1) on the
 *     CPU, both right.
 *   usage: test_ggml_repack CPU-BACKEND-DIR   (GGML_BACKEND_PATH names the backend) */
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

/* ggml's test-backend-ops tolerance for MUL_MAT */
#define NMSE_TOL 5e-4

static uint64_t rng_state = 0x6a09e667f3bcc909ull;
static float urand(void) { return npg_test_urand(&rng_state); }

typedef struct env {
    ggml_backend_dev_t cpu_dev, npu_dev;
    ggml_backend_t cpu, npu;
    ggml_backend_buffer_type_t repack; /* the CPU's CPU_REPACK */
    ggml_npukit_counters_fn counters;
    ggml_npukit_reload_fn reload;
} env;

static double nmse(const float *ref, const float *got, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += ((double)got[i] - ref[i]) * ((double)got[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    return den > 0 ? num / den : num;
}

/* n random values quantised to `type` (ggml's own quantiser). */
static void *random_blocks(enum ggml_type type, int64_t k, int64_t rows)
{
    float *f = malloc((size_t)(k * rows) * sizeof *f);
    void *q = malloc(ggml_row_size(type, k) * (size_t)rows);
    for (int64_t i = 0; i < k * rows; i++)
        f[i] = urand() * (1.0f + (float)(i % 7)); /* uneven blocks */
    ggml_quantize_chunk(type, f, q, 0, rows, k, NULL);
    free(f);
    return q;
}

/* One matmul W (K x N, `type`, its blocks `blocks`, in a buffer of `buft`) by X (K x M). */
typedef struct mm {
    struct ggml_context *wctx, *ctx; /* the weight's, the rest's */
    ggml_backend_buffer_t wbuf, xbuf;
    struct ggml_tensor *w, *x, *y;
    struct ggml_cgraph *g;
} mm;

static bool mm_make(mm *m, ggml_backend_buffer_type_t buft, enum ggml_type type, int64_t k,
                    int64_t n, int64_t rows, const void *blocks, const float *x)
{
    memset(m, 0, sizeof *m);
    struct ggml_init_params p = {ggml_tensor_overhead() * 4 + ggml_graph_overhead(), NULL, true};
    m->ctx = ggml_init(p);
    m->wctx = ggml_init(p);
    m->w = ggml_new_tensor_2d(m->wctx, type, k, n);
    m->x = ggml_new_tensor_2d(m->ctx, GGML_TYPE_F32, k, rows);
    m->y = ggml_mul_mat(m->ctx, m->w, m->x);
    m->g = ggml_new_graph(m->ctx);
    ggml_build_forward_expand(m->g, m->y);
    m->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(m->wctx, buft);
    m->xbuf = ggml_backend_alloc_ctx_tensors_from_buft(m->ctx, ggml_backend_cpu_buffer_type());
    if (!m->wbuf || !m->xbuf)
        return false;
    ggml_backend_buffer_set_usage(m->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    /* CPU_REPACK takes only what the CPU repacks (its tensor traits; the caller checks) */
    if (!ggml_backend_buft_is_host(buft) && !m->w->extra)
        return true;
    ggml_backend_tensor_set(m->w, blocks, 0, ggml_nbytes(m->w));
    ggml_backend_tensor_set(m->x, x, 0, ggml_nbytes(m->x));
    return true;
}

static void mm_free(mm *m)
{
    ggml_backend_buffer_free(m->wbuf);
    ggml_backend_buffer_free(m->xbuf);
    ggml_free(m->wctx);
    ggml_free(m->ctx);
}

/* ---- every type the CPU repacks here, through the device ------------------------------- */

/* The types whose every interleaved form in the pinned ggml the device reads (on RISC-V's
 * 16-row forms of Q8_0 it may decline): where the CPU repacks them, the device must read them. */
static bool device_reads(enum ggml_type type)
{
    return type == GGML_TYPE_Q4_0 || type == GGML_TYPE_Q8_0 || type == GGML_TYPE_IQ4_NL ||
           type == GGML_TYPE_MXFP4 || type == GGML_TYPE_Q4_K || type == GGML_TYPE_Q5_K ||
           type == GGML_TYPE_Q6_K;
}

static int check_type(const env *e, enum ggml_type type)
{
    enum { K = 512, N = 64, M = 5 };
    void *blocks = random_blocks(type, K, N);
    float x[K * M], y_repack[N * M], y_ours[N * M], y_cpu[N * M];
    for (int i = 0; i < K * M; i++)
        x[i] = urand();
    mm r = {0}, o = {0};
    int fails = 0;
    bool made = mm_make(&r, e->repack, type, K, N, M, blocks, x) &&
                mm_make(&o, ggml_backend_dev_buffer_type(e->npu_dev), type, K, N, M, blocks, x);
    if (!made) {
        printf("FAIL: %s: buffers not allocated\n", ggml_type_name(type));
        fails = 1;
    } else if (!r.w->extra) {
        printf("%-7s the CPU does not repack it here: nothing to check\n", ggml_type_name(type));
    } else {
        const bool claimed = ggml_backend_dev_supports_op(e->npu_dev, r.y);
        ggml_npukit_counters c0, c1, c2;
        e->counters(e->npu_dev, &c0);
        bool ok = ggml_backend_graph_compute(e->npu, r.g) == GGML_STATUS_SUCCESS;
        ggml_backend_tensor_get(r.y, y_repack, 0, sizeof y_repack);
        e->counters(e->npu_dev, &c1);
        ok = ok && ggml_backend_graph_compute(e->npu, r.g) == GGML_STATUS_SUCCESS; /* again */
        e->counters(e->npu_dev, &c2);
        ok = ok && ggml_backend_graph_compute(e->npu, o.g) == GGML_STATUS_SUCCESS &&
             ggml_backend_graph_compute(e->cpu, r.g) == GGML_STATUS_SUCCESS;
        ggml_backend_tensor_get(o.y, y_ours, 0, sizeof y_ours);
        ggml_backend_tensor_get(r.y, y_cpu, 0, sizeof y_cpu);
        const uint64_t on_npu = c1.npu_matmuls - c0.npu_matmuls, packs_again = c2.packs - c1.packs;
        const double err = nmse(y_cpu, y_repack, N * M);
        const bool same = memcmp(y_repack, y_ours, sizeof y_ours) == 0;
        printf("%-7s %s: NMSE vs the CPU's repacked kernels %.2g; vs the same blocks in the "
               "device's buffer: %s; packed again on a second run: %llu\n",
               ggml_type_name(type), claimed ? "read by the device" : "left to the CPU", err,
               same ? "identical" : "DIFFERENT", (unsigned long long)packs_again);
        if (!ok || !(err <= NMSE_TOL))
            fails++;
        /* claimed: computed on the NPU, exactly as from ggml's layout, packed once; not
         * claimed: never computed by the device (ggml's CPU backend ran it) */
        if (claimed ? on_npu != 1 || !same || packs_again != 0 : on_npu != 0)
            fails++;
        if (!claimed && device_reads(type)) {
            printf("FAIL: %s: the device did not read a form it knows\n", ggml_type_name(type));
            fails++;
        }
    }
    mm_free(&r);
    mm_free(&o);
    free(blocks);
    return fails;
}

/* ---- experts (MUL_MAT_ID) in CPU_REPACK ------------------------------------------------- */

/* A Q4_0 expert tensor (K x N x E) in CPU_REPACK, each of T tokens using U experts: the device's
 * result must equal, bit for bit, that of the same blocks in its own buffer, and agree with the
 * CPU's repacked kernels. */
static int check_experts(const env *e)
{
    enum { K = 256, N = 32, E = 4, U = 2, T = 3 };
    void *blocks = random_blocks(GGML_TYPE_Q4_0, K, N * E);
    float x[K * U * T], y[2][N * U * T], y_cpu[N * U * T];
    int32_t ids[U * T];
    for (int i = 0; i < K * U * T; i++)
        x[i] = urand();
    for (int i = 0; i < U * T; i++)
        ids[i] = (i * 3 + 1) % E;
    ggml_backend_buffer_type_t where[2] = {e->repack, ggml_backend_dev_buffer_type(e->npu_dev)};
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    bool ok = true, repacked = true;
    uint64_t on_npu = 0;
    for (int i = 0; i < 2; i++) {
        struct ggml_context *wctx = ggml_init(p), *ctx = ggml_init(p);
        struct ggml_tensor *w = ggml_new_tensor_3d(wctx, GGML_TYPE_Q4_0, K, N, E);
        struct ggml_tensor *tx = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, U, T);
        struct ggml_tensor *tid = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, U, T);
        struct ggml_tensor *out = ggml_mul_mat_id(ctx, w, tx, tid);
        struct ggml_cgraph *g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, out);
        ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, where[i]);
        ggml_backend_buffer_t xbuf =
            ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
        ok &= wbuf && xbuf;
        repacked &= i == 1 || (wbuf && w->extra); /* CPU_REPACK takes what the CPU repacks */
        if (wbuf && xbuf && repacked) {
            ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            ggml_backend_tensor_set(w, blocks, 0, ggml_nbytes(w));
            ggml_backend_tensor_set(tx, x, 0, sizeof x);
            ggml_backend_tensor_set(tid, ids, 0, sizeof ids);
            ggml_npukit_counters c0, c1;
            e->counters(e->npu_dev, &c0);
            ok &= ggml_backend_graph_compute(e->npu, g) == GGML_STATUS_SUCCESS;
            e->counters(e->npu_dev, &c1);
            on_npu += c1.npu_matmuls - c0.npu_matmuls;
            ggml_backend_tensor_get(out, y[i], 0, sizeof y[i]);
            if (i == 0) {
                ok &= ggml_backend_graph_compute(e->cpu, g) == GGML_STATUS_SUCCESS;
                ggml_backend_tensor_get(out, y_cpu, 0, sizeof y_cpu);
            }
        }
        ggml_backend_buffer_free(wbuf);
        ggml_backend_buffer_free(xbuf);
        ggml_free(wctx), ggml_free(ctx);
        if (!repacked)
            break;
    }
    free(blocks);
    if (ok && !repacked) {
        printf("experts: the CPU does not repack Q4_0 experts here: nothing to check\n");
        return 0;
    }
    const double err = nmse(y_cpu, y[0], N * U * T);
    const bool same = memcmp(y[0], y[1], sizeof y[0]) == 0;
    printf("experts: Q4_0 %dx%dx%d in CPU_REPACK, %d tokens x %d: NMSE vs the CPU's repacked "
           "kernels %.2g; vs the device's buffer: %s; device nodes %llu\n",
           K, N, E, T, U, err, same ? "identical" : "DIFFERENT", (unsigned long long)on_npu);
    return ok && same && err <= NMSE_TOL && on_npu == 2 ? 0 : 1;
}

/* ---- placement, as llama.cpp places a weight --------------------------------------------- */

/* The first of (device buffer, CPU_REPACK, CPU buffer) whose device takes a 512-row matmul of
 * an unallocated K x N weight of `type` in an empty buffer of that type. */
static ggml_backend_buffer_type_t place(const env *e, enum ggml_type type, int64_t k, int64_t n)
{
    const struct {
        ggml_backend_dev_t dev;
        ggml_backend_buffer_type_t buft;
    } list[] = {{e->npu_dev, ggml_backend_dev_buffer_type(e->npu_dev)},
                {e->cpu_dev, e->repack},
                {e->cpu_dev, ggml_backend_dev_buffer_type(e->cpu_dev)}};
    struct ggml_init_params p = {ggml_tensor_overhead() * 4, NULL, true};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *w = ggml_new_tensor_2d(ctx, type, k, n);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, 512);
    struct ggml_tensor *op = ggml_mul_mat(ctx, w, b);
    ggml_backend_buffer_type_t chosen = NULL;
    for (size_t i = 0; i < sizeof list / sizeof list[0] && !chosen; i++) {
        w->buffer = ggml_backend_buft_alloc_buffer(list[i].buft, 0);
        if (ggml_backend_dev_supports_op(list[i].dev, op))
            chosen = list[i].buft;
        ggml_backend_buffer_free(w->buffer);
        w->buffer = NULL;
    }
    ggml_free(ctx);
    return chosen;
}

/* The CPU would repack a K x N weight of `type` (an allocated probe tells: its traits). */
static bool cpu_repacks(const env *e, enum ggml_type type, int64_t k, int64_t n)
{
    struct ggml_init_params p = {ggml_tensor_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *w = ggml_new_tensor_2d(ctx, type, k, n);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, e->repack);
    const bool yes = buf && w->extra;
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    return yes;
}

static int check_placement(const env *e)
{
    enum { K = 1024, N = 1024 };
    const struct {
        enum ggml_type type;
        bool repacked; /* expected in CPU_REPACK (when the CPU repacks the type here) */
    } rows[] = {{GGML_TYPE_Q4_0, true}, {GGML_TYPE_F16, false}};
    int fails = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ggml_backend_buffer_type_t got = place(e, rows[i].type, K, N);
        const bool repacks = rows[i].repacked && cpu_repacks(e, rows[i].type, K, N);
        ggml_backend_buffer_type_t want =
            repacks ? e->repack : ggml_backend_dev_buffer_type(e->npu_dev);
        printf("placement under auto: %s %dx%d weight in %s (expected %s)\n",
               ggml_type_name(rows[i].type), K, N, got ? ggml_backend_buft_name(got) : "nothing",
               ggml_backend_buft_name(want));
        fails += got != want;
    }
    /* decisions are remembered per shape, but not past a new reading of the settings: with a
     * CPU as fast as any NPU the F16 weight goes to the CPU's buffer */
    setenv("NPUKIT_GGML_CPU_GFLOPS", "900000", 1);
    e->reload();
    ggml_backend_buffer_type_t got = place(e, GGML_TYPE_F16, K, N),
                               want = ggml_backend_dev_buffer_type(e->cpu_dev);
    printf("placement with NPUKIT_GGML_CPU_GFLOPS=900000: f16 weight in %s (expected %s)\n",
           got ? ggml_backend_buft_name(got) : "nothing", ggml_backend_buft_name(want));
    fails += got != want;
    unsetenv("NPUKIT_GGML_CPU_GFLOPS");
    e->reload();
    return fails;
}

/* ---- the scheduler: prefill on the device, decode on the CPU ---------------------------- */

static int check_sched(const env *e)
{
    enum { K = 1024, N = 512, PREFILL = 128 };
    if (!cpu_repacks(e, GGML_TYPE_Q4_0, K, N)) {
        printf("scheduler: the CPU does not repack Q4_0 here: nothing to check\n");
        return 0;
    }
    void *blocks = random_blocks(GGML_TYPE_Q4_0, K, N);
    struct ggml_init_params p = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *wctx = ggml_init(p), *ctx = ggml_init(p);
    struct ggml_tensor *w = ggml_new_tensor_2d(wctx, GGML_TYPE_Q4_0, K, N);
    struct ggml_tensor *xp = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, PREFILL);
    struct ggml_tensor *xd = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, 1);
    ggml_set_input(xp), ggml_set_input(xd);
    struct ggml_tensor *yp = ggml_mul_mat(ctx, w, xp), *yd = ggml_mul_mat(ctx, w, xd);
    ggml_set_output(yp), ggml_set_output(yd);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, yp);
    ggml_build_forward_expand(g, yd);
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, e->repack);
    ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_tensor_set(w, blocks, 0, ggml_nbytes(w));
    ggml_backend_t backends[2] = {e->npu, e->cpu};
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, false, true);
    float *x = malloc((size_t)K * PREFILL * sizeof *x);
    for (int i = 0; i < K * PREFILL; i++)
        x[i] = urand();
    ggml_npukit_counters c0, c1;
    e->counters(e->npu_dev, &c0);
    bool ok = ggml_backend_sched_alloc_graph(sched, g);
    if (ok) {
        ggml_backend_tensor_set(xp, x, 0, ggml_nbytes(xp));
        ggml_backend_tensor_set(xd, x, 0, ggml_nbytes(xd));
        ok = ggml_backend_sched_graph_compute(sched, g) == GGML_STATUS_SUCCESS;
    }
    e->counters(e->npu_dev, &c1);
    ggml_backend_t bp = ggml_backend_sched_get_tensor_backend(sched, yp),
                   bd = ggml_backend_sched_get_tensor_backend(sched, yd);
    float *got = malloc((size_t)N * PREFILL * sizeof *got), gotd[N];
    float *ref = malloc((size_t)N * PREFILL * sizeof *ref);
    if (ok) {
        ggml_backend_tensor_get(yp, got, 0, ggml_nbytes(yp));
        ggml_backend_tensor_get(yd, gotd, 0, sizeof gotd);
    }
    /* the reference: ggml's CPU backend alone, ggml's own layout */
    float *wf = malloc((size_t)K * N * sizeof *wf);
    ggml_get_type_traits(GGML_TYPE_Q4_0)->to_float(blocks, wf, (int64_t)K * N);
    for (int m = 0; m < PREFILL; m++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int i = 0; i < K; i++)
                acc += (double)wf[j * K + i] * x[m * K + i];
            ref[m * N + j] = (float)acc;
        }
    const double ep = ok ? nmse(ref, got, (size_t)N * PREFILL) : INFINITY,
                 ed = ok ? nmse(ref, gotd, N) : INFINITY;
    printf("scheduler under auto, Q4_0 %dx%d in CPU_REPACK: M=%d on %s (NMSE %.2g), M=1 on %s "
           "(NMSE %.2g); device matmuls %llu\n",
           K, N, PREFILL, bp ? ggml_backend_name(bp) : "?", ep, bd ? ggml_backend_name(bd) : "?",
           ed, (unsigned long long)(c1.npu_matmuls - c0.npu_matmuls));
    const bool right = ok && bp == e->npu && bd == e->cpu && ep <= NMSE_TOL && ed <= NMSE_TOL &&
                       c1.npu_matmuls - c0.npu_matmuls == 1;
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(wbuf);
    ggml_free(wctx), ggml_free(ctx);
    free(blocks), free(x), free(got), free(ref), free(wf);
    return right ? 0 : 1;
}

int main(int argc, char **argv)
{
    ggml_backend_load_all_from_path(argc > 1 ? argv[1] : NULL);
    env e = {.cpu_dev = npg_test_find_dev("CPU"), .npu_dev = npg_test_find_dev("NPUKIT")};
    if (!e.cpu_dev || !e.npu_dev) {
        printf("SKIP: %s not loaded (GGML_BACKEND_PATH=%s)\n", e.cpu_dev ? "npukit" : "CPU",
               getenv("GGML_BACKEND_PATH") ? getenv("GGML_BACKEND_PATH") : "(unset)");
        return 77;
    }
    e.repack = npg_test_find_repack(e.cpu_dev);
    if (!e.repack) {
        printf("SKIP: this CPU backend has no CPU_REPACK buffer type\n");
        return 77;
    }
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(e.npu_dev);
    e.counters =
        (ggml_npukit_counters_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_COUNTERS);
    e.reload = (ggml_npukit_reload_fn)ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_RELOAD);
    e.cpu = ggml_backend_dev_init(e.cpu_dev, NULL);
    e.npu = ggml_backend_dev_init(e.npu_dev, NULL);
    int fails = 0;
    /* every type the pinned ggml's CPU can repack; the device claims all (OFFLOAD=always) */
    static const enum ggml_type types[] = {GGML_TYPE_Q4_0,  GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL,
                                           GGML_TYPE_MXFP4, GGML_TYPE_Q4_K, GGML_TYPE_Q2_K,
                                           GGML_TYPE_Q5_K,  GGML_TYPE_Q6_K};
    setenv("NPUKIT_GGML_OFFLOAD", "always", 1);
    e.reload();
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        fails += check_type(&e, types[i]);
    fails += check_experts(&e);
    setenv("NPUKIT_GGML_OFFLOAD", "auto", 1);
    e.reload();
    fails += check_placement(&e);
    fails += check_sched(&e);
    ggml_backend_free(e.npu);
    ggml_backend_free(e.cpu);
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
