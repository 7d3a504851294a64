/* The rk subcommands of this module (decode, diff, synth). */
#include "cli.h"

const cli_command rk_core_commands[] = {
    {NULL, NULL, NULL},
};
