/* SPDX-License-Identifier: MIT */
/* For benchmarks that measure an npukit command: run it and keep what it printed. */
#ifndef NPUKIT_BENCH_CLI_H
#define NPUKIT_BENCH_CLI_H

#include <stdio.h>
#include <string.h>

/* Run `cmd` through the shell; its standard output (at most len - 1 bytes) into out. Returns the
 * command's status (pclose), -1 when it could not be started. */
static inline int bench_cli_run(const char *cmd, char *out, size_t len)
{
    FILE *f = popen(cmd, "r");
    out[0] = '\0';
    if (!f)
        return -1;
    size_t got = fread(out, 1, len - 1, f);
    out[got] = '\0';
    return pclose(f);
}

#endif
