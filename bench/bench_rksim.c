/* SPDX-License-Identifier: MIT */
/* The simulator's speed: one large fp16 matmul task submitted to rksim (regcmd walk, operand
 * reads from the NPU layouts, fp32 arithmetic, output geometry) against the same BLAS call
 * (sgemm, fp32) on the same data, in the same run. Prints the medians and their ratio, and the
 * modelled NPU time (hw_elapse_time, a model).
 *
 * The task is a valid one for the hardware: fp16 K=1024 with the sched-1 split holds 176 rows
 * (the M ceiling), N=8192 is the per-task N limit.
 *
 * Usage: bench_rksim [runs]   (default 7) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/measure.h"
#include "npukit/fp16.h"
#include "npukit/rk_device.h"
#include "npukit/rk_device_sim.h"
#include "npukit/rk_sched.h"
#include "rksim/matmul.h"

enum { M = 176, K = 1024, N = 8192 };

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    if (runs < 1 || runs > 1000) {
        fprintf(stderr, "bench_rksim: runs = %d, must be 1..1000\n", runs);
        return 2;
    }
    uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)K * N * 2);
    float *af = malloc((size_t)M * K * 4), *btf = malloc((size_t)N * K * 4);
    float *c = malloc((size_t)M * N * 4), *cref = malloc((size_t)M * N * 4);
    double *t_sim = malloc(runs * sizeof *t_sim), *t_blas = malloc(runs * sizeof *t_blas);
    if (!a || !b || !af || !btf || !c || !cref || !t_sim || !t_blas) {
        fprintf(stderr, "bench_rksim: out of memory\n");
        return 1;
    }
    uint64_t s = 12345;
    for (size_t i = 0; i < (size_t)M * K; i++) {
        s = s * 6364136223846793005ull + 1;
        a[i] = npk_f32_to_f16((float)(s >> 40) / (float)(1 << 24) - 0.5f);
        af[i] = npk_f16_to_f32(a[i]);
    }
    for (size_t i = 0; i < (size_t)K * N; i++) {
        s = s * 6364136223846793005ull + 1;
        b[i] = npk_f32_to_f16((float)(s >> 40) / (float)(1 << 24) - 0.5f);
    }
    for (size_t k = 0; k < K; k++)
        for (size_t n = 0; n < N; n++)
            btf[n * K + k] = npk_f16_to_f32(b[k * N + n]);

    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.timeout_scale = 0;
    npk_rk_device *d;
    npk_rk_devtask t;
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, M, K, N);
    mm.sched = NPK_SCHED_1;
    if (npk_rk_device_open_sim(&cfg, &d) || npk_rk_devtask_create(d, &mm, 0, &t) ||
        npk_rk_devtask_load(d, &t, a, b)) {
        fprintf(stderr, "bench_rksim: %s\n", npk_last_error());
        return 1;
    }
    struct rknpu_submit sub;
    if (npk_rk_devtask_submit(d, &t, 0, 6000, &sub)) { /* warm: page faults, tables */
        fprintf(stderr, "bench_rksim: %s\n", npk_last_error());
        return 1;
    }
    rksim_sgemm_nt(M, N, K, af, K, btf, K, cref, N);
    for (int r = 0; r < runs; r++) {
        double t0 = npk_now_ms();
        npk_status st = npk_rk_devtask_submit(d, &t, 0, 6000, &sub);
        double t1 = npk_now_ms();
        rksim_sgemm_nt(M, N, K, af, K, btf, K, cref, N);
        double t2 = npk_now_ms();
        if (st) {
            fprintf(stderr, "bench_rksim: %s\n", npk_last_error());
            return 1;
        }
        t_sim[r] = t1 - t0;
        t_blas[r] = t2 - t1;
    }
    /* the simulator's output must be the BLAS result (same fp32 arithmetic) */
    npk_rk_devtask_read(d, &t, c);
    double maxdiff = 0;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        double dlt = c[i] > cref[i] ? c[i] - cref[i] : cref[i] - c[i];
        if (dlt > maxdiff)
            maxdiff = dlt;
    }
    double ms_sim = npk_median(t_sim, (size_t)(runs)), ms_blas = npk_median(t_blas, (size_t)(runs));
    double gflop = 2.0 * M * K * N / 1e9;
    printf("rksim fp16 matmul M=%d K=%d N=%d (%.2f GFLOP), %d runs, arithmetic: %s\n", M, K, N,
           gflop, runs, rksim_gemm_uses_blas() ? "OpenBLAS sgemm" : "portable loop");
    printf("  simulator submit   median %8.2f ms  %6.1f GFLOP/s\n", ms_sim, gflop / ms_sim * 1e3);
    printf("  BLAS sgemm         median %8.2f ms  %6.1f GFLOP/s\n", ms_blas,
           gflop / ms_blas * 1e3);
    printf("  ratio simulator / BLAS: %.2f\n", ms_sim / ms_blas);
    printf("  max |simulator - BLAS|: %.3g\n", maxdiff);
    printf("  modelled NPU time (timing model, not a measurement): %lld us\n",
           (long long)sub.u48_.hw_elapse_time);
    npk_rk_devtask_destroy(d, &t);
    npk_rk_device_close(d);
    free(a), free(b), free(af), free(btf), free(c), free(cref), free(t_sim), free(t_blas);
    return 0;
}
