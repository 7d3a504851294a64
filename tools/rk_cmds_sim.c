/* SPDX-License-Identifier: MIT */
/* The rk subcommands of the simulator module (exec). */
#include "cli.h"

int rk_exec_main(int argc, char **argv);

const cli_command rk_sim_commands[] = {
    {"exec",
     "run one synthesized task on the simulator against a CPU reference "
     "(status ok/mismatch/wedge/fault/unsupported, modelled time)",
     rk_exec_main},
    {NULL, NULL, NULL},
};
