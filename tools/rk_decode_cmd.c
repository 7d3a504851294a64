/* SPDX-License-Identifier: MIT */
/* `npukit rk decode [FILE|-]`: one line per entry, every field by name. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_decode.h"

int rk_decode_main(int argc, char **argv)
{
    const char *pos[1] = {"-"};
    const cli_opt *tables[] = {NULL};
    cli_spec spec = {.cmd = "rk decode",
                     .synopsis = "[FILE|-]",
                     .about =
                         "one line per entry, every field by name. FILE: little-endian u64 "
                         "entries, or text with\n8-hex-digit u32 words (word0 word1 pairs on "
                         "one line, any surrounding text; a token\nending in ':' is a label) or "
                         "16-hex-digit u64 words",
                     .tables = tables,
                     .pos = pos,
                     .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    npk_rk_program p;
    if (npk_rk_program_load(pos[0], &p))
        return cli_lib_error("decode");
    npk_rk_decode_print(stdout, p.entries, p.count);
    npk_rk_program_free(&p);
    return 0;
}
