/* SPDX-License-Identifier: MIT */
/* `npukit rk matmul`: one any-shape matmul through the runtime, optionally checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "rk_operands.h"
#include "rk_opts.h"
#include "rk_matmul_batch.h"
#include "rk_matmul_ep.h"
#include "rk_matmul_quant.h"

/* The result as text, or as one JSON document; false when the document could not be made. */
static bool print_result(bool json, const npk_rk_info *info, const rk_operands *o,
                         const npk_rk_stats *st, bool checked, const npk_rk_verdict *e)
{
    const char *label = info->simulated ? "modelled" : "measured";
    bool ok = e->outside == 0;
    if (json) {
        cJSON *doc = json_doc();
        rk_json_shape(doc, o);
        json_str(doc, "device", info->device);
        json_str(doc, "soc", info->soc);
        json_u64(doc, "cores_used", st->cores_used);
        json_u64(doc, "tasks", st->tasks);
        json_u64(doc, "submits", st->submits);
        json_u64(doc, "warmups", st->warmups);
        json_u64(doc, "resets", st->resets);
        json_u64(doc, "retries", st->retries);
        json_fixed(doc, "npu_ms", st->npu_span_ns / 1e6, 6);
        json_fixed(doc, "npu_busy_ms", st->npu_ns / 1e6, 6);
        json_str(doc, "npu_time", label);
        json_fixed(doc, "host_ms", st->host_ns / 1e6, 6);
        if (checked) {
            cJSON *c = json_obj(doc, "check");
            json_sig(c, "max_abs", e->max_abs, 9);
            json_sig(c, "max_rel", e->max_rel, 9);
            json_u64(c, "mismatches", e->mismatches);
            json_u64(c, "outside_bound", e->outside);
            json_bool(c, "ok", ok);
        }
        return json_print(doc, "rk matmul") == 0;
    }
    printf("%s %ux%ux%u -> %s on %s (%s, %u core%s, %u used)\n", npk_rk_prec_name(o->in), o->m,
           o->k, o->n, npk_rk_prec_name(o->out), info->device, info->soc, info->cores,
           info->cores == 1 ? "" : "s", st->cores_used);
    printf("  tasks %u, submits %u (warm-ups %u, resets %u, retries %u)\n", st->tasks, st->submits,
           st->warmups, st->resets, st->retries);
    printf("  NPU time %.3f ms (%s; %.3f ms summed over the cores), host time %.3f ms\n",
           st->npu_span_ns / 1e6, label, st->npu_ns / 1e6, st->host_ns / 1e6);
    if (!checked)
        return true;
    /* Integers must be exact; a float result differs from the exact product in nearly every
     * element, so say what the verdict is measured against (npk_rk_check_matmul). */
    unsigned long long total = (unsigned long long)o->m * o->n;
    if (o->out == NPK_PREC_INT32)
        printf("  check vs CPU: max abs error %.3g, %llu of %llu elements differ (exact "
               "required): %s\n",
               e->max_abs, (unsigned long long)e->mismatches, total, ok ? "ok" : "MISMATCH");
    else
        printf("  check vs CPU: max abs error %.3g, max rel error %.3g; %llu of %llu elements "
               "not equal to the rounded exact product, %llu outside the bound for any fp32 "
               "summation order (K*u/(1-K*u) * sum|a*b| + output rounding + 1 ulp, per element; "
               "worst at %.2g of it): %s\n",
               e->max_abs, e->max_rel, (unsigned long long)e->mismatches, total,
               (unsigned long long)e->outside, e->max_ratio, ok ? "ok" : "MISMATCH");
    return true;
}

/* The matmul, with a progress line on a terminal (cli_progress.h). */
static npk_status matmul_with_progress(npk_rk *rt, const npk_rk_weights *w, const rk_operands *o,
                                       npk_rk_stats *st, bool quiet)
{
    cli_progress p;
    cli_progress_start(&p, "rk matmul");
    npk_status s =
        cli_progress_wanted(quiet) ? npk_rk_set_progress(rt, cli_progress_report, &p) : NPK_OK;
    if (s == NPK_OK)
        s = npk_rk_matmul(rt, w, o->m, o->a, o->out, o->c, st);
    cli_progress_end(&p);
    return s;
}

