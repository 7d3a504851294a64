/* SPDX-License-Identifier: MIT */
/* Shared plumbing of the `npukit kt` subcommands: the common options (the machine: a simulator
 * preset or --card, and the board's bases), the machine, and the traffic line every command
 * prints. */
#ifndef NPUKIT_TOOLS_KT_CLI_H
#define NPUKIT_TOOLS_KT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "json_out.h"
#include "cli.h"
#include "npukit/kt.h"
#include "npukit/kt_open.h"
#include "npukit/ktsim.h"

/* What names and shapes the machine (filled by the common kt options; kt_cli_machine_open turns
 * them into a kt_open_spec call). */
typedef struct kt_machine_opts {
    const char *preset; /* --sim (NULL: "default"): the simulator, or --card's board */
    bool prestrobe;     /* --prestrobe (the simulator only) */
    const char *card;   /* --card pipe:CMD | tcp:HOST:PORT | daemon[:HOST:PORT] (NULL: --sim) */
    uint64_t ctrl_base, mem_base;
    bool ctrl_given, mem_given;
    unsigned timeout_ms; /* --timeout-ms, per reply (0: the transport's default) */
    bool backdoor;       /* --backdoor: DRAM blocks through BR/BW where the line peer offers them */
} kt_machine_opts;

/* Open the machine the options name with `meshes` meshes (0: 1) and, when `engine`, the
 * control-program engine; prints the error (and a daemon's note) and returns 1; 0 on success. */
int kt_cli_machine_open(kt_machine **m, const kt_machine_opts *o, unsigned meshes, bool engine);
/* Close it; a --card child that exits with a failure status is reported (returns 1). */
int kt_cli_machine_close(kt_machine **m);
/* The simulator's settings of the machine's preset: the simulated mesh 0's, or for --card the
 * preset's own (its unit timing rows estimate the work a wait expects). */
const ktsim_config *kt_cli_sim_config(kt_machine *m, const kt_machine_opts *o, ktsim_config *buf);

/* The options every kt subcommand takes, and the option rows that fill them. */
enum { KT_CLI_ROWS = 9 };
typedef struct kt_cli_opts {
    kt_machine_opts m;
    bool json;
    uint32_t reply_budget; /* kt_options.reply_budget (0: the driver's default) */
    cli_opt rows[KT_CLI_ROWS + 1];
    cli_opt discovery_rows[2];
    uint32_t poll_us; /* --poll-us: a fixed interval between polls (0: adaptive) */
    bool verbose;     /* kt enum / kt status --verbose: each unit's CU_STATUS, COUNTERS, DBG */
    cli_opt wait_rows[2];
} kt_cli_opts;

typedef struct kt_cli {
    kt_cli_opts o;
    bool engine; /* open the machine with its control-program engine (set before kt_cli_open) */
    kt_machine *m;
    kt_dev dev;
} kt_cli;

/* The rows of the common options (--sim, --prestrobe, --card, --ctrl-base, --mem-base,
 * --timeout-ms, --backdoor, --trace, --json), writing into o. */
const cli_opt *kt_cli_rows(kt_cli_opts *o);
/* The row of the commands that enumerate the mesh (--reply-budget N, into o->reply_budget). */
const cli_opt *kt_cli_discovery_rows(kt_cli_opts *o);
/* Each unit's CU_STATUS, CU_COUNTERS and CU_DBG (decoded per its CU_TYPE), read over the
 * mailbox: one line per unit, or a "unit_detail" array in doc. 0, or the exit status of a failed
 * read (reported). */
int kt_cli_unit_detail(kt_cli *c, const kt_unit *u, size_t n, cJSON *doc);
/* The row of the commands that wait for work (--poll-us US, into o->poll_us). */
const cli_opt *kt_cli_wait_rows(kt_cli_opts *o);
/* Pace the device's waits on machine m: pauses through the machine, the adaptive intervals, or
 * --poll-us converted to mesh cycles at the preset's clock_mhz. */
void kt_cli_pace(kt_dev *d, kt_machine *m, const kt_cli_opts *o);
/* --poll-us for the waits that have no expected work (kt move, kt prog): between two reads that
 * found the wait not over, the machine runs that long. kt_cli_idler_init says whether --poll-us
 * was given (otherwise the reads stay back to back); kt_cli_idle is the hook (user: the idler). */
typedef struct kt_cli_idler {
    kt_machine *m;
    uint64_t cycles;
} kt_cli_idler;
bool kt_cli_idler_init(kt_cli_idler *i, kt_machine *m, const kt_cli_opts *o);
void kt_cli_idle(void *idler);
/* Text: one line of the waits. JSON (kt_cli_json_waits): "polls": P and "waits": {"checks",
 * "polls", "pauses", "paused_cycles"}. */
void kt_cli_print_waits(const kt_wait_stats *w);
void kt_cli_json_waits(cJSON *doc, const kt_wait_stats *w);
/* The span every figure a command reports covers: the transport's counters and the machine's
 * cycles both start at kt_cli_span_begin (which resets the counters) and end at kt_cli_span_end
 * or, without one, when they are printed. A command that never begins one spans everything
 * since the machine was opened (enumeration included), as its counters do. */
void kt_cli_span_begin(kt_machine *m);
void kt_cli_span_end(kt_machine *m);
/* The traffic a command cost on machine m over its span. Text: "transport: ...; N mesh cycles".
 * JSON (kt_cli_json_traffic): "transactions": T, "bytes": B, "transport": {...}, the same
 * members on every command; "cycles" (over the span, as the counts) and "span_start_cycle"
 * (the machine's clock where the span began) are null when the machine does not report its
 * clock. */
void kt_cli_print_traffic(kt_machine *m, const kt_counters *k);
void kt_cli_json_traffic(cJSON *doc, kt_machine *m, const kt_counters *k);
/* The simulator's unit timing rows (the preset's `timing` lines over the calibrated defaults).
 * Text: one line, only on the simulator. JSON (kt_cli_json_timing): "unit_timing": {"saxpy":
 * {"setup": S, ...}, ...}, null on a machine outside the process, whose units keep their own
 * time. */
void kt_cli_print_timing(kt_machine *m);
void kt_cli_json_timing(cJSON *doc, kt_machine *m);

/* For a command that takes only the common options: parse them (cli_parse, with `about` in its
 * --help), build the simulator from the preset and open the window. Returns -1 to go on, or the
 * exit status (0 after --help). */
int kt_cli_start(kt_cli *c, const char *cmd, const char *about, int argc, char **argv);
/* Open the machine and its control window; prints the error and returns 1. */
int kt_cli_open(kt_cli *c);
/* Close the machine; 1 (reported) when a --card child exited with a failure. */
int kt_cli_close(kt_cli *c);
/* The traffic of the machine's transport (kt_cli_print_traffic, kt_cli_json_traffic). */
void kt_cli_print_counts(kt_cli *c);
void kt_cli_json_counts(cJSON *doc, kt_cli *c);

#endif
