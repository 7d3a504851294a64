/* SPDX-License-Identifier: MIT */
/* `npukit rk ew`: one element-wise op on the SDP through the runtime, optionally checked against
 * the CPU; and the host reference it is checked with. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk_operands.h"
#include "rk_opts.h"

static double elem(npk_rk_prec p, const void *v, uint64_t i)
{
    if (p == NPK_PREC_FP16)
        return npk_f16_to_f32(((const uint16_t *)v)[i]);
    return p == NPK_PREC_INT16 ? ((const int16_t *)v)[i] : ((const int8_t *)v)[i];
}

void rk_ew_reference(npk_rk_ew_op op, npk_rk_prec p, uint32_t m, uint32_t n, const void *a,
                     npk_rk_ew_operand mode, const void *b, void *c)
{
    /* the op's arithmetic is its row's (rk_sdp_hw.h); the runtime refuses an op without one
     * (EQL) or runs it through its own table (LUT) before a reference is asked for */
    const npk_rk_ew_op_row *row = npk_rk_ew_op_row_of(op);
    double (*value)(double, double, const double[2], bool) = row ? row->value : NULL;
    double imm[2] = {0, 0};
    for (unsigned i = 0; mode == NPK_EW_IMMEDIATE && i < npk_rk_ew_op_immediates(op); i++)
        imm[i] = elem(p, b, i);
    for (uint64_t i = 0; i < (uint64_t)m * n; i++) {
        double y = mode == NPK_EW_PER_CHANNEL   ? elem(p, b, i % n)
                   : mode == NPK_EW_PER_ELEMENT ? elem(p, b, i)
                                                : imm[0];
        double r = value ? value(elem(p, a, i), y, imm, p == NPK_PREC_FP16) : NAN;
        if (p == NPK_PREC_FP16) {
            ((uint16_t *)c)[i] = npk_f32_to_f16((float)r);
            continue;
        }
        bool wide = p == NPK_PREC_INT16;
        double lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
        r = r < lo ? lo : r > hi ? hi : r;
        if (wide)
            ((int16_t *)c)[i] = (int16_t)r;
        else
            ((int8_t *)c)[i] = (int8_t)r;
    }
}

/* --op NAME: a row of the SDP's op table. */
static bool parse_op(const cli_opt *row, const char *value, const char *cmd)
{
    if (npk_rk_ew_op_parse(value, row->dest))
        return true;
    fprintf(stderr, "npukit: %s: --op '%s' is not %s\n", cmd, value, npk_rk_ew_op_names());
    return false;
}

/* The choices of --dtype, from the SDP's rows (rk_sdp_hw.h): the precisions its feature path
 * takes, in the rows' order (the first is the default). --op names any row of the op table. */
static const char *dtypes[8];
static npk_rk_prec dtype_prec[8];

static void choices_from_rows(void)
{
    unsigned n = 0;
    for (const npk_rk_sdp_prec_row *r;
         n + 1 < sizeof dtypes / sizeof dtypes[0] && (r = npk_rk_sdp_prec_row_at(n)); n++) {
        dtype_prec[n] = r->prec;
        dtypes[n] = npk_rk_prec_name(r->prec);
    }
    dtypes[n] = NULL;
}

