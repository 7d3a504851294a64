/* SPDX-License-Identifier: MIT */
/* What binding columns to cores costs: weights split by core on rocket (each core's file holds
 * the columns it computes) fix a call's plan to the planner's split of N over the cores, while
 * copies in every file leave the planner free to split M instead. For the matmul shapes of
 * LLaMA-7B/8B (and narrower ones), fp16, int8 and int4, at M = 1, 32, 128 and 512 on three
 * cores: the planner's modelled call time (its timing and host models, a MODEL, not a
 * measurement) with the N split fixed, over its free choice. 1.000: the split costs nothing.
 * The runtime takes copies only where this ratio passes 1.10 at the weights' M hint
 * (src/rk/runtime/runtime_placement.c).
 *
 * Usage: bench_rk_split [chain]   (tasks per SUBMIT the plans are costed for: 1, the runtime's
 *                                  default; the ggml backend runs 64) */
#include <stdio.h>
#include <stdlib.h>

#include "npukit/rk_plan.h"

/* The modelled time of the call's plan (core_split -1: the planner's choice); < 0 when it
 * cannot be planned. *split receives the split chosen. */
static double plan_us(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, uint32_t chain,
                      int core_split, int *split)
{
    npk_rk_plan_request r;
    npk_rk_plan_request_init(&r, in, m, k, n);
    r.cores = 3;
    r.core_split = core_split;
    r.chain = chain;
    npk_rk_plan_candidate c[NPK_RK_PLAN_MAX_CANDIDATES];
    size_t count = npk_rk_plan_candidates(&r, c, NPK_RK_PLAN_MAX_CANDIDATES);
    for (size_t i = 0; i < count && i < NPK_RK_PLAN_MAX_CANDIDATES; i++)
        if (c[i].chosen) {
            *split = c[i].core_split;
            return c[i].total_us;
        }
    return -1;
}

int main(int argc, char **argv)
{
    const unsigned long chain = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
    if (argc > 2 || chain < 1 || chain > 1024) {
        fprintf(stderr, "usage: bench_rk_split [chain 1..1024]\n");
        return 2;
    }
    static const uint32_t shapes[][2] = {{4096, 256},   {4096, 1024},  {4096, 4096},
                                         {4096, 11008}, {11008, 4096}, {4096, 14336},
                                         {14336, 4096}, {4096, 32000}, {4096, 128256}};
    static const npk_rk_prec precs[] = {NPK_PREC_INT8, NPK_PREC_INT4, NPK_PREC_FP16};
    static const uint32_t ms[] = {1, 32, 128, 512};
    printf("modelled call time, N split fixed / the planner's choice (its split in brackets), "
           "3 cores, %lu task%s per SUBMIT\n",
           chain, chain == 1 ? "" : "s");
    printf("%-5s %-13s", "dtype", "K x N");
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        printf("   M=%-8u", ms[i]);
    printf("\n");
    for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            char name[32];
            snprintf(name, sizeof name, "%ux%u", shapes[s][0], shapes[s][1]);
            printf("%-5s %-13s", npk_rk_prec_name(precs[p]), name);
            for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
                int free_split, fixed_split;
                double free_us = plan_us(precs[p], ms[i], shapes[s][0], shapes[s][1],
                                         (uint32_t)chain, -1, &free_split);
                double fixed_us = plan_us(precs[p], ms[i], shapes[s][0], shapes[s][1],
                                          (uint32_t)chain, NPK_RK_SPLIT_N, &fixed_split);
                if (free_us <= 0 || fixed_us <= 0) {
                    fprintf(stderr, "bench_rk_split: %s\n", npk_last_error());
                    return 1;
                }
                printf("   %.3f (%s)", fixed_us / free_us, npk_rk_core_split_name(free_split));
            }
            printf("\n");
        }
    return 0;
}
