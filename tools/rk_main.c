/* SPDX-License-Identifier: MIT */
/* `npukit rk ...`: the subcommand tables of each RK module, joined in one list.
 * Each table lives beside the commands it names (rk_cmds_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

extern const cli_command rk_core_commands[];    /* decode, diff, synth, regs */
extern const cli_command rk_plan_commands[];    /* plan */
extern const cli_command rk_sim_commands[];     /* exec */
extern const cli_command rk_runtime_commands[]; /* matmul, bench, info */

const cli_command *rk_commands(void)
{
    enum { MAX_COMMANDS = 64 };
    static cli_command all[MAX_COMMANDS + 1];
    if (all[0].name)
        return all;
    const cli_command *tables[] = {rk_core_commands, rk_plan_commands, rk_sim_commands,
                                   rk_runtime_commands};
    size_t n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const cli_command *c = tables[t]; c->name && n < MAX_COMMANDS; c++)
            all[n++] = *c;
    all[n] = (cli_command){NULL, NULL, NULL};
    return all;
}

int rk_main(int argc, char **argv) { return cli_dispatch("npukit rk", rk_commands(), argc, argv); }
