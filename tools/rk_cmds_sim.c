/* The rk subcommands of this module (exec). */
#include "cli.h"

const cli_command rk_sim_commands[] = {
    {NULL, NULL, NULL},
};
