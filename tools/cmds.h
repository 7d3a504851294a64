/* SPDX-License-Identifier: MIT */
/* The subcommands of `npukit`, from the rows of cmds.def: every entry point declared, and one
 * command table per family. */
#ifndef NPUKIT_TOOLS_CMDS_H
#define NPUKIT_TOOLS_CMDS_H

#include "cli.h"

#define CMD(family, name, help, entry) int entry(int argc, char **argv);
#include "cmds.def"
#undef CMD

/* The families' entry points (main.c lists them) and their tables (cmds.c). */
int rk_main(int argc, char **argv);
int kt_main(int argc, char **argv);
int demo_main(int argc, char **argv);
const cli_command *rk_commands(void);
const cli_command *kt_commands(void);

#endif
