/* SPDX-License-Identifier: MIT */
/* The host's share of a matmul on the simulator, phase by phase, against the planner's host
 * model (rk_plan.h).
 *
 * For each shape it runs npk_rk_matmul RUNS times after one untimed call (which pays the
 * warm-ups) on one core and takes the medians of the runtime's own per-phase timers
 * (npk_rk_stats: synth, pack, sync, accumulate), and counts from the plan the runtime ran what
 * the host model charges: tasks, submits, feature bytes packed, output elements read back. It
 * fits the rates by least squares of the whole host time over those counts (the caches' syncs
 * fall on the per-byte rates, as a board's cache maintenance is per line, and on the per-task
 * one for the task buffer: the default form submits one task a job, so a job rate cannot be told
 * from the task rate here), times a worker thread created and joined, and prints,
 * per shape, the host time the compiled-in table models and the fitted rates model against the
 * measured one, with ratios.
 * The simulator's submit (its arithmetic) is not host work the model charges: on a board the
 * submit's round trip is the timing model's job floor.
 *
 * Usage: bench_rk_host [runs]   (default 5) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tests/rk_operands_testlib.h"
#include "common/measure.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "rk/runtime/runtime_internal.h"
#include "rk/runtime/runtime_request.h"

typedef struct shape {
    npk_rk_prec in;
    uint32_t m, k, n;
} shape;

/* What the host model charges for a plan, summed over its cores. */
typedef struct counts {
    double tasks, jobs, a_bytes, out_elems;
} counts;

/* Measured medians (ns) of one shape. */
typedef struct phases {
    double synth, pack, sync, accumulate;
} phases;

static counts plan_counts(const npk_rk_plan *p, uint32_t chain)
{
    counts c = {0};
    const double in_bytes = npk_rk_prec_bits(p->req.in) / 8.0;
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i];
        c.tasks++;
        c.a_bytes += (double)(t->m1 - t->m0) * t->kp * in_bytes;
        c.out_elems += (double)(t->m1 - t->m0) * t->np;
    }
    c.jobs = (c.tasks + chain - 1) / chain; /* the default form: a submit per task */
    return c;
}

static double model_ns(const npk_rk_host_model *h, const counts *c)
{
    return c->tasks * h->task_ns + c->jobs * h->job_ns + c->a_bytes * h->pack_ns_per_byte +
           c->out_elems * h->out_ns_per_elem;
}

static int run_shape(const shape *s, int runs, counts *cnt, phases *ph)
{
    npk_rk *rt;
    if (npk_rk_open("sim", &rt) || npk_rk_set_cores(rt, 1)) {
        fprintf(stderr, "bench_rk_host: %s\n", npk_last_error());
        return 1;
    }
    void *a = rk_test_operands(s->in, (size_t)s->m * s->k);
    void *b = rk_test_operands(s->in, (size_t)s->k * s->n);
    const npk_rk_prec out = npk_rk_input_row(s->in)->host_acc;
    void *c = malloc((size_t)s->m * s->n * (npk_rk_prec_bits(out) / 8));
    npk_rk_weights *w = NULL;
    int rc = 1;
    if (!a || !b || !c || npk_rk_weights_pack(rt, s->in, s->k, s->n, b, s->m, &w))
        goto done;
    npk_rk_stats st;
    if (npk_rk_matmul(rt, w, s->m, a, out, c, &st)) /* untimed: pays the warm-ups */
        goto done;
    double v[4][64];
    for (int r = 0; r < runs; r++) {
        if (npk_rk_matmul(rt, w, s->m, a, out, c, &st))
            goto done;
        v[0][r] = (double)st.synth_ns;
        v[1][r] = (double)st.pack_ns;
        v[2][r] = (double)st.sync_ns;
        v[3][r] = (double)st.accumulate_ns;
    }
    *ph = (phases){npk_median(v[0], (size_t)runs), npk_median(v[1], (size_t)runs),
                   npk_median(v[2], (size_t)runs), npk_median(v[3], (size_t)runs)};
    /* the plan the runtime ran: its own request */
    npk_rk_plan_request req;
    npk_rk_matmul_request(rt, w, s->m, w->slices == 1 ? out : npk_rk_input_row(s->in)->acc, &req);
    npk_rk_plan p;
    if (npk_rk_plan_matmul(&req, &p))
        goto done;
    *cnt = plan_counts(&p, req.chain ? req.chain : 1);
    npk_rk_plan_free(&p);
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "bench_rk_host: %s\n", npk_last_error());
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(c);
    return rc;
}

static void *nothing(void *arg) { return arg; }

