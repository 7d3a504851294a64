/* SPDX-License-Identifier: MIT */
/* The rk subcommands of the planner module. */
#include "cli.h"

int rk_plan_main(int argc, char **argv);

const cli_command rk_plan_commands[] = {
    {"plan", "split any M x K x N matmul into tasks within every limit", rk_plan_main},
    {NULL, NULL, NULL},
};
