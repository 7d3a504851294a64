/* SPDX-License-Identifier: MIT */
/* `npukit rk act` and `npukit rk softmax`: an activation or a row softmax on the SDP through the
 * runtime, optionally checked against the function in double precision on the CPU, within the
 * bound the runtime states (rk.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk_operands.h"
#include "rk_opts.h"

static const char *const dtypes[] = {"fp16", "int16", "int8", NULL};
static const npk_rk_prec dtype_prec[] = {NPK_PREC_FP16, NPK_PREC_INT16, NPK_PREC_INT8};

/* What one run gives the report. */
typedef struct act_run {
    const char *what; /* "sigmoid", "softmax" */
    npk_rk_prec prec;
    uint32_t m, n;
    npk_rk_stats st;
    bool check;
    uint64_t bad;      /* results outside the bound */
    double max_err;    /* the largest |y - f(x)| */
    const char *bound; /* the bound, in words */
} act_run;

static void report(const act_run *r, const npk_rk_info *info, bool json)
{
    const char *label = info->simulated ? "modelled" : "measured";
    const char *dt = npk_rk_prec_name(r->prec);
    if (json) {
        printf("{\"op\":\"%s\",\"dtype\":\"%s\",\"m\":%u,\"n\":%u,\"tasks\":%u,\"submits\":%u,"
               "\"host_steps\":%u,\"npu_ms\":%.6f,\"npu_time\":\"%s\",\"host_ms\":%.6f",
               r->what, dt, r->m, r->n, r->st.tasks, r->st.submits, r->st.host_steps,
               r->st.npu_span_ns / 1e6, label, r->st.host_ns / 1e6);
        if (r->check)
            printf(",\"check\":{\"outside_bound\":%llu,\"max_abs_err\":%.3g,\"ok\":%s}",
                   (unsigned long long)r->bad, r->max_err, r->bad ? "false" : "true");
        printf("}\n");
        return;
    }
    printf("%s %s %ux%u on %s (%s)\n", dt, r->what, r->m, r->n, info->device, info->soc);
    printf("  SDP tasks %u, submits %u, host steps %u\n", r->st.tasks, r->st.submits,
           r->st.host_steps);
    printf("  NPU time %.3f ms (%s), host time %.3f ms\n", r->st.npu_span_ns / 1e6, label,
           r->st.host_ns / 1e6);
    if (r->check)
        printf("  check vs double precision: %llu of %llu outside %s, max |error| %.3g: %s\n",
               (unsigned long long)r->bad, (unsigned long long)r->m * r->n, r->bound, r->max_err,
               r->bad ? "MISMATCH" : "ok");
}

/* An element's value as a double. */
static double elem(npk_rk_prec p, const void *v, uint64_t i)
{
    if (p == NPK_PREC_FP16)
        return npk_f16_to_f32(((const uint16_t *)v)[i]);
    return p == NPK_PREC_INT16 ? ((const int16_t *)v)[i] : ((const int8_t *)v)[i];
}

/* Random operands, fp16 ones spread over [-range, range). */
static void operands(npk_rk_prec p, void *x, uint64_t count, double range, uint64_t *seed)
{
    rk_fill_random(p, x, count, seed);
    if (p == NPK_PREC_FP16)
        for (uint64_t i = 0; i < count; i++)
            ((uint16_t *)x)[i] = npk_f32_to_f16((float)(npk_f16_to_f32(((uint16_t *)x)[i]) * range));
}

/* The common tail: open, run, check, report. */
typedef npk_status (*act_fn)(npk_rk *rt, const void *ctx, const void *x, void *y,
                             npk_rk_stats *st);
typedef double (*ref_fn)(const void *ctx, const void *x, uint64_t i, double *tol);

