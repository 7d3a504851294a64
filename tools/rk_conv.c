/* SPDX-License-Identifier: MIT */
/* `npukit rk conv`: one 2-D convolution (bias, fused clamp) through the runtime on random fp16
 * or int8 operands, optionally checked against the CPU reference (int8: the int32 sums exact,
 * the host's requantisation equal). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/check/rk_reference_conv.h"
#include "rk_operands.h"
#include "rk_opts.h"

static const char *const acts[] = {"none", "relu", "relu6", NULL};
static const char *const dtypes[] = {"fp16", "int8", NULL};

/* int8's scales: the input's, one per output channel, the output's (chosen so a typical sum
 * of C x K x K products lands inside int8 after requantising). */
typedef struct int8_scales {
    float in, out, *w;
} int8_scales;

/* int8: the sums must equal the exact ones and the requantised values the reference's; the
 * count of elements that differ. */
static uint64_t check_int8(const npk_rk_conv2d_args *a, uint64_t count)
{
    double *sum = malloc(count * sizeof *sum);
    int8_t *q = malloc(count + 1);
    uint64_t bad = 0;
    if (!sum || !q || npk_rk_reference_conv2d_int8(a, sum, q)) {
        free(sum), free(q);
        return count;
    }
    for (uint64_t i = 0; i < count; i++)
        bad += (double)a->acc[i] != sum[i] || a->output_i8[i] != q[i];
    free(sum), free(q);
    return bad;
}

/* Check the output against the reference; the count of elements outside the bound. */
static uint64_t check_conv(const npk_rk_conv2d_args *a, uint64_t count, double *max_err)
{
    double *ref = malloc(count * sizeof *ref), *mag = malloc(count * sizeof *mag);
    uint64_t bad = 0;
    *max_err = 0;
    if (!ref || !mag || npk_rk_reference_conv2d(a, ref, mag)) {
        free(ref), free(mag);
        return count;
    }
    for (uint64_t i = 0; i < count; i++) {
        double err = fabs(npk_f16_to_f32(a->output[i]) - ref[i]);
        *max_err = err > *max_err ? err : *max_err;
        bad += !(err <= npk_rk_conv_tolerance(ref[i], mag[i]));
    }
    free(ref), free(mag);
    return bad;
}