int rk_ew_main(int argc, char **argv)
{
    choices_from_rows();
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    npk_rk_ew_op op = NPK_EW_ADD;
    int dtype = 0;
    double imm[2] = {0, 0};
    uint32_t m = 0, n = 0;
    bool have_m = false, have_n = false, per_channel = false, check = false, json = false;
    bool have_imm = false;
    const cli_opt own[] = {
        {.name = "--op",
         .kind = CLI_CUSTOM,
         .dest = &op,
         .parse = parse_op,
         .meta = npk_rk_ew_op_names(),
         .help = "C = A op B, or a clamp / batchnorm of A"},
        {.name = "--imm",
         .kind = CLI_CUSTOM,
         .dest = imm,
         .parse = rk_parse_imm,
         .given = &have_imm,
         .meta = "V[,V2]",
         .help = "B is a value in a stage register: add/mul/max/min's operand, leakyrelu's "
                 "slope, batchnorm's scale,shift"},
        {.name = "--dtype",
         .kind = CLI_CHOICE,
         .dest = &dtype,
         .choices = dtypes,
         .help = "element precision (default fp16)"},
        {.name = "-m",
         .kind = CLI_U32,
         .dest = &m,
         .min = 1,
         .max = NPK_RK_EW_MAX_DIM,
         .given = &have_m,
         .meta = "M",
         .help = "rows"},
        {.name = "-n",
         .kind = CLI_U32,
         .dest = &n,
         .min = 1,
         .max = NPK_RK_EW_MAX_DIM,
         .given = &have_n,
         .meta = "N",
         .help = "columns (channels)"},
        {.name = "--per-channel",
         .kind = CLI_FLAG,
         .dest = &per_channel,
         .help = "B is a length-N vector broadcast over the rows (default: B is [M][N])"},
        {.name = "--check", .kind = CLI_FLAG, .dest = &check, .help = "compare C with the CPU"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SOC | RK_OPT_CHAIN | RK_OPT_DEVICE | RK_OPT_SEED, 1), own, NULL};
    cli_spec spec = {.cmd = "rk ew",
                     .synopsis = "--op OP -m M -n N [--per-channel | --imm V[,V2]] [options]",
                     .about = "C = A op B element-wise on the NPU's SDP (or the simulator)",
                     .tables = tables};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    if (!have_m || !have_n) {
        fprintf(stderr, "npukit rk ew: needs -m and -n (see --help)\n");
        return 2;
    }
    const npk_rk_prec p = dtype_prec[dtype];
    const unsigned kinds = npk_rk_ew_op_operands(npk_rk_ew_op_row_of(op));
    const npk_rk_ew_operand mode = have_imm ? NPK_EW_IMMEDIATE
                                   : kinds & NPK_EW_OPERAND_BIT(NPK_EW_NO_OPERAND)
                                       ? NPK_EW_NO_OPERAND
                                   : per_channel ? NPK_EW_PER_CHANNEL
                                                 : NPK_EW_PER_ELEMENT;
    const uint64_t count = (uint64_t)m * n;
    const uint64_t nb = mode == NPK_EW_PER_CHANNEL ? n : mode == NPK_EW_PER_ELEMENT ? count : 2;
    const unsigned eb = p == NPK_PREC_INT8 ? 1 : 2;
    void *a = malloc(count * eb), *b = malloc(nb * eb), *c = malloc(count * eb);
    void *ref = check ? malloc(count * eb) : NULL;
    int rc = 1;
    npk_rk *rt = NULL;
    npk_rk_info info;
    npk_rk_stats st;
    if (!a || !b || !c || (check && !ref)) {
        fprintf(stderr, "npukit rk ew: out of memory for %ux%u operands\n", m, n);
        goto out;
    }
    rk_fill_random(p, a, count, &so.seed);
    rk_fill_random(p, b, nb, &so.seed);
    for (unsigned i = 0; mode == NPK_EW_IMMEDIATE && i < 2; i++) /* the values, as elements */
        if (p == NPK_PREC_FP16)
            ((uint16_t *)b)[i] = npk_f32_to_f16((float)imm[i]);
        else if (p == NPK_PREC_INT16)
            ((int16_t *)b)[i] = (int16_t)(imm[i] < -32768  ? -32768
                                          : imm[i] > 32767 ? 32767
                                                           : imm[i]);
        else
            ((int8_t *)b)[i] = (int8_t)(imm[i] < -128 ? -128 : imm[i] > 127 ? 127 : imm[i]);
    if (npk_rk_open(so.device, &rt) || (so.chain && npk_rk_set_chain(rt, (unsigned)so.chain)) ||
        (so.submit && npk_rk_set_submission(rt, so.submit)) || npk_rk_query(rt, &info)) {
        cli_lib_error("rk ew");
        goto out;
    }
    if (!rk_soc_matches(&so, info.soc, "rk ew"))
        goto out;
    if (npk_rk_ew(rt,
                  &(npk_rk_ew_args){
                      .op = op, .prec = p, .m = m, .n = n, .operand = mode, .a = a, .b = b, .c = c},
                  &st)) {
        cli_lib_error("rk ew");
        goto out;
    }
    uint64_t bad = 0;
    if (check) {
        rk_ew_reference(op, p, m, n, a, mode, b, ref);
        for (uint64_t i = 0; i < count; i++)
            bad += memcmp((char *)c + i * eb, (char *)ref + i * eb, eb) != 0;
    }
    const char *label = info.simulated ? "modelled" : "measured";
    bool printed = true;
    if (json) {
        cJSON *doc = json_doc();
        json_str(doc, "op", npk_rk_ew_op_row_of(op)->name);
        json_str(doc, "dtype", dtypes[dtype]);
        json_u64(doc, "m", m);
        json_u64(doc, "n", n);
        json_str(doc, "operand", npk_rk_ew_operand_name(mode));
        json_u64(doc, "tasks", st.tasks);
        json_u64(doc, "submits", st.submits);
        json_u64(doc, "warmups", st.warmups);
        json_u64(doc, "resets", st.resets);
        json_fixed(doc, "npu_ms", st.npu_span_ns / 1e6, 6);
        json_str(doc, "npu_time", label);
        json_fixed(doc, "host_ms", st.host_ns / 1e6, 6);
        if (check) {
            cJSON *c = json_obj(doc, "check");
            json_u64(c, "mismatches", bad);
            json_bool(c, "ok", !bad);
        }
        printed = json_print(doc, "rk ew") == 0;
    } else {
        printf("%s %s %ux%u, B %s, on %s (%s)\n", dtypes[dtype], npk_rk_ew_op_row_of(op)->name, m,
               n,
               mode == NPK_EW_PER_CHANNEL   ? "per channel [N]"
               : mode == NPK_EW_PER_ELEMENT ? "per element [M][N]"
               : mode == NPK_EW_IMMEDIATE   ? "immediate"
                                            : "none",
               info.device, info.soc);
        printf("  SDP tasks %u, submits %u (warm-ups %u, resets %u)\n", st.tasks, st.submits,
               st.warmups, st.resets);
        printf("  NPU time %.3f ms (%s), host time %.3f ms\n", st.npu_span_ns / 1e6, label,
               st.host_ns / 1e6);
        if (check)
            printf("  check vs CPU: %llu of %llu elements differ (exact required: %s): %s\n",
                   (unsigned long long)bad, (unsigned long long)count,
                   p == NPK_PREC_FP16 ? "fp32 op rounded once to fp16" : "saturating integers",
                   bad ? "MISMATCH" : "ok");
    }
    rc = bad || !printed ? 1 : 0;
out:
    npk_rk_close(rt);
    free(a);
    free(b);
    free(c);
    free(ref);
    return rc;
}
