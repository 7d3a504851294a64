/* The rk subcommands of this module (matmul, bench, info). */
#include "cli.h"

const cli_command rk_runtime_commands[] = {
    {NULL, NULL, NULL},
};
