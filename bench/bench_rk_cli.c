/* SPDX-License-Identifier: MIT */
/* A one-shot `npukit rk matmul --dtype D -m 512 -k 3840 -n 4096 --device sim` (a new process:
 * start-up, random operands, weight packing, the simulated call, exit) against one sgemm of
 * that shape in this process, interleaved, medians of the runs; goal: the command within 3
 * times the sgemm.
 *
 * Runs the npukit next to this program (or $NPUKIT). Usage: bench_rk_cli [runs [dtype...]]
 * runs default 7; dtypes default fp16 int8 int4. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/measure.h"
#include "rksim/matmul.h"

extern char **environ;

enum { M = 512, K = 3840, N = 4096 };
static const double GOAL = 3.0;

/* path = the directory of argv0 joined with `leaf`. */
static void beside(char *path, size_t len, const char *argv0, const char *leaf)
{
    const char *slash = strrchr(argv0, '/');
    int dir = slash ? (int)(slash - argv0) : 1;
    snprintf(path, len, "%.*s/%s", dir, slash ? argv0 : ".", leaf);
}

/* Before each timed run: OpenBLAS's idle worker threads spin (sched_yield) for about 0.1 s
 * after a threaded call before they sleep; without a pause the command would share the cores
 * with the spinning the sgemm before it left behind. */
static void settle(void)
{
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* The command's wall time in ms, its output to /dev/null; < 0 when it did not succeed. */
static double run_cli(const char *cli, const char *dtype)
{
    char m[16], k[16], n[16];
    snprintf(m, sizeof m, "%d", M), snprintf(k, sizeof k, "%d", K), snprintf(n, sizeof n, "%d", N);
    char *args[] = {(char *)cli, "rk", "matmul", "--dtype",  (char *)dtype, "-m",      m,   "-k",
                    k,           "-n", n,        "--device", "sim",         "--quiet", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = npk_now_ms();
    int err = posix_spawn(&pid, cli, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    if (err || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        return -1;
    return npk_now_ms() - t0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    if (runs < 1 || runs > 1000) {
        fprintf(stderr, "bench_rk_cli: runs = %d, must be 1..1000\n", runs);
        return 2;
    }
    const char *all[] = {"fp16", "int8", "int4"};
    const char **dtypes = argc > 2 ? (const char **)argv + 2 : all;
    const int ndt = argc > 2 ? argc - 2 : 3;
    char cli[4096];
    if (getenv("NPUKIT"))
        snprintf(cli, sizeof cli, "%s", getenv("NPUKIT"));
    else
        beside(cli, sizeof cli, argv[0], "npukit");
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * N * K),
          *c = malloc(sizeof(float) * M * N);
    double *tc = malloc(sizeof(double) * (size_t)runs), *ts = malloc(sizeof(double) * (size_t)runs);
    if (!a || !b || !c || !tc || !ts) {
        fprintf(stderr, "bench_rk_cli: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = (float)(i % 17) / 16.0f - 0.5f;
    for (size_t i = 0; i < (size_t)N * K; i++)
        b[i] = (float)(i % 13) / 12.0f - 0.5f;
    rksim_sgemm_nt(M, N, K, a, K, b, K, c, N); /* warm */
    printf("one-shot `%s rk matmul -m %d -k %d -n %d --device sim` against one sgemm of that "
           "shape, medians of %d interleaved runs\n",
           cli, M, K, N, runs);
    for (int d = 0; d < ndt; d++) {
        for (int r = 0; r < runs; r++) {
            settle();
            tc[r] = run_cli(cli, dtypes[d]);
            if (tc[r] < 0) {
                fprintf(stderr, "bench_rk_cli: %s rk matmul --dtype %s failed\n", cli, dtypes[d]);
                return 1;
            }
            settle();
            double t0 = npk_now_ms();
            rksim_sgemm_nt(M, N, K, a, K, b, K, c, N);
            ts[r] = npk_now_ms() - t0;
        }
        double cm = npk_median(tc, (size_t)runs), sm = npk_median(ts, (size_t)runs);
        bool met = cm / sm <= GOAL;
        printf("  %-5s command %8.1f ms  sgemm %7.1f ms  ratio %5.2f  (goal <= %.1f: %s)\n",
               dtypes[d], cm, sm, cm / sm, GOAL, met ? "met" : "MISSED");
    }
    free(a), free(b), free(c), free(tc), free(ts);
    return 0;
}
