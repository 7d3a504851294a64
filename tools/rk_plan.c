/* `npukit rk plan --dtype D -m M -k K -n N [--cores C] [--out O] [--mode M] [--json]`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"
#include "rk_opts.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: npukit rk plan --dtype fp16|int8|int4 -m M -k K -n N [--cores 1..3]\n"
               "                      [--out O] [--mode line|cube] [--k-slice K] [--soc S]"
               " [--json]\n"
               "  --cores defaults to 1 (rk matmul and rk bench use every core)\n");
}

int rk_plan_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    uint32_t k_slice_max = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(o, "--json")) {
            json = true;
            continue;
        }
        static const char *const own[] = {"--k-slice", NULL};
        int r = rk_opt_value("rk plan", argc, argv, &i, own, &so, &v, usage);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!strcmp(o, "--k-slice")) {
            if (!cli_u32(o, v, &k_slice_max))
                return 2;
        } else {
            fprintf(stderr, "npukit: rk plan: unknown option '%s'\n", o);
            usage(stderr);
            return 2;
        }
    }
    if (!rk_shape_complete(&so, "rk plan"))
        return 2;
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, so.in, so.m, so.k, so.n);
    req.out = so.out;
    req.cores = so.cores ? (unsigned)so.cores : 1;
    req.mode = so.mode;
    req.soc = so.soc;
    req.k_slice_max = k_slice_max;

    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan))
        return cli_lib_error("plan");
    if (json)
        npk_rk_plan_print_json(stdout, &plan);
    else
        npk_rk_plan_print_text(stdout, &plan);
    npk_rk_plan_free(&plan);
    return 0;
}
