/* SPDX-License-Identifier: MIT */
/* ktsim's speed on the matmul clusters: a 64 x 64 x 256 product per cluster of the mg_2
 * preset — FILL A, FILL B (quantised by the memory port), GEMM, DRAIN, one program per cluster —
 * run through the driver, against the same MXFP7 product computed on the CPU in the same run
 * (the chains the clusters compute, in double). Prints the medians: simulated mesh cycles per
 * second of wall time and per second of the thread's CPU time (on a loaded machine the wall
 * clock also counts the waits for a core), the product's multiply-adds per second both ways,
 * their ratio, and the simulator's goal of 40 million mesh cycles per second (bench_ktsim_speed's
 * for saxpy; here each cycle carries 137 of the product's multiply-adds, bit exact, which is why
 * the clusters are far from it).
 *
 * Usage: bench_kt_matmul [runs]   (default 5) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/measure.h"
#include "kt/hw/mxfp.h"
#include "kt/hw/units/mat.h"
#include "npukit/fp16.h"
#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_mat.h"

enum { GM = 16, GN = 16, NK = 8, K = NK * 32, PROG = 4, MAX_CL = 8 };
enum { A_AT = 0x100000, B_AT = 0x200000, C_AT = 0x300000, C_STRIDE = GM * GN * 32 };
static const double GOAL = 40e6; /* mesh cycles per second, as every ktsim bench holds it */

