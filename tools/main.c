/* npukit: the command-line tool. Each family of subcommands has its own table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int rk_main(int argc, char **argv);
int kt_main(int argc, char **argv);
int demo_main(int argc, char **argv);

static int version_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("npukit 0.1.0\n");
    return 0;
}

static const cli_command families[] = {
    {"rk", "Rockchip RK35xx NPU: synth, decode, diff, plan, exec, matmul, bench", rk_main},
    {"kt", "KohakuTPU / KohakuAccel mesh: discovery, dispatch, mover, engine", kt_main},
    {"demo", "a short tour of both accelerators on the simulators", demo_main},
    {"version", "print the version", version_main},
    {NULL, NULL, NULL},
};

int main(int argc, char **argv) { return cli_dispatch("npukit", families, argc, argv); }
