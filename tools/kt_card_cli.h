/* Shared plumbing of the mover, interlink and engine subcommands: the common options, a simulated
 * card (meshes, movers, interlink, engine) behind one transport, and the traffic report. */
#ifndef NPUKIT_TOOLS_KT_CARD_CLI_H
#define NPUKIT_TOOLS_KT_CARD_CLI_H

#include <stdbool.h>

#include "kt_cli.h"
#include "npukit/kt.h"
#include "npukit/ktsim_card.h"

typedef struct kt_card_cli {
    kt_cli_opts o;
    unsigned meshes;
    bool meshes_given; /* --meshes was on the command line (a command may not raise it then) */
    bool engine;
    ktsim_card *card;
    kt_transport *t;
} kt_card_cli;

/* Consume the common options and --meshes K at argv[*i]; 1 consumed, 0 not ours, -1 bad value
 * (already reported). */
int kt_card_cli_option(kt_card_cli *c, int argc, char **argv, int *i);
/* Build the card; prints the error and returns 1 on failure. */
int kt_card_cli_open(kt_card_cli *c);
void kt_card_cli_close(kt_card_cli *c);
/* kt_cli_print_traffic for the card's transport and clock. */
void kt_card_cli_print_counts(const kt_card_cli *c);
/* The simulator's model fault, if any, to stderr; returns true when there was one. */
bool kt_card_cli_report_fault(const kt_card_cli *c, const char *cmd);

/* `npukit kt saxpy --engine`: the same stage + dispatch + wait as one engine program. */
int kt_saxpy_engine_main(int argc, char **argv);

#endif
