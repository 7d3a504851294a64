/* `npukit rk synth`: one matmul task's regcmd program (body, then the single-task trailer). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/rk_decode.h"
#include "npukit/rk_sched.h"
#include "npukit/rk_synth.h"
#include "rk_opts.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: npukit rk synth --dtype fp16|int8|int4 -m M -k K -n N [options]\n"
            "  --out fp32|fp16|int32|int16|int8   output precision (default fp32/int32/int16)\n"
            "  --sched auto|0|1                  M-tiling schedule (default auto)\n"
            "  --mode line|cube                  feature/output geometry (default: vendor's)\n"
            "  --a IOVA --b IOVA --c IOVA        feature, weight, output addresses\n"
            "  --a-pitch E --c-pitch E           line-mode row pitches in elements\n"
            "  --scale S --shift S               int8->int8/int16 requantization\n"
            "  --soc NAME                        rk3588 (default) or rk3576\n"
            "  --format u64|text|bin             output format (default u64)\n"
            "  --unchecked                       emit even when a hardware limit is broken\n");
}

int rk_synth_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 0, 0, 0);
    const char *format = "u64";
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--unchecked")) {
            mm.unchecked = true;
            continue;
        }
        static const char *const own[] = {"--sched", "--a",     "--b",     "--c",    "--a-pitch",
                                          "--c-pitch", "--scale", "--shift", "--format", NULL};
        int r = rk_opt_value("rk synth", argc, argv, &i, own, &so, &v, usage);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!strcmp(o, "--sched")) {
            if (!strcmp(v, "auto"))
                mm.sched = NPK_SCHED_AUTO;
            else if (!cli_int(o, v, 0, 1, &mm.sched))
                return 2;
        } else if (!strcmp(o, "--a") || !strcmp(o, "--b") || !strcmp(o, "--c")) {
            uint32_t *dst = o[2] == 'a' ? &mm.a : o[2] == 'b' ? &mm.b : &mm.c;
            if (!cli_u32(o, v, dst))
                return 2;
        } else if (!strcmp(o, "--a-pitch") || !strcmp(o, "--c-pitch")) {
            if (!cli_u32(o, v, o[2] == 'a' ? &mm.a_pitch : &mm.c_pitch))
                return 2;
        } else if (!strcmp(o, "--scale") || !strcmp(o, "--shift")) {
            int x;
            if (!cli_int(o, v, 0, 0xffff, &x))
                return 2;
            *(o[3] == 'c' ? &mm.requant_scale : &mm.requant_shift) = (uint16_t)x;
        } else if (!strcmp(o, "--format")) {
            if (strcmp(v, "u64") && strcmp(v, "text") && strcmp(v, "bin")) {
                fprintf(stderr, "npukit: --format '%s' is not u64, text or bin\n", v);
                return 2;
            }
            format = v;
        } else {
            fprintf(stderr, "npukit: rk synth: unknown option '%s'\n", o);
            usage(stderr);
            return 2;
        }
    }
    if (!rk_shape_complete(&so, "rk synth"))
        return 2;
    mm.in = so.in;
    mm.out = so.out;
    mm.m = so.m;
    mm.k = so.k;
    mm.n = so.n;
    mm.mode = so.mode;
    mm.soc = so.soc;

    npk_rk_entry prog[NPK_RK_MATMUL_BODY + NPK_RK_TRAILER_ENTRIES];
    npk_rk_synth_info info;
    if (npk_rk_synth_matmul(&mm, prog, &info))
        return cli_lib_error("synth");
    if (npk_rk_trailer(prog + NPK_RK_MATMUL_BODY, 0, 0, NPK_RK_ENABLE_MATMUL))
        return cli_lib_error("synth");
    size_t n = sizeof prog / sizeof prog[0];
    if (!strcmp(format, "u64")) {
        for (size_t i = 0; i < n; i++)
            printf("0x%016llx\n", (unsigned long long)prog[i]);
    } else if (!strcmp(format, "text")) {
        printf("# %s %ux%ux%u -> %s, %s mode, sched %d, CBUF_CON0 0x%02x\n",
               npk_rk_prec_name(mm.in), mm.m, mm.k, mm.n, npk_rk_prec_name(mm.out),
               info.mode == NPK_MODE_LINE ? "line" : "cube", info.sched, info.cbuf_con0);
        npk_rk_decode_print(stdout, prog, n);
    } else {
        for (size_t i = 0; i < n; i++) {
            unsigned char le[8];
            for (int b = 0; b < 8; b++)
                le[b] = (unsigned char)(prog[i] >> (8 * b));
            fwrite(le, 1, 8, stdout);
        }
    }
    return 0;
}
