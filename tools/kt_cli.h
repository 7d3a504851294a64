/* Shared plumbing of the `npukit kt` subcommands: the common options, the simulator transport,
 * and the traffic line every command prints. */
#ifndef NPUKIT_TOOLS_KT_CLI_H
#define NPUKIT_TOOLS_KT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt.h"
#include "npukit/ktsim.h"

/* The options every kt subcommand takes. */
typedef struct kt_cli_opts {
    const char *preset;
    bool prestrobe, json;
} kt_cli_opts;

typedef struct kt_cli {
    kt_cli_opts o;
    ktsim *sim;
    kt_dev dev;
} kt_cli;

/* Consume --sim PRESET, --prestrobe, --json at argv[*i]; returns 1 if consumed, 0 if not
 * ours, -1 on a bad value (already reported). */
int kt_cli_opts_parse(kt_cli_opts *o, int argc, char **argv, int *i);
/* The traffic a command cost. Text: "transport: ...; N mesh cycles". JSON: "\"transactions\": T,
 * \"bytes\": B, \"transport\": {...}" (no trailing comma), the same members on every command. */
void kt_cli_print_traffic(const kt_counters *k, uint64_t cycles, bool json);

/* For a command that takes only the common options: parse them all (an unknown one is an error
 * naming `cmd`), build the simulator from the preset and open the window. Returns 0, or the exit
 * status after printing the error. */
int kt_cli_start(kt_cli *c, const char *cmd, int argc, char **argv);
/* Build the simulator from the preset and open the window; prints the error and returns 1. */
int kt_cli_open(kt_cli *c);
void kt_cli_close(kt_cli *c);
void kt_cli_print_counts(const kt_cli *c);

#endif
