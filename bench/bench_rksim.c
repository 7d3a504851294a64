/* SPDX-License-Identifier: MIT */
/* The simulator's speed against the CPU's, in one run, as medians of interleaved runs:
 *   - one large valid task per dtype submitted to rksim (regcmd walk, operand reads from the
 *     NPU layouts, the arithmetic, output geometry) against an sgemm of the same shape on
 *     fp32 copies of the same data (goals: fp16 <= 1.10, int8 and int4 <= 1.5);
 *   - the whole runtime call `npukit rk bench 512 3840 4096` makes (npk_rk_matmul on the
 *     simulator, 3 cores, weights packed beforehand) per dtype against the sgemm of that
 *     shape (goal <= 1.3).
 * Every simulated result is checked: integers bit for bit against the sgemm; the fp16 task
 * bit for bit against the loop the simulator's fp16 GEMM is defined by (each result the fp32
 * sum of its products in K order from +0; a BLAS splits K its own way). The modelled NPU time
 * is a model.
 * Each timed operation starts after a 0.2 s pause (settle), so that neither runs beside the
 * BLAS threads the other left spinning.
 *
 * Usage: bench_rksim [runs [filter]]   runs default 7; with a filter only the rows whose name
 * contains it run (e.g. "int4 task", "call"), to profile one row. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npukit/fp16.h"
#include "common/measure.h"
#include "npukit/rk.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "rksim/matmul.h"

static int runs = 7;
static int failed;
static const char *row_filter; /* run only rows whose name contains it; NULL: every row */

static bool row_selected(const char *what) { return !row_filter || strstr(what, row_filter); }

/* User operands A[M][K], B[K][N] of a dtype (fp16 bits or int8_t, int4 in int8_t), and fp32
 * copies af[M][K], bt[N][K] for the sgemm. Values: fp16 in [-0.5, 0.5), integers full range. */
typedef struct operands {
    npk_rk_prec in;
    uint32_t m, k, n;
    void *a, *b;
    float *af, *bt;
} operands;

static uint64_t rng = 12345;
static uint32_t next_u32(void)
{
    rng = rng * 6364136223846793005ull + 1;
    return (uint32_t)(rng >> 32);
}

static float element_value(npk_rk_prec in, void *v, size_t i)
{
    if (in == NPK_PREC_FP16) {
        uint16_t h = npk_f32_to_f16((float)(next_u32() >> 8) / (float)(1 << 24) - 0.5f);
        ((uint16_t *)v)[i] = h;
        return npk_f16_to_f32(h);
    }
    int x = in == NPK_PREC_INT8 ? (int)(next_u32() % 256) - 128 : (int)(next_u32() % 16) - 8;
    ((int8_t *)v)[i] = (int8_t)x;
    return (float)x;
}

static bool operands_make(operands *o, npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n)
{
    size_t eb = in == NPK_PREC_FP16 ? 2 : 1;
    *o = (operands){.in = in, .m = m, .k = k, .n = n};
    o->a = malloc((size_t)m * k * eb);
    o->b = malloc((size_t)k * n * eb);
    o->af = malloc((size_t)m * k * sizeof(float));
    o->bt = malloc((size_t)n * k * sizeof(float));
    if (!o->a || !o->b || !o->af || !o->bt)
        return false;
    for (size_t i = 0; i < (size_t)m * k; i++)
        o->af[i] = element_value(in, o->a, i);
    for (size_t kk = 0; kk < k; kk++)
        for (size_t j = 0; j < n; j++)
            o->bt[j * k + kk] = element_value(in, o->b, kk * n + j);
    return true;
}

static void operands_free(operands *o) { free(o->a), free(o->b), free(o->af), free(o->bt); }

