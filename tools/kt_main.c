/* SPDX-License-Identifier: MIT */
/* `npukit kt ...`: one row per subcommand, each implemented in its own kt_*.c file. */
#include "cli.h"

int kt_enum_main(int argc, char **argv);
int kt_saxpy_main(int argc, char **argv);
int kt_status_main(int argc, char **argv);
int kt_move_main(int argc, char **argv);
int kt_link_main(int argc, char **argv);
int kt_prog_main(int argc, char **argv);
int kt_serve_main(int argc, char **argv);
int kt_rv64_main(int argc, char **argv);

static const cli_command commands[] = {
    {"enum", "enumerate the mesh's units over the mailbox", kt_enum_main},
    {"saxpy", "stage, dispatch and check y = a*x + y on the saxpy units", kt_saxpy_main},
    {"status", "print the orchestrator registers and every NODE_STATUS", kt_status_main},
    {"move", "run one memory-mover move (copy, fill, gather, generate) and check it", kt_move_main},
    {"link", "ring doorbells between the meshes of a card, print the interlink state",
     kt_link_main},
    {"prog", "run a host control program from a text file, on the host or in the engine",
     kt_prog_main},
    {"serve", "the simulated card behind the line protocol or the card daemon protocol",
     kt_serve_main},
    {"rv64",
     "the RV64 control complex: run PROG.elf [--sim P] [--stdin TEXT] [--timeout S] [--json]",
     kt_rv64_main},
    {NULL, NULL, NULL},
};

const cli_command *kt_commands(void) { return commands; }

int kt_main(int argc, char **argv) { return cli_dispatch("npukit kt", commands, argc, argv); }
