/* SPDX-License-Identifier: MIT */
/* Shared plumbing of the mover, interlink and engine subcommands: the common options, a simulated
 * card (meshes, movers, interlink, engine) behind one transport, and the traffic report. */
#ifndef NPUKIT_TOOLS_KT_CARD_CLI_H
#define NPUKIT_TOOLS_KT_CARD_CLI_H

#include <stdbool.h>

#include "kt_cli.h"
#include "npukit/kt.h"
#include "ktsim/ktsim_card.h"

typedef struct kt_card_cli {
    kt_cli_opts o;
    unsigned meshes;
    bool meshes_given; /* --meshes was on the command line (a command may not raise it then) */
    bool engine;
    kt_machine *m;
    kt_transport *t;
    cli_opt rows[2]; /* --meshes */
} kt_card_cli;

/* The rows of the card options (--meshes K, recorded in meshes_given), writing into c. A card
 * command parses these and kt_cli_rows(&c->o). */
const cli_opt *kt_card_cli_rows(kt_card_cli *c);
/* Open the machine (the simulated card, or --card); prints the error and returns 1 on failure. */
int kt_card_cli_open(kt_card_cli *c);
/* Close it; 1 (reported) when a --card child exited with a failure. */
int kt_card_cli_close(kt_card_cli *c);
/* kt_cli_print_traffic for the machine's transport and clock. */
void kt_card_cli_print_counts(kt_card_cli *c);
void kt_card_cli_json_counts(cJSON *doc, kt_card_cli *c);
/* The machine's model fault, if any, to stderr; returns true when there was one. */
bool kt_card_cli_report_fault(kt_card_cli *c, const char *cmd);

/* The options only the engine form of `kt saxpy` takes. */
typedef struct kt_saxpy_engine_opts {
    uint64_t wait_cycles; /* --wait-cycles: a fixed interval between CTRL reads (0: back to back) */
    bool wait_given;
    uint32_t reruns; /* --reruns: run the last round's loaded program this many more times */
} kt_saxpy_engine_opts;

/* `npukit kt saxpy --engine`: the same stage + dispatch + wait as one engine program, on the
 * card c (options parsed, not yet open). */
int kt_saxpy_engine_run(kt_card_cli *c, uint64_t n, const kt_saxpy_engine_opts *eo);

#endif
