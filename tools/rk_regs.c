/* `npukit rk regs [NAME]`: the register table, or one register with its fields. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_regs.h"

static void print_reg(const npk_rk_reg *r, int with_fields)
{
    printf("%-9s 0x%04x 0x%04x %s\n", npk_rk_unit_name(r->block), r->target, r->offset, r->name);
    for (unsigned i = 0; with_fields && i < r->nfields; i++) {
        const npk_rk_field *f = npk_rk_field_info((npk_rk_field_id)(r->first_field + i));
        if (f->hi == f->lo)
            printf("    [%u] %s\n", f->lo, f->name);
        else
            printf("    [%u:%u] %s\n", f->hi, f->lo, f->name);
    }
}

int rk_regs_main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: npukit rk regs [NAME]\n");
        return 2;
    }
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: npukit rk regs [NAME]   (the register table, or NAME's fields)\n");
        return 0;
    }
    if (argc == 2) {
        const npk_rk_reg *r = npk_rk_reg_by_name(argv[1]);
        if (!r) {
            fprintf(stderr, "npukit: no register named '%s' (npukit rk regs lists them)\n",
                    argv[1]);
            return 1;
        }
        print_reg(r, 1);
        return 0;
    }
    printf("%-9s %-6s %-6s %s\n", "block", "target", "offset", "name");
    for (unsigned i = 0; i < NPK_REG_COUNT; i++)
        print_reg(npk_rk_reg_info((npk_rk_reg_id)i), 0);
    return 0;
}
