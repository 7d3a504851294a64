/* SPDX-License-Identifier: MIT */
/* The quantised matmuls on llama-7B-shaped layers (K x N = 4096 x 4096, 4096 x 11008,
 * 11008 x 4096) at M = 1, 32, 128, 512.
 *
 * Part 1, MODELLED (the planner's model: the timing model's NPU time plus the host model): per
 * call, the fp16 matmul (the dequantise-once alternative), W8A8 per output channel, and per-group
 * scales with groups of 128 and of 32 (Q8_0's block), each packed for that M (the cost model's
 * groups per pass, printed as j) and, for the groups, K-sliced tasks (j = 1); ratios to fp16.
 * Nothing runs on the NPU or the simulator in part 1.
 *
 * Part 2, MEASURED on this host: one per-group call (M = 32, K = 4096, N = 1024, groups of 128)
 * run RUNS times on the simulator: medians of the runtime's own host work per call that the
 * quantised path adds — A expanded per group (pack) and the partials scaled and added
 * (accumulate) — next to a memcpy of the partials' bytes measured in the same run.
 *
 * Usage: bench_rk_quant [runs] [host]   (default 5 runs; "host": part 2 only) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/measure.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return v[n / 2];
}

static double fp16_us(npk_rk *rt, uint32_t m, uint32_t k, uint32_t n)
{
    npk_rk_info info;
    npk_rk_query(rt, &info);
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, NPK_PREC_FP16, m, k, n);
    req.cores = info.cores;
    npk_rk_plan p;
    if (npk_rk_plan_matmul(&req, &p))
        return -1;
    double us = p.total_us;
    npk_rk_plan_free(&p);
    return us;
}

/* Modelled us of B packed for M = m with `group` (per_pass 0: the model's choice); *j the
 * groups per pass. */
static double quant_us(npk_rk *rt, const int8_t *b, const float *scale, uint32_t m, uint32_t k,
                       uint32_t n, uint32_t group, uint32_t per_pass, uint32_t *j)
{
    uint32_t groups = group ? (k + group - 1) / group : 1;
    npk_rk_qweights_desc d = {NPK_PREC_INT8,        k, n,       b, NPK_RK_ROWS, group, scale,
                              (uint64_t)groups * n, m, per_pass};
    npk_rk_qweights *q = NULL;
    double us = -1;
    npk_rk_qweights_info info;
    if (npk_rk_qweights_pack(rt, &d, &q) == NPK_OK &&
        npk_rk_matmul_quant_cost(rt, q, m, &us) == 0 && npk_rk_qweights_query(q, &info) == NPK_OK)
        *j = info.groups_per_pass;
    else
        fprintf(stderr, "bench_rk_quant: %ux%ux%u group %u: %s\n", m, k, n, group,
                npk_last_error());
    npk_rk_qweights_free(rt, q);
    return us;
}

static void modelled(npk_rk *rt)
{
    const uint32_t shapes[3][2] = {{4096, 4096}, {4096, 11008}, {11008, 4096}};
    const uint32_t ms[4] = {1, 32, 128, 512};
    printf("MODELLED per call (us; the planner's model, 3 cores), j = groups per NPU pass:\n");
    printf("%5s %6s %6s %10s %10s %14s %14s %14s %14s %8s %8s\n", "M", "K", "N", "fp16", "w8a8/ch",
           "g128 (j)", "g128 sliced", "g32 (j)", "g32 sliced", "ch/fp16", "g32/fp16");
    for (int s = 0; s < 3; s++) {
        uint32_t k = shapes[s][0], n = shapes[s][1];
        int8_t *b = calloc((size_t)k * n, 1);
        float *scale = malloc((size_t)(k / 32) * n * sizeof *scale);
        for (size_t i = 0; b && scale && i < (size_t)(k / 32) * n; i++)
            scale[i] = 1.0f / 64;
        for (int i = 0; b && scale && i < 4; i++) {
            uint32_t m = ms[i], j0 = 0, j128 = 0, j32 = 0, one = 0;
            double f = fp16_us(rt, m, k, n);
            double ch = quant_us(rt, b, scale, m, k, n, 0, 0, &j0);
            double g128 = quant_us(rt, b, scale, m, k, n, 128, 0, &j128);
            double g128s = quant_us(rt, b, scale, m, k, n, 128, 1, &one);
            double g32 = quant_us(rt, b, scale, m, k, n, 32, 0, &j32);
            double g32s = quant_us(rt, b, scale, m, k, n, 32, 1, &one);
            printf("%5u %6u %6u %10.1f %10.1f %9.1f (%2u) %14.1f %9.1f (%2u) %14.1f %8.2f %8.2f\n",
                   m, k, n, f, ch, g128, j128, g128s, g32, j32, g32s, ch / f, g32 / f);
        }
        free(b);
        free(scale);
    }
}

