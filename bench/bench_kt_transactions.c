/* SPDX-License-Identifier: MIT */
/* Host transactions per `npukit kt saxpy -n 1000000` on the default preset: the host form, the
 * engine form, and a second run of an already-loaded engine program (GO and its completion check
 * only), against the targets — at most 2 host transactions per staged program on the loaded
 * engine path, polls under 10% of all transactions on the host path — and against the engine
 * form polling its CTRL back to back, measured in the same run. Counts, not time: the simulator
 * is deterministic, so one run of each is the figure.
 *
 * Runs the npukit next to this program (or $NPUKIT). Usage: bench_kt_transactions [N] */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench_cli.h"

enum { OUT_MAX = 1 << 16 };

typedef struct run {
    uint64_t transactions, reads, writes, block_reads, block_writes, polls, checks, programs;
    uint64_t rerun_runs, rerun_transactions, rerun_check;
    bool ok;
} run;

/* The number at `name` in the object `from` of the command's JSON (the top level when NULL), or 0
 * when absent. */
static uint64_t field(const cJSON *root, const char *from, const char *name)
{
    const cJSON *obj = from ? cJSON_GetObjectItemCaseSensitive(root, from) : root;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

static bool saxpy(const char *cli, const char *n, const char *args, run *r)
{
    char cmd[1024], out[OUT_MAX];
    snprintf(cmd, sizeof cmd, "'%s' kt saxpy -n %s --json %s", cli, n, args);
    int rc = bench_cli_run(cmd, out, sizeof out);
    memset(r, 0, sizeof *r);
    cJSON *root = rc == 0 ? cJSON_Parse(out) : NULL;
    r->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "ok"));
    if (!r->ok) {
        fprintf(stderr, "bench_kt_transactions: `%s` failed (status %d):\n%s\n", cmd, rc, out);
        cJSON_Delete(root);
        return false;
    }
    r->transactions = field(root, NULL, "transactions");
    r->reads = field(root, "transport", "reads");
    r->writes = field(root, "transport", "writes");
    r->block_reads = field(root, "transport", "block_reads");
    r->block_writes = field(root, "transport", "block_writes");
    r->polls = field(root, "waits", "polls");
    r->checks = field(root, "waits", "checks");
    r->programs = field(root, NULL, "programs");
    r->rerun_runs = field(root, "reruns", "runs");
    r->rerun_transactions = field(root, "reruns", "transactions");
    r->rerun_check = field(root, "reruns", "check_transactions");
    cJSON_Delete(root);
    return true;
}

static void row(const char *form, const run *r)
{
    printf("%-34s %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
           " %9.2f\n",
           form, r->transactions, r->reads, r->writes, r->block_reads + r->block_writes, r->polls,
           r->checks, (double)r->transactions / (double)r->programs);
}

static const char *verdict(bool met) { return met ? "met" : "NOT MET"; }

int main(int argc, char **argv)
{
    const char *n = argc > 1 ? argv[1] : "1000000";
    char cli[4096];
    bench_cli_path(argv[0], cli, sizeof cli);
    enum { RERUNS = 10 };
    char rerun_args[64];
    snprintf(rerun_args, sizeof rerun_args, "--engine --reruns %d", RERUNS);
    run host, eng, b2b;
    if (!saxpy(cli, n, "", &host) || !saxpy(cli, n, rerun_args, &eng) ||
        !saxpy(cli, n, "--engine --wait-cycles 0", &b2b))
        return 1;
    printf("kt saxpy -n %s on the default preset: host transactions (counts; %" PRIu64
           " programs of up to 64 instructions, two per staging round)\n\n",
           n, host.programs);
    printf("%-34s %8s %7s %7s %7s %7s %7s %9s\n", "form", "total", "reads", "writes", "blocks",
           "polls", "checks", "/program");
    row("host", &host);
    row("engine", &eng);
    row("engine, CTRL read back to back", &b2b);
    double per_rerun = (double)eng.rerun_transactions / (double)eng.rerun_runs;
    double programs_per_run = 2.0; /* the loaded program is a round: one program per unit */
    printf("\nengine, loaded program run again:  %" PRIu64 " runs in %" PRIu64
           " transactions = %.2f per run of %.0f programs (GO and the CTRL check), %.2f per "
           "program; the fault check after them: %" PRIu64 " reads\n",
           eng.rerun_runs, eng.rerun_transactions, per_rerun, programs_per_run,
           per_rerun / programs_per_run, eng.rerun_check);
    printf("engine form against back-to-back CTRL reads: %.1fx fewer transactions\n",
           (double)b2b.transactions / (double)eng.transactions);
    bool t1 = per_rerun / programs_per_run <= 2.0;
    double polls = 100.0 * (double)host.polls / (double)host.transactions;
    double checks = 100.0 * (double)host.checks / (double)host.transactions;
    bool t2 = polls < 10.0;
    printf("\ntarget: <= 2 host transactions per staged program, loaded engine path: %.2f  %s\n",
           per_rerun / programs_per_run, verdict(t1));
    printf("target: polls < 10%% of all transactions, host path: %.1f%%  %s\n", polls, verdict(t2));
    printf("        (completion checks — status reads that found what they waited for — are "
           "another %.1f%%; counted as polls, %.1f%%)\n",
           checks, polls + checks);
    return 0;
}
