/* SPDX-License-Identifier: MIT */
/* A progress line for long CLI work, on a terminal only: tasks done of the total, the rate and
 * the time left, redrawn in place at most every CLI_PROGRESS_EVERY_MS and only once the work
 * has run CLI_PROGRESS_AFTER_MS (a short call prints nothing), erased when the work ends. Silent
 * when standard error is not a terminal (a log, a pipe, a test) or with --quiet. */
#ifndef NPUKIT_TOOLS_CLI_PROGRESS_H
#define NPUKIT_TOOLS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

enum { CLI_PROGRESS_AFTER_MS = 500, CLI_PROGRESS_EVERY_MS = 200 };

typedef struct cli_progress {
    const char *what; /* "rk matmul" */
    uint64_t t0_ns, last_ns;
    uint64_t after_ns; /* the line shows once the work has run this long */
    bool shown; /* a line is on the terminal (to erase at the end) */
} cli_progress;

/* True when progress should be shown: standard error is a terminal and not `quiet`. */
bool cli_progress_wanted(bool quiet);
void cli_progress_start(cli_progress *p, const char *what);
/* An npk_rk_progress_fn: `user` is the cli_progress. */
void cli_progress_report(void *user, uint32_t done, uint32_t total);
/* Erase the line, if one was drawn. */
void cli_progress_end(cli_progress *p);

#endif