static void measured(npk_rk *rt, int runs)
{
    const uint32_t m = 32, k = 4096, n = 1024, group = 128, groups = k / group;
    int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)k * n);
    float *sb = malloc((size_t)groups * n * sizeof *sb), *sa = malloc(m * sizeof *sa);
    float *c = malloc((size_t)m * n * sizeof *c);
    size_t part_bytes = (size_t)m * groups * n * sizeof(int32_t);
    uint8_t *src = malloc(part_bytes), *dst = malloc(part_bytes);
    uint64_t *pack = calloc((size_t)runs, 8), *acc = calloc((size_t)runs, 8);
    uint64_t *host = calloc((size_t)runs, 8), *cpy = calloc((size_t)runs, 8);
    if (!a || !b || !sb || !sa || !c || !src || !dst || !pack || !acc || !host || !cpy) {
        fprintf(stderr, "bench_rk_quant: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < (size_t)m * k; i++)
        a[i] = (int8_t)(i * 2654435761u >> 20);
    for (size_t i = 0; i < (size_t)k * n; i++)
        b[i] = (int8_t)(i * 2246822519u >> 20);
    for (size_t i = 0; i < (size_t)groups * n; i++)
        sb[i] = 1.0f / 128;
    for (uint32_t i = 0; i < m; i++)
        sa[i] = 1.0f / 32;
    memset(src, 1, part_bytes);
    memset(dst, 0, part_bytes);
    npk_rk_qweights_desc d = {NPK_PREC_INT8,        k, n, b, NPK_RK_ROWS, group, sb,
                              (uint64_t)groups * n, m, 0};
    npk_rk_qweights *q = NULL;
    npk_rk_qweights_info info;
    if (npk_rk_qweights_pack(rt, &d, &q) || npk_rk_qweights_query(q, &info)) {
        fprintf(stderr, "bench_rk_quant: %s\n", npk_last_error());
        exit(1);
    }
    npk_rk_stats st;
    npk_rk_matmul_quant(rt, q, m, a, sa, m, NPK_PREC_FP32, c, &st); /* warm-up */
    for (int r = 0; r < runs; r++) {
        if (npk_rk_matmul_quant(rt, q, m, a, sa, m, NPK_PREC_FP32, c, &st)) {
            fprintf(stderr, "bench_rk_quant: %s\n", npk_last_error());
            exit(1);
        }
        pack[r] = st.pack_ns;
        acc[r] = st.accumulate_ns;
        host[r] = st.host_ns;
        uint64_t t0 = npk_now_ns();
        memcpy(dst, src, part_bytes);
        cpy[r] = npk_now_ns() - t0;
        src[r % part_bytes] ^= dst[(r * 7) % part_bytes]; /* keep the copy live */
    }
    uint64_t mp = median(pack, runs), ma = median(acc, runs), mh = median(host, runs),
             mc = median(cpy, runs);
    printf("\nMEASURED on this host, medians of %d: M=%u K=%u N=%u, groups of %u (%u per pass, "
           "%u passes)\n",
           runs, m, k, n, group, info.groups_per_pass, info.passes);
    printf("  pack (feature slots, A expanded per group): %.1f us\n", mp / 1e3);
    printf("  accumulate (partials read back, scaled and added in fp32): %.1f us\n", ma / 1e3);
    printf("  memcpy of the %zu bytes of int32 partials: %.1f us; accumulate / memcpy = %.1f\n",
           part_bytes, mc / 1e3, mc ? (double)ma / mc : 0);
    printf("  whole call on the simulator (its arithmetic included): %.1f ms\n", mh / 1e6);
    npk_rk_qweights_free(rt, q);
    free(a), free(b), free(sb), free(sa), free(c), free(src), free(dst);
    free(pack), free(acc), free(host), free(cpy);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1)
        runs = 1;
    npk_rk *rt = NULL;
    if (npk_rk_open("sim", &rt)) {
        fprintf(stderr, "bench_rk_quant: %s\n", npk_last_error());
        return 1;
    }
    if (!(argc > 2 && !strcmp(argv[2], "host")))
        modelled(rt);
    measured(rt, runs);
    npk_rk_close(rt);
    return 0;
}
