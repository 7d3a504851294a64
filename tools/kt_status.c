/* SPDX-License-Identifier: MIT */
/* `npukit kt status`: the orchestrator's registers by name, and every NODE_STATUS of the span
 * decoded (plus any other slot that ever signalled). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt_cli.h"

static int fail(kt_cli *c)
{
    int rc = cli_lib_error("kt status");
    kt_cli_close(c);
    return rc;
}

int kt_status_main(int argc, char **argv)
{
    kt_cli c = {0};
    int rc = kt_cli_start(&c, "kt status", "print the orchestrator registers and every NODE_STATUS",
                          argc, argv);
    if (rc >= 0)
        return rc;
    cJSON *doc = c.o.json ? json_doc() : NULL;
    cJSON *regs = json_arr(doc, "registers");
    for (const kt_reg_desc *r = kt_orch_regs; r->name; r++) {
        if (r->words != 1 || r->access == KT_ACC_W)
            continue; /* arrays are shown below or are write-only */
        uint64_t v;
        if (kt_reg_read(&c.dev, r->offset, &v)) {
            cJSON_Delete(doc);
            return fail(&c);
        }
        char extra[200] = "";
        if (r->offset == KT_PROG_STAT) {
            kt_prog_stat p = kt_prog_stat_decode(v);
            kt_prog_stat_text(&p, extra, sizeof extra);
        } else {
            kt_reg_describe(r, extra, sizeof extra);
        }
        if (c.o.json) {
            cJSON *o = json_item(regs);
            json_str(o, "name", r->name);
            json_u64(o, "offset", r->offset);
            json_u64(o, "value", v);
        } else {
            printf("0x%04x %-10s %-8s 0x%016" PRIx64 "  %s\n", r->offset, r->name,
                   kt_access_name(r->access), v, extra);
        }
    }
    cJSON *nodes = json_arr(doc, "node_status");
    if (!c.o.json)
        printf("\nNODE_STATUS (coord: code arg count valid)\n");
    int lo = c.dev.caps.grid_lo - 1, hi = c.dev.caps.grid_hi + 1;
    for (unsigned idx = 0; idx < KT_NODE_SLOTS; idx++) {
        kt_coord at = kt_coord_unpack((uint8_t)idx);
        uint64_t v;
        if (kt_reg_read(&c.dev, kt_node_status_offset(at), &v)) {
            cJSON_Delete(doc);
            return fail(&c);
        }
        bool in_span = at.x >= lo && at.x <= hi && at.y >= lo && at.y <= hi;
        if (!in_span && !v)
            continue;
        kt_node_status ns = kt_node_status_decode(v);
        if (c.o.json) {
            cJSON *o = json_item(nodes);
            json_u64(o, "x", at.x);
            json_u64(o, "y", at.y);
            json_u64(o, "code", ns.code);
            json_u64(o, "arg", ns.arg);
            json_u64(o, "count", ns.count);
            json_bool(o, "valid", ns.valid);
        } else if (ns.valid)
            printf("(%u,%u): %s arg=0x%08x count=%u\n", at.x, at.y, kt_signal_name(ns.code), ns.arg,
                   ns.count);
        else
            printf("(%u,%u): never signalled\n", at.x, at.y);
    }
    int out = 0;
    if (c.o.verbose) { /* the units too: enumerate, then each one's live words */
        kt_unit u[64];
        size_t n = 0;
        if (kt_enumerate(&c.dev, u, 64, &n)) {
            cJSON_Delete(doc);
            return fail(&c);
        }
        out = kt_cli_unit_detail(&c, u, n, doc);
    }
    if (c.o.json && !out) {
        kt_cli_json_counts(doc, &c);
        out = json_print(doc, "kt status");
    } else if (!out) {
        kt_cli_print_counts(&c);
    } else {
        cJSON_Delete(doc);
    }
    int rc_close = kt_cli_close(&c);
    return out ? out : rc_close;
}
