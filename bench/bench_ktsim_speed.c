/* SPDX-License-Identifier: MIT */
/* ktsim's speed on the saxpy workload: `npukit kt saxpy -n 1000000` on the default preset, mesh
 * cycles per wall-clock second of the whole command (operand upload, staging, the waits and the
 * check of y included), with quiet cycles skipped (the default) and with every cycle ticked
 * (the same preset plus `skip_quiet 0`) in the same run: medians of 5, their ratio, and the
 * goal of 40 million mesh cycles per second. Both must report the same mesh cycles. Beside each
 * wall-clock rate is the rate per CPU second the command used (user + system): on a shared
 * machine the wall clock also counts the time the command waited for a core: under load the
 * wall-clock rate falls to a third of the CPU rate, and a plain CPU-bound loop shows the same
 * ratio, so the CPU rate is the simulator's figure and the load average (printed at the start
 * and the end, where the system reports one) says how far the wall clock can be trusted.
 *
 * Runs the npukit next to this program (or $NPUKIT), with the default preset found where the
 * library looks for its data: $NPUKIT_DATA_DIR, then share/npukit beside this program (every build
 * directory has it), then the source tree's data/ one level up. Usage: bench_ktsim_speed [N] */
#define _POSIX_C_SOURCE 200809L /* popen, clock_gettime, mkstemp, getrusage */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_cli.h"

enum { RUNS = 5, OUT_MAX = 1 << 16 };
static const double GOAL = 40e6; /* mesh cycles per second */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User + system seconds of the children waited for so far. */
static double children_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru))
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* One run: its wall and CPU time and the mesh cycles it reported; false when it failed. */
static bool run_once(const char *cli, const char *n, const char *preset, double *secs,
                     double *cpu, uint64_t *cycles)
{
    char cmd[2048], out[OUT_MAX];
    snprintf(cmd, sizeof cmd, "'%s' kt saxpy -n %s --json --sim '%s'", cli, n, preset);
    double t0 = now(), c0 = children_cpu();
    int rc = bench_cli_run(cmd, out, sizeof out);
    *secs = now() - t0;
    *cpu = children_cpu() - c0;
    /* the command's JSON, compact or spaced */
    const char *c = strstr(out, "\"cycles\":");
    const char *ok = strstr(out, "\"ok\":");
    ok = ok ? ok + strlen("\"ok\":") + strspn(ok + strlen("\"ok\":"), " ") : NULL;
    if (rc || !ok || strncmp(ok, "true", 4) || !c) {
        fprintf(stderr, "bench_ktsim_speed: `%s` failed:\n%s\n", cmd, out);
        return false;
    }
    *cycles = strtoull(c + strlen("\"cycles\":"), NULL, 10);
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median wall and CPU times of RUNS runs; *cycles is what every run reported (false if they
 * differ). */
static bool measure(const char *cli, const char *n, const char *preset, double *median,
                    double *cpu_median, uint64_t *cycles)
{
    double t[RUNS], cpu[RUNS];
    for (int i = 0; i < RUNS; i++) {
        uint64_t c;
        if (!run_once(cli, n, preset, &t[i], &cpu[i], &c))
            return false;
        if (i && c != *cycles) {
            fprintf(stderr,
                    "bench_ktsim_speed: runs of one preset disagree: %" PRIu64 " and %" PRIu64
                    " cycles\n",
                    *cycles, c);
            return false;
        }
        *cycles = c;
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    qsort(cpu, RUNS, sizeof cpu[0], cmp_double);
    *median = t[RUNS / 2];
    *cpu_median = cpu[RUNS / 2];
    return true;
}

/* The 1-minute load average, or a negative number where the system reports none. */
static double load_average(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* path = the directory of argv0 joined with `leaf`. */
static void beside(char *path, size_t len, const char *argv0, const char *leaf)
{
    const char *slash = strrchr(argv0, '/');
    int dir = slash ? (int)(slash - argv0) : 1;
    snprintf(path, len, "%.*s/%s", dir, slash ? argv0 : ".", leaf);
}

int main(int argc, char **argv)
{
    const char *n = argc > 1 ? argv[1] : "1000000";
    char cli[4096], preset[4096], ticked[] = "/tmp/bench_ktsim_speed_XXXXXX";
    if (getenv("NPUKIT"))
        snprintf(cli, sizeof cli, "%s", getenv("NPUKIT"));
    else
        beside(cli, sizeof cli, argv[0], "npukit");
    FILE *in = NULL;
    if (getenv("NPUKIT_DATA_DIR")) {
        snprintf(preset, sizeof preset, "%s/kt/default.mesh", getenv("NPUKIT_DATA_DIR"));
        in = fopen(preset, "r");
    }
    if (!in) {
        beside(preset, sizeof preset, argv[0], "share/npukit/kt/default.mesh");
        in = fopen(preset, "r");
    }
    if (!in) {
        beside(preset, sizeof preset, argv[0], "../data/kt/default.mesh");
        in = fopen(preset, "r");
    }
    /* The reference: the default preset, every cycle ticked. */
    int fd = mkstemp(ticked);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!in || !out) {
        fprintf(stderr, "bench_ktsim_speed: cannot read %s or write %s\n", preset, ticked);
        return 1;
    }
    char line[512];
    while (fgets(line, sizeof line, in))
        fputs(line, out);
    fputs("\nskip_quiet 0\n", out);
    fclose(in);
    fclose(out);
    double skip_s, tick_s, skip_cpu, tick_cpu, load0 = load_average();
    uint64_t skip_c = 0, tick_c = 0;
    bool ok = measure(cli, n, preset, &skip_s, &skip_cpu, &skip_c) &&
              measure(cli, n, ticked, &tick_s, &tick_cpu, &tick_c);
    unlink(ticked);
    if (!ok)
        return 1;
    if (skip_c != tick_c) {
        fprintf(stderr,
                "bench_ktsim_speed: skipping changed the cycle count: %" PRIu64 " vs %" PRIu64
                " ticked\n",
                skip_c, tick_c);
        return 1;
    }
    double skip_rate = (double)skip_c / skip_s, tick_rate = (double)tick_c / tick_s;
    printf("ktsim on `kt saxpy -n %s` (default preset, the whole command, median of %d): %" PRIu64
           " mesh cycles\n",
           n, RUNS, skip_c);
    printf("  every cycle ticked (skip_quiet 0): %.3f s, %.2f M cycles/s  (CPU %.3f s, %.2f M/s)\n",
           tick_s, tick_rate / 1e6, tick_cpu, (double)tick_c / tick_cpu / 1e6);
    printf("  quiet cycles skipped (default):    %.3f s, %.2f M cycles/s  (CPU %.3f s, %.2f M/s)  "
           "(%.2fx)\n",
           skip_s, skip_rate / 1e6, skip_cpu, (double)skip_c / skip_cpu / 1e6,
           skip_rate / tick_rate);
    printf("goal: >= %.0f M mesh cycles/s: %.2f M  %s\n", GOAL / 1e6, skip_rate / 1e6,
           skip_rate >= GOAL ? "met" : "NOT MET");
    if (load0 >= 0)
        printf("load average %.2f at the start, %.2f at the end (near or above the number of "
               "cores, the wall clock counts waiting)\n",
               load0, load_average());
    return 0;
}
