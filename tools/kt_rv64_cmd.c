/* SPDX-License-Identifier: MIT */
/* `npukit kt rv64 run PROG.elf`: load an RV64 program into the control complex through its load
 * window, boot it, print its console, exit word, halt state and counters, and exit with a status
 * that says how the program ended (exit_status), so a script can run programs as it runs any
 * process. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli.h"
#include "kt_cli.h"
#include "kt_rv64_dram.h"
#include "npukit/kt_rv64_load.h"

/* The command's exit statuses besides a program's own. As a command that runs a program and
 * passes its status on, it keeps two values high in the range for its own outcomes (not the 1 and
 * 2 other npukit commands use for errors and usage), so the small codes programs use most never
 * read as npukit's. */
enum {
    RV64_STATUS_NO_EXIT = 124, /* the program halted on a trap or was stopped at --timeout */
    RV64_STATUS_ERROR = 125,   /* npukit could not run it: bad usage, the ELF, the machine, I/O */
};

/* A program that exited: 0 for the word 0, otherwise the word's low 8 bits as a POSIX process's
 * status is, except that a word whose low 8 bits are 0 gives 1 (it must not read as success). */
static int exit_status(uint64_t word)
{
    if (!word)
        return 0;
    return (word & 0xff) ? (int)(word & 0xff) : 1;
}

/* The result as text, or as one JSON document ("exit": the whole 64-bit word, exactly; the
 * console's bytes as a string, ill-formed UTF-8 as U+FFFD). False when the document could not
 * be made. */
static bool print_result(const kt_rv64_result *r, bool json)
{
    if (json) {
        cJSON *doc = json_doc();
        json_bytes(doc, "console", r->console ? r->console : "", r->console_len);
        json_bool(doc, "exited", r->exited);
        json_u64(doc, "exit", r->exit_word);
        json_bool(doc, "halted", r->halted);
        json_u64(doc, "cause", r->cause);
        json_str(doc, "cause_name", r->halted ? kt_rv64_cause_name(r->cause) : "");
        json_u64(doc, "halt_pc", r->halt_pc);
        json_u64(doc, "cycles", r->cycles);
        json_u64(doc, "retired", r->retired);
        json_bool(doc, "timed_out", r->timed_out);
        json_u64(doc, "rings", r->rings);
        json_u64(doc, "clears", r->clears);
        return json_print(doc, "kt rv64 run") == 0;
    }
    if (r->console_len)
        fwrite(r->console, 1, r->console_len, stdout);
    if (r->console_len && r->console[r->console_len - 1] != '\n')
        putchar('\n');
    if (r->exited)
        printf("exit 0x%" PRIx64 " (%" PRId64 ")\n", r->exit_word, (int64_t)r->exit_word);
    if (r->halted)
        printf("halted: cause %u (%s) at pc 0x%" PRIx64 "\n", r->cause,
               kt_rv64_cause_name(r->cause), r->halt_pc);
    if (r->rings || r->clears)
        printf("host: rang the doorbell %u times, cleared it %u times (on the program's "
               "requests)\n",
               r->rings, r->clears);
    printf("%" PRIu64 " cycles, %" PRIu64 " instructions retired\n", r->cycles, r->retired);
    return true;
}

/* --timeout SECONDS (a decimal, up to an hour) into milliseconds. */
static bool parse_timeout(const cli_opt *row, const char *value, const char *cmd)
{
    char *end;
    double sec = strtod(value, &end);
    if (end == value || *end || !(sec > 0 && sec <= 3600)) {
        fprintf(stderr, "npukit %s: %s '%s' must be seconds in (0, 3600]\n", cmd, row->name, value);
        return false;
    }
    uint32_t ms = (uint32_t)(sec * 1000 + 0.5);
    *(uint32_t *)row->dest = ms ? ms : 1;
    return true;
}

