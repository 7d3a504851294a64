/* SPDX-License-Identifier: MIT */
/* The two per-call host costs of an M=1 matmul that do not depend on M, at K = N = 4096 fp16
 * (B is 32 MiB), each the way the runtime paid it before and the way it pays it now, measured
 * side by side in one run (interleaved, so a loaded machine weighs on both alike):
 *   - handing a call's three core groups to threads: before, a thread created and joined per
 *     core per call (reproduced here); now, the runtime's persistent workers (npk_rk_run_cores:
 *     the caller runs the first group, two woken workers the others). The groups do nothing,
 *     so this is the hand-off alone;
 *   - the bound-weights check, which reads all of B every call: before, a scalar multiply-xor
 *     checksum (reproduced here); now, npk_rk_checksum (xxHash's XXH3). A memcpy of B in the
 *     same run is the reference (how many times a copy of B each costs).
 * Medians of RUNS calls; the ratios are before / now. On a loaded machine a woken thread may
 * wait for a CPU as long as a new one does, so the hand-off's fastest run is shown too: the
 * cost itself, without the wait.
 *
 * Usage: bench_rk_call_host [runs]   (default 21) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/measure.h"
#include "npukit/rk.h"
#include "rk/runtime/runtime_internal.h"

enum { CORES = 3, K = 4096, N = 4096, COLS = 5 };

/* A core group that does nothing: what is timed is handing it out and collecting it. */
static npk_status empty_group(void *ctx, size_t first, size_t count, npk_rk_stats *st)
{
    (void)ctx;
    st->tasks += (uint32_t)(first + count);
    return NPK_OK;
}

static void *empty_thread(void *arg)
{
    npk_rk_stats st = {0};
    empty_group(NULL, 0, 1, &st);
    return arg;
}

/* Before: one call's worth of worker threads, CORES created, then joined. */
static double threads_ns(void)
{
    pthread_t t[CORES];
    uint64_t t0 = npk_now_ns();
    unsigned started = 0;
    for (; started < CORES; started++)
        if (pthread_create(&t[started], NULL, empty_thread, NULL))
            break;
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    return started == CORES ? (double)(npk_now_ns() - t0) : -1;
}

/* Now: one call's groups through the runtime's persistent workers. */
static double workers_ns(npk_rk_workers **pool, const npk_rk_plan *plan)
{
    npk_rk_stats st = {0};
    uint64_t t0 = npk_now_ns();
    npk_status s = npk_rk_run_cores(pool, plan, empty_group, NULL, &st);
    return s == NPK_OK ? (double)(npk_now_ns() - t0) : -1;
}

/* Before: the bound-weights checksum the runtime used, four multiply-xor lanes over 8-byte
 * words. */
static uint64_t old_checksum(const void *bytes, uint64_t n)
{
    const uint8_t *p = bytes;
    const uint64_t mul = 0x9E3779B97F4A7C15ull;
    uint64_t h[4] = {1, 2, 3, 4};
    uint64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; l++) {
            uint64_t v;
            memcpy(&v, p + i + 8 * l, 8);
            h[l] = (h[l] ^ v) * mul;
            h[l] ^= h[l] >> 31;
        }
    uint64_t r = n;
    for (int l = 0; l < 4; l++)
        r = (r ^ h[l]) * mul;
    for (; i < n; i++)
        r = (r ^ p[i]) * mul;
    return r ^ (r >> 29);
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
    double *v = malloc(sizeof(double) * (size_t)runs * COLS);
    if (!b || !copy || !v) {
        fprintf(stderr, "bench_rk_call_host: out of memory for %zu bytes\n", 2 * bytes);
        return 1;
    }
    double *thr = v, *wkr = v + runs, *old = v + 2 * runs, *sum = v + 3 * runs, *cpy = v + 4 * runs;
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(i * 131u + 7u);
    npk_rk_task_plan tasks[CORES] = {{0}};
    for (unsigned i = 0; i < CORES; i++)
        tasks[i].core = i;
    npk_rk_plan plan = {.tasks = tasks, .count = CORES};
    npk_rk_workers *pool = NULL;
    if (workers_ns(&pool, &plan) < 0) { /* the workers start here, as on a runtime's first call */
        fprintf(stderr, "bench_rk_call_host: %s\n", npk_last_error());
        return 1;
    }
    uint64_t keep = 0;
    for (int r = 0; r < runs; r++) {
        thr[r] = threads_ns();
        wkr[r] = workers_ns(&pool, &plan);
        if (thr[r] < 0 || wkr[r] < 0) {
            fprintf(stderr, "bench_rk_call_host: could not start threads\n");
            return 1;
        }
        uint64_t t0 = npk_now_ns();
        keep ^= old_checksum(b, bytes);
        old[r] = (double)(npk_now_ns() - t0);
        t0 = npk_now_ns();
        keep ^= npk_rk_checksum(b, bytes);
        sum[r] = (double)(npk_now_ns() - t0);
        t0 = npk_now_ns();
        memcpy(copy, b, bytes);
        cpy[r] = (double)(npk_now_ns() - t0);
        keep ^= copy[(size_t)r % bytes];
    }
    npk_rk_workers_free(pool);
    double t = npk_median(thr, (size_t)runs), w = npk_median(wkr, (size_t)runs),
           o = npk_median(old, (size_t)runs), s = npk_median(sum, (size_t)runs),
           c = npk_median(cpy, (size_t)runs);
    printf("per-call host cost at M=1, K=N=%d fp16 (B %zu MiB), %d cores, medians of %d:\n", K,
           bytes >> 20, CORES, runs);
    printf("  %-44s %12s %12s %8s\n", "", "before", "now", "ratio");
    printf("  %-44s %9.1f us %9.1f us %7.1fx\n", "core hand-off (threads per call / workers)",
           t / 1e3, w / 1e3, t / w);
    printf("  %-44s %9.1f us %9.1f us %7.1fx\n", "  its fastest run (npk_median sorted them)",
           thr[0] / 1e3, wkr[0] / 1e3, thr[0] / wkr[0]);
    printf("  %-44s %9.1f us %9.1f us %7.2fx\n", "bound-weights check (multiply-xor / XXH3)",
           o / 1e3, s / 1e3, o / s);
    printf("  %-44s %9.2f    %9.2f\n", "  its rate, GB/s", (double)bytes / o, (double)bytes / s);
    printf("  %-44s %9.2f    %9.2f\n", "  times a memcpy of B", o / c, s / c);
    printf("  %-44s %9.1f us %9.1f us %7.2fx\n", "per-call host overhead (hand-off + check)",
           (t + o) / 1e3, (w + s) / 1e3, (t + o) / (w + s));
    printf("  %-44s %9.1f us %9.2f GB/s\n", "memcpy of B (reference)", c / 1e3, (double)bytes / c);
    printf("(checksum %016llx)\n", (unsigned long long)keep);
    free(b);
    free(copy);
    free(v);
    return 0;
}