int rk_conv_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    npk_rk_conv2d_args a = {.n = 1, .stride_h = 1, .stride_w = 1, .groups = 1};
    uint32_t k = 3, stride = 1, pad = 0, dilation = 1;
    int act = 0, dtype = 0;
    bool have_c = false, have_h = false, have_w = false, have_o = false, bias = false;
    bool check = false, json = false;
    const cli_opt own[] = {
        {.name = "--batch", .kind = CLI_U32, .dest = &a.n, .min = 1, .max = 4096, .meta = "N",
         .help = "images (default 1)"},
        {.name = "-c", .kind = CLI_U32, .dest = &a.c, .min = 1, .max = 65536, .given = &have_c,
         .meta = "C", .help = "input channels"},
        {.name = "-H", .kind = CLI_U32, .dest = &a.h, .min = 1, .max = 65536, .given = &have_h,
         .meta = "H", .help = "input height"},
        {.name = "-W", .kind = CLI_U32, .dest = &a.w, .min = 1, .max = 65536, .given = &have_w,
         .meta = "W", .help = "input width"},
        {.name = "--out-c", .kind = CLI_U32, .dest = &a.out_c, .min = 1, .max = 65536,
         .given = &have_o, .meta = "O", .help = "output channels"},
        {.name = "-k", .kind = CLI_U32, .dest = &k, .min = 1, .max = 64, .meta = "K",
         .help = "kernel K x K (default 3)"},
        {.name = "--stride", .kind = CLI_U32, .dest = &stride, .min = 1, .max = 64, .meta = "S",
         .help = "stride (default 1)"},
        {.name = "--pad", .kind = CLI_U32, .dest = &pad, .min = 0, .max = 1024, .meta = "P",
         .help = "padding on every side (default 0)"},
        {.name = "--dilation", .kind = CLI_U32, .dest = &dilation, .min = 1, .max = 64,
         .meta = "D", .help = "dilation (default 1)"},
        {.name = "--groups", .kind = CLI_U32, .dest = &a.groups, .min = 1, .max = 65536,
         .meta = "G", .help = "groups (C: depthwise; default 1)"},
        {.name = "--bias", .kind = CLI_FLAG, .dest = &bias, .help = "add a random fp32 bias"},
        {.name = "--act", .kind = CLI_CHOICE, .dest = &act, .choices = acts,
         .help = "fused clamp after the bias (default none)"},
        {.name = "--dtype", .kind = CLI_CHOICE, .dest = &dtype, .choices = dtypes,
         .help = "fp16 (default), or int8: int32 sums on the NPU, requantised on the host"},
        {.name = "--check", .kind = CLI_FLAG, .dest = &check,
         .help = "compare with the CPU reference (fp16: rounding and fp32 sums bound; int8: "
                 "exact)"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SOC | RK_OPT_CORES | RK_OPT_DEVICE | RK_OPT_SEED, 1), own, NULL};
    cli_spec spec = {.cmd = "rk conv",
                     .synopsis = "-c C -H H -W W --out-c O [-k K] [--stride S] [--pad P] [options]",
                     .about = "a 2-D fp16 or int8 convolution (bias, clamp) on the NPU or the "
                              "simulator",
                     .tables = tables};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    if (!have_c || !have_h || !have_w || !have_o) {
        fprintf(stderr, "npukit rk conv: needs -c, -H, -W and --out-c (see --help)\n");
        return 2;
    }
    a.k_h = a.k_w = k;
    a.stride_h = a.stride_w = stride;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = pad;
    a.dil_h = a.dil_w = dilation;
    a.act = act == 0 ? NPK_RK_ACT_NONE : act == 1 ? NPK_RK_ACT_RELU : NPK_RK_ACT_CLIP;
    a.act_max = 6.0f;
    a.dtype = dtype ? NPK_RK_CONV_INT8 : NPK_RK_CONV_FP16;
    uint32_t oh, ow;
    if (npk_rk_conv2d_shape(&a, &oh, &ow)) {
        cli_lib_error("rk conv");
        return 2;
    }
    const uint64_t in_n = (uint64_t)a.n * a.c * a.h * a.w, out_n = (uint64_t)a.n * a.out_c * oh * ow;
    const uint64_t w_n = (uint64_t)a.out_c * (a.c / a.groups) * k * k;
    const uint64_t eb = dtype ? 1 : 2; /* the operands' element bytes */
    void *in = malloc(in_n * eb), *w = malloc(w_n * eb);
    uint16_t *out = dtype ? NULL : malloc(out_n * 2);
    int8_scales sc = {.in = 1.0f / 64, .w = dtype ? malloc(a.out_c * sizeof *sc.w) : NULL};
    int32_t *acc = dtype ? malloc(out_n * sizeof *acc) : NULL;
    int8_t *q = dtype ? malloc(out_n) : NULL;
    float *b = bias ? malloc(a.out_c * sizeof *b) : NULL;
    int rc = 1;
    npk_rk *rt = NULL;
    npk_rk_info info;
    npk_rk_stats st;
    if (!in || !w || (!dtype && !out) || (dtype && (!sc.w || !acc || !q)) || (bias && !b)) {
        fprintf(stderr, "npukit rk conv: out of memory for the operands\n");
        goto out;
    }
    rk_fill_random(dtype ? NPK_PREC_INT8 : NPK_PREC_FP16, in, in_n, &so.seed);
    rk_fill_random(dtype ? NPK_PREC_INT8 : NPK_PREC_FP16, w, w_n, &so.seed);
    for (uint32_t i = 0; sc.w && i < a.out_c; i++)
        sc.w[i] = (float)(1 + i % 7) / 512;
    /* a random-sign sum of n products of ~74 rms each is ~74 sqrt(n): about 32 out of 127 */
    sc.out = (float)(sc.in * (4.0 / 512) * 74 * sqrt((double)(a.c / a.groups) * k * k) / 32);
    for (uint32_t i = 0; b && i < a.out_c; i++) {
        uint16_t h;
        rk_fill_random(NPK_PREC_FP16, &h, 1, &so.seed);
        b[i] = npk_f16_to_f32(h);
    }
    if (dtype) {
        a.input_i8 = in, a.weights_i8 = w, a.acc = acc, a.output_i8 = q;
        a.in_scale = sc.in, a.w_scales = sc.w, a.out_scale = sc.out;
    } else {
        a.input = in, a.weights = w, a.output = out;
    }
    a.bias = b;
    if (npk_rk_open(so.device, &rt) || (so.cores && npk_rk_set_cores(rt, (unsigned)so.cores)) ||
        npk_rk_query(rt, &info)) {
        cli_lib_error("rk conv");
        goto out;
    }
    if (!rk_soc_matches(&so, info.soc, "rk conv"))
        goto out;
    if (npk_rk_conv2d(rt, &a, &st)) {
        cli_lib_error("rk conv");
        goto out;
    }
    double max_err = 0;
    const uint64_t bad = !check ? 0 : dtype ? check_int8(&a, out_n) : check_conv(&a, out_n, &max_err);
    const char *label = info.simulated ? "modelled" : "measured";
    const double macs = (double)out_n * (a.c / a.groups) * k * k;
    if (json) {
        printf("{\"op\":\"conv\",\"n\":%u,\"c\":%u,\"h\":%u,\"w\":%u,\"out_c\":%u,\"out_h\":%u,"
               "\"out_w\":%u,\"k\":%u,\"stride\":%u,\"pad\":%u,\"dilation\":%u,\"groups\":%u,"
               "\"act\":\"%s\",\"dtype\":\"%s\",\"bias\":%s,\"tasks\":%u,\"submits\":%u,"
               "\"cores\":%u,\"npu_ms\":%.6f,\"npu_time\":\"%s\",\"host_ms\":%.6f,"
               "\"host_steps\":%u,\"macs\":%.0f",
               a.n, a.c, a.h, a.w, a.out_c, oh, ow, k, stride, pad, dilation, a.groups, acts[act],
               dtypes[dtype], bias ? "true" : "false", st.tasks, st.submits, st.cores_used,
               st.npu_span_ns / 1e6, label, st.host_ns / 1e6, st.host_steps, macs);
        if (check)
            printf(",\"check\":{\"mismatches\":%llu,\"max_abs_err\":%g,\"ok\":%s}",
                   (unsigned long long)bad, max_err, bad ? "false" : "true");
        printf("}\n");
    } else {
        printf("conv %s %ux%ux%ux%u -> %ux%ux%u, kernel %u stride %u pad %u dilation %u groups "
               "%u, act %s%s, on %s (%s)\n",
               dtypes[dtype], a.n, a.c, a.h, a.w, a.out_c, oh, ow, k, stride, pad, dilation,
               a.groups, acts[act], bias ? ", bias" : "", info.device, info.soc);
        printf("  conv tasks %u on %u core(s), submits %u (warm-ups %u, resets %u)\n", st.tasks,
               st.cores_used, st.submits, st.warmups, st.resets);
        printf("  NPU time %.3f ms (%s), host time %.3f ms\n", st.npu_span_ns / 1e6, label,
               st.host_ns / 1e6);
        if (dtype)
            printf("  int32 sums requantised on the host: %u host steps (one per output plane)\n",
                   st.host_steps);
        if (check && dtype)
            printf("  check vs CPU: %llu of %llu int32 sums or int8 results differ from the exact "
                   "ones: %s\n",
                   (unsigned long long)bad, (unsigned long long)out_n, bad ? "MISMATCH" : "ok");
        else if (check)
            printf("  check vs CPU: %llu of %llu outside the bound (2^-11 |ref| + 2^-8 sum "
                   "|terms|), max |err| %g: %s\n",
                   (unsigned long long)bad, (unsigned long long)out_n, max_err,
                   bad ? "MISMATCH" : "ok");
    }
    rc = bad ? 1 : 0;
out:
    npk_rk_close(rt);
    free(in), free(w), free(out), free(b), free(sc.w), free(acc), free(q);
    return rc;
}
