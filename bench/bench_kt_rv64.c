/* SPDX-License-Identifier: MIT */
/* The RV64 core's instruction rate: a hash-and-update loop over 512 scratchpad words
 * (load, multiply, add, xor, shift, store, pointer and counter updates, a taken branch — ten
 * instructions per element) run on the simulated core, against the same loop compiled natively
 * in the same run. Prints the medians: simulated instructions per second (per wall second and
 * per second of the thread's CPU time, which other processes on a busy machine do not stretch),
 * the native loop's rate counted in the same instructions, and their ratio, with the goal of 250
 * million simulated instructions per second beside each rate.
 *
 * Usage: bench_kt_rv64 [runs]   (default 5) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktsim/rv64.h"
#include "ktsim/rv64_asm.h"
#include "common/measure.h"

enum { WORDS = 512, PASSES = 2000, INSNS_PER_ELEMENT = 10 };
static const uint64_t MULT = 0x9E3779B97F4A7C15ull;
static const double GOAL_M = 250; /* million simulated instructions per second */

/* The native reference: the program's work, element by element. */
static uint64_t native_pass(uint64_t *w, uint64_t mult, uint64_t acc)
{
    for (unsigned i = 0; i < WORDS; i++) {
        uint64_t v = w[i] * mult + acc;
        acc ^= v;
        acc += v >> 7;
        w[i] = v;
    }
    return acc;
}

static uint64_t ctrl_load(void *ctx, uint32_t off, unsigned width)
{
    (void)ctx, (void)off, (void)width;
    return 0;
}
static bool ctrl_store(void *ctx, uint32_t off, unsigned width, uint64_t v)
{
    (void)ctx, (void)off, (void)width, (void)v;
    return true;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 100) {
        fprintf(stderr, "bench_kt_rv64: runs = %d, must be 1..100\n", runs);
        return 2;
    }
    ksim_rv64_cfg cfg;
    ksim_rv64_cfg_default(&cfg);
    ksim_rv64_bus bus = {NULL, ctrl_load, ctrl_store};
    ksim_rv64 core;
    if (!ksim_rv64_init(&core, &cfg, &bus)) {
        fprintf(stderr, "bench_kt_rv64: cannot create the core\n");
        return 1;
    }
    /* x13 = multiplier (loaded from the scratchpad), x14 = accumulator, x16 = passes left. */
    const uint32_t prog[] = {
        rva_lui(10, 0x10),            /* 0: x10 = scratchpad base */
        rva_ld(13, 10, 0),            /*    x13 = the multiplier, word 0; the array starts at word 2 */
        rva_addi(14, 0, 0),           /*    acc = 0 */
        rva_addi(16, 0, PASSES),      /*    passes left */
        RVA_NOP,
        rva_addi(12, 10, 16),         /* 5: pass: x12 = &w[0] */
        rva_addi(15, 0, WORDS),       /*    x15 = elements left */
        rva_ld(5, 12, 0),             /* 7: element: v = w[i] */
        rva_mul(5, 5, 13),
        rva_add(5, 5, 14),
        rva_xor(14, 14, 5),
        rva_srli(6, 5, 7),
        rva_add(14, 14, 6),
        rva_sd(5, 12, 0),
        rva_addi(12, 12, 8),
        rva_addi(15, 15, -1),
        rva_bne(15, 0, -9 * 4),       /*    back to 7 */
        rva_addi(16, 16, -1),
        rva_bne(16, 0, -13 * 4),      /*    back to 5 */
        rva_sd(14, 10, 8),            /*    result, word 1 */
        rva_lui(7, 0x20),             /*    exit through the control region */
        rva_sd(14, 7, 0),
    };
    for (unsigned i = 0; i < sizeof prog / sizeof prog[0]; i++)
        ksim_rv64_imem_write(&core, i, prog[i]);

    uint64_t *ref = malloc(WORDS * sizeof *ref);
    double *t_sim = malloc(runs * sizeof *t_sim), *t_nat = malloc(runs * sizeof *t_nat);
    double *cpu_sim = malloc(runs * sizeof *cpu_sim);
    if (!ref || !t_sim || !t_nat || !cpu_sim)
        return 1;
    uint64_t insns = 0, acc_sim = 0, acc_nat = 0;
    for (int r = 0; r < runs; r++) {
        for (unsigned i = 0; i < WORDS; i++) {
            ref[i] = i * 0x12345ull + 1;
            ksim_rv64_spad_write(&core, 2 + i, ref[i], 0xff, KSIM_RV64_NO_CYCLE);
        }
        ksim_rv64_spad_write(&core, 0, MULT, 0xff, KSIM_RV64_NO_CYCLE);
        ksim_rv64_reset(&core);
        uint64_t c0 = npk_thread_cpu_ns(), t0 = npk_now_ns();
        ksim_rv64_stop st = ksim_rv64_run(&core, UINT64_MAX, UINT64_MAX);
        t_sim[r] = (double)(npk_now_ns() - t0);
        cpu_sim[r] = (double)(npk_thread_cpu_ns() - c0);
        if (st != KSIM_RV64_BUS_STOP) {
            fprintf(stderr, "bench_kt_rv64: the program stopped with %d at pc 0x%llx\n", (int)st,
                    (unsigned long long)core.pc);
            return 1;
        }
        insns = core.retired;
        memcpy(&acc_sim, core.spad + 8, 8);

        /* The multiplier travels through a volatile so the compiler cannot fold it. */
        volatile uint64_t mult = MULT;
        t0 = npk_now_ns();
        uint64_t acc = 0;
        for (unsigned p = 0; p < PASSES; p++)
            acc = native_pass(ref, mult, acc);
        t_nat[r] = (double)(npk_now_ns() - t0);
        acc_nat = acc;
    }
    if (acc_sim != acc_nat) {
        fprintf(stderr, "bench_kt_rv64: simulated result 0x%llx differs from native 0x%llx\n",
                (unsigned long long)acc_sim, (unsigned long long)acc_nat);
        return 1;
    }
    double sim_ns = npk_median(t_sim, runs), nat_ns = npk_median(t_nat, runs);
    double cpu_ns = npk_median(cpu_sim, runs);
    double sim_rate = (double)insns / sim_ns * 1e3, nat_rate = (double)insns / nat_ns * 1e3;
    double cpu_rate = (double)insns / cpu_ns * 1e3;
    printf("rv64 core: %llu instructions per run (%d per element), %d runs, medians\n",
           (unsigned long long)insns, INSNS_PER_ELEMENT, runs);
    printf("  simulated  %8.1f ms  %8.1f M instructions/s\n", sim_ns / 1e6, sim_rate);
    printf("  simulated  %8.1f ms  %8.1f M instructions per CPU second\n", cpu_ns / 1e6, cpu_rate);
    printf("  native C   %8.1f ms  %8.1f M equivalent instructions/s\n", nat_ns / 1e6, nat_rate);
    printf("  ratio simulated/native %.3f  (cycles modelled: %llu)\n", sim_rate / nat_rate,
           (unsigned long long)core.cycles);
    printf("goal: >= %.0f M simulated instructions/s: %.1f M  %s\n", GOAL_M, sim_rate,
           sim_rate >= GOAL_M ? "met" : "NOT MET");
    printf("goal: >= %.0f M simulated instructions per CPU second: %.1f M  %s\n", GOAL_M,
           cpu_rate, cpu_rate >= GOAL_M ? "met" : "NOT MET");
    free(ref);
    free(t_sim);
    free(t_nat);
    free(cpu_sim);
    ksim_rv64_free(&core);
    return 0;
}
