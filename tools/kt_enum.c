/* SPDX-License-Identifier: MIT */
/* `npukit kt enum`: find the window, walk the mesh with CU_CTRL reads, print the units. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt_cli.h"

int kt_enum_main(int argc, char **argv)
{
    kt_cli c = {0};
    int rc = kt_cli_start(
        &c, "kt enum",
        "enumerate the mesh's units: CU_CTRL reads over the mailbox, one line per unit", argc,
        argv);
    if (rc >= 0)
        return rc;
    kt_unit u[64];
    size_t n = 0;
    if (kt_enumerate(&c.dev, u, 64, &n) != NPK_OK) {
        rc = cli_lib_error("kt enum");
        kt_cli_close(&c);
        return rc;
    }
    const kt_agent_caps *a = &c.dev.caps;
    kt_coord silent[256];
    size_t ns = kt_silent_coords(&c.dev, silent, 256);
    int out = 0;
    if (c.o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "preset", kt_machine_board(c.m)->name);
        json_str(doc, "simulated_bitstream",
                 !kt_machine_sim(c.m)                       ? "unknown"
                 : kt_machine_board(c.m)->bitstream_current ? ktsim_gen_name(KTSIM_GEN_CURRENT)
                                                            : ktsim_gen_name(KTSIM_GEN_PRESTROBE));
        json_u64(doc, "flit_width", a->flit_width);
        json_u64(doc, "pos_width", a->pos_width);
        json_u64(doc, "grid_lo", a->grid_lo);
        json_u64(doc, "grid_hi", a->grid_hi);
        cJSON *units = json_arr(doc, "units");
        for (size_t i = 0; i < n; i++) {
            cJSON *unit = json_item(units);
            json_u64(unit, "x", u[i].at.x);
            json_u64(unit, "y", u[i].at.y);
            json_str(unit, "type", u[i].type_text);
            json_u64(unit, "type_code", u[i].caps.type);
            json_u64(unit, "version", u[i].caps.version);
            json_u64(unit, "n_buffers", u[i].caps.n_buffers);
            json_u64(unit, "inst_depth", u[i].caps.inst_depth);
        }
        cJSON *quiet = json_arr(doc, "silent");
        for (size_t i = 0; i < ns; i++)
            json_push_pair(quiet, silent[i].x, silent[i].y);
        out = c.o.verbose ? kt_cli_unit_detail(&c, u, n, doc) : 0;
        if (out) {
            cJSON_Delete(doc);
        } else {
            kt_cli_json_counts(doc, &c);
            out = json_print(doc, "kt enum");
        }
    } else {
        printf("mesh: flit %u bits, position %u bits, routers %u..%u (preset %s)\n", a->flit_width,
               a->pos_width, a->grid_lo, a->grid_hi, kt_machine_board(c.m)->name);
        printf("%-8s %-6s %-8s %-10s %s\n", "coord", "type", "version", "n_buffers", "inst_depth");
        for (size_t i = 0; i < n; i++)
            printf("(%u,%u)%*s %-6s %-8u %-10u %u\n", u[i].at.x, u[i].at.y,
                   u[i].at.x > 9 || u[i].at.y > 9 ? 1 : 3, "", u[i].type_text, u[i].caps.version,
                   u[i].caps.n_buffers, u[i].caps.inst_depth);
        printf("%zu units\n", n);
        if (ns) { /* a unit slower than the budget looks empty: say which positions are */
            printf("empty position%s:", ns > 1 ? "s" : "");
            for (size_t i = 0; i < ns; i++)
                printf(" (%u,%u)", silent[i].x, silent[i].y);
            printf(" (no unit answered within %u mailbox reads; a slower unit needs "
                   "--reply-budget N)\n",
                   c.dev.opt.reply_budget);
        }
        out = c.o.verbose ? kt_cli_unit_detail(&c, u, n, NULL) : 0;
        kt_cli_print_counts(&c);
    }
    int rc_close = kt_cli_close(&c);
    return out ? out : rc_close;
}