/* Elements of the simulated C (user layout, by output precision) that differ from the sgemm's. */
static size_t mismatches(npk_rk_prec out, const void *c, const float *ref, size_t count)
{
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        double v = out == NPK_PREC_FP32    ? ((const float *)c)[i]
                   : out == NPK_PREC_INT32 ? ((const int32_t *)c)[i]
                                           : ((const int16_t *)c)[i];
        bad += v != (double)ref[i];
    }
    return bad;
}

/* ref = A . B^T as the simulator's fp16 GEMM defines it: each result the fp32 sum of its
 * products (exact for fp16 operands, so fused or not is the same) in K order from +0; the
 * columns are the inner loop so that it vectorizes without changing any sum's order. */
static bool k_ordered_reference(const operands *o, float *ref)
{
    float *b = malloc((size_t)o->k * o->n * sizeof *b); /* B[K][N] */
    if (!b)
        return false;
    for (size_t j = 0; j < o->n; j++)
        for (size_t kk = 0; kk < o->k; kk++)
            b[kk * o->n + j] = o->bt[j * o->k + kk];
    for (size_t i = 0; i < o->m; i++) {
        float *c = ref + i * o->n;
        memset(c, 0, o->n * sizeof *c);
        for (size_t kk = 0; kk < o->k; kk++) {
            const float x = o->af[i * o->k + kk];
            const float *row = b + kk * o->n;
            for (size_t j = 0; j < o->n; j++)
                c[j] += x * row[j];
        }
    }
    free(b);
    return true;
}

/* The wall-clock medians decide the goal; the CPU times (every thread of the process, the
 * simulator's helper and the BLAS's included) are what a busy machine leaves comparable. */
static void report(const char *what, double sim, double ref, double sim_cpu, double ref_cpu,
                   double goal)
{
    bool met = sim / ref <= goal;
    printf("  %-44s sim %8.2f ms  sgemm %8.2f ms  ratio %5.2f  (goal <= %.2f: %s)\n", what, sim,
           ref, sim / ref, goal, met ? "met" : "MISSED");
    printf("    CPU time: sim %.2f ms, sgemm %.2f ms, ratio %.2f\n", sim_cpu, ref_cpu,
           sim_cpu / ref_cpu);
}

/* Milliseconds of CPU time used by the whole process. */
static double process_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One simulated operation; *npu_ms receives its modelled NPU time. Before it (untimed), the
 * row may change the operands: prepare. */
typedef npk_status (*sim_fn)(void *ctx, double *npu_ms);
typedef npk_status (*prepare_fn)(void *ctx);

/* Before each timed operation: OpenBLAS's idle worker threads spin (sched_yield) for about 0.1 s
 * after a threaded call before they sleep; without a pause each operation would share the
 * cores with the spinning left behind by the one before it (the sgemm's, for the simulator). */
