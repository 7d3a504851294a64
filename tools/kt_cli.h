/* Shared plumbing of the `npukit kt` subcommands: the common options, the simulator transport,
 * and the transaction-count line every command prints. */
#ifndef NPUKIT_TOOLS_KT_CLI_H
#define NPUKIT_TOOLS_KT_CLI_H

#include <stdbool.h>

#include "npukit/kt.h"
#include "npukit/ktsim.h"

typedef struct kt_cli {
    const char *preset;
    bool prestrobe, json;
    ktsim *sim;
    kt_dev dev;
} kt_cli;

/* Consume --sim PRESET, --prestrobe, --json at argv[*i]; returns 1 if consumed, 0 if not
 * ours, -1 on a bad value. */
int kt_cli_option(kt_cli *c, int argc, char **argv, int *i);
/* Build the simulator from the preset and open the window; prints the error and returns 1. */
int kt_cli_open(kt_cli *c);
void kt_cli_close(kt_cli *c);
/* "transactions: ..." (text) or the "transport" JSON member (no trailing comma). */
void kt_cli_print_counts(const kt_cli *c);

#endif