/* The CPU's side: every chain of one cluster's product over the entries as stored. */
static double cpu_product(const uint8_t *a, const uint8_t *b, double *c)
{
    int8_t qa[GM * NK][KT_MX_ENTRY_ELEMS], qb[GN * NK][KT_MX_ENTRY_ELEMS];
    kt_mx_scale sa[GM * NK][KT_MX_LANES], sb[GN * NK][KT_MX_LANES];
    for (unsigned e = 0; e < GM * NK; e++) {
        uint8_t w[KT_MX_ENTRY_OUT];
        kt_mx_quant_entry(a + e * KT_MX_ENTRY_IN, false, w);
        kt_mx_unpack_entry(w, false, qa[e], sa[e]);
    }
    for (unsigned e = 0; e < GN * NK; e++) {
        uint8_t w[KT_MX_ENTRY_OUT];
        kt_mx_quant_entry(b + e * KT_MX_ENTRY_IN, true, w);
        kt_mx_unpack_entry(w, true, qb[e], sb[e]);
    }
    double sum = 0;
    for (unsigned g = 0; g < GM; g++)
        for (unsigned h = 0; h < GN; h++)
            for (unsigned i = 0; i < 4; i++)
                for (unsigned j = 0; j < 4; j++) {
                    double v = 0;
                    for (unsigned kb = 0; kb < NK; kb++) {
                        unsigned ea = g * NK + kb, eb = h * NK + kb;
                        v += kt_mx_chain(qa[ea] + i * 32, kt_mx_scale_field(sa[ea][i]),
                                         qb[eb] + j * 32, kt_mx_scale_field(sb[eb][j]),
                                         KT_MX_ANCHOR);
                    }
                    c[((g * GN + h) * 4 + i) * 4 + j] = v;
                    sum += v;
                }
    return sum;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 100) {
        fprintf(stderr, "bench_kt_matmul: runs = %d, must be 1..100\n", runs);
        return 2;
    }
    ktsim_config cfg;
    if (ktsim_preset_load("mg_2", &cfg)) {
        fprintf(stderr, "bench_kt_matmul: %s\n", npk_last_error());
        return 1;
    }
    ktsim *s = NULL;
    kt_dev d;
    kt_unit all[64], mg[MAX_CL];
    size_t n = 0, nmg = 0;
    if (ktsim_create(&cfg, &s) || kt_open(&d, ktsim_transport(s), cfg.ctrl_base, NULL) ||
        kt_enumerate(&d, all, 64, &n)) {
        fprintf(stderr, "bench_kt_matmul: %s\n", npk_last_error());
        return 1;
    }
    for (size_t i = 0; i < n && nmg < MAX_CL; i++)
        if (all[i].caps.type == KT_MAT_TYPE)
            mg[nmg++] = all[i];
    if (!nmg) {
        fprintf(stderr, "bench_kt_matmul: no matmul cluster in mg_2\n");
        return 1;
    }
    size_t asz = (size_t)GM * NK * KT_MX_ENTRY_IN, bsz = (size_t)GN * NK * KT_MX_ENTRY_IN;
    uint8_t *a = malloc(asz), *b = malloc(bsz);
    double *c = malloc((size_t)GM * GN * 16 * sizeof *c);
    double *t_sim = malloc(runs * sizeof *t_sim), *t_cpu = malloc(runs * sizeof *t_cpu);
    double *rate = malloc(runs * sizeof *rate), *cpu_rate = malloc(runs * sizeof *cpu_rate);
    if (!a || !b || !c || !t_sim || !t_cpu || !rate || !cpu_rate)
        return 1;
    uint64_t st = 3;
    for (size_t i = 0; i < asz + bsz; i += 2) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint16_t h = npk_f32_to_f16((float)((double)(st >> 11) * 0x1p-52 - 1.0));
        uint8_t *p = i < asz ? a + i : b + (i - asz);
        p[0] = (uint8_t)h;
        p[1] = (uint8_t)(h >> 8);
    }
    if (ktsim_dram_write(s, A_AT, a, asz) || ktsim_dram_write(s, B_AT, b, bsz))
        return 1;
    kt_flit prog[MAX_CL * PROG];
    for (size_t u = 0; u < nmg; u++) {
        kt_flit *p = prog + u * PROG;
        if (kt_mat_fill(&p[0], A_AT, GM * NK, false, false, false, 0, 0x40, false) ||
            kt_mat_fill(&p[1], B_AT, GN * NK, true, false, false, 0, 0x40, false) ||
            kt_mat_gemm(&p[2], GM, GN, NK, false, 0, 0, false, false, 0x40, false) ||
            kt_mat_drain(&p[3], C_AT + u * C_STRIDE, GM * GN, 0x40, true))
            return 1;
    }
    uint64_t cycles = 0;
    for (int r = 0; r < runs; r++) {
        uint64_t c0 = ktsim_cycle(s), t0 = npk_now_ns(), p0 = npk_thread_cpu_ns();
        kt_ticket tk[MAX_CL];
        if (kt_stage(&d, 0, prog, (unsigned)(nmg * PROG)))
            return 1;
        for (size_t u = 0; u < nmg; u++)
            if (kt_dispatch(&d, &mg[u], (unsigned)(u * PROG), PROG, 0, &tk[u]))
                return 1;
        for (size_t u = 0; u < nmg; u++)
            if (kt_wait(&d, &tk[u], NULL)) {
                fprintf(stderr, "bench_kt_matmul: %s\n", npk_last_error());
                return 1;
            }
        t_sim[r] = (double)(npk_now_ns() - t0);
        double used = (double)(npk_thread_cpu_ns() - p0);
        cycles = ktsim_cycle(s) - c0;
        rate[r] = (double)cycles / t_sim[r] * 1e9;
        cpu_rate[r] = used > 0 ? (double)cycles / used * 1e9 : 0;
        t0 = npk_now_ns();
        volatile double sink = 0;
        for (size_t u = 0; u < nmg; u++)
            sink += cpu_product(a, b, c);
        t_cpu[r] = (double)(npk_now_ns() - t0);
        (void)sink;
    }
    if (ktsim_fault(s)) {
        fprintf(stderr, "bench_kt_matmul: simulator: %s\n", ktsim_fault(s));
        return 1;
    }
    double macs = (double)nmg * GM * 4 * GN * 4 * K;
    double sim_ns = npk_median(t_sim, runs), cpu_ns = npk_median(t_cpu, runs);
    printf("kt matmul on mg_2: %zu clusters x %u x %u x %u, %d runs, medians\n", nmg, GM * 4,
           GN * 4, K, runs);
    printf("  ktsim     %8.2f ms  %10.0f mesh cycles/s  (%llu cycles a run)  %8.1f M MAC/s\n",
           sim_ns / 1e6, npk_median(rate, runs), (unsigned long long)cycles,
           macs / sim_ns * 1e3);
    printf("  ktsim per CPU second %10.0f mesh cycles/s\n", npk_median(cpu_rate, runs));
    printf("  CPU MXFP7 %8.2f ms  %8.1f M MAC/s\n", cpu_ns / 1e6, macs / cpu_ns * 1e3);
    printf("  ratio ktsim/CPU %.3f\n", cpu_ns / sim_ns);
    double wall_rate = npk_median(rate, runs), per_cpu = npk_median(cpu_rate, runs);
    printf("goal: >= %.0f M mesh cycles/s: %.2f M by the wall clock, %.2f M per CPU second  %s\n",
           GOAL / 1e6, wall_rate / 1e6, per_cpu / 1e6, wall_rate >= GOAL ? "met" : "NOT MET");
    free(a);
    free(b);
    free(c);
    free(t_sim);
    free(t_cpu);
    free(rate);
    free(cpu_rate);
    ktsim_destroy(s);
    return 0;
}