static void settle(void)
{
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* The operation and the sgemm of o's shape, interleaved `runs` times; prints the medians and
 * their ratio; returns the median modelled NPU time. ref receives the sgemm's result. */
static double side_by_side(const char *what, prepare_fn prepare, sim_fn run, void *ctx,
                           const operands *o, float *ref, double goal)
{
    double *ts = malloc(runs * sizeof *ts), *tb = malloc(runs * sizeof *tb),
           *tn = malloc(runs * sizeof *tn), *cs = malloc(runs * sizeof *cs),
           *cb = malloc(runs * sizeof *cb);
    if (!ts || !tb || !tn || !cs || !cb) {
        fprintf(stderr, "bench_rksim: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < runs; r++) {
        if (prepare && prepare(ctx)) {
            fprintf(stderr, "bench_rksim: %s: %s\n", what, npk_last_error());
            exit(1);
        }
        settle();
        double c0 = process_cpu_ms(), t0 = npk_now_ms();
        npk_status st = run(ctx, &tn[r]);
        double t1 = npk_now_ms(), c1 = process_cpu_ms();
        settle();
        double c2 = process_cpu_ms(), t2 = npk_now_ms();
        rksim_sgemm_nt(o->m, o->n, o->k, o->af, o->k, o->bt, o->k, ref, o->n);
        double t3 = npk_now_ms(), c3 = process_cpu_ms();
        cs[r] = c1 - c0;
        cb[r] = c3 - c2;
        if (st) {
            fprintf(stderr, "bench_rksim: %s: %s\n", what, npk_last_error());
            exit(1);
        }
        ts[r] = t1 - t0;
        tb[r] = t3 - t2;
    }
    report(what, npk_median(ts, (size_t)runs), npk_median(tb, (size_t)runs),
           npk_median(cs, (size_t)runs), npk_median(cb, (size_t)runs), goal);
    double npu = npk_median(tn, (size_t)runs);
    free(ts), free(tb), free(tn), free(cs), free(cb);
    return npu;
}

typedef struct task_ctx {
    npk_rk_device *d;
    npk_rk_devtask t;
    operands *o;
} task_ctx;

/* A new B for every submit (its first element flips between two values, the sgemm's copy
 * too): the simulator reuses weights it decoded only when their bytes are unchanged, and a
 * task row measures the whole read. */
static npk_status new_weights(void *ctx)
{
    task_ctx *c = ctx;
    operands *o = c->o;
    if (o->in == NPK_PREC_FP16) {
        uint16_t *h = o->b;
        h[0] ^= 0x8000; /* the sign */
        o->bt[0] = npk_f16_to_f32(h[0]);
    } else {
        int8_t *v = o->b;
        v[0] ^= 1; /* stays within int8 and int4 */
        o->bt[0] = v[0];
    }
    return npk_rk_devtask_load(c->d, &c->t, o->a, o->b);
}

static npk_status run_task(void *ctx, double *npu_ms)
{
    task_ctx *c = ctx;
    struct rknpu_submit sub;
    npk_status s = npk_rk_devtask_submit(c->d, &c->t, 0, 6000, &sub);
    *npu_ms = sub.u48_.hw_elapse_time / 1e3;
    return s;
}

/* One task on the simulator against the sgemm of its shape. */
static void task_row(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, double goal)
{
    char what[96];
    snprintf(what, sizeof what, "%s task %ux%ux%u (%.2f GOP)", npk_rk_prec_name(in), m, k, n,
             2.0 * m * k * n / 1e9);
    if (!row_selected(what))
        return;
    operands o;
    task_ctx tc = {.o = &o};
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.timeout_scale = 0;
    npk_rk_mm mm = npk_rk_mm_default(in, m, k, n); /* the schedule the limits allow */
    size_t mn = (size_t)m * n;
    float *ref = malloc(mn * sizeof *ref);
    void *c = malloc(mn * 4);
    double warm;
    if (!operands_make(&o, in, m, k, n) || !ref || !c || npk_rk_device_open_sim(&cfg, &tc.d) ||
        npk_rk_action(tc.d, RKNPU_ACT_RESET, NULL) || npk_rk_devtask_create(tc.d, &mm, 0, &tc.t) ||
        npk_rk_devtask_load(tc.d, &tc.t, o.a, o.b) || run_task(&tc, &warm)) {
        fprintf(stderr, "bench_rksim: %s task: %s\n", npk_rk_prec_name(in), npk_last_error());
        exit(1);
    }
    rksim_sgemm_nt(m, n, k, o.af, k, o.bt, k, ref, n); /* warm */
    side_by_side(what, new_weights, run_task, &tc, &o, ref, goal);
    npk_rk_devtask_read(tc.d, &tc.t, c);
    if (in == NPK_PREC_FP16 && !k_ordered_reference(&o, ref)) {
        fprintf(stderr, "bench_rksim: out of memory\n");
        exit(1);
    }
    size_t bad = mismatches(mm.out, c, ref, mn);
    if (bad) {
        printf("    %zu elements differ from the %s\n", bad,
               in == NPK_PREC_FP16 ? "K-ordered sum" : "sgemm");
        failed = 1;
    }
    npk_rk_devtask_destroy(tc.d, &tc.t);
    npk_rk_device_close(tc.d);
    operands_free(&o);
    free(ref), free(c);
}

typedef struct call_ctx {
    npk_rk *rt;
    npk_rk_weights *w;
    const operands *o;
    npk_rk_prec out;
    void *c;
    npk_rk_stats st;
} call_ctx;

static npk_status run_call(void *ctx, double *npu_ms)
{
    call_ctx *c = ctx;
    npk_status s = npk_rk_matmul(c->rt, c->w, c->o->m, c->o->a, c->out, c->c, &c->st);
    *npu_ms = c->st.npu_span_ns / 1e6;
    return s;
}

/* The whole runtime call on the simulator (3 cores, weights packed once) against the sgemm. */
static void call_row(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, double goal)
{
    char what[96];
    /* the task count is known after the first call: the filter sees the name without it */
    snprintf(what, sizeof what, "%s call %ux%ux%u", npk_rk_prec_name(in), m, k, n);
    if (!row_selected(what))
        return;
    operands o;
    call_ctx cc = {.o = &o, .out = in == NPK_PREC_FP16 ? NPK_PREC_FP32 : NPK_PREC_INT32};
    size_t mn = (size_t)m * n;
    float *ref = malloc(mn * sizeof *ref);
    cc.c = malloc(mn * 4);
    double warm;
    if (!operands_make(&o, in, m, k, n) || !ref || !cc.c || npk_rk_open("sim", &cc.rt) ||
        npk_rk_set_cores(cc.rt, 3) || npk_rk_weights_pack(cc.rt, in, k, n, o.b, m, &cc.w) ||
        run_call(&cc, &warm)) {
        fprintf(stderr, "bench_rksim: %s call: %s\n", npk_rk_prec_name(in), npk_last_error());
        exit(1);
    }
    snprintf(what, sizeof what, "%s call %ux%ux%u, %u tasks", npk_rk_prec_name(in), m, k, n,
             cc.st.tasks);
    double npu = side_by_side(what, NULL, run_call, &cc, &o, ref, goal);
    printf("    modelled NPU time (timing model, not a measurement): %.2f ms, %.0f GOP/s\n", npu,
           2.0 * m * k * n / npu / 1e6);
    /* integers are exact both ways; fp16 sums K slices on the host in another order */
    if (in != NPK_PREC_FP16 && mismatches(cc.out, cc.c, ref, mn)) {
        printf("    the result differs from the sgemm\n");
        failed = 1;
    }
    npk_rk_weights_free(cc.rt, cc.w);
    npk_rk_close(cc.rt);
    operands_free(&o);
    free(ref), free(cc.c);
}

int main(int argc, char **argv)
{
    runs = argc > 1 ? atoi(argv[1]) : 7;
    if (runs < 1 || runs > 1000) {
        fprintf(stderr, "bench_rksim: runs = %d, must be 1..1000\n", runs);
        return 2;
    }
    row_filter = argc > 2 ? argv[2] : NULL;
    printf("rksim against sgemm, medians of %d interleaved runs, arithmetic: %s\n", runs,
           rksim_gemm_uses_blas() ? "OpenBLAS sgemm" : "portable loop");
    /* the largest valid task of each dtype at its planner K slice: fp16 K=1024 sched 1 holds
     * 176 rows, int8 K=512 holds 704, int4 K=256 64 (sched 0); N=8192 is the per-task limit */
    task_row(NPK_PREC_FP16, 176, 1024, 8192, 1.10);
    task_row(NPK_PREC_INT8, 704, 512, 8192, 1.5);
    task_row(NPK_PREC_INT4, 64, 256, 8192, 1.5);
    call_row(NPK_PREC_FP16, 512, 3840, 4096, 1.3);
    call_row(NPK_PREC_INT8, 512, 3840, 4096, 1.3);
    call_row(NPK_PREC_INT4, 512, 3840, 4096, 1.3);
    return failed;
}
