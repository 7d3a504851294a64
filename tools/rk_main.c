/* `npukit rk ...`: one row per subcommand, each implemented in its own rk_*.c file. */
#include "cli.h"

static const cli_command rk_commands[] = {
    {NULL, NULL, NULL},
};

int rk_main(int argc, char **argv) { return cli_dispatch("npukit rk", rk_commands, argc, argv); }
