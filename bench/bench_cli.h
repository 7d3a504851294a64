/* SPDX-License-Identifier: MIT */
/* For benchmarks that measure an npukit command: run it and keep what it printed. */
#ifndef NPUKIT_BENCH_CLI_H
#define NPUKIT_BENCH_CLI_H

#include <stdio.h>
#include <stdlib.h>
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

/* The npukit command beside this program (its argv[0]'s folder), or $NPUKIT when set: `make
 * bench` runs the benches from the source tree, not from the build folder. */
static inline void bench_cli_path(const char *argv0, char *out, size_t len)
{
    const char *env = getenv("NPUKIT");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    const char *slash = strrchr(argv0, '/');
    int dir = slash ? (int)(slash - argv0 + 1) : 0;
    snprintf(out, len, "%.*snpukit", dir, argv0);
}

#endif
