/* SPDX-License-Identifier: MIT */
/* The timing model against every published measurement it claims to predict: each row of the
 * table names its source and conditions (clock, cores); the model's figure comes from the plan
 * the runtime would run (npk_rk_plan_matmul) and the simulator's accounting (a job floor and a
 * task cost per submit, the slower of the MAC array and the DMA per operation, at the row's
 * clock). Every row prints model / measurement and must lie within 25%. Published figures the
 * model does not predict are rows too, each with the reason, and are printed but not checked. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_types.h"
#include "rk/hw/rk_timing.h"

typedef enum kind {
    GOPS,      /* a matmul's throughput, 2MKN / the busiest core's modelled time */
    TASK_US,   /* one single-task submit's time */
    SDP_US,    /* one SDP submit's time: measured is a range [lo, hi] */
    NOT_MODEL, /* printed with the reason, not checked */
} kind;

typedef struct row {
    const char *what;
    kind kind;
    npk_rk_prec in;
    uint32_t m, k, n;
    unsigned cores;
    double mhz;
    double lo, hi; /* the published figure (hi = lo unless a range) */
    const char *source;
} row;

static const row rows[] = {
    {"fp16 512x3840x4096, 3 cores", GOPS, NPK_PREC_FP16, 512, 3840, 4096, 3, 600, 461, 461,
     "greg perf/benchmarks.md, mainline rocket at 600 MHz (facts G)"},
    {"int8 512x3840x4096, 3 cores", GOPS, NPK_PREC_INT8, 512, 3840, 4096, 3, 600, 386, 386,
     "greg perf/benchmarks.md (facts G)"},
    {"int4 512x3840x4096, 3 cores", GOPS, NPK_PREC_INT4, 512, 3840, 4096, 3, 600, 413, 413,
     "greg perf/benchmarks.md (facts G)"},
    {"fp16 1x2048x2048 (M=1: weight streaming)", TASK_US, NPK_PREC_FP16, 1, 2048, 2048, 1, 1000,
     1040, 1040, "ork FEASIBILITY-LOG, rknn_matmul_api: 8.1 GFLOP/s, 1.04 ms (facts G)"},
    {"submit floor (a tiny task)", TASK_US, NPK_PREC_FP16, 4, 64, 32, 1, 600, 51, 54,
     "greg: mainline submit floor 51-54 us by default (facts G)"},
    {"SDP per-channel fp16, M=64 N=2048", SDP_US, NPK_PREC_FP16, 64, 0, 2048, 1, 600, 40, 110,
     "spec 'Per-channel-scaled fp16 matmul': flat ~40-110 us over N=64..2048"},
    {"fp16 512x2048x2048 (vendor runtime)", NOT_MODEL, NPK_PREC_FP16, 512, 2048, 2048, 0, 0, 548,
     548,
     "ork, rknn_matmul_api (librknnrt's own dataflow on the BSP driver, cores and clock not "
     "given): the model follows this runtime's plans"},
    {"fp16 256x2048x2048 (vendor runtime)", NOT_MODEL, NPK_PREC_FP16, 256, 2048, 2048, 0, 0, 442,
     442, "ork, rknn_matmul_api: as above"},
    {"int8 512x2048x2048 (vendor runtime)", NOT_MODEL, NPK_PREC_INT8, 512, 2048, 2048, 0, 0, 1391,
     1391, "ork, rknn_matmul_api: as above"},
    {"fp16 512x3840x4096 standalone", NOT_MODEL, NPK_PREC_FP16, 512, 3840, 4096, 1, 600, 75.3, 75.3,
     "greg perf/clock.md (56.5 at 200 MHz): one process submitting and accumulating on the host; "
     "the model gives NPU time, not the host's"},
    {"M=1 int8 weight streaming", NOT_MODEL, NPK_PREC_INT8, 1, 0, 0, 1, 0, 8.6, 19.9,
     "ork: 8.6 GB/s single submit (the model's DMA rate), 19.9 GB/s chained S=6: shapes not "
     "published"},
    {"ork dispatch floor", NOT_MODEL, NPK_PREC_INT8, 0, 0, 0, 1, 0, 167, 167,
     "ork src/submit.c: per submit through ork's host path on the BSP driver; the model's floor "
     "is the kernel's (greg's 51-54 us)"},
};

/* The modelled figure of a row, in its unit. */
static double model(const row *r)
{
    if (r->kind == SDP_US) /* fp16 feature and per-channel operand in, fp16 out */
        return npk_rk_time_job_floor_us(NULL) + npk_rk_time_task_step_us(NULL) +
               npk_rk_time_sdp_us(NULL, 2.0 * r->m * r->n + 2.0 * r->n, 2.0 * r->m * r->n);
    npk_rk_plan_request q;
    npk_rk_plan_request_init(&q, r->in, r->m, r->k, r->n);
    q.cores = r->cores;
    npk_rk_plan p;
    CHECK_EQ(npk_rk_plan_matmul(&q, &p), NPK_OK);
    double core_us[8] = {0};
    for (size_t i = 0; i < p.count; i++)
        core_us[p.tasks[i].core] += npk_rk_time_task_us_at(
            NULL, r->mhz * 1e6, r->in, q.out, p.tasks[i].mp, p.tasks[i].kp, p.tasks[i].np);
    double span = 0;
    for (unsigned c = 0; c < 8; c++)
        span = core_us[c] > span ? core_us[c] : span;
    npk_rk_plan_free(&p);
    return r->kind == GOPS ? 2.0 * r->m * r->k * r->n / span / 1e3 : span;
}

int main(void)
{
    printf("%-42s %9s %15s %6s  %s\n", "row (timing model vs published)", "model", "published",
           "ratio", "source");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const row *r = &rows[i];
        char pub[32];
        if (r->hi != r->lo)
            snprintf(pub, sizeof pub, "%g..%g", r->lo, r->hi);
        else
            snprintf(pub, sizeof pub, "%g", r->lo);
        if (r->kind == NOT_MODEL) {
            printf("%-42s %9s %15s %6s  %s\n", r->what, "-", pub, "-", r->source);
            continue;
        }
        double v = model(r);
        /* the ratio to the nearest end of a range (1 inside it) */
        double ratio = v < r->lo ? v / r->lo : v > r->hi ? v / r->hi : 1.0;
        printf("%-42s %9.1f %15s %6.2f  %s\n", r->what, v, pub, ratio, r->source);
        if (ratio < 0.75 || ratio > 1.25)
            fprintf(stderr, "  %s: the model is off by more than 25%%\n", r->what);
        CHECK(ratio >= 0.75 && ratio <= 1.25);
    }
    return check_done();
}