static int run_main(int argc, char **argv)
{
    kt_cli c = {0};
    const char *text = NULL;
    uint32_t timeout_ms = 10000;
    kt_rv64_dram dram = {0};
    const cli_opt own[] = {
        {.name = "--stdin",
         .kind = CLI_STR,
         .dest = &text,
         .meta = "TEXT",
         .help = "bytes preloaded into the complex's stdin queue before boot (at most 64)"},
        {.name = "--timeout",
         .kind = CLI_CUSTOM,
         .dest = &timeout_ms,
         .meta = "SECONDS",
         .parse = parse_timeout,
         .help = "stop a program still running after this long (default 10)"},
        {.name = "--dram-in",
         .kind = CLI_CUSTOM,
         .dest = &dram,
         .meta = "ADDR:FILE",
         .parse = kt_rv64_dram_parse_in,
         .help = "before the boot, write FILE into card memory at ADDR (repeatable): the "
                 "program's inputs"},
        {.name = "--dram-out",
         .kind = CLI_CUSTOM,
         .dest = &dram,
         .meta = "ADDR:BYTES:FILE",
         .parse = kt_rv64_dram_parse_out,
         .help = "after the run, save BYTES of card memory at ADDR to FILE (repeatable)"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_cli_rows(&c.o), NULL};
    const char *pos[1];
    cli_spec spec = {
        .cmd = "kt rv64 run",
        .synopsis = "PROG.elf [options]",
        .about = "load an RV64 program into the control complex through its load window, boot it, "
                 "print its console, exit word, halt state and counters (default preset: rv64). "
                 "Exit status: 0 when the program exits with 0; the exit word's low 8 bits when "
                 "it exits with another (1 when those bits are 0); 124 when it halts on a trap or "
                 "is stopped at --timeout; 125 when npukit cannot run it (bad usage, the ELF, the "
                 "machine). --json carries the whole exit word",
        .tables = tables,
        .pos = pos,
        .min_pos = 1,
        .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc ? RV64_STATUS_ERROR : 0;
    const char *prog = pos[0];
    if (!c.o.m.preset)
        c.o.m.preset = "rv64";
    kt_rv64_image img;
    if (kt_rv64_image_read(prog, NULL, &img)) {
        cli_lib_error("kt rv64 run");
        return RV64_STATUS_ERROR;
    }
    if (kt_cli_open(&c)) {
        kt_rv64_image_free(&img);
        return RV64_STATUS_ERROR;
    }
    /* The preset describes the board, also behind --card: it must have the complex. */
    if (!kt_machine_board(c.m)->cpu_rv64) {
        fprintf(
            stderr,
            "npukit kt rv64 run: preset '%s' has no RV64 complex (CPU_RV64 = 0; add 'rv64 X Y')\n",
            c.o.m.preset);
        kt_rv64_image_free(&img);
        kt_cli_close(&c);
        return RV64_STATUS_ERROR;
    }
    uint64_t mem = kt_machine_mem_base(c.m, 0), dram_size = kt_machine_board(c.m)->dram_size;
    if (kt_rv64_dram_load(&dram, c.dev.t, mem, dram_size, "kt rv64 run")) {
        kt_rv64_image_free(&img);
        kt_cli_close(&c);
        return RV64_STATUS_ERROR;
    }
    kt_rv64_run_opts opt = {text, text ? strlen(text) : 0, timeout_ms};
    kt_rv64_result res;
    npk_status s = kt_rv64_run(c.dev.t, kt_machine_ctrl_base(c.m, 0), &img, &opt, &res);
    bool printed = true;
    if (s == NPK_OK || (s == NPK_ETIMEDOUT && res.timed_out))
        printed = print_result(&res, c.o.json);
    if (s)
        cli_lib_error("kt rv64 run");
    if (s == NPK_OK)
        rc = res.exited ? exit_status(res.exit_word) : RV64_STATUS_NO_EXIT;
    else
        /* the program's --timeout, not a transport's (a carrier that stops answering also
         * says ETIMEDOUT: that is npukit's failure) */
        rc = s == NPK_ETIMEDOUT && res.timed_out ? RV64_STATUS_NO_EXIT : RV64_STATUS_ERROR;
    if (!printed || (!s && kt_rv64_dram_save(&dram, c.dev.t, mem, dram_size, "kt rv64 run")))
        rc = RV64_STATUS_ERROR;
    kt_rv64_result_free(&res);
    kt_rv64_image_free(&img);
    return kt_cli_close(&c) ? RV64_STATUS_ERROR : rc;
}

/* `kt rv64` has one command, run; its help is the family's. */
int kt_rv64_main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "run"))
        return run_main(argc - 1, argv + 1);
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
        return run_main(argc, argv);
    fprintf(
        stderr,
        "npukit kt rv64: %s%s; the command is: npukit kt rv64 run PROG.elf (--help: its options)\n",
        argc > 1 ? "unknown command " : "no command", argc > 1 ? argv[1] : "");
    return 2;
}
