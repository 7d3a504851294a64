/* SPDX-License-Identifier: MIT */
/* `npukit kt rv32 run PROG`: boot a program on the RV32 control processor (CPU_RV64 = 0) as the
 * hardware boots it — PROG.text into its instruction window and PROG.data into its scratchpad by
 * CU_DATA, then a kick — wait for its completion and print the halt word, how it halted and the
 * program's counters (CU_DBG). With --engine the boot, the kick and the wait run as host control
 * programs in the card's control-program engine. The exit status follows `kt rv64 run`'s: the program's own (the
 * ECALL halt word's low 8 bits, 1 when they are 0 and the word is not), 124 for a program that
 * halted on EBREAK or a fault or never completed, 125 for npukit's own failures. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"
#include "kt/hw/kt_rv32.h"
#include "kt_cli.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_rv32.h"

enum { RV32_STATUS_NO_EXIT = 124, RV32_STATUS_ERROR = 125, MAX_IMAGE_WORDS = 1u << 16 };

/* PROG + suffix as little-endian words (at most max); a missing file is an empty image only when
 * `optional`. Returns 0, or 1 after printing what went wrong. */
static int read_image(const char *prog, const char *suffix, bool optional, uint32_t *words,
                      size_t max, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", prog, suffix);
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (optional)
            return 0;
        fprintf(stderr, "npukit kt rv32 run: cannot open %s (build/rv32/NAME%s is built from "
                        "examples/rv32/NAME.c)\n", path, suffix);
        return 1;
    }
    uint8_t b[4];
    size_t got;
    while ((got = fread(b, 1, 4, f)) > 0) {
        if (*n == max) {
            fprintf(stderr, "npukit kt rv32 run: %s is larger than the window's %zu words\n",
                    path, max);
            fclose(f);
            return 1;
        }
        for (size_t i = got; i < 4; i++)
            b[i] = 0; /* a tail short of a word is padded */
        words[(*n)++] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                        (uint32_t)b[3] << 24;
    }
    fclose(f);
    return 0;
}

/* The unit to boot: the one at --at, or the first 'RV' unit enumeration finds. */
static int find_processor(kt_cli *c, const char *at_text, kt_coord *at)
{
    if (at_text) {
        unsigned x, y;
        char tail;
        if (sscanf(at_text, "%u,%u%c", &x, &y, &tail) != 2 || x > KT_COORD_MAX ||
            y > KT_COORD_MAX) {
            fprintf(stderr, "npukit kt rv32 run: --at '%s' is not X,Y with each 0..%u\n", at_text,
                    (unsigned)KT_COORD_MAX);
            return 1;
        }
        *at = (kt_coord){(uint8_t)x, (uint8_t)y};
        kt_cu_caps caps;
        bool present = false;
        if (kt_unit_caps(&c->dev, *at, &caps, &present)) {
            cli_lib_error("kt rv32 run");
            return 1;
        }
        if (!present || caps.type != KT_RV32_CU_TYPE) {
            char t[8] = "none";
            if (present)
                kt_cu_type_text(caps.type, t);
            fprintf(stderr, "npukit kt rv32 run: --at %u,%u is %s%s, not an RV32 control "
                            "processor (CU_TYPE 'RV')\n",
                    x, y, present ? "a unit of type " : "no unit", present ? t : "");
            return 1;
        }
        return 0;
    }
    kt_unit units[64];
    size_t n = 0;
    if (kt_enumerate(&c->dev, units, 64, &n)) {
        cli_lib_error("kt rv32 run");
        return 1;
    }
    const kt_unit *u = kt_find_unit(units, n, KT_RV32_CU_TYPE);
    if (!u) {
        fprintf(stderr, "npukit kt rv32 run: no RV32 control processor (CU_TYPE 'RV') among the "
                        "%zu units enumerated (the rv32 preset has one; --at names another)\n",
                n);
        return 1;
    }
    *at = u->at;
    return 0;
}

static bool print_result(kt_coord at, const kt_rv32_result *r, uint64_t dbg, bool json,
                         bool engine)
{
    const char *how = r->faulted ? "EBREAK or a fault (the word is a0 or the faulting pc)" : "ECALL";
    if (json) {
        cJSON *doc = json_doc();
        char where[16];
        snprintf(where, sizeof where, "(%u,%u)", at.x, at.y);
        json_str(doc, "unit", where);
        json_u64(doc, "halt_word", r->halt_word);
        json_bool(doc, "faulted", r->faulted);
        json_u64(doc, "instructions", dbg >> 32);
        json_u64(doc, "cycles", dbg & 0xffffffffu);
        json_u64(doc, "polls", r->polls);
        json_u64(doc, "engine_programs", r->programs);
        return json_print(doc, "kt rv32 run") == 0;
    }
    printf("RV32 processor at (%u,%u): halted by %s, halt word 0x%08" PRIx32 " (%" PRId32 ")\n",
           at.x, at.y, how, r->halt_word, (int32_t)r->halt_word);
    printf("%" PRIu64 " instructions, %" PRIu64 " cycles\n", dbg >> 32, dbg & 0xffffffffu);
    if (engine)
        printf("booted and run by the control-program engine: %" PRIu32 " programs\n",
               r->programs);
    return true;
}

