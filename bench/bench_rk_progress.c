/* SPDX-License-Identifier: MIT */
/* What progress reports cost a long matmul: the same call (fp16 256x4096x4096 on the
 * simulator, 24 tasks) with no callback and with the CLI's terminal line (cli_progress.c's
 * arithmetic and a formatted write per report, here into /dev/null), interleaved run by run so
 * a loaded machine weighs on both alike. The ratio of the medians is the cost; it should stay
 * under 1.01.
 *
 * Usage: bench_rk_progress [runs]   (default 7) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "common/measure.h"
#include "npukit/rk.h"

enum { M = 256, K = 4096, N = 4096 };

typedef struct line {
    FILE *sink;
    uint64_t t0;
    unsigned reports;
} line;

/* The CLI's report, drawn every time (its throttle would draw fewer): an upper bound. */
static void report(void *user, uint32_t done, uint32_t total)
{
    line *l = user;
    double ran = (double)(npk_now_ns() - l->t0) * 1e-9;
    double rate = ran > 0 ? done / ran : 0;
    fprintf(l->sink, "\r\033[Krk matmul: %u/%u tasks (%u%%), %.1f tasks/s, %.0f s left", done,
            total, (unsigned)(100.0 * done / total), rate, rate > 0 ? (total - done) / rate : 0);
    fflush(l->sink);
    l->reports++;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    if (runs < 1 || runs > 1000) {
        fprintf(stderr, "bench_rk_progress: runs %d, expected 1..1000\n", runs);
        return 2;
    }
    uint16_t *a = calloc((size_t)M * K, 2), *b = calloc((size_t)K * N, 2);
    float *c = malloc((size_t)M * N * sizeof *c);
    double *plain = malloc(runs * sizeof *plain), *with = malloc(runs * sizeof *with);
    line l = {fopen("/dev/null", "w"), 0, 0};
    npk_rk *rt = NULL;
    npk_rk_weights *w = NULL;
    if (!a || !b || !c || !plain || !with || !l.sink || npk_rk_open("sim", &rt) ||
        npk_rk_weights_pack(rt, NPK_PREC_FP16, K, N, b, M, &w)) {
        fprintf(stderr, "bench_rk_progress: setup failed: %s\n", npk_last_error());
        return 1;
    }
    for (int i = 0; i < runs; i++) {
        for (int j = 0; j < 2; j++) {
            int with_line = (i + j) % 2; /* which goes first alternates run by run */
            npk_rk_set_progress(rt, with_line ? report : NULL, &l);
            l.t0 = npk_now_ns();
            uint64_t t0 = npk_now_ns();
            if (npk_rk_matmul(rt, w, M, a, NPK_PREC_FP32, c, NULL)) {
                fprintf(stderr, "bench_rk_progress: %s\n", npk_last_error());
                return 1;
            }
            (with_line ? with : plain)[i] = (double)(npk_now_ns() - t0);
        }
    }
    double p = npk_median(plain, (size_t)runs), q = npk_median(with, (size_t)runs);
    printf("fp16 %dx%dx%d on the simulator, medians of %d: no progress %.1f ms, with a "
           "progress line per report %.1f ms (%u reports): ratio %.4f\n",
           M, K, N, runs, p / 1e6, q / 1e6, l.reports / (unsigned)runs, q / p);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    fclose(l.sink);
    free(a), free(b), free(c), free(plain), free(with);
    return 0;
}
