/* SPDX-License-Identifier: MIT */
/* ktsim's speed on the vector cores: the job `npukit kt vec -n N` runs (axpy, a = 1.5, over FP16
 * x and y in DRAM; each core of the mg2_vc2 preset loaded with the kernel, then the blocks of 128
 * elements dealt round-robin to the cores a round at a time), through the driver, against the
 * same axpy computed on the CPU in the same run (in double on the FP16 inputs, rounded to FP16).
 * Every run's z is checked against the CPU's (within one FP16 step: the lanes round to E8M15,
 * then to FP16). Prints the medians: simulated mesh cycles per second of wall time and per second
 * of the simulating thread's CPU time (on a loaded machine the wall clock also counts the waits
 * for a core), the elements per second both ways, their ratio, and the simulator's goal of
 * 40 million mesh cycles per second (the one bench_ktsim_speed holds saxpy to).
 *
 * Usage: bench_kt_vec [N [runs]]   (default 1000000 5; a small N, e.g. 20000, is a quick run) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/measure.h"
#include "npukit/fp16.h"
#include "npukit/kt.h"
#include "npukit/kt_vec.h"
#include "npukit/kt_vec_job.h"
#include "npukit/ktsim.h"

enum { MAX_VC = 16, MAX_N = 1 << 20 };
static const uint64_t REGION = 0x100000; /* x, y and z each start on a region, as the command */
static const float A = 1.5f;             /* exact in E8M15: the lanes use it unrounded */
static const double GOAL = 40e6;         /* mesh cycles per second */

typedef struct vec_bench {
    ktsim *s;
    kt_dev d;
    kt_unit vc[MAX_VC];
    size_t nvc, per_round;
    unsigned n;
    uint64_t x_at, y_at, z_at;
    kt_flit *prog;
} vec_bench;

static void pause_sim(void *s, uint64_t cycles) { ktsim_step(s, cycles); }

/* Stage `per` flits for each of `units` cores (program u at u * per), dispatch and wait. */
static npk_status round_run(vec_bench *b, const kt_unit *vc, size_t units, size_t per)
{
    npk_status st = kt_stage(&b->d, 0, b->prog, (unsigned)(per * units));
    kt_ticket tk[MAX_VC] = {0};
    for (size_t u = 0; u < units && !st; u++)
        st = kt_dispatch(&b->d, &vc[u], (unsigned)(u * per), (unsigned)per, 0, &tk[u]);
    for (size_t u = 0; u < units && !st; u++)
        st = kt_wait(&b->d, &tk[u], NULL);
    return st;
}

/* One job: load every core, then every block. */
static npk_status job_run(vec_bench *b)
{
    size_t nload = 0;
    npk_status st = kt_vec_kernel_load(KT_VEC_K_AXPY, A, KT_VEC_TXN, b->prog, &nload, NULL);
    for (size_t u = 1; u < b->per_round && !st; u++)
        for (size_t f = 0; f < nload; f++)
            b->prog[u * nload + f] = b->prog[f];
    for (size_t first = 0; first < b->nvc && !st; first += b->per_round) {
        size_t units = b->nvc - first < b->per_round ? b->nvc - first : b->per_round;
        st = round_run(b, b->vc + first, units, nload);
    }
    unsigned blocks = (b->n + KT_VEC_BLOCK - 1) / KT_VEC_BLOCK;
    for (unsigned next = 0; next < blocks && !st;) {
        size_t units = 0;
        for (; units < b->per_round && next < blocks && !st; units++, next++) {
            uint64_t at = (uint64_t)next * KT_VEC_BLOCK * 2;
            unsigned left = b->n - next * KT_VEC_BLOCK;
            st = kt_vec_kernel_block(KT_VEC_K_AXPY, left < KT_VEC_BLOCK ? left : KT_VEC_BLOCK,
                                     b->x_at + at, b->y_at + at, b->z_at + at, KT_VEC_TXN,
                                     b->prog + units * KT_VEC_BLOCK_FLITS);
        }
        if (!st)
            st = round_run(b, b->vc, units, KT_VEC_BLOCK_FLITS);
    }
    return st;
}

/* The CPU's side: z = a x + y in double on the FP16 inputs, rounded to FP16. */
static void cpu_axpy(const uint16_t *x, const uint16_t *y, uint16_t *z, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        z[i] = npk_f32_to_f16(
            (float)((double)A * npk_f16_to_f32(x[i]) + (double)npk_f16_to_f32(y[i])));
}

/* Elements of got further than one FP16 step from the CPU's value (x and y lie in [-2, 2), so
 * a x + y is finite and within FP16's range). */
static unsigned mismatches(const uint16_t *got, const uint16_t *want, unsigned n)
{
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++) {
        double g = npk_f16_to_f32(got[i]), w = npk_f16_to_f32(want[i]);
        int e;
        frexp(fabs(w), &e);
        double step = e - 1 < -14 ? 0x1p-24 : ldexp(1.0, e - 1 - 10);
        bad += !(fabs(g - w) <= step);
    }
    return bad;
}

