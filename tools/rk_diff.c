/* `npukit rk diff A B`: capture -> diff. Exit 0 when identical, 1 when they differ. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_decode.h"

int rk_diff_main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: npukit rk diff A B   (each a program file, or - for stdin)\n"
               "  prints the first differing entry, then every register whose effective value\n"
               "  (the later copy wins) differs, field by field; exits 0 only when identical\n");
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: npukit rk diff A B   (each a program file, or - for stdin)\n");
        return 2;
    }
    npk_rk_program a, b;
    if (npk_rk_program_load(argv[1], &a))
        return cli_lib_error("diff");
    if (npk_rk_program_load(argv[2], &b)) {
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