int rk_matmul_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    bool check = false, json = false;
    const char *a_file = NULL, *b_file = NULL, *scale_src = NULL, *res_src = NULL;
    bool no_fuse = false, quiet = false;
    uint32_t batch = 0, pitch = 0;
    const char *sched = NULL;
    rk_quant_opts qo = {0};
    const cli_opt own[] = {
        {.name = "--a",
         .kind = CLI_STR,
         .dest = &a_file,
         .meta = "FILE",
         .help = "A from a raw row-major file (fp16 bits, int8, int4 as int8)"},
        {.name = "--b", .kind = CLI_STR, .dest = &b_file, .meta = "FILE", .help = "B likewise"},
        {.name = "--check",
         .kind = CLI_FLAG,
         .dest = &check,
         .help = "judge C against the exact product (README: what it guarantees)"},
        {.name = "--scale",
         .kind = CLI_STR,
         .dest = &scale_src,
         .meta = "FILE|random",
         .help = "epilogue: C = A.B * scale[n] (fp16 [N] raw file, or random); output fp16"},
        {.name = "--residual",
         .kind = CLI_STR,
         .dest = &res_src,
         .meta = "FILE|random",
         .help = "epilogue: then + residual[m][n] (fp16 [M][N] raw file, or random)"},
        {.name = "--no-fuse",
         .kind = CLI_FLAG,
         .dest = &no_fuse,
         .help = "run the epilogue as separate SDP submits instead of chained ones"},
        {.name = "--batch",
         .kind = CLI_U32,
         .dest = &batch,
         .min = 1,
         .max = NPK_RK_BATCH_MAX,
         .meta = "L",
         .help = "run the matmul L times as one batch (npk_rk_matmul_batch; --chain shares "
                 "submits)"},
        {.name = "--scale-a",
         .kind = CLI_STR,
         .dest = &qo.scale_a,
         .meta = "FILE|random|X",
         .help = "quantised: A's scales (float32 [M], or [M][groups]; default 1); output fp32"},
        {.name = "--scale-b",
         .kind = CLI_STR,
         .dest = &qo.scale_b,
         .meta = "FILE|random|X",
         .help = "quantised: B's scales (float32 [groups][N]; default 1)"},
        {.name = "--group",
         .kind = CLI_STR,
         .dest = &qo.group,
         .meta = "G|channel",
         .help = "quantised: K per group of B's scales (a multiple of 32), or per output channel"},
        {.name = "--groups-per-pass",
         .kind = CLI_U32,
         .dest = &qo.per_pass,
         .min = 0,
         .max = NPK_RK_PLAN_MAX_DIM,
         .meta = "J",
         .help = "quantised: groups per NPU pass (1: K-sliced tasks; 0: the cost model's choice)"},
        {.name = "--feature-pitch",
         .kind = CLI_U32,
         .dest = &pitch,
         .min = 0,
         .max = 8,
         .meta = "F",
         .help = "feature rows F x their packed width apart in line form, 0x107c (fp16 1, 2, 4, "
                 "8; int8 1; int4 2, its zero-line padding; 0: the dtype's layout)"},
        {.name = "--sched",
         .kind = CLI_STR,
         .dest = &sched,
         .meta = "auto|chain",
         .help = "M schedule: the planner's (auto) or the PC-chained M-tile schedule (chain: "
                 "the whole K per tile at K = 512..8192; --chain tiles per submit)"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        {.name = "--quiet",
         .kind = CLI_FLAG,
         .dest = &quiet,
         .help = "no progress line (shown on a terminal once a call runs past half a second)"},
        CLI_END,
    };
    const cli_opt *tables[] = {rk_shape_rows(&so,
                                             RK_OPT_SHAPE | RK_OPT_SOC | RK_OPT_CORES |
                                                 RK_OPT_CHAIN | RK_OPT_DEVICE | RK_OPT_SEED,
                                             NPK_RK_PLAN_MAX_DIM),
                               own, NULL};
    cli_spec spec = {.cmd = "rk matmul",
                     .synopsis = "--dtype fp16|int8|int4 -m M -k K -n N [options]",
                     .about =
                         "C = A . B of any shape through the runtime, on the NPU or the simulator",
                     .tables = tables};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    rk_epilogue_opts eo = {scale_src, res_src, no_fuse};
    const bool quant = rk_quant_wanted(&qo);
    if (batch && (quant || scale_src || res_src)) {
        fprintf(stderr, "npukit rk matmul: --batch runs plain matmuls; it does not combine with "
                        "the epilogue or the quantised matmul\n");
        return 2;
    }
    if (quant && (scale_src || res_src)) {
        fprintf(stderr, "npukit rk matmul: --scale/--residual (the fp16 epilogue) and the "
                        "quantised matmul's --scale-a/--scale-b/--group do not combine\n");
        return 2;
    }
    if (quant && !so.have_out) { /* the scaled result is real-valued */
        so.out = NPK_PREC_FP32;
        so.have_out = true;
    }
    if ((scale_src || res_src) && !so.have_out) { /* the SDP computes in fp16 */
        so.out = NPK_PREC_FP16;
        so.have_out = true;
    }
    if (!rk_shape_complete(&so, "rk matmul"))
        return 2;
    rk_operands o = {0};
    rk_operands_from_opts(&o, &so);
    if (!rk_operands_make(&o, a_file, b_file, so.seed)) {
        rk_operands_free(&o);
        return 1;
    }
    if (quant) {
        int qrc = rk_matmul_quant(&so, &o, &qo, check, json);
        rk_operands_free(&o);
        return qrc;
    }
    npk_rk *rt = NULL;
    npk_rk_weights *w = NULL;
    npk_rk_stats st;
    npk_rk_info info;
    int rc = 1;
    if (!rk_runtime_open(&so, &rt, &info, "rk matmul")) {
        /* printed */
    } else if ((pitch && npk_rk_set_feature_pitch(rt, pitch)) ||
               (sched && npk_rk_set_schedule(rt, sched)) ||
               npk_rk_weights_pack(rt, o.in, o.k, o.n, o.b, o.m, &w)) {
        cli_lib_error("rk matmul");
    } else if (scale_src || res_src) {
        rc = rk_matmul_epilogue(rt, w, &o, &eo, so.seed, check, json, &info);
    } else if (batch) {
        rc = rk_matmul_batch(rt, w, &o, batch, check, json, &info);
    } else if (matmul_with_progress(rt, w, &o, &st, quiet)) {
        cli_lib_error("rk matmul");
    } else {
        npk_rk_verdict e = {0};
        if (!check || rk_operands_check(&o, &e)) {
            bool printed = print_result(json, &info, &o, &st, check, &e);
            rc = e.outside || !printed ? 1 : 0;
        }
    }
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    rk_operands_free(&o);
    return rc;
}
