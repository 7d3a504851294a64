/* SPDX-License-Identifier: MIT */
/* `npukit rk regs [NAME|OFFSET]`: the register table, or one register with its fields. NAME
 * matches in any case; an offset (0x1040) lists every register at it, since captures and
 * decoded dumps name registers by offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    const char *pos[1] = {NULL};
    const cli_opt *tables[] = {NULL};
    cli_spec spec = {.cmd = "rk regs",
                     .synopsis = "[NAME|OFFSET]",
                     .about =
                         "the register table, or the fields of the register NAME (any case), or "
                         "of every register\nat OFFSET (0x1040)",
                     .tables = tables,
                     .pos = pos,
                     .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (pos[0]) {
        const char *a = pos[0];
        uint64_t off = 0;
        bool is_off = a[0] == '0' && (a[1] == 'x' || a[1] == 'X') &&
                      cli_number_scan(a, strlen(a), true, &off) == CLI_NUM_OK;
        unsigned found = 0;
        for (unsigned i = 0; i < NPK_REG_COUNT; i++) {
            const npk_rk_reg *r = npk_rk_reg_info((npk_rk_reg_id)i);
            if (is_off ? r->offset == off : !strcasecmp(r->name, a)) {
                print_reg(r, 1);
                found++;
            }
        }
        if (!found) {
            fprintf(stderr, "npukit: no register %s '%s' (npukit rk regs lists them)\n",
                    is_off ? "at offset" : "named", a);
            return 1;
        }
        return 0;
    }
    printf("%-9s %-6s %-6s %s\n", "block", "target", "offset", "name");
    for (unsigned i = 0; i < NPK_REG_COUNT; i++)
        print_reg(npk_rk_reg_info((npk_rk_reg_id)i), 0);
    return 0;
}
