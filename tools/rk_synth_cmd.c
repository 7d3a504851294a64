/* SPDX-License-Identifier: MIT */
/* `npukit rk synth`: one matmul or SDP task's regcmd program (body, then the single-task
 * trailer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_decode.h"
#include "rk/program/rk_kernel.h"
#include "rk/program/rk_sched.h"
#include "rk/program/rk_sdp.h"
#include "npukit/rk_synth.h"
#include "rk_opts.h"

static bool parse_ew(const cli_opt *row, const char *value, const char *cmd)
{
    if (npk_rk_ew_op_parse(value, row->dest))
        return true;
    fprintf(stderr, "npukit: %s: --ew '%s' is not %s\n", cmd, value, npk_rk_ew_op_names());
    return false;
}

static bool parse_act(const cli_opt *row, const char *value, const char *cmd)
{
    npk_rk_act_kind *act = row->dest;
    if (npk_rk_act_parse(value, act) && npk_rk_act_row_of(*act)->engine == NPK_ACT_ENGINE_LUT)
        return true;
    fprintf(stderr, "npukit: %s: --act '%s' is not a LUT activation (%s; relu: --ew relu)\n", cmd,
            value, npk_rk_act_names());
    return false;
}

static bool parse_prec(const cli_opt *row, const char *value, const char *cmd)
{
    if (npk_rk_prec_parse(value, row->dest))
        return true;
    fprintf(stderr, "npukit: %s: %s '%s' is not a precision\n", cmd, row->name, value);
    return false;
}

static void print_program(const npk_rk_entry *prog, size_t n, int format)
{
    if (format == 0) {
        for (size_t i = 0; i < n; i++)
            printf("0x%016llx\n", (unsigned long long)prog[i]);
    } else if (format == 1) {
        npk_rk_decode_print(stdout, prog, n);
    } else {
        for (size_t i = 0; i < n; i++) {
            unsigned char le[8];
            for (int b = 0; b < 8; b++)
                le[b] = (unsigned char)(prog[i] >> (8 * b));
            fwrite(le, 1, 8, stdout);
        }
    }
}

/* --ew-cvt OFFSET,SCALE,SHIFT: the EW operand converter's fields. */
static bool parse_cvt(const cli_opt *row, const char *value, const char *cmd)
{
    npk_rk_sdp *t = row->dest;
    long off;
    unsigned scale, shift;
    int used = 0;
    if (sscanf(value, "%ld,%u,%u%n", &off, &scale, &shift, &used) == 3 && !value[used] &&
        off >= INT32_MIN && off <= INT32_MAX && scale <= 0xFFFF && shift <= 63) {
        t->ew_cvt.on = true;
        t->ew_cvt.offset = (int32_t)off;
        t->ew_cvt.scale = (uint16_t)scale;
        t->ew_cvt.shift = shift;
        return true;
    }
    fprintf(stderr,
            "npukit: %s: --ew-cvt '%s' is not OFFSET,SCALE,SHIFT (int32, 0..65535, 0..63)\n", cmd,
            value);
    return false;
}

/* An SDP task: --dtype, -m and -n give the precision and the M x N feature. */
static int synth_sdp(npk_rk_sdp *t, const rk_shape_opts *so, bool per_channel, bool have_feature,
                     bool have_imm, int format)
{
    if (!so->have_in || !so->m || !so->n || so->k) {
        fprintf(stderr, "npukit: rk synth --ew needs --dtype, -m and -n (each >= 1) and no -k\n");
        return 2;
    }
    t->prec = so->in;
    if (!have_feature)
        t->feature = so->in;
    t->m = so->m;
    t->n = so->n;
    const unsigned kinds = npk_rk_ew_op_operands(npk_rk_ew_op_row_of(t->op));
    t->operand = have_imm                                            ? NPK_EW_IMMEDIATE
                 : kinds & NPK_EW_OPERAND_BIT(NPK_EW_NO_OPERAND)     ? NPK_EW_NO_OPERAND
                 : !(kinds & NPK_EW_OPERAND_BIT(NPK_EW_PER_ELEMENT)) ? NPK_EW_IMMEDIATE
                 : per_channel                                       ? NPK_EW_PER_CHANNEL
                                                                     : NPK_EW_PER_ELEMENT;
    /* room for a LUT task's body (the tables' upload) */
    static npk_rk_entry prog[NPK_RK_SDP_LUT_BODY + NPK_RK_TRAILER_ENTRIES];
    const uint32_t body = npk_rk_sdp_body_entries(t);
    if (npk_rk_synth_sdp(t, prog) || npk_rk_trailer(prog + body, 0, 0, NPK_RK_ENABLE_SDP))
        return cli_lib_error("synth");
    if (format == 1)
        printf("# SDP %s %s %ux%u%s\n", npk_rk_ew_op_row_of(t->op)->name, npk_rk_prec_name(t->prec),
               t->m, t->n,
               t->operand == NPK_EW_PER_CHANNEL   ? ", per-channel operand"
               : t->operand == NPK_EW_PER_ELEMENT ? ", per-element operand"
               : t->operand == NPK_EW_IMMEDIATE   ? ", immediate operand"
                                                  : ", 1-input");
    print_program(prog, body + NPK_RK_TRAILER_ENTRIES, format);
    return 0;
}

