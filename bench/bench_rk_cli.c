/* SPDX-License-Identifier: MIT */
/* A one-shot `npukit rk matmul --dtype D -m 512 -k 3840 -n 4096 --device sim` (a new process:
 * start-up, random operands, weight packing, the simulated call, exit) against one sgemm of
 * that shape in this process, interleaved, medians of the runs; goal: the command within 3
 * times the sgemm.
 *
 * Runs the npukit next to this program (or $NPUKIT). Usage: bench_rk_cli [runs [dtype...]]
 * runs default 7; dtypes default fp16 int8 int4. */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* Milliseconds of CPU time used by this process (the sgemm's threads included). */
static double process_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Before each timed run: OpenBLAS's idle worker threads spin (sched_yield) for about 0.1 s
 * after a threaded call before they sleep; without a pause the command would share the cores
 * with the spinning the sgemm before it left behind. */
static void settle(void)
{
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* The command's wall time in ms, its output to /dev/null, and in *cpu_ms the CPU time (user and
 * system) it used: what a busy machine leaves comparable. < 0 when it did not succeed. */
static double run_cli(const char *cli, const char *dtype, double *cpu_ms)
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
    struct rusage ru;
    if (err || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        return -1;
    double wall = npk_now_ms() - t0;
    *cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
              (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    return wall;
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
    double *cc = malloc(sizeof(double) * (size_t)runs), *cs = malloc(sizeof(double) * (size_t)runs);
    if (!a || !b || !c || !tc || !ts || !cc || !cs) {
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
            tc[r] = run_cli(cli, dtypes[d], &cc[r]);
            if (tc[r] < 0) {
                fprintf(stderr, "bench_rk_cli: %s rk matmul --dtype %s failed\n", cli, dtypes[d]);
                return 1;
            }
            settle();
            double c0 = process_cpu_ms(), t0 = npk_now_ms();
            rksim_sgemm_nt(M, N, K, a, K, b, K, c, N);
            ts[r] = npk_now_ms() - t0;
            cs[r] = process_cpu_ms() - c0;
        }
        double cm = npk_median(tc, (size_t)runs), sm = npk_median(ts, (size_t)runs);
        bool met = cm / sm <= GOAL;
        printf("  %-5s command %8.1f ms  sgemm %7.1f ms  ratio %5.2f  (goal <= %.1f: %s)\n",
               dtypes[d], cm, sm, cm / sm, GOAL, met ? "met" : "MISSED");
        double ccm = npk_median(cc, (size_t)runs), csm = npk_median(cs, (size_t)runs);
        printf("        CPU time: command %.1f ms, sgemm %.1f ms, ratio %.2f\n", ccm, csm,
               ccm / csm);
    }
    free(a), free(b), free(c), free(tc), free(ts), free(cc), free(cs);
    return 0;
}
