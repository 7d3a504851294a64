/* SPDX-License-Identifier: MIT */
/* `npukit rk pool`: one pooling (max, avg, min; global) on the PDP through the runtime on random
 * fp16 input, optionally checked against the CPU reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/check/rk_reference_conv.h"
#include "rk_operands.h"
#include "rk_opts.h"

static const char *const methods[] = {"max", "avg", "min", NULL}; /* = npk_rk_pool2d_method */

int rk_pool_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    npk_rk_pool2d_args a = {.n = 1};
    uint32_t k = 2, stride = 0, pad = 0;
    int method = 0;
    bool have_c = false, have_h = false, have_w = false, check = false, json = false;
    const cli_opt own[] = {
        {.name = "--method", .kind = CLI_CHOICE, .dest = &method, .choices = methods,
         .help = "the window's max, average or min (default max)"},
        {.name = "--global", .kind = CLI_FLAG, .dest = &a.global,
         .help = "pool the whole plane (kernel, stride and padding ignored)"},
        {.name = "--batch", .kind = CLI_U32, .dest = &a.n, .min = 1, .max = 4096, .meta = "N",
         .help = "images (default 1)"},
        {.name = "-c", .kind = CLI_U32, .dest = &a.c, .min = 1, .max = 65536, .given = &have_c,
         .meta = "C", .help = "channels"},
        {.name = "-H", .kind = CLI_U32, .dest = &a.h, .min = 1, .max = 65536, .given = &have_h,
         .meta = "H", .help = "input height"},
        {.name = "-W", .kind = CLI_U32, .dest = &a.w, .min = 1, .max = 65536, .given = &have_w,
         .meta = "W", .help = "input width"},
        {.name = "-k", .kind = CLI_U32, .dest = &k, .min = 1, .max = 64, .meta = "K",
         .help = "kernel K x K (default 2)"},
        {.name = "--stride", .kind = CLI_U32, .dest = &stride, .min = 1, .max = 64, .meta = "S",
         .help = "stride (default: the kernel)"},
        {.name = "--pad", .kind = CLI_U32, .dest = &pad, .min = 0, .max = 64, .meta = "P",
         .help = "padding on every side (default 0)"},
        {.name = "--count-include-pad", .kind = CLI_FLAG, .dest = &a.count_include_pad,
         .help = "avg: divide by the whole window, padding included"},
        {.name = "--check", .kind = CLI_FLAG, .dest = &check,
         .help = "compare with the CPU reference (max/min exact, avg within 2^-8)"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SOC | RK_OPT_DEVICE | RK_OPT_SEED, 1), own, NULL};
    cli_spec spec = {.cmd = "rk pool",
                     .synopsis = "-c C -H H -W W [--method max|avg|min] [-k K] [options]",
                     .about = "2-D fp16 pooling on the NPU's PDP (or the simulator)",
                     .tables = tables};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    if (!have_c || !have_h || !have_w) {
        fprintf(stderr, "npukit rk pool: needs -c, -H and -W (see --help)\n");
        return 2;
    }
    a.method = (npk_rk_pool2d_method)method;
    a.k_h = a.k_w = k;
    a.stride_h = a.stride_w = stride ? stride : k;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = pad;
    uint32_t oh, ow;
    if (npk_rk_pool2d_shape(&a, &oh, &ow)) {
        cli_lib_error("rk pool");
        return 2;
    }
    const uint64_t in_n = (uint64_t)a.n * a.c * a.h * a.w, out_n = (uint64_t)a.n * a.c * oh * ow;
    uint16_t *in = malloc(in_n * 2), *out = malloc(out_n * 2);
    double *ref = check ? malloc(out_n * sizeof *ref) : NULL;
    int rc = 1;
    npk_rk *rt = NULL;
    npk_rk_info info;
    npk_rk_stats st;
    if (!in || !out || (check && !ref)) {
        fprintf(stderr, "npukit rk pool: out of memory for the operands\n");
        goto out;
    }
    rk_fill_random(NPK_PREC_FP16, in, in_n, &so.seed);
    a.input = in, a.output = out;
    if (npk_rk_open(so.device, &rt) || npk_rk_query(rt, &info)) {
        cli_lib_error("rk pool");
        goto out;
    }
    if (!rk_soc_matches(&so, info.soc, "rk pool"))
        goto out;
    if (npk_rk_pool2d(rt, &a, &st)) {
        cli_lib_error("rk pool");
        goto out;
    }
    uint64_t bad = 0;
    double max_err = 0;
    if (check && npk_rk_reference_pool2d(&a, ref) == NPK_OK)
        for (uint64_t i = 0; i < out_n; i++) {
            double err = fabs(npk_f16_to_f32(out[i]) - ref[i]);
            max_err = err > max_err ? err : max_err;
            bad += a.method == NPK_RK_POOL2D_AVG ? !(err <= ldexp(fabs(ref[i]), -8))
                                                 : npk_f32_to_f16((float)ref[i]) != out[i];
        }
    const char *label = info.simulated ? "modelled" : "measured";
    if (json) {
        printf("{\"op\":\"pool\",\"method\":\"%s\",\"global\":%s,\"n\":%u,\"c\":%u,\"h\":%u,"
               "\"w\":%u,\"out_h\":%u,\"out_w\":%u,\"tasks\":%u,\"submits\":%u,\"npu_ms\":%.6f,"
               "\"npu_time\":\"%s\",\"host_ms\":%.6f",
               methods[method], a.global ? "true" : "false", a.n, a.c, a.h, a.w, oh, ow, st.tasks,
               st.submits, st.npu_span_ns / 1e6, label, st.host_ns / 1e6);
        if (check)
            printf(",\"check\":{\"mismatches\":%llu,\"max_abs_err\":%g,\"ok\":%s}",
                   (unsigned long long)bad, max_err, bad ? "false" : "true");
        printf("}\n");
    } else {
        printf("%s pool %ux%ux%ux%u -> %ux%u%s, on %s (%s)\n", methods[method], a.n, a.c, a.h,
               a.w, oh, ow, a.global ? " (global)" : "", info.device, info.soc);
        printf("  PDP tasks %u, submits %u (warm-ups %u, resets %u)\n", st.tasks, st.submits,
               st.warmups, st.resets);
        printf("  NPU time %.3f ms (%s), host time %.3f ms\n", st.npu_span_ns / 1e6, label,
               st.host_ns / 1e6);
        if (check)
            printf("  check vs CPU: %llu of %llu differ (max/min exact, avg within 2^-8 of "
                   "|ref|), max |err| %g: %s\n",
                   (unsigned long long)bad, (unsigned long long)out_n, max_err,
                   bad ? "MISMATCH" : "ok");
    }
    rc = bad ? 1 : 0;
out:
    npk_rk_close(rt);
    free(in), free(out), free(ref);
    return rc;
}
