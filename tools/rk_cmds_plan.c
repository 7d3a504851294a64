/* The rk subcommands of this module (plan). */
#include "cli.h"

const cli_command rk_plan_commands[] = {
    {NULL, NULL, NULL},
};
