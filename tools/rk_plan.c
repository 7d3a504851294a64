/* `npukit rk plan --dtype D -m M -k K -n N [--cores C] [--out O] [--mode M] [--json]`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: npukit rk plan --dtype fp16|int8|int4 -m M -k K -n N [--cores 1..3]\n"
               "                      [--out O] [--mode line|cube] [--k-slice K] [--soc S]"
               " [--json]\n");
}

int rk_plan_main(int argc, char **argv)
{
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, NPK_PREC_FP16, 0, 0, 0);
    bool json = false, have_dtype = false, have_out = false;
    npk_rk_prec out = NPK_PREC_FP32;
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
        if (!(v = cli_value(argc, argv, &i)))
            return 2;
        if (!strcmp(o, "--dtype") || !strcmp(o, "--out")) {
            npk_rk_prec p;
            if (!npk_rk_prec_parse(v, &p)) {
                fprintf(stderr, "npukit: %s '%s' is not a precision\n", o, v);
                return 2;
            }
            if (o[2] == 'd') {
                req.in = p;
                have_dtype = true;
            } else {
                out = p;
                have_out = true;
            }
        } else if (!strcmp(o, "-m") || !strcmp(o, "-k") || !strcmp(o, "-n")) {
            if (!cli_u32(o, v, o[1] == 'm' ? &req.m : o[1] == 'k' ? &req.k : &req.n))
                return 2;
        } else if (!strcmp(o, "--cores")) {
            int c;
            if (!cli_int(o, v, 1, 64, &c))
                return 2;
            req.cores = (unsigned)c;
        } else if (!strcmp(o, "--k-slice")) {
            if (!cli_u32(o, v, &req.k_slice_max))
                return 2;
        } else if (!strcmp(o, "--mode")) {
            if (strcmp(v, "line") && strcmp(v, "cube")) {
                fprintf(stderr, "npukit: --mode '%s' is not line or cube\n", v);
                return 2;
            }
            req.mode = !strcmp(v, "line") ? NPK_MODE_LINE : NPK_MODE_CUBE;
        } else if (!strcmp(o, "--soc")) {
            if (!(req.soc = npk_rk_soc_find(v))) {
                fprintf(stderr, "npukit: --soc '%s' is not rk3588 or rk3576\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "npukit: rk plan: unknown option '%s'\n", o);
            usage(stderr);
            return 2;
        }
    }
    if (!have_dtype) {
        fprintf(stderr, "npukit: rk plan needs --dtype, -m, -k and -n\n");
        return 2;
    }
    req.out = have_out ? out : npk_rk_default_out(req.in);
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