static int run_main(int argc, char **argv)
{
    kt_cli c = {0};
    const char *at_text = NULL;
    uint32_t arg = 0, polls = 100000;
    bool engine = false;
    const cli_opt own[] = {
        {.name = "--arg",
         .kind = CLI_U32_HEX,
         .dest = &arg,
         .meta = "V",
         .max = UINT32_MAX,
         .help = "the kick's argument, read by the program at CTL_ARG (default 0)"},
        {.name = "--at",
         .kind = CLI_STR,
         .dest = &at_text,
         .meta = "X,Y",
         .help = "the processor's coordinate (default: the first 'RV' unit enumerated)"},
        {.name = "--polls",
         .kind = CLI_U32,
         .dest = &polls,
         .meta = "N",
         .min = 1,
         .max = UINT32_MAX,
         .help = "NODE_STATUS reads to wait for the completion (default 100000)"},
        {.name = "--engine",
         .kind = CLI_FLAG,
         .dest = &engine,
         .help = "send the image, the kick and the wait as programs for the card's "
                 "control-program engine (at most 15 flits a program)"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_cli_rows(&c.o), NULL};
    const char *pos[1];
    cli_spec spec = {
        .cmd = "kt rv32 run",
        .synopsis = "PROG [--arg V] [--at X,Y] [--engine] [options]",
        .about = "boot a program on the RV32 control processor (CPU_RV64 = 0): PROG.text into its "
                 "instruction window and PROG.data (if present) into its scratchpad by CU_DATA, "
                 "a kick at pc 0, then its halt word and counters (default preset: rv32; PROG as "
                 "build/rv32/NAME). Exit status: 0 when it halts by ECALL with 0; the word's low "
                 "8 bits for another (1 when those bits are 0); 124 when it halts on EBREAK or a "
                 "fault or sends no completion; 125 when npukit cannot run it",
        .tables = tables,
        .pos = pos,
        .min_pos = 1,
        .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc ? RV32_STATUS_ERROR : 0;
    static uint32_t text[MAX_IMAGE_WORDS], data[MAX_IMAGE_WORDS];
    size_t nt, nd;
    if (read_image(pos[0], ".text", false, text, MAX_IMAGE_WORDS, &nt) ||
        read_image(pos[0], ".data", true, data, MAX_IMAGE_WORDS, &nd))
        return RV32_STATUS_ERROR;
    if (!c.o.m.preset)
        c.o.m.preset = "rv32";
    c.engine = engine;
    if (kt_cli_open(&c))
        return RV32_STATUS_ERROR;
    kt_coord at;
    kt_rv32_result r;
    uint64_t dbg = 0;
    bool present = false;
    npk_status s = NPK_OK;
    rc = RV32_STATUS_ERROR;
    const kt_rv32_boot_opts bo = {engine, kt_machine_board(c.m)->engine_base, polls};
    const kt_rv32_image img = {text, nt, data, nd};
    /* The windows are the reference build's: a larger image is refused by the driver, naming it. */
    if (find_processor(&c, at_text, &at) == 0 &&
        !(s = kt_rv32_boot_run(&c.dev, &bo, at, &img, 0, arg, &r)) &&
        !(s = kt_ctrl_read(&c.dev, at, KT_CU_DBG, &dbg, &present))) {
        if (print_result(at, &r, dbg, c.o.json, engine))
            rc = r.faulted ? RV32_STATUS_NO_EXIT
                           : !r.halt_word ? 0 : (r.halt_word & 0xff) ? (int)(r.halt_word & 0xff) : 1;
    } else if (s) {
        cli_lib_error("kt rv32 run");
        if (s == NPK_ETIMEDOUT)
            rc = RV32_STATUS_NO_EXIT;
    }
    return kt_cli_close(&c) ? RV32_STATUS_ERROR : rc;
}

/* `kt rv32` has one command, run; its help is the family's. */
int kt_rv32_main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "run"))
        return run_main(argc - 1, argv + 1);
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
        return run_main(argc, argv);
    fprintf(stderr,
            "npukit kt rv32: %s%s; the command is: npukit kt rv32 run PROG (--help: its options)\n",
            argc > 1 ? "unknown command " : "no command", argc > 1 ? argv[1] : "");
    return 2;
}