/* A worker thread created and joined, as runtime_cores.c does once per core (median ns). */
static double thread_ns(void)
{
    double v[63];
    for (int i = 0; i < 63; i++) {
        pthread_t t;
        uint64_t t0 = npk_now_ns();
        if (pthread_create(&t, NULL, nothing, NULL))
            return 0;
        pthread_join(t, NULL);
        v[i] = (double)(npk_now_ns() - t0);
    }
    return npk_median(v, 63);
}

/* The rates: least squares of each shape's measured host time (synth + pack + sync +
 * accumulate) against its tasks, feature bytes and output elements, each shape weighted by its
 * own time (so the fit is in relative terms and a large shape does not drown a small one). */
static void fit_rates(const counts *c, const phases *ph, unsigned n, npk_rk_host_model *m)
{
    double ata[3][4] = {{0}};
    for (unsigned i = 0; i < n; i++) {
        const double x[3] = {c[i].tasks, c[i].a_bytes, c[i].out_elems};
        const double y = ph[i].synth + ph[i].pack + ph[i].sync + ph[i].accumulate;
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++)
                ata[r][k] += x[r] * x[k] / (y * y);
            ata[r][3] += x[r] * y / (y * y);
        }
    }
    for (int p = 0; p < 3; p++) /* Gauss-Jordan on the normal equations (positive definite) */
        for (int r = 0; r < 3; r++) {
            if (r == p)
                continue;
            const double f = ata[r][p] / ata[p][p];
            for (int k = p; k < 4; k++)
                ata[r][k] -= f * ata[p][k];
        }
    m->task_ns = ata[0][3] / ata[0][0];
    m->pack_ns_per_byte = ata[1][3] / ata[1][1];
    m->out_ns_per_elem = ata[2][3] / ata[2][2];
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 64) {
        fprintf(stderr, "usage: bench_rk_host [runs 1..64]\n");
        return 2;
    }
    /* one core: the simulator runs one submit at a time under its device lock, and a sync of
     * another core waits for it there, which is no host work on a board */
    static const shape shapes[] = {
        {NPK_PREC_FP16, 1, 4096, 4096},   {NPK_PREC_FP16, 64, 8192, 1024},
        {NPK_PREC_FP16, 256, 2048, 2048}, {NPK_PREC_FP16, 300, 5000, 1024},
        {NPK_PREC_FP16, 1000, 512, 64},   {NPK_PREC_INT8, 1, 8192, 4096},
        {NPK_PREC_INT8, 1000, 512, 256},  {NPK_PREC_INT8, 256, 4096, 1024},
        {NPK_PREC_INT4, 128, 2048, 1024}, {NPK_PREC_INT4, 512, 1024, 512},
    };
    enum { N = sizeof shapes / sizeof shapes[0] };
    counts cnt[N];
    phases ph[N];
    for (unsigned i = 0; i < N; i++)
        if (run_shape(&shapes[i], runs, &cnt[i], &ph[i]))
            return 1;
    npk_rk_host_model fit = {.core_ns = thread_ns()};
    fit_rates(cnt, ph, N, &fit);
    const npk_rk_host_model table = npk_rk_host_model_scaled(1.0);
    printf("host rates fitted in this run (least squares of synth + pack + sync + accumulate "
           "over tasks, feature bytes, output elements; %d runs a shape, one core, medians):\n",
           runs);
    npk_rk_host_model_print(stdout, &fit);
    printf("\n%-22s %5s %7s %7s %7s %7s %8s %8s %8s %6s %6s\n", "shape (1 core)", "tasks", "synth",
           "pack", "sync", "accum", "measured", "table", "fitted", "tbl/m", "fit/m");
    double rt[N], rf[N];
    for (unsigned i = 0; i < N; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s %ux%ux%u", npk_rk_prec_name(shapes[i].in), shapes[i].m,
                 shapes[i].k, shapes[i].n);
        double meas = ph[i].synth + ph[i].pack + ph[i].sync + ph[i].accumulate;
        double mt = model_ns(&table, &cnt[i]), mf = model_ns(&fit, &cnt[i]);
        rt[i] = mt / meas;
        rf[i] = mf / meas;
        printf("%-22s %5.0f %7.3f %7.3f %7.3f %7.3f %8.3f %8.3f %8.3f %6.2f %6.2f\n", name,
               cnt[i].tasks, ph[i].synth / 1e6, ph[i].pack / 1e6, ph[i].sync / 1e6,
               ph[i].accumulate / 1e6, meas / 1e6, mt / 1e6, mf / 1e6, rt[i], rf[i]);
    }
    printf("(ms; model/measured median: table %.2f, fitted %.2f. The simulator's submits, its "
           "arithmetic, are not host work: the timing model's job floor stands for a board's "
           "submit)\n",
           npk_median(rt, N), npk_median(rf, N));
    return 0;
}