int rk_synth_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 0, 0, 0);
    static const char *const formats[] = {"u64", "text", "bin", NULL};
    int format = 0;
    static const char *const kernels[] = {"rknpu", "rocket", NULL};
    int kernel = 0;
    npk_rk_sdp sdp = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 0, 0);
    bool is_sdp = false, per_channel = false, have_feature = false, have_imm = false;
    bool have_act = false;
    npk_rk_act_kind act = NPK_ACT_SIGMOID;
    npk_rk_lut lut;
    uint32_t scale = mm.requant_scale, shift = mm.requant_shift;
    const cli_opt own[] = {
        {.name = "--sched",
         .kind = CLI_CUSTOM,
         .dest = &mm.sched,
         .parse = rk_parse_sched,
         .meta = "auto|0|1|chain",
         .help = "M-tiling schedule (default auto)"},
        {.name = "--a",
         .kind = CLI_U32_HEX,
         .dest = &mm.a,
         .max = UINT32_MAX,
         .meta = "IOVA",
         .help = "feature address"},
        {.name = "--b",
         .kind = CLI_U32_HEX,
         .dest = &mm.b,
         .max = UINT32_MAX,
         .meta = "IOVA",
         .help = "weight address"},
        {.name = "--c",
         .kind = CLI_U32_HEX,
         .dest = &mm.c,
         .max = UINT32_MAX,
         .meta = "IOVA",
         .help = "output address"},
        {.name = "--a-pitch",
         .kind = CLI_U32,
         .dest = &mm.a_pitch,
         .max = UINT32_MAX,
         .meta = "E",
         .help = "line-mode feature row pitch in elements (0: K)"},
        {.name = "--c-pitch",
         .kind = CLI_U32,
         .dest = &mm.c_pitch,
         .max = UINT32_MAX,
         .meta = "E",
         .help = "line-mode output row pitch in elements (0: N)"},
        {.name = "--scale",
         .kind = CLI_U32_HEX,
         .dest = &scale,
         .max = UINT16_MAX,
         .meta = "S",
         .help = "int8->int8/int16 requantization scale"},
        {.name = "--shift",
         .kind = CLI_U32_HEX,
         .dest = &shift,
         .max = UINT16_MAX,
         .meta = "S",
         .help = "int8->int8/int16 requantization shift"},
        {.name = "--format",
         .kind = CLI_CHOICE,
         .dest = &format,
         .choices = formats,
         .help = "output: 0x%016x per entry, a decoded listing, or little-endian binary"},
        {.name = "--kernel",
         .kind = CLI_CHOICE,
         .dest = &kernel,
         .choices = kernels,
         .help = "the program form of the vendor driver (enable 0x0D) or mainline rocket "
                 "(0x1D with the DPU_RDMA block)"},
        {.name = "--unchecked",
         .kind = CLI_FLAG,
         .dest = &mm.unchecked,
         .help = "emit even when a hardware limit is broken"},
        {.name = "--next-m-tile",
         .kind = CLI_FLAG,
         .dest = &mm.next_m_tile,
         .help = "with --sched chain: a later M-tile (0x1040 WEIGHT_REUSE, 0x2000)"},
        {.name = "--ew",
         .kind = CLI_CUSTOM,
         .dest = &sdp.op,
         .parse = parse_ew,
         .given = &is_sdp,
         .meta = npk_rk_ew_op_names(),
         .help = "an SDP element-wise task instead (DPU | DPU_RDMA, no CNA; -k not used)"},
        {.name = "--imm",
         .kind = CLI_CUSTOM,
         .dest = sdp.imm,
         .parse = rk_parse_imm,
         .given = &have_imm,
         .meta = "V[,V2]",
         .help = "SDP: an immediate operand in a stage register (batchnorm: scale,shift)"},
        {.name = "--ew-register",
         .kind = CLI_FLAG,
         .dest = &sdp.ew_imm,
         .help = "SDP: the immediate through EW_OP_SRC / EW_OP_VALUE_0 (unchecked only)"},
        {.name = "--ew-cvt",
         .kind = CLI_CUSTOM,
         .dest = &sdp,
         .parse = parse_cvt,
         .meta = "OFF,SCALE,SHIFT",
         .help = "SDP: the EW operand converter on (unchecked only)"},
        {.name = "--act",
         .kind = CLI_CUSTOM,
         .dest = &act,
         .parse = parse_act,
         .given = &have_act,
         .meta = "NAME",
         .help = "an SDP LUT activation task (sigmoid, tanh, gelu, silu, hardswish, "
                 "hardsigmoid, exp): the tables' upload, the SDP body, the LUT's registers"},
        {.name = "--per-channel",
         .kind = CLI_FLAG,
         .dest = &per_channel,
         .help = "SDP: the operand is a vector [N] (default: per-element [M][N])"},
        {.name = "--notch",
         .kind = CLI_U32,
         .dest = &sdp.line_notch,
         .max = 8191,
         .meta = "E",
         .help = "SDP: read one atom-wide tile of a contiguous buffer (LINE_NOTCH_ADDR)"},
        {.name = "--feature",
         .kind = CLI_CUSTOM,
         .dest = &sdp.feature,
         .parse = parse_prec,
         .given = &have_feature,
         .meta = "PREC",
         .help = "SDP: the RDMA's feature precision (int32: the over-fetch programs)"},
        {.name = "--rdma-channels",
         .kind = CLI_U32,
         .dest = &sdp.rdma_channels,
         .max = 16384,
         .meta = "C",
         .help = "SDP: the RDMA's channel count (default N)"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SHAPE | RK_OPT_MODE | RK_OPT_SOC, UINT32_MAX), own, NULL};
    cli_spec spec = {.cmd = "rk synth",
                     .synopsis = "--dtype fp16|int8|int4 -m M -k K -n N [options] | --ew OP "
                                 "--dtype fp16|int16|int8 -m M -n N [options]",
                     .about =
                         "one matmul task's regcmd program: the body, then the single-task trailer",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (have_act) {
        if (npk_rk_lut_fit(act, npk_rk_act_row_of(act)->alpha, npk_rk_act_row_of(act)->beta, &lut))
            return cli_lib_error("synth");
        sdp.op = NPK_EW_LUT;
        sdp.lut = &lut;
        is_sdp = true;
    }
    if (is_sdp) {
        sdp.unchecked = mm.unchecked;
        sdp.a = mm.a;
        sdp.b = mm.b;
        sdp.c = mm.c;
        return synth_sdp(&sdp, &so, per_channel, have_feature, have_imm, format);
    }
    if (!rk_shape_complete(&so, "rk synth"))
        return 2;
    mm.requant_scale = (uint16_t)scale;
    mm.requant_shift = (uint16_t)shift;
    mm.in = so.in;
    mm.out = so.out;
    mm.m = so.m;
    mm.k = so.k;
    mm.n = so.n;
    mm.mode = so.mode;
    mm.soc = so.soc;

    const npk_rk_kernel_form *form = npk_rk_kernel_form_find(kernels[kernel]);
    npk_rk_entry prog[NPK_RK_BODY_MAX + NPK_RK_TRAILER_ENTRIES];
    npk_rk_synth_info info;
    size_t nb;
    if (npk_rk_synth_for(form, &mm, prog, &nb, &info))
        return cli_lib_error("synth");
    if (npk_rk_trailer(prog + nb, 0, 0, form->enable))
        return cli_lib_error("synth");
    size_t n = nb + NPK_RK_TRAILER_ENTRIES;
    if (format == 1) {
        printf("# %s %ux%ux%u -> %s, %s mode, sched %d, CBUF_CON0 0x%02x\n",
               npk_rk_prec_name(mm.in), mm.m, mm.k, mm.n, npk_rk_prec_name(mm.out),
               info.mode == NPK_MODE_LINE ? "line" : "cube", info.sched, info.cbuf_con0);
        printf("# %s form: %zu body entries, task entry count %u\n", form->name, nb,
               npk_rk_kernel_task_count(form, (uint32_t)nb));
    }
    print_program(prog, n, format);
    return 0;
}
