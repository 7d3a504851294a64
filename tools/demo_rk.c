/* SPDX-License-Identifier: MIT */
/* The RK part of `npukit demo`: synthesize and decode a task, plan a realistic layer, and run
 * it in fp16, int8 and int4 on the simulator, each checked against the CPU. */
#include <stdio.h>
#include <string.h>

#include "npukit/rk.h"
#include "npukit/rk_decode.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_synth.h"
#include "rk_operands.h"

enum { LAYER_M = 128, LAYER_K = 2048, LAYER_N = 5632 };
enum { DECODE_COLS = 90 }; /* a decoded entry's text beside its index and word: one line */

static int show_synthesis(void)
{
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 32, 16);
    npk_rk_entry prog[NPK_RK_MATMUL_BODY + NPK_RK_TRAILER_ENTRIES];
    if (npk_rk_synth_matmul(&mm, prog, NULL) ||
        npk_rk_trailer(prog + NPK_RK_MATMUL_BODY, 0, 0, NPK_RK_ENABLE_MATMUL)) {
        fprintf(stderr, "demo: synthesis failed: %s\n", npk_last_error());
        return 1;
    }
    printf("1. A matmul task is a regcmd program: fp16 4x32x16 -> %d register writes + %d trailer\n"
           "   entries (the vendor capture, entry for entry). First lines, decoded:\n",
           NPK_RK_MATMUL_BODY, NPK_RK_TRAILER_ENTRIES);
    char line[512];
    for (int i = 0; i < 4; i++) {
        npk_rk_entry_describe(prog[i], line, sizeof line);
        /* At most DECODE_COLS characters, cut after a whole field, never inside one. */
        int keep = (int)strlen(line);
        if (keep > DECODE_COLS) {
            keep = DECODE_COLS;
            while (keep > 0 && line[keep] != ' ')
                keep--;
        }
        printf("   %3d 0x%016llx  %.*s%s\n", i, (unsigned long long)prog[i], keep, line,
               line[keep] ? " ..." : "");
    }
    return 0;
}

static int show_plan(void)
{
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, NPK_PREC_FP16, LAYER_M, LAYER_K, LAYER_N);
    req.cores = npk_rk_soc_or_default(req.soc)->cores; /* every core of the request's SoC */
    npk_rk_plan plan;
    if (npk_rk_plan_matmul(&req, &plan)) {
        fprintf(stderr, "demo: planning failed: %s\n", npk_last_error());
        return 1;
    }
    printf("\n2. Any shape is planned onto the limits: fp16 %dx%dx%d on %u cores -> %zu tasks,\n"
           "   %zu K slices (host-accumulated), M tiles of %u rows with CBUF_CON0 0x%02x.\n",
           LAYER_M, LAYER_K, LAYER_N, req.cores, plan.count, plan.k_slices,
           plan.tasks[0].m1 - plan.tasks[0].m0, plan.tasks[0].cbuf_con0);
    npk_rk_plan_free(&plan);
    return 0;
}

static int run_layer(npk_rk *rt, npk_rk_prec in, npk_rk_prec out)
{
    rk_operands o = {.in = in, .out = out, .m = LAYER_M, .k = LAYER_K, .n = LAYER_N};
    npk_rk_weights *w = NULL;
    npk_rk_stats st;
    npk_rk_verdict e;
    int rc = 1;
    if (rk_operands_make(&o, NULL, NULL, 1) &&
        npk_rk_weights_pack(rt, in, LAYER_K, LAYER_N, o.b, LAYER_M, &w) == NPK_OK &&
        npk_rk_matmul(rt, w, LAYER_M, o.a, out, o.c, &st) == NPK_OK && rk_operands_check(&o, &e)) {
        bool ok = e.outside == 0;
        printf("   %-5s -> %-5s %3u tasks, %3u submits (%u warm-up%s, %u reset%s), NPU %7.3f ms "
               "(modelled), max abs err %.2g: %s\n",
               npk_rk_prec_name(in), npk_rk_prec_name(out), st.tasks, st.submits, st.warmups,
               st.warmups == 1 ? "" : "s", st.resets, st.resets == 1 ? "" : "s",
               st.npu_span_ns / 1e6, e.max_abs, ok ? "ok" : "MISMATCH");
        rc = ok ? 0 : 1;
    } else {
        fprintf(stderr, "demo: %s matmul failed: %s\n", npk_rk_prec_name(in), npk_last_error());
    }
    npk_rk_weights_free(rt, w);
    rk_operands_free(&o);
    return rc;
}

int demo_rk(void)
{
    printf("== Rockchip RK3588 NPU (simulator) ==\n\n");
    if (show_synthesis() || show_plan())
        return 1;
    npk_rk *rt;
    if (npk_rk_open("sim", &rt)) {
        fprintf(stderr, "demo: %s\n", npk_last_error());
        return 1;
    }
    printf("\n3. The layer %dx%dx%d on the simulator behind the rknpu kernel interface,\n"
           "   each checked against a CPU matmul:\n",
           LAYER_M, LAYER_K, LAYER_N);
    int rc = run_layer(rt, NPK_PREC_FP16, NPK_PREC_FP32);
    rc |= run_layer(rt, NPK_PREC_FP16, NPK_PREC_FP16);
    rc |= run_layer(rt, NPK_PREC_INT8, NPK_PREC_INT32);
    rc |= run_layer(rt, NPK_PREC_INT4, NPK_PREC_INT32);
    npk_rk_close(rt);
    printf("\n");
    return rc;
}
