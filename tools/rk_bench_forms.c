/* SPDX-License-Identifier: MIT */
/* `npukit rk bench --submit all`: the same matmul through every submission form the device's
 * kernel allows, one row each: submits per call, NPU time (modelled on the simulator), host
 * time, and the host's submit and completion-wait time per call (medians). A form the kernel or
 * the dtype refuses is listed with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli.h"
#include "common/measure.h"
#include "npukit/rk.h"
#include "rk_bench_rknn.h"
#include "rk_operands.h"
#include "rk_opts.h"

enum { COLS = 4 }; /* npu, host, submit, wait */

static bool bench_form(npk_rk *rt, npk_rk_weights *w, const rk_operands *o, int iters, int warm,
                       double med[COLS], npk_rk_stats *last)
{
    double *v = calloc((size_t)iters * COLS, sizeof *v);
    if (!v)
        return false;
    bool ok = true;
    for (int i = -warm; ok && i < iters; i++) {
        ok = npk_rk_matmul(rt, w, o->m, o->a, o->out, o->c, last) == NPK_OK;
        if (!ok || i < 0)
            continue;
        v[0 * iters + i] = (double)last->npu_span_ns;
        v[1 * iters + i] = (double)last->host_ns;
        v[2 * iters + i] = (double)last->submit_ns;
        v[3 * iters + i] = (double)last->wait_ns;
    }
    for (int c = 0; ok && c < COLS; c++)
        med[c] = npk_median(v + (size_t)c * iters, (size_t)iters);
    free(v);
    return ok;
}

int rk_bench_forms(const rk_shape_opts *so, const rk_operands *o, int iters, int warm, bool json)
{
    rk_shape_opts one = *so;
    one.submit = NULL; /* set per form below */
    one.chain = 0;     /* set below, on a form that takes it */
    npk_rk *rt = NULL;
    npk_rk_weights *w = NULL;
    npk_rk_info info;
    if (!rk_runtime_setup(&one, o, &rt, &w, &info, "rk bench"))
        return 1;
    const unsigned chain = so->chain ? (unsigned)so->chain : 1;
    /* The forms that group tasks take --chain; "concat" allows it on either kernel, and the
     * count stays when the form changes (the others take one task per job). */
    if (chain > 1 && (npk_rk_set_submission(rt, "concat") || npk_rk_set_chain(rt, chain))) {
        cli_lib_error("rk bench");
        npk_rk_weights_free(rt, w);
        npk_rk_close(rt);
        return 1;
    }
    cJSON *doc = json ? json_doc() : NULL, *forms = NULL;
    if (json) {
        json_str(doc, "dtype", npk_rk_prec_name(o->in));
        json_u64(doc, "m", o->m);
        json_u64(doc, "k", o->k);
        json_u64(doc, "n", o->n);
        json_str(doc, "kernel", info.kernel);
        json_u64(doc, "chain", chain);
        forms = json_arr(doc, "forms");
    } else
        printf("%s %ux%ux%u on %s (%s kernel), --chain %u: %d runs after %d warm-up, medians; "
               "NPU time %s\n%-10s %7s %11s %11s %11s %11s\n",
               npk_rk_prec_name(o->in), o->m, o->k, o->n, info.device, info.kernel, chain, iters,
               warm, info.simulated ? "modelled" : "measured", "form", "submits", "npu_ms",
               "host_ms", "submit_us", "wait_us");
    int rc = 0;
    for (unsigned f = 0; f < npk_rk_submission_count(); f++) {
        const char *name = npk_rk_submission_name(f);
        npk_rk_stats st = {0};
        double med[COLS] = {0};
        bool ok = npk_rk_set_submission(rt, name) == NPK_OK &&
                  bench_form(rt, w, o, iters, warm, med, &st);
        npk_rk_verdict v = {0};
        bool right = ok && rk_operands_check(o, &v) && v.outside == 0;
        if (ok && !right)
            rc = 1; /* a form that gives a wrong answer fails the bench */
        if (json) {
            cJSON *row = json_item(forms);
            json_str(row, "form", name);
            json_bool(row, "ok", ok);
            if (ok) {
                json_u64(row, "submits", st.submits);
                json_fixed(row, "npu_ms", med[0] / 1e6, 6);
                json_fixed(row, "host_ms", med[1] / 1e6, 6);
                json_fixed(row, "submit_us", med[2] / 1e3, 3);
                json_fixed(row, "wait_us", med[3] / 1e3, 3);
                json_bool(row, "correct", right);
            } else {
                json_str(row, "why", npk_last_error());
            }
        } else if (ok)
            printf("%-10s %7u %11.3f %11.3f %11.2f %11.2f%s\n", name, st.submits, med[0] / 1e6,
                   med[1] / 1e6, med[2] / 1e3, med[3] / 1e3, right ? "" : "  WRONG RESULT");
        else
            printf("%-10s refused: %s\n", name, npk_last_error());
    }
    if (json && json_print(doc, "rk bench"))
        rc = 1;
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    return rc;
}
