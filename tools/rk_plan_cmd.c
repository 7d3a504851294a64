/* SPDX-License-Identifier: MIT */
/* `npukit rk plan --dtype D -m M -k K -n N [--cores C] [--out O] [--mode M] [--json]
 * [--chain T] [--submit FORM] [--host-scale F] [--host-ns RATES] [--cold] [--explain]`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"
#include "rk_opts.h"

/* --host-scale F: every host rate so far times F (0: the host costs nothing). */
static bool parse_host_scale(const cli_opt *row, const char *v, const char *cmd)
{
    char *end;
    errno = 0;
    double f = strtod(v, &end);
    if (!*v || *end || errno || !(f >= 0) || f > 1e6) {
        fprintf(stderr, "npukit %s: --host-scale '%s' is not a number in 0..1e6\n", cmd, v);
        return false;
    }
    if (npk_rk_host_model_scale(row->dest, f) == NPK_OK)
        return true;
    fprintf(stderr, "npukit %s: --host-scale '%s': %s\n", cmd, v, npk_last_error());
    return false;
}

/* --host-ns name=value,...: set host rates (rk_plan.h names them). */
static bool parse_host_ns(const cli_opt *row, const char *v, const char *cmd)
{
    if (npk_rk_host_model_parse(v, row->dest) == NPK_OK)
        return true;
    fprintf(stderr, "npukit %s: --host-ns: %s\n", cmd, npk_last_error());
    return false;
}

/* The plan's tasks as one JSON document, the members npk_rk_plan_print_json writes. */
static int print_json(const npk_rk_plan *plan)
{
    cJSON *doc = json_doc(), *tasks = json_arr(doc, "tasks");
    for (size_t i = 0; i < plan->count; i++) {
        const npk_rk_task_plan *t = &plan->tasks[i];
        cJSON *o = json_item(tasks);
        json_u64(o, "m0", t->m0);
        json_u64(o, "m1", t->m1);
        json_u64(o, "k0", t->k0);
        json_u64(o, "k1", t->k1);
        json_u64(o, "n0", t->n0);
        json_u64(o, "n1", t->n1);
        json_u64(o, "core", t->core);
        json_i64(o, "sched", t->sched);
        json_u64(o, "cbuf_con0", t->cbuf_con0);
    }
    return json_print(doc, "rk plan");
}

int rk_plan_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    uint32_t k_slice_max = 0;
    bool json = false, explain = false, cold = false;
    npk_rk_host_model host = npk_rk_host_model_get();
    const cli_opt own[] = {
        {.name = "--k-slice",
         .kind = CLI_U32,
         .dest = &k_slice_max,
         .max = NPK_RK_PLAN_MAX_DIM,
         .meta = "K",
         .help = "cap the K of a task (rounded down to a multiple of 32; 0: none)"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        {.name = "--explain",
         .kind = CLI_FLAG,
         .dest = &explain,
         .help = "print the candidate plans and their modelled cost first"},
        {.name = "--host-scale",
         .kind = CLI_CUSTOM,
         .dest = &host,
         .parse = parse_host_scale,
         .meta = "F",
         .help = "multiply the host model's rates (0: no host cost; e.g. 2.5 for a slower host)"},
        {.name = "--host-ns",
         .kind = CLI_CUSTOM,
         .dest = &host,
         .parse = parse_host_ns,
         .meta = "task=NS,job=NS,pack=NS,out=NS,core=NS",
         .help = "set host rates: per task, per submit, per feature byte, per output element, "
                 "per worker thread"},
        {.name = "--cold",
         .kind = CLI_FLAG,
         .dest = &cold,
         .help = "cost a fresh runtime's first call: each core used warms its output buffer"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SHAPE | RK_OPT_MODE | RK_OPT_SOC | RK_OPT_CORES | RK_OPT_CHAIN,
                      NPK_RK_PLAN_MAX_DIM),
        own, NULL};
    cli_spec spec = {.cmd = "rk plan",
                     .synopsis = "--dtype fp16|int8|int4 -m M -k K -n N [options]",
                     .about = "split any M x K x N matmul into tasks within every limit "
                              "(--cores defaults to 1; rk matmul and rk bench use every core)",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (!rk_shape_complete(&so, "rk plan"))
        return 2;
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, so.in, so.m, so.k, so.n);
    req.out = so.out;
    req.cores = so.cores ? (unsigned)so.cores : 1;
    req.mode = so.mode;
    req.soc = so.soc;
    req.k_slice_max = k_slice_max;
    req.host = &host;
    req.cost_warmups = cold; /* the cores' buffers: none yet */
    /* the submits the tasks would be grouped into: the job floor is paid once per submit */
    if (npk_rk_submission_plan(so.submit, so.chain ? (unsigned)so.chain : 1, &req))
        return cli_lib_error("plan");

    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan))
        return cli_lib_error("plan");
    if (explain && !json)
        npk_rk_plan_print_candidates(stdout, &req);
    rc = 0;
    if (json)
        rc = print_json(&plan);
    else
        npk_rk_plan_print_text(stdout, &plan);
    npk_rk_plan_free(&plan);
    return rc;
}