static int fail(const char *what)
{
    fprintf(stderr, "bench_kt_vec: %s: %s\n", what, npk_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || n > MAX_N || runs < 1 || runs > 100) {
        fprintf(stderr, "bench_kt_vec: N = %ld, runs = %d: N must be 1..%d, runs 1..100\n", n,
                runs, MAX_N);
        return 2;
    }
    ktsim_config cfg;
    if (ktsim_preset_load("mg2_vc2", &cfg))
        return fail("mg2_vc2");
    vec_bench b = {.n = (unsigned)n};
    kt_unit all[64];
    size_t nall = 0;
    if (ktsim_create(&cfg, &b.s) || kt_open(&b.d, ktsim_transport(b.s), cfg.ctrl_base, NULL) ||
        kt_enumerate(&b.d, all, 64, &nall))
        return fail("opening mg2_vc2");
    for (size_t i = 0; i < nall && b.nvc < MAX_VC; i++)
        if (all[i].caps.type == KT_VEC_TYPE)
            b.vc[b.nvc++] = all[i];
    if (!b.nvc) {
        fprintf(stderr, "bench_kt_vec: no vector core in mg2_vc2\n");
        return 1;
    }
    b.d.opt.pause = pause_sim; /* the waits let the work pass, as the command's do */
    b.d.opt.pause_user = b.s;
    unsigned stage = b.d.opt.stage_flits ? b.d.opt.stage_flits : 128;
    b.per_round = b.nvc < stage / KT_VEC_LOAD_FLITS ? b.nvc : stage / KT_VEC_LOAD_FLITS;
    size_t elems = (b.n + KT_VEC_BLOCK - 1) / KT_VEC_BLOCK * KT_VEC_BLOCK, bytes = elems * 2;
    uint64_t span = (bytes + REGION - 1) / REGION * REGION;
    b.x_at = REGION;
    b.y_at = b.x_at + span;
    b.z_at = b.y_at + span;
    uint16_t *x = calloc(elems, 2), *y = calloc(elems, 2), *z = calloc(elems, 2),
             *ref = calloc(elems, 2);
    double *t_sim = malloc(runs * sizeof *t_sim), *t_cpu = malloc(runs * sizeof *t_cpu);
    double *rate = malloc(runs * sizeof *rate), *cpu_rate = malloc(runs * sizeof *cpu_rate);
    b.prog = calloc(b.per_round * KT_VEC_LOAD_FLITS, sizeof *b.prog);
    if (!x || !y || !z || !ref || !t_sim || !t_cpu || !rate || !cpu_rate || !b.prog) {
        fprintf(stderr, "bench_kt_vec: out of memory for N = %ld\n", n);
        return 1;
    }
    uint64_t st = 7;
    for (size_t i = 0; i < b.n * 2; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint16_t h = npk_f32_to_f16((float)((double)(st >> 11) * 0x1p-51 - 2.0));
        (i & 1 ? y : x)[i / 2] = h;
    }
    if (ktsim_dram_write(b.s, b.x_at, x, bytes) || ktsim_dram_write(b.s, b.y_at, y, bytes))
        return fail("writing x and y");
    uint64_t cycles = 0;
    for (int r = 0; r < runs; r++) {
        uint64_t c0 = ktsim_cycle(b.s), t0 = npk_now_ns(), p0 = npk_thread_cpu_ns();
        if (job_run(&b))
            return fail("kt vec");
        t_sim[r] = (double)(npk_now_ns() - t0);
        double used = (double)(npk_thread_cpu_ns() - p0);
        cycles = ktsim_cycle(b.s) - c0;
        rate[r] = (double)cycles / t_sim[r] * 1e9;
        cpu_rate[r] = used > 0 ? (double)cycles / used * 1e9 : 0;
        t0 = npk_now_ns();
        cpu_axpy(x, y, ref, b.n);
        t_cpu[r] = (double)(npk_now_ns() - t0);
        if (ktsim_dram_read(b.s, b.z_at, z, ((size_t)b.n + 15) / 16 * 32)) /* the words drained */
            return fail("reading z");
        unsigned bad = mismatches(z, ref, b.n);
        if (bad) {
            fprintf(stderr, "bench_kt_vec: run %d: %u of %u elements beyond one FP16 step\n", r,
                    bad, b.n);
            return 1;
        }
    }
    if (ktsim_fault(b.s)) {
        fprintf(stderr, "bench_kt_vec: simulator: %s\n", ktsim_fault(b.s));
        return 1;
    }
    double sim_ns = npk_median(t_sim, runs), cpu_ns = npk_median(t_cpu, runs);
    double wall_rate = npk_median(rate, runs), per_cpu = npk_median(cpu_rate, runs);
    printf("kt vec (axpy) on mg2_vc2: %zu vector cores x %u elements, %d runs, medians\n", b.nvc,
           b.n, runs);
    printf("  ktsim     %8.2f ms  %10.0f mesh cycles/s  (%llu cycles a run)  %8.2f M elem/s\n",
           sim_ns / 1e6, wall_rate, (unsigned long long)cycles, b.n / sim_ns * 1e3);
    printf("  ktsim per CPU second %10.0f mesh cycles/s\n", per_cpu);
    printf("  CPU axpy  %8.2f ms  %8.2f M elem/s\n", cpu_ns / 1e6, b.n / cpu_ns * 1e3);
    printf("  ratio ktsim/CPU %.5f\n", cpu_ns / sim_ns);
    printf("goal: >= %.0f M mesh cycles/s: %.2f M by the wall clock, %.2f M per CPU second  %s\n",
           GOAL / 1e6, wall_rate / 1e6, per_cpu / 1e6, wall_rate >= GOAL ? "met" : "NOT MET");
    free(x);
    free(y);
    free(z);
    free(ref);
    free(t_sim);
    free(t_cpu);
    free(rate);
    free(cpu_rate);
    free(b.prog);
    ktsim_destroy(b.s);
    return 0;
}
