/* SPDX-License-Identifier: MIT */
/* `npukit kt saxpy --engine -n N`: the same work as `kt saxpy` (same operands, 64 elements per
 * instruction, one program per saxpy unit per round), but each round's stage + dispatch + wait is
 * one host control program loaded into the engine and started with one GO. The host's part is
 * the staging block, the command words, the GO and the wait for done; the polls of PROG_STAT and
 * NODE_STATUS run in the engine. --wait-cycles C lets the host sleep C mesh cycles between two
 * reads of the engine's CTRL, as a host that is not in the loop can. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "kt_saxpy_job.h"
#include "npukit/kt_hostprog.h"

typedef struct sleeper {
    kt_machine *m;
    uint64_t cycles;
} sleeper;

static void host_sleep(void *user)
{
    sleeper *s = user;
    kt_machine_step(s->m, s->cycles);
}

static int fail(kt_card_cli *c, kt_saxpy_job *j, const char *what)
{
    int rc = cli_lib_error(what);
    kt_saxpy_job_free(j);
    kt_card_cli_close(c);
    return rc;
}

/* One round as one engine program: stage (setup), every dispatch, every wait, DONE. */
static npk_status run_round(kt_card_cli *c, kt_dev *dev, kt_saxpy_job *j, const kt_saxpy_round *rd,
                            const kt_hp_opts *ho, uint64_t *commands, uint64_t *polls)
{
    kt_hostprog hp;
    kt_hp_init(&hp);
    kt_ticket tk[KT_SAXPY_MAX_UNITS];
    npk_status s = kt_hp_stage(&hp, dev, 0, j->prog, rd->flits);
    /* kt_hp_dispatch emits the core's rule: a dispatch waits for the earlier program's credit
     * returns (PROG_CRED is one counter refilled from any node). */
    for (size_t u = 0; u < j->nsx && !s; u++)
        if (rd->count[u])
            s = kt_hp_dispatch(&hp, dev, &j->sx[u], rd->base[u], rd->count[u], 0, &tk[u]);
    for (size_t u = 0; u < j->nsx && !s; u++)
        if (rd->count[u])
            s = kt_hp_await(&hp, dev, &tk[u]);
    if (!s)
        s = kt_hp_done(&hp, (uint64_t)(uint8_t)(j->txn - 1));
    kt_hp_result r = {0};
    if (!s)
        s = kt_hp_run_engine(c->t, c->m.cfg.engine_base, &hp, ho, &r);
    for (size_t u = 0; u < j->nsx && !s; u++)
        if (rd->count[u])
            s = kt_hp_check_ticket(dev, &tk[u]);
    *commands += hp.n_cmds;
    *polls += r.polls;
    kt_hp_free(&hp);
    return s;
}

int kt_saxpy_engine_run(kt_card_cli *cp, uint64_t n, uint64_t wait_cycles)
{
    kt_card_cli c = *cp;
    c.engine = true;
    int rc = kt_card_cli_open(&c);
    if (rc)
        return rc;
    kt_dev dev;
    kt_saxpy_job j = {0};
    const ktsim_config *cfg = &c.m.cfg;
    kt_options opt = {0};
    opt.stage_flits = cfg->stage_flits;
    opt.reply_budget = c.o.reply_budget;
    if (kt_open(&dev, c.t, kt_machine_ctrl_base(&c.m, 0), &opt) != NPK_OK)
        return fail(&c, &j, "kt saxpy --engine: opening the control window");
    uint64_t mem = kt_machine_mem_base(&c.m, 0);
    if (kt_saxpy_job_init(&j, &dev, mem, cfg->dram_size, n, cfg->name))
        return fail(&c, &j, "kt saxpy --engine");
    kt_counters_reset(c.t); /* count the control plane's work from here, as `kt saxpy` does */
    sleeper sl = {&c.m, wait_cycles};
    kt_hp_opts ho = {0, wait_cycles ? host_sleep : NULL, &sl};
    uint64_t programs = 0, commands = 0, engine_polls = 0;
    kt_saxpy_round rd;
    npk_status s;
    while (kt_saxpy_job_next_round(&j, &rd, &s)) {
        for (size_t u = 0; u < j.nsx; u++)
            programs += rd.count[u] != 0;
        if ((s = run_round(&c, &dev, &j, &rd, &ho, &commands, &engine_polls)))
            break;
    }
    size_t bad = 0;
    if (s || kt_saxpy_job_check(&j, c.t, mem, &bad))
        return fail(&c, &j, "kt saxpy --engine");
    bool fault = kt_card_cli_report_fault(&c, "kt saxpy --engine");
    if (c.o.json) {
        printf("{\"form\": \"engine\", \"n\": %" PRIu64
               ", \"a\": %g, \"units\": %zu, \"instructions\": %" PRIu64 ", \"programs\": %" PRIu64
               ", \"engine_commands\": %" PRIu64 ", \"engine_polls\": %" PRIu64
               ", \"mismatches\": %zu, \"ok\": %s, ",
               n, j.a, j.nsx, j.chunks, programs, commands, engine_polls, bad,
               bad || fault ? "false" : "true");
        kt_card_cli_print_counts(&c);
        kt_cli_print_timing(&c.m, true);
        printf("}\n");
    } else {
        printf("saxpy (engine): y = %g*x + y, n=%" PRIu64 " on %zu units: %" PRIu64
               " instructions in %" PRIu64 " programs, %" PRIu64 " engine commands, %" PRIu64
               " polls run by the engine\n",
               j.a, n, j.nsx, j.chunks, programs, commands, engine_polls);
        printf("check: %s (%zu of %zu elements differ)\n", bad ? "MISMATCH" : "ok", bad, (size_t)n);
        kt_cli_print_timing(&c.m, false);
        kt_card_cli_print_counts(&c);
    }
    kt_saxpy_job_free(&j);
    return kt_card_cli_close(&c) || bad || fault ? 1 : 0;
}
