/* `npukit kt ...`: one row per subcommand, each implemented in its own kt_*.c file. */
#include "cli.h"

static const cli_command kt_commands[] = {
    {NULL, NULL, NULL},
};

int kt_main(int argc, char **argv) { return cli_dispatch("npukit kt", kt_commands, argc, argv); }
