/* `npukit rk decode [FILE|-]`: one line per entry, every field by name. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_decode.h"

int rk_decode_main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
        fprintf(argc > 2 ? stderr : stdout,
                "usage: npukit rk decode [FILE|-]\n"
                "  FILE: little-endian u64 entries, or text with 8-hex-digit u32 words\n"
                "  (word0 word1 pairs on one line, any surrounding text; a token ending in\n"
                "  ':' is a label) or 16-hex-digit u64 words.\n");
        return argc > 2 ? 2 : 0;
    }
    npk_rk_program p;
    if (npk_rk_program_load(argc == 2 ? argv[1] : "-", &p))
        return cli_lib_error("decode");
    npk_rk_decode_print(stdout, p.entries, p.count);
    npk_rk_program_free(&p);
    return 0;
}