static int run(const char *cmd, rk_shape_opts *so, act_run *r, double range, act_fn fn,
               ref_fn ref, const void *ctx, bool json)
{
    const uint64_t count = (uint64_t)r->m * r->n;
    const unsigned eb = r->prec == NPK_PREC_INT8 ? 1 : 2;
    void *x = malloc(count * eb), *y = malloc(count * eb);
    int rc = 1;
    npk_rk *rt = NULL;
    npk_rk_info info;
    if (!x || !y) {
        fprintf(stderr, "npukit %s: out of memory for %ux%u\n", cmd, r->m, r->n);
        goto out;
    }
    operands(r->prec, x, count, range, &so->seed);
    if (npk_rk_open(so->device, &rt) || (so->chain && npk_rk_set_chain(rt, (unsigned)so->chain)) ||
        (so->submit && npk_rk_set_submission(rt, so->submit)) || npk_rk_query(rt, &info)) {
        cli_lib_error(cmd);
        goto out;
    }
    if (!rk_soc_matches(so, info.soc, cmd))
        goto out;
    if (fn(rt, ctx, x, y, &r->st)) {
        cli_lib_error(cmd);
        goto out;
    }
    for (uint64_t i = 0; r->check && i < count; i++) {
        double tol, want = ref(ctx, x, i, &tol);
        double err = fabs(elem(r->prec, y, i) - want);
        if (!(err <= tol))
            r->bad++;
        if (err > r->max_err)
            r->max_err = err;
    }
    report(r, &info, json);
    rc = r->bad ? 1 : 0;
out:
    npk_rk_close(rt);
    free(x);
    free(y);
    return rc;
}

/* A finite real number (--alpha, --beta, --range). */
static bool parse_real(const cli_opt *row, const char *v, const char *cmd)
{
    char *end = NULL;
    double d = strtod(v, &end);
    if (!*v || *end || !isfinite(d)) {
        fprintf(stderr, "npukit %s: %s '%s' is not a finite number\n", cmd, row->name, v);
        return false;
    }
    *(double *)row->dest = d;
    return true;
}

/* ---- rk act ---- */

typedef struct act_ctx {
    npk_rk_act_args args;
    const npk_rk_act_row *row;
    double alpha, beta;
} act_ctx;

static npk_status act_call(npk_rk *rt, const void *ctx, const void *x, void *y, npk_rk_stats *st)
{
    npk_rk_act_args a = ((const act_ctx *)ctx)->args;
    a.x = x;
    a.y = y;
    return npk_rk_act(rt, &a, st);
}

static double act_ref(const void *ctx, const void *x, uint64_t i, double *tol)
{
    const act_ctx *c = ctx;
    double v = c->row->ref(elem(c->args.prec, x, i), c->alpha, c->beta);
    *tol = c->row->engine == NPK_ACT_ENGINE_CLAMP
               ? 0
               : ldexp(fabs(v), -11) + ldexp(1.0, -c->row->out_exp);
    return v;
}

int rk_act_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    int dtype = 0;
    uint32_t m = 0, n = 0;
    int fn = -1;
    static const char *fn_names[NPK_ACT_COUNT + 1]; /* the rows' names, in enum order */
    for (int i = 0; i < NPK_ACT_COUNT; i++)
        fn_names[i] = npk_rk_act_row_of((npk_rk_act_kind)i)->name;
    double alpha = 0, beta = 0, range = 8;
    bool have_m = false, have_n = false, check = false, json = false;
    const cli_opt own[] = {
        {.name = "--fn", .kind = CLI_CHOICE, .dest = &fn, .choices = fn_names,
         .help = "the activation"},
        {.name = "--dtype", .kind = CLI_CHOICE, .dest = &dtype, .choices = dtypes,
         .help = "element precision (default fp16; int16/int8 for relu only)"},
        {.name = "-m", .kind = CLI_U32, .dest = &m, .min = 1, .max = NPK_RK_EW_MAX_DIM,
         .given = &have_m, .meta = "M", .help = "rows"},
        {.name = "-n", .kind = CLI_U32, .dest = &n, .min = 1, .max = NPK_RK_EW_MAX_DIM,
         .given = &have_n, .meta = "N", .help = "columns (channels)"},
        {.name = "--alpha", .kind = CLI_CUSTOM, .parse = parse_real, .dest = &alpha, .meta = "A",
         .help = "hardsigmoid's slope (with --beta; default 1/6)"},
        {.name = "--beta", .kind = CLI_CUSTOM, .parse = parse_real, .dest = &beta, .meta = "B",
         .help = "hardsigmoid's offset (default 1/2)"},
        {.name = "--range", .kind = CLI_CUSTOM, .parse = parse_real, .dest = &range, .meta = "R",
         .help = "fp16 inputs spread over [-R, R) (default 8)"},
        {.name = "--check", .kind = CLI_FLAG, .dest = &check,
         .help = "compare Y with the function in double precision"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SOC | RK_OPT_CHAIN | RK_OPT_DEVICE | RK_OPT_SEED, 1), own, NULL};
    cli_spec spec = {.cmd = "rk act",
                     .synopsis = "--fn NAME -m M -n N [options]",
                     .about = "Y = f(X) on the NPU's SDP: the LUT's smooth functions, relu's clamp",
                     .tables = tables};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    act_ctx c = {0};
    if (fn < 0 || !have_m || !have_n) {
        fprintf(stderr, "npukit rk act: needs --fn, -m and -n (see --help)\n");
        return 2;
    }
    c.args.act = (npk_rk_act_kind)fn;
    c.row = npk_rk_act_row_of(c.args.act);
    c.args.prec = dtype_prec[dtype];
    c.args.m = m;
    c.args.n = n;
    c.args.alpha = alpha;
    c.args.beta = beta;
    bool defaults = alpha == 0 && beta == 0;
    c.alpha = defaults ? c.row->alpha : alpha;
    c.beta = defaults ? c.row->beta : beta;
    act_run r = {.what = c.row->name, .prec = c.args.prec, .m = m, .n = n, .check = check,
                 .bound = c.row->engine == NPK_ACT_ENGINE_CLAMP
                              ? "exact"
                              : "2^-11 |f(x)| + one table step"};
    return run("rk act", &so, &r, range, act_call, act_ref, &c, json);
}

