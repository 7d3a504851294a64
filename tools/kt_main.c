/* `npukit kt ...`: one row per subcommand, each implemented in its own kt_*.c file. */
#include "cli.h"

int kt_enum_main(int argc, char **argv);
int kt_saxpy_main(int argc, char **argv);
int kt_status_main(int argc, char **argv);
int kt_move_main(int argc, char **argv);
int kt_link_main(int argc, char **argv);
int kt_prog_main(int argc, char **argv);
int kt_serve_main(int argc, char **argv);

static const cli_command kt_commands[] = {
    {"enum", "enumerate the mesh's units over the mailbox [--sim PRESET] [--prestrobe] [--json]", kt_enum_main},
    {"saxpy", "stage, dispatch and check y = a*x + y on the saxpy units -n N [--sim P] [--prestrobe] [--json]",
     kt_saxpy_main},
    {"status", "print the orchestrator registers and every NODE_STATUS [--sim P] [--prestrobe] [--json]",
     kt_status_main},
    {"move", "run one memory-mover move and check it: copy|fill|gather|generate [--words N] [--dst-mesh M] [--sim P]",
     kt_move_main},
    {"link",
     "ring doorbells between the meshes of a card, print interlink state [--meshes K] [--mesh-id M:ID] "
     "[--ring F:T[:TAG]] [--clear]",
     kt_link_main},
    {"prog", "run a host control program from a text file on the host or in the engine FILE [--engine] [--sim P]",
     kt_prog_main},
    {"serve", "the simulated card behind the line protocol or the card daemon protocol [--protocol line|daemon] "
              "[--listen HOST:PORT | --stdio] [--sim P]",
     kt_serve_main},
    {NULL, NULL, NULL},
};

int kt_main(int argc, char **argv) { return cli_dispatch("npukit kt", kt_commands, argc, argv); }
