/* SPDX-License-Identifier: MIT */
/* The rk subcommands of the core module: registers, programs, synthesis. */
#include "cli.h"

int rk_decode_main(int argc, char **argv);
int rk_diff_main(int argc, char **argv);
int rk_synth_main(int argc, char **argv);
int rk_regs_main(int argc, char **argv);

const cli_command rk_core_commands[] = {
    {"decode", "name every entry of a regcmd program (binary or hex text)", rk_decode_main},
    {"diff", "first divergence and every differing register of two programs", rk_diff_main},
    {"synth", "synthesize one matmul task's regcmd program", rk_synth_main},
    {"regs", "list the register table (or one register's fields)", rk_regs_main},
    {NULL, NULL, NULL},
};