/* ---- rk softmax ---- */

typedef struct softmax_ctx {
    uint32_t m, n;
    double *row_max, *row_sum; /* the reference's, filled on the first element of a row */
} softmax_ctx;

static npk_status softmax_call(npk_rk *rt, const void *ctx, const void *x, void *y,
                               npk_rk_stats *st)
{
    const softmax_ctx *c = ctx;
    return npk_rk_softmax(rt, NPK_PREC_FP16, c->m, c->n, x, y, st);
}

static double softmax_ref(const void *ctx, const void *x, uint64_t i, double *tol)
{
    const softmax_ctx *c = ctx;
    uint64_t r = i / c->n;
    if (i % c->n == 0) {
        double mx = -INFINITY, sum = 0;
        for (uint32_t j = 0; j < c->n; j++)
            mx = fmax(mx, elem(NPK_PREC_FP16, x, r * c->n + j));
        for (uint32_t j = 0; j < c->n; j++)
            sum += exp(elem(NPK_PREC_FP16, x, r * c->n + j) - mx);
        c->row_max[0] = mx;
        c->row_sum[0] = sum;
    }
    double v = exp(elem(NPK_PREC_FP16, x, i) - c->row_max[0]) / c->row_sum[0];
    *tol = ldexp(v, -10) + ldexp(1.0, -13);
    return v;
}

int rk_softmax_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    uint32_t m = 0, n = 0;
    double range = 8;
    bool have_m = false, have_n = false, check = false, json = false;
    const cli_opt own[] = {
        {.name = "-m", .kind = CLI_U32, .dest = &m, .min = 1, .max = NPK_RK_EW_MAX_DIM,
         .given = &have_m, .meta = "M", .help = "rows"},
        {.name = "-n", .kind = CLI_U32, .dest = &n, .min = 1, .max = NPK_RK_EW_MAX_DIM,
         .given = &have_n, .meta = "N", .help = "elements per row (the softmax's axis)"},
        {.name = "--range", .kind = CLI_CUSTOM, .parse = parse_real, .dest = &range, .meta = "R",
         .help = "fp16 inputs spread over [-R, R) (default 8)"},
        {.name = "--check", .kind = CLI_FLAG, .dest = &check,
         .help = "compare Y with the softmax in double precision"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SOC | RK_OPT_CHAIN | RK_OPT_DEVICE | RK_OPT_SEED, 1), own, NULL};
    cli_spec spec = {.cmd = "rk softmax",
                     .synopsis = "-m M -n N [options]",
                     .about = "row softmax in fp16: the SDP's exp LUT in two chained passes, the "
                              "row max and sum on the host",
                     .tables = tables};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    if (!have_m || !have_n) {
        fprintf(stderr, "npukit rk softmax: needs -m and -n (see --help)\n");
        return 2;
    }
    double mx = 0, sum = 0;
    softmax_ctx c = {m, n, &mx, &sum};
    act_run r = {.what = "softmax", .prec = NPK_PREC_FP16, .m = m, .n = n, .check = check,
                 .bound = "2^-10 y + 2^-13"};
    return run("rk softmax", &so, &r, range, softmax_call, softmax_ref, &c, json);
}
