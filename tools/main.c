/* SPDX-License-Identifier: MIT */
/* npukit: the command-line tool. Each family of subcommands has its own table; the top level
 * lists every command of every family. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "common/trace_json.h"
#include "npukit/version.h"


static int version_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("npukit %s\n", npk_version());
    return 0;
}

static const struct family {
    cli_command cmd;
    const cli_command *(*sub)(void); /* its subcommands, listed under it */
} families[] = {
    {{"rk", "Rockchip RK35xx NPU", rk_main}, rk_commands},
    {{"kt", "KohakuTPU / KohakuAccel mesh", kt_main}, kt_commands},
    {{"demo", "a short tour of both accelerators on the simulators", demo_main}, NULL},
    {{"version", "print the version (also --version)", version_main}, NULL},
};
enum { FAMILIES = sizeof families / sizeof families[0] };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: npukit COMMAND [ARGS]   (npukit COMMAND --help: its options)\n\ncommands:\n");
    for (size_t i = 0; i < FAMILIES; i++) {
        fprintf(f, "  %-10s %s\n", families[i].cmd.name, families[i].cmd.help);
        if (families[i].sub)
            cli_list(families[i].sub(), "    ", f);
    }
}

/* A command whose output did not all get written failed, whatever it computed: the trace file
 * and the standard output are checked before the exit status is given (a full disk, /dev/full, a
 * closed pipe), and the message names the file and the system's reason. */
static int finish(int rc)
{
    int fail = rc ? rc : 1;
    /* Still in the environment: the command never opened the trace, so there is nothing to end. */
    if (!getenv("NPUKIT_TRACE") && npk_trace_close()) {
        fprintf(stderr, "npukit: %s\n", npk_last_error());
        rc = fail;
    }
    errno = 0;
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "npukit: writing the standard output: %s\n", strerror(errno ? errno : EIO));
        rc = fail;
    }
    return rc;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : NULL;
    if (!name) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        usage(stdout);
        return finish(0);
    }
    if (!strcmp(name, "--version"))
        return finish(version_main(argc - 1, argv + 1));
    for (size_t i = 0; i < FAMILIES; i++)
        if (!strcmp(families[i].cmd.name, name))
            return finish(families[i].cmd.run(argc - 1, argv + 1));
    fprintf(stderr, "npukit: unknown command '%s' (npukit --help lists them)\n", name);
    return 2;
}
