/* SPDX-License-Identifier: MIT */
/* The two per-call host costs of an M=1 matmul that do not depend on M, at K = N = 4096 fp16
 * (B is 32 MiB): the worker threads the runtime creates and joins for each call on three cores,
 * and the bound-weights check, which reads all of B through npk_rk_checksum on every call. A
 * memcpy of B measured in the same run is the reference the check is compared with (how many
 * times slower than copying B the check is). Medians of RUNS calls.
 *
 * Usage: bench_rk_call_host [runs]   (default 21) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/measure.h"
#include "npukit/rk.h"

enum { CORES = 3, K = 4096, N = 4096 };

static void *idle(void *arg) { return arg; }

/* One call's worth of worker threads: CORES created, then joined (as npk_rk_run_cores does). */
static double threads_ns(void)
{
    pthread_t t[CORES];
    uint64_t t0 = npk_now_ns();
    unsigned started = 0;
    for (; started < CORES; started++)
        if (pthread_create(&t[started], NULL, idle, NULL))
            break;
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    return started == CORES ? (double)(npk_now_ns() - t0) : -1;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 21;
    if (runs < 1 || runs > 10000) {
        fprintf(stderr, "bench_rk_call_host: runs %d, expected 1..10000\n", runs);
        return 2;
    }
    size_t bytes = (size_t)K * N * 2;
    unsigned char *b = malloc(bytes), *copy = malloc(bytes);
    double *thr = malloc(sizeof(double) * (size_t)runs),
           *sum = malloc(sizeof(double) * (size_t)runs),
           *cpy = malloc(sizeof(double) * (size_t)runs);
    if (!b || !copy || !thr || !sum || !cpy) {
        fprintf(stderr, "bench_rk_call_host: out of memory for %zu bytes\n", 2 * bytes);
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(i * 131u + 7u);
    uint64_t keep = 0;
    for (int r = 0; r < runs; r++) {
        thr[r] = threads_ns();
        if (thr[r] < 0) {
            fprintf(stderr, "bench_rk_call_host: pthread_create failed\n");
            return 1;
        }
        uint64_t t0 = npk_now_ns();
        keep ^= npk_rk_checksum(b, bytes);
        sum[r] = (double)(npk_now_ns() - t0);
        t0 = npk_now_ns();
        memcpy(copy, b, bytes);
        cpy[r] = (double)(npk_now_ns() - t0);
        keep ^= copy[(size_t)r % bytes];
    }
    double t = npk_median(thr, (size_t)runs), s = npk_median(sum, (size_t)runs),
           c = npk_median(cpy, (size_t)runs);
    printf("per-call host cost at M=1, K=N=%d fp16 (B %zu MiB), medians of %d:\n", K, bytes >> 20,
           runs);
    printf("  %d worker threads created and joined  %10.1f us\n", CORES, t / 1e3);
    printf("  bound-weights check (npk_rk_checksum) %10.1f us  %.2f GB/s  (%.2fx a memcpy of B)\n",
           s / 1e3, (double)bytes / s, s / c);
    printf("  memcpy of B (reference)               %10.1f us  %.2f GB/s\n", c / 1e3,
           (double)bytes / c);
    printf("(checksum %016llx)\n", (unsigned long long)keep);
    free(b);
    free(copy);
    free(thr);
    free(sum);
    free(cpy);
    return 0;
}
