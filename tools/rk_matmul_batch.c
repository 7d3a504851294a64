/* SPDX-License-Identifier: MIT */
/* `rk matmul --batch L`: the same matmul as L items of one npk_rk_matmul_batch call — the
 * submit-floor lever for decode GEMVs; with --chain the items' tasks share SUBMITs. */
#include "rk_matmul_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"

int rk_matmul_batch(npk_rk *rt, const npk_rk_weights *w, rk_operands *o, uint32_t count, bool check,
                    bool json, const npk_rk_info *info)
{
    const size_t cbytes = (size_t)o->m * o->n * rk_elem_bytes(o->out);
    npk_rk_matmul_item *items = calloc(count, sizeof *items);
    uint8_t *cs = count > 1 ? malloc(cbytes * (count - 1)) : NULL;
    int rc = 1;
    if (!items || (count > 1 && !cs)) {
        fprintf(stderr, "npukit rk matmul: out of memory for %u batch items\n", count);
        goto out;
    }
    for (uint32_t i = 0; i < count; i++)
        items[i] = (npk_rk_matmul_item){w, o->m, o->a, i ? cs + (i - 1) * cbytes : o->c, {0}, false};
    npk_rk_stats st;
    if (npk_rk_matmul_batch(rt, items, count, o->out, &st)) {
        cli_lib_error("rk matmul");
        goto out;
    }
    uint32_t differ = 0;
    for (uint32_t i = 1; i < count; i++)
        differ += memcmp(items[i].c, o->c, cbytes) != 0;
    npk_rk_verdict v = {0};
    if (check && !rk_operands_check(o, &v))
        goto out;
    const char *label = info->simulated ? "modelled" : "measured";
    const double per_us = st.npu_span_ns / 1e3 / count;
    bool printed = true;
    if (json) {
        cJSON *doc = json_doc();
        json_u64(doc, "batch", count);
        json_u64(doc, "m", o->m);
        json_u64(doc, "k", o->k);
        json_u64(doc, "n", o->n);
        json_u64(doc, "tasks", st.tasks);
        json_u64(doc, "submits", st.submits);
        json_fixed(doc, "npu_ms", st.npu_span_ns / 1e6, 6);
        json_fixed(doc, "npu_us_per_matmul", per_us, 3);
        json_str(doc, "npu_time", label);
        json_fixed(doc, "host_ms", st.host_ns / 1e6, 6);
        json_u64(doc, "items_differing", differ);
        if (check) {
            cJSON *c = json_obj(doc, "check");
            json_u64(c, "outside", v.outside);
            json_bool(c, "ok", !v.outside && !differ);
        }
        printed = json_print(doc, "rk matmul") == 0;
    } else {
        printf("%s %ux%ux%u x %u in one batch on %s (%s)\n", npk_rk_prec_name(o->in), o->m, o->k,
               o->n, count, info->device, info->soc);
        printf("  tasks %u, submits %u; NPU time %.3f ms (%s), %.1f us per matmul; host %.3f "
               "ms\n",
               st.tasks, st.submits, st.npu_span_ns / 1e6, label, per_us, st.host_ns / 1e6);
        printf("  items whose C differs from the first: %u\n", differ);
        if (check)
            printf("  check vs CPU (first item): %llu elements outside the bound: %s\n",
                   (unsigned long long)v.outside, v.outside ? "MISMATCH" : "ok");
    }
    rc = differ || v.outside || !printed ? 1 : 0;
out:
    free(items);
    free(cs);
    return rc;
}
