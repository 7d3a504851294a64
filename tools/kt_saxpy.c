/* SPDX-License-Identifier: MIT */
/* `npukit kt saxpy -n N`: put x and y in simulated DRAM, stage one program per saxpy unit (64
 * elements per instruction), dispatch with credit from each unit's CU_CAPS, wait on NODE_STATUS,
 * and check y against the host's own a*x + y (the job itself is kt_saxpy_job.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "kt_cli.h"
#include "kt_saxpy_job.h"
#include "npukit/kt_saxpy.h"

static int fail(kt_cli *c, kt_saxpy_job *j, const char *what)
{
    int rc = cli_lib_error(what);
    kt_saxpy_job_free(j);
    kt_cli_close(c);
    return rc;
}

int kt_saxpy_main(int argc, char **argv)
{
    kt_card_cli card = {0};
    uint64_t n = 1000;
    bool engine = false, reruns_given = false;
    kt_saxpy_engine_opts eo = {0};
    const cli_opt own[] = {
        {.name = "-n",
         .kind = CLI_U64,
         .dest = &n,
         .min = 1,
         .max = KT_SAXPY_MAX_N,
         .meta = "N",
         .help = "elements of x and y (default 1000)"},
        {.name = "--engine",
         .kind = CLI_FLAG,
         .dest = &engine,
         .help = "stage, dispatch and wait as one program in the card's engine"},
        {.name = "--wait-cycles",
         .kind = CLI_U64,
         .dest = &eo.wait_cycles,
         .max = 1u << 24,
         .given = &eo.wait_given,
         .meta = "C",
         .help = "with --engine: poll the engine every C mesh cycles (0: back to back) instead of "
                 "the adaptive waits"},
        {.name = "--reruns",
         .kind = CLI_U32,
         .dest = &eo.reruns,
         .min = 1,
         .max = 1000,
         .given = &reruns_given,
         .meta = "R",
         .help = "with --engine: run the last round's loaded program R more times (GO and its "
                 "completion check each) and report their transactions"},
        CLI_END,
    };
    const cli_opt *tables[] = {own,
                               kt_cli_rows(&card.o),
                               kt_cli_discovery_rows(&card.o),
                               kt_cli_wait_rows(&card.o),
                               kt_card_cli_rows(&card),
                               NULL};
    cli_spec spec = {.cmd = "kt saxpy",
                     .synopsis = "[-n N] [--engine] [options]",
                     .about = "stage, dispatch and check y = a*x + y on the saxpy units",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (engine) /* the engine form lives in kt_saxpy_engine.c */
        return kt_saxpy_engine_run(&card, n, &eo);
    if (card.meshes_given || eo.wait_given || reruns_given) {
        fprintf(stderr, "npukit kt saxpy: %s applies to --engine only\n",
                card.meshes_given ? "--meshes"
                : eo.wait_given   ? "--wait-cycles"
                                  : "--reruns");
        return 2;
    }
    kt_cli c = {0};
    c.o = card.o;
    if ((rc = kt_cli_open(&c)))
        return rc;
    ktsim_config preset_cfg;
    const ktsim_config *cfg = kt_cli_sim_config(c.m, &c.o.m, &preset_cfg);
    const kt_board *board = kt_machine_board(c.m);
    uint64_t mem = kt_machine_mem_base(c.m, 0);
    kt_transport *t = kt_machine_transport(c.m);
    kt_saxpy_job j;
    if (kt_saxpy_job_init(&j, &c.dev, mem, board->dram_size, n, board->name))
        return fail(&c, &j, "kt saxpy");
    kt_cli_pace(&c.dev, c.m, &c.o);
    kt_cli_span_begin(c.m); /* the control plane's work from here: cycles and counts */
    c.dev.waits = (kt_wait_stats){0};
    uint64_t programs = 0;
    kt_saxpy_round rd;
    npk_status s;
    while (kt_saxpy_job_next_round(&j, &rd, &s)) {
        if (kt_stage(&c.dev, 0, j.prog, rd.flits))
            return fail(&c, &j, "kt saxpy: staging");
        kt_ticket tk[KT_SAXPY_MAX_UNITS];
        for (size_t u = 0; u < j.nsx; u++)
            tk[u].expect_cycles = kt_saxpy_expect_cycles(cfg, rd.count[u]);
        for (size_t u = 0; u < j.nsx; u++)
            if (rd.count[u] && kt_dispatch(&c.dev, &j.sx[u], rd.base[u], rd.count[u], 0, &tk[u]))
                return fail(&c, &j, "kt saxpy: dispatch");
        for (size_t u = 0; u < j.nsx; u++) {
            if (!rd.count[u])
                continue;
            programs++;
            if (kt_wait(&c.dev, &tk[u], NULL))
                return fail(&c, &j, "kt saxpy: waiting");
        }
    }
    size_t bad = 0;
    if (s || kt_saxpy_job_check(&j, t, mem, &bad))
        return fail(&c, &j, "kt saxpy");
    char fault_text[512];
    const char *fault = kt_machine_fault(c.m, fault_text, sizeof fault_text) ? fault_text : NULL;
    int out = 0;
    if (c.o.json) {
        cJSON *doc = json_doc();
        json_u64(doc, "n", n);
        json_sig(doc, "a", j.a, 6);
        json_u64(doc, "units", j.nsx);
        json_u64(doc, "instructions", j.chunks);
        json_u64(doc, "programs", programs);
        json_u64(doc, "mismatches", bad);
        json_bool(doc, "ok", !bad && !fault);
        kt_cli_json_counts(doc, &c);
        kt_cli_json_waits(doc, &c.dev.waits);
        kt_cli_json_timing(doc, c.m);
        out = json_print(doc, "kt saxpy");
    } else {
        printf("saxpy: y = %g*x + y, n=%" PRIu64 " on %zu units: %" PRIu64
               " instructions in %" PRIu64 " programs\n",
               j.a, n, j.nsx, j.chunks, programs);
        printf("check: %s (%zu of %zu elements differ)\n", bad ? "MISMATCH" : "ok", bad, (size_t)n);
        kt_cli_print_timing(c.m);
        kt_cli_print_counts(&c);
        kt_cli_print_waits(&c.dev.waits);
    }
    if (fault)
        fprintf(stderr, "npukit kt saxpy: %s: %s\n", kt_machine_sim(c.m) ? "simulator" : "machine",
                fault);
    kt_saxpy_job_free(&j);
    return kt_cli_close(&c) || bad || fault || out ? 1 : 0;
}
