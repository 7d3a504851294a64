/* SPDX-License-Identifier: MIT */
/* `npukit kt saxpy --engine -n N`: the same work as `kt saxpy` (same operands, 64 elements per
 * instruction, one program per saxpy unit per round), but each round's stage + dispatch + wait is
 * one host control program run by the engine with one GO. The host's part is the staging block,
 * the command words that changed since the last round (none, once a round's program repeats), the
 * GO, the completion check of CTRL (paced by the round's expected work, as `kt saxpy` paces its
 * waits) and the fault check of each program. On a bitstream that honours strobes the program
 * waits on SIG_DONE, which it clears first, so the same loaded program can run again: --reruns R
 * runs the last round's program R more times for one GO and one CTRL check each. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "kt_engine_round.h"
#include "kt_saxpy_job.h"
#include "npukit/kt_hostprog.h"
#include "npukit/kt_saxpy.h"

typedef struct engine_run {
    kt_card_cli c;
    kt_dev dev;
    kt_saxpy_job j;
    kt_engine eng;
    kt_hp_opts ho;
    kt_hostprog hp; /* the round's program, kept for --reruns */
    kt_ticket tk[KT_SAXPY_MAX_UNITS];
    kt_saxpy_round rd;
    uint64_t first_chunk, expect, programs, commands;
} engine_run;

static int fail(engine_run *e, const char *what)
{
    int rc = cli_lib_error(what);
    kt_hp_free(&e->hp);
    kt_saxpy_job_free(&e->j);
    kt_card_cli_close(&e->c);
    return rc;
}

/* Run the loaded program `reruns` more times: one GO and the CTRL check each; the programs'
 * NODE_STATUS and credit are checked once after the last run (their counts must have moved by
 * every run's length). *run_k and *check_k: the traffic of the runs and of that check. */
static npk_status rerun(engine_run *e, uint32_t reruns, kt_counters *run_k, kt_counters *check_k)
{
    kt_transport *t = e->c.t;
    kt_counters at = t->count;
    npk_status s = NPK_OK;
    size_t last = 0;
    for (size_t u = 0; u < e->j.nsx; u++)
        if (e->rd.count[u])
            last = u;
    for (uint32_t k = 0; k < reruns && !s; k++) {
        for (size_t u = 0; u < e->j.nsx; u++)
            if (e->rd.count[u])
                kt_hp_ticket_again(&e->dev, &e->tk[u], u == last);
        if (!(s = kt_engine_go(&e->eng)))
            s = kt_engine_wait(&e->eng, &e->hp, e->expect, &e->ho, NULL);
        if (!s)
            kt_hp_signals_ended(&e->dev);
    }
    *run_k = kt_counters_diff(&t->count, &at);
    at = t->count;
    for (size_t u = 0; u < e->j.nsx && !s; u++)
        if (e->rd.count[u])
            s = kt_hp_check_ticket(&e->dev, &e->tk[u]);
    *check_k = kt_counters_diff(&t->count, &at);
    if (!s)
        kt_saxpy_job_again(&e->j, e->first_chunk, e->j.next, reruns);
    return s;
}

/* The reruns' traffic: a line, or (doc not NULL) the "reruns" member. */
static void print_rerun(uint32_t reruns, const kt_counters *run_k, const kt_counters *check_k,
                        cJSON *doc)
{
    if (doc) {
        cJSON *r = json_obj(doc, "reruns");
        json_u64(r, "runs", reruns);
        json_u64(r, "transactions", kt_counters_transactions(run_k));
        json_u64(r, "reads", run_k->reads);
        json_u64(r, "writes", run_k->writes);
        json_u64(r, "check_transactions", kt_counters_transactions(check_k));
        return;
    }
    printf("reruns of the loaded program: %" PRIu32 " runs in %" PRIu64
           " host transactions (%" PRIu64 " writes, %" PRIu64 " reads), then %" PRIu64
           " for the fault check\n",
           reruns, kt_counters_transactions(run_k), run_k->writes, run_k->reads,
           kt_counters_transactions(check_k));
}

