/* SPDX-License-Identifier: MIT */
/* `npukit kt prog FILE [--engine]`: run a host control program kept as text (SETUP / WR / POLL /
 * DONE, see kt_hostprog.h) on the simulated card — on the host over the transport, or loaded into
 * the engine and started with one GO — and print the DONE code, the polls and the host traffic. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "npukit/kt_hostprog.h"

enum { MAX_FILE = 16 << 20 };

static char *slurp(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "npukit kt prog: cannot open '%s'\n", path);
        return NULL;
    }
    size_t n = 0;
    char *buf = cli_read_capped(f, MAX_FILE, &n);
    if (buf && n > MAX_FILE) {
        fprintf(stderr, "npukit kt prog: '%s' is larger than %d bytes\n", path, MAX_FILE);
        free(buf);
        buf = NULL;
    }
    int err = ferror(f) ? errno : 0; /* a directory opens, then fails to read (EISDIR) */
    if (f != stdin)
        fclose(f);
    if (buf && err) {
        fprintf(stderr, "npukit kt prog: cannot read '%s': %s\n", path, strerror(err));
        free(buf);
        buf = NULL;
    }
    const char *nul = buf ? memchr(buf, 0, n) : NULL;
    if (nul) { /* the parser would stop there and blame what follows a cut-off line */
        fprintf(stderr, "npukit kt prog: '%s': a NUL byte at offset %zu (a program is text)\n",
                path, (size_t)(nul - buf));
        free(buf);
        buf = NULL;
    }
    return buf;
}

int kt_prog_main(int argc, char **argv)
{
    kt_card_cli c = {0};
    c.engine =
        true; /* the engine is on the bus either way; --engine decides who runs the program */
    bool in_engine = false;
    uint64_t budget = 0;
    const cli_opt own[] = {
        {.name = "--engine",
         .kind = CLI_FLAG,
         .dest = &in_engine,
         .help = "load the program into the engine and start it with one GO (default: run on the "
                 "host)"},
        {.name = "--budget",
         .kind = CLI_U64,
         .dest = &budget,
         .max = UINT32_MAX,
         .meta = "N",
         .help = "reads per POLL before it fails (0: the default)"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_card_cli_rows(&c), kt_cli_rows(&c.o), kt_cli_wait_rows(&c.o),
                               NULL};
    const char *pos[1];
    cli_spec spec = {.cmd = "kt prog",
                     .synopsis = "FILE|- [options]",
                     .about = "run a host control program kept as text (SETUP / WR / POLL / DONE, "
                              "see kt_hostprog.h) on the simulated card",
                     .tables = tables,
                     .pos = pos,
                     .min_pos = 1,
                     .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    const char *path = pos[0];
    char *text = slurp(path);
    if (!text)
        return 1;
    kt_hostprog p;
    kt_hp_init(&p);
    npk_status s = kt_hp_parse(text, path, &p);
    free(text);
    if (s)
        return cli_lib_error("kt prog");
    if ((rc = kt_card_cli_open(&c))) {
        kt_hp_free(&p);
        return rc;
    }
    kt_cli_idler idler;
    bool paced = kt_cli_idler_init(&idler, c.m, &c.o);
    kt_hp_opts o = {(uint32_t)budget, paced ? kt_cli_idle : NULL, &idler};
    kt_hp_result r = {0};
    s = in_engine ? kt_hp_run_engine(c.t, kt_machine_board(c.m)->engine_base, &p, &o, &r)
                  : kt_hp_run_host(c.t, &p, &o, &r);
    if (s) {
        rc = cli_lib_error("kt prog");
    } else if (c.o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "form", in_engine ? "engine" : "host");
        json_u64(doc, "setup_blocks", p.n_setup);
        json_u64(doc, "commands", p.n_cmds);
        json_u64(doc, "code", r.code);
        json_u64(doc, "polls", r.polls);
        kt_card_cli_json_counts(doc, &c);
        rc = json_print(doc, "kt prog");
    } else {
        printf("program %s: %zu setup blocks, %zu commands, run %s: DONE code %" PRIu64
               " after %u polls\n",
               path, p.n_setup, p.n_cmds, in_engine ? "in the engine" : "on the host", r.code,
               r.polls);
        kt_card_cli_print_counts(&c);
    }
    if (kt_card_cli_report_fault(&c, "kt prog") && !rc)
        rc = 1;
    kt_hp_free(&p);
    return kt_card_cli_close(&c) && !rc ? 1 : rc;
}
