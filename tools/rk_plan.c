/* SPDX-License-Identifier: MIT */
/* `npukit rk plan --dtype D -m M -k K -n N [--cores C] [--out O] [--mode M] [--json]
 * [--chain T] [--submit FORM] [--explain]`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"
#include "rk_opts.h"

int rk_plan_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    uint32_t k_slice_max = 0;
    bool json = false, explain = false;
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
    /* the submits the tasks would be grouped into: the job floor is paid once per submit */
    if (npk_rk_submission_plan(so.submit, so.chain ? (unsigned)so.chain : 1, &req))
        return cli_lib_error("plan");

    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan))
        return cli_lib_error("plan");
    if (explain && !json)
        npk_rk_plan_print_candidates(stdout, &req);
    if (json)
        npk_rk_plan_print_json(stdout, &plan);
    else
        npk_rk_plan_print_text(stdout, &plan);
    npk_rk_plan_free(&plan);
    return 0;
}