int kt_saxpy_engine_run(kt_card_cli *cp, uint64_t n, const kt_saxpy_engine_opts *eo)
{
    engine_run e;
    memset(&e, 0, sizeof e);
    e.c = *cp;
    e.c.engine = true;
    kt_hp_init(&e.hp);
    int rc = kt_card_cli_open(&e.c);
    if (rc)
        return rc;
    ktsim_config preset_cfg;
    const ktsim_config *cfg = kt_cli_sim_config(e.c.m, &e.c.o.m, &preset_cfg);
    const kt_board *board = kt_machine_board(e.c.m);
    kt_options opt = {0};
    opt.stage_flits = board->stage_flits;
    opt.reply_budget = e.c.o.reply_budget;
    /* The board says which bitstream (the simulated one, or the board --card names). */
    opt.bitstream_current = board->bitstream_current;
    if (eo->reruns && !opt.bitstream_current) {
        kt_card_cli_close(&e.c);
        fprintf(stderr,
                "npukit kt saxpy: --reruns needs a bitstream that honours strobes: a loaded "
                "program can run again only by waiting on SIG_DONE, which it clears first, and "
                "on a pre-strobe bitstream every dispatch's PROG_BASE/PROG_CRED write clears "
                "SIG_DONE too (its waits are on NODE_STATUS counts, which only grow)\n");
        return 2;
    }
    if (kt_open(&e.dev, e.c.t, kt_machine_ctrl_base(e.c.m, 0), &opt) != NPK_OK)
        return fail(&e, "kt saxpy --engine: opening the control window");
    uint64_t mem = kt_machine_mem_base(e.c.m, 0);
    if (kt_saxpy_job_init(&e.j, &e.dev, mem, board->dram_size, n, board->name))
        return fail(&e, "kt saxpy --engine");
    /* The waits on CTRL pace themselves as `kt saxpy`'s do; --wait-cycles C polls every C
     * cycles instead (0: back to back). */
    kt_cli_pace(&e.dev, e.c.m, &e.c.o);
    if (eo->wait_given && !eo->wait_cycles)
        e.dev.opt.pause = NULL;
    else if (eo->wait_given)
        e.dev.opt.poll_cycles = eo->wait_cycles;
    kt_engine_init(&e.eng, e.c.t, board->engine_base, &e.dev);
    e.ho.poll_budget = 0;
    kt_cli_span_begin(e.c.m); /* the control plane's work from here, as `kt saxpy` does */
    e.dev.waits = (kt_wait_stats){0};
    npk_status s;
    for (uint64_t first = e.j.next; kt_saxpy_job_next_round(&e.j, &e.rd, &s); first = e.j.next) {
        e.first_chunk = first;
        e.expect = 0;
        for (size_t u = 0; u < e.j.nsx; u++) {
            e.programs += e.rd.count[u] != 0;
            e.expect += kt_saxpy_expect_cycles(cfg, e.rd.count[u]);
        }
        if ((s = kt_engine_round(&e.dev, &e.eng, &e.hp, e.j.prog, e.j.sx, e.rd.count, e.j.nsx,
                                 e.expect, e.tk)))
            break;
        e.commands += e.hp.n_cmds;
    }
    kt_counters run_k = {0}, check_k = {0};
    if (!s && eo->reruns)
        s = rerun(&e, eo->reruns, &run_k, &check_k);
    size_t bad = 0;
    if (s || kt_saxpy_job_check(&e.j, e.c.t, mem, &bad))
        return fail(&e, "kt saxpy --engine");
    bool fault = kt_card_cli_report_fault(&e.c, "kt saxpy --engine");
    int out = 0;
    if (e.c.o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "form", "engine");
        json_u64(doc, "n", n);
        json_sig(doc, "a", e.j.a, 6);
        json_u64(doc, "units", e.j.nsx);
        json_u64(doc, "instructions", e.j.chunks);
        json_u64(doc, "programs", e.programs);
        json_u64(doc, "engine_commands", e.commands);
        json_u64(doc, "engine_command_writes", e.eng.cmd_writes);
        json_bool(doc, "rerunnable", opt.bitstream_current);
        json_u64(doc, "mismatches", bad);
        json_bool(doc, "ok", !bad && !fault);
        kt_card_cli_json_counts(doc, &e.c);
        kt_cli_json_waits(doc, &e.dev.waits);
        if (eo->reruns)
            print_rerun(eo->reruns, &run_k, &check_k, doc);
        kt_cli_json_timing(doc, e.c.m);
        out = json_print(doc, "kt saxpy --engine");
    } else {
        printf("saxpy (engine): y = %g*x + y, n=%" PRIu64 " on %zu units: %" PRIu64
               " instructions in %" PRIu64 " programs, %" PRIu64 " engine commands (%" PRIu64
               " command words written)\n",
               e.j.a, n, e.j.nsx, e.j.chunks, e.programs, e.commands, e.eng.cmd_writes);
        if (eo->reruns)
            print_rerun(eo->reruns, &run_k, &check_k, NULL);
        printf("check: %s (%zu of %zu elements differ)\n", bad ? "MISMATCH" : "ok", bad, (size_t)n);
        kt_cli_print_timing(e.c.m);
        kt_card_cli_print_counts(&e.c);
        kt_cli_print_waits(&e.dev.waits);
    }
    kt_hp_free(&e.hp);
    kt_saxpy_job_free(&e.j);
    return kt_card_cli_close(&e.c) || bad || fault || out ? 1 : 0;
}
