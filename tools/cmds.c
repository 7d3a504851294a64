/* SPDX-License-Identifier: MIT */
/* The command table of each family, made from the rows of cmds.def. */
#include <string.h>

#include "cmds.h"

/* Every row, in order; a family's table is the rows whose family matches, so a row is never
 * written twice. */
static const struct row {
    const char *family;
    cli_command cmd;
} rows[] = {
#define CMD(family, name, help, entry) {#family, {#name, help, entry}},
#include "cmds.def"
#undef CMD
};
enum { ROWS = sizeof rows / sizeof rows[0] };

static const cli_command *family_table(const char *family, cli_command *table)
{
    if (table[0].name)
        return table;
    size_t n = 0;
    for (size_t i = 0; i < ROWS; i++)
        if (!strcmp(rows[i].family, family))
            table[n++] = rows[i].cmd;
    table[n] = (cli_command){NULL, NULL, NULL};
    return table;
}

const cli_command *rk_commands(void)
{
    static cli_command table[ROWS + 1];
    return family_table("rk", table);
}

const cli_command *kt_commands(void)
{
    static cli_command table[ROWS + 1];
    return family_table("kt", table);
}

int rk_main(int argc, char **argv) { return cli_dispatch("npukit rk", rk_commands(), argc, argv); }

int kt_main(int argc, char **argv) { return cli_dispatch("npukit kt", kt_commands(), argc, argv); }
