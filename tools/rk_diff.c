/* SPDX-License-Identifier: MIT */
/* `npukit rk diff A B`: capture -> diff. Exit 0 when identical, 1 when they differ. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_decode.h"

int rk_diff_main(int argc, char **argv)
{
    const char *pos[2];
    const cli_opt *tables[] = {NULL};
    cli_spec spec = {.cmd = "rk diff",
                     .synopsis = "A B   (each a program file, or - for stdin)",
                     .about =
                         "the first differing entry, then every register whose effective value "
                         "(the later copy wins)\ndiffers, field by field; exit 0 only when "
                         "identical, 1 when they differ",
                     .tables = tables,
                     .pos = pos,
                     .min_pos = 2,
                     .max_pos = 2};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    npk_rk_program a, b;
    if (npk_rk_program_load(pos[0], &a))
        return cli_lib_error("diff");
    if (npk_rk_program_load(pos[1], &b)) {
        npk_rk_program_free(&a);
        return cli_lib_error("diff");
    }
    size_t differing = npk_rk_diff_print(stdout, a.entries, a.count, b.entries, b.count);
    int same = differing == 0 && a.count == b.count;
    for (size_t i = 0; same && i < a.count; i++)
        same = a.entries[i] == b.entries[i];
    npk_rk_program_free(&a);
    npk_rk_program_free(&b);
    return same ? 0 : 1;
}
