/* SPDX-License-Identifier: MIT */
/* `npukit rk bench`: repeated matmuls after warm-up; medians of NPU time (modelled on the
 * simulator, measured on hardware), host time, and the host overhead per submit split into
 * synthesis, packing, sync and accumulation, next to a memcpy of the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/measure.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "rk_bench_ew.h"
#include "rk_bench_rknn.h"
#include "rk_operands.h"
#include "rk_opts.h"

/* The vendor matmul demo's type numbers (RKNN matmul API, spec "Platform support matrix"). */
static bool vendor_type(int t, npk_rk_prec *in, npk_rk_prec *out)
{
    switch (t) {
    case 1:
        *in = NPK_PREC_FP16;
        *out = NPK_PREC_FP32;
        return true;
    case 2:
        *in = NPK_PREC_INT8;
        *out = NPK_PREC_INT32;
        return true;
    case 4:
        *in = NPK_PREC_FP16;
        *out = NPK_PREC_FP16;
        return true;
    case 10:
        *in = NPK_PREC_INT4;
        *out = NPK_PREC_INT32;
        return true;
    default: return false;
    }
}

int rk_bench_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    bool json = false, epilogue = false;
    int iters = 10, warm = 2, npos = 0;
    const cli_opt own[] = {
        {.name = "--iters",
         .kind = CLI_INT,
         .dest = &iters,
         .min = 1,
         .max = 100000,
         .meta = "N",
         .help = "timed calls (default 10); --submit all: every submission form"},
        {.name = "--warmup",
         .kind = CLI_INT,
         .dest = &warm,
         .max = 1000,
         .meta = "N",
         .help = "untimed calls first (default 2)"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        {.name = "--epilogue",
         .kind = CLI_FLAG,
         .dest = &epilogue,
         .help = "also: matmul->SDP fused vs split, and the per-channel-scaled path (fp16)"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SHAPE | RK_OPT_SOC | RK_OPT_CORES | RK_OPT_CHAIN | RK_OPT_DEVICE,
                      NPK_RK_PLAN_MAX_DIM),
        own, NULL};
    const char *pos[4];
    cli_spec spec = {.cmd = "rk bench",
                     .synopsis = "--dtype D -m M -k K -n N [options]\n"
                                 "       npukit rk bench M K N [TYPE] [options]",
                     .about =
                         "repeated matmuls after warm-up: medians of NPU time, host time and the "
                         "host overhead per submit.\nThe second form is the vendor matmul demo's: "
                         "TYPE 1 fp16->fp32 (default), 2 int8->int32, 4 fp16->fp16, 10 int4->int32",
                     .tables = tables,
                     .pos = pos,
                     .max_pos = 4,
                     .n_pos = &npos};
    int prc = cli_parse(&spec, argc, argv);
    if (prc >= 0)
        return prc;
    if (npos) { /* M K N [TYPE] */
        uint32_t *dims[3] = {&so.m, &so.k, &so.n};
        static const char *const names[3] = {"M", "K", "N"};
        uint64_t v;
        if (npos < 3) {
            fprintf(stderr,
                    "npukit rk bench: %d number%s given; the shape is three, M K N (then "
                    "TYPE, optional), or -m -k -n\n",
                    npos, npos == 1 ? "" : "s");
            return 2;
        }
        if (so.have_m || so.have_k || so.have_n) {
            fprintf(stderr,
                    "npukit rk bench: give M K N as three numbers or as -m -k -n, not both\n");
            return 2;
        }
        for (int d = 0; d < 3; d++) {
            if (!cli_number("rk bench", names[d], pos[d], false, 1, NPK_RK_PLAN_MAX_DIM, &v))
                return 2;
            *dims[d] = (uint32_t)v;
        }
        so.have_m = so.have_k = so.have_n = true;
        if (npos == 4) {
            if (so.have_in || so.have_out) {
                fprintf(stderr, "npukit rk bench: TYPE and --dtype/--out both set the precision; "
                                "give one of them\n");
                return 2;
            }
            if (cli_number_scan(pos[3], strlen(pos[3]), false, &v) != CLI_NUM_OK || v > INT32_MAX ||
                !vendor_type((int)v, &so.in, &so.out)) {
                fprintf(stderr,
                        "npukit rk bench: TYPE '%s' is not a matmul type of RK3588 "
                        "(1, 2, 4, 10)\n",
                        pos[3]);
                return 2;
            }
            so.have_out = true;
        }
    }
    so.have_in = true; /* fp16 unless --dtype or TYPE says otherwise */
    if (!rk_shape_complete(&so, "rk bench"))
        return 2;
    if (epilogue && so.in != NPK_PREC_FP16) {
        fprintf(stderr, "npukit rk bench: --epilogue needs --dtype fp16 (the dtype-path rule: "
                        "int8/int4 accumulate in int32, which the SDP cannot read)\n");
        return 2;
    }
    rk_operands o = {0};
    rk_operands_from_opts(&o, &so);
    if (!rk_operands_make(&o, NULL, NULL, 1)) {
        rk_operands_free(&o);
        return 1;
    }
    if (so.submit && !strcmp(so.submit, "all")) {
        int frc = rk_bench_forms(&so, &o, iters, warm, json);
        rk_operands_free(&o);
        return frc;
    }
    npk_rk *rt = NULL;
    npk_rk_weights *w = NULL;
    npk_rk_info info;
    double *host = calloc((size_t)iters, 8), *npu = calloc((size_t)iters, 8),
           *over = calloc((size_t)iters, 8), *syn = calloc((size_t)iters, 8),
           *pack = calloc((size_t)iters, 8), *sync = calloc((size_t)iters, 8),
           *acc = calloc((size_t)iters, 8), *cpy = calloc((size_t)iters, 8),
           *hand = calloc((size_t)iters, 8), *bchk = calloc((size_t)iters, 8);
    /* The bytes the host moves per call: A in, C out. */
    size_t moved =
        (size_t)o.m * o.k * rk_elem_bytes(o.in) + (size_t)o.m * o.n * rk_elem_bytes(o.out);
    char *src = malloc(moved), *dst = malloc(moved);
    int rc = 1;
    npk_rk_stats st = {0};
    if (!host || !npu || !over || !syn || !pack || !sync || !acc || !cpy || !hand || !bchk ||
        !src || !dst) {
        fprintf(stderr, "npukit: out of memory\n");
        goto done;
    }
    memset(src, 1, moved);
    if (!rk_runtime_setup(&so, &o, &rt, &w, &info, "rk bench")) {
        goto done;
    }
    for (int i = -warm; i < iters; i++) {
        if (npk_rk_matmul(rt, w, o.m, o.a, o.out, o.c, &st)) {
            cli_lib_error("rk bench");
            goto done;
        }
        if (i < 0)
            continue;
        uint32_t subs = st.submits ? st.submits : 1;
        host[i] = st.host_ns;
        npu[i] = st.npu_span_ns;
        syn[i] = st.synth_ns / subs;
        pack[i] = st.pack_ns / subs;
        sync[i] = st.sync_ns / subs;
        acc[i] = st.accumulate_ns / subs;
        over[i] = (st.synth_ns + st.pack_ns + st.sync_ns + st.accumulate_ns) / subs;
        hand[i] = st.handoff_ns;
        bchk[i] = st.b_check_ns;
        uint64_t t0 = npk_now_ns();
        memcpy(dst, src, moved);
        cpy[i] = (npk_now_ns() - t0) / subs;
        src[i % moved] ^= dst[(i * 7) % moved]; /* keep the copy observable */
    }
    {
        double ops = 2.0 * o.m * o.k * o.n;
        double mh = npk_median(host, (size_t)iters), mn = npk_median(npu, (size_t)iters),
               mo = npk_median(over, (size_t)iters), mc = npk_median(cpy, (size_t)iters),
               mhand = npk_median(hand, (size_t)iters), mbchk = npk_median(bchk, (size_t)iters);
        const char *label = info.simulated ? "modelled" : "measured";
        /* The compatible layer on the same shape: its cost per run over npk_rk_matmul's. */
        double rknn_ns = 0, direct_ns = 0;
        const char *why = NULL;
        bool have_rknn =
            rk_bench_rknn(rt, w, &o, so.device, iters, warm, &rknn_ns, &direct_ns, &why);
        double gops = mn > 0 ? ops / mn : 0;
        if (json) {
            cJSON *doc = json_doc();
            rk_json_shape(doc, &o);
            json_str(doc, "device", info.device);
            json_i64(doc, "iters", iters);
            json_u64(doc, "tasks", st.tasks);
            json_u64(doc, "submits", st.submits);
            json_fixed(doc, "npu_ms", mn / 1e6, 6);
            json_str(doc, "npu_time", label);
            json_fixed(doc, "gops", gops, 3);
            json_fixed(doc, "host_ms", mh / 1e6, 6);
            cJSON *over_us = json_obj(doc, "overhead_us_per_submit");
            json_fixed(over_us, "total", mo / 1e3, 3);
            json_fixed(over_us, "synth", npk_median(syn, (size_t)iters) / 1e3, 3);
            json_fixed(over_us, "pack", npk_median(pack, (size_t)iters) / 1e3, 3);
            json_fixed(over_us, "sync", npk_median(sync, (size_t)iters) / 1e3, 3);
            json_fixed(over_us, "accumulate", npk_median(acc, (size_t)iters) / 1e3, 3);
            json_fixed(doc, "memcpy_us_per_submit", mc / 1e3, 3);
            json_fixed(doc, "overhead_vs_memcpy", mc > 0 ? mo / mc : 0, 3);
            json_str(doc, "form", npk_rk_submission(rt));
            json_fixed(doc, "submit_us", st.submit_ns / 1e3, 3);
            json_fixed(doc, "wait_us", st.wait_ns / 1e3, 3);
            cJSON *call = json_obj(doc, "call_overhead_us");
            json_fixed(call, "handoff", mhand / 1e3, 3);
            json_fixed(call, "b_check", mbchk / 1e3, 3);
            if (have_rknn) {
                json_fixed(doc, "rknn_run_us", rknn_ns / 1e3, 3);
                json_fixed(doc, "rk_matmul_us", direct_ns / 1e3, 3);
                json_fixed(doc, "rknn_overhead_us", (rknn_ns - direct_ns) / 1e3, 3);
            }
            if (epilogue && !rk_bench_ew(rt, w, &o, iters, warm, doc)) {
                cJSON_Delete(doc);
                goto done;
            }
            if (json_print(doc, "rk bench"))
                goto done;
        } else {
            printf("%s %ux%ux%u -> %s on %s: %d runs after %d warm-up, medians\n",
                   npk_rk_prec_name(o.in), o.m, o.k, o.n, npk_rk_prec_name(o.out), info.device,
                   iters, warm);
            printf("  %u tasks, %u submits per call (form %s: submit %.2f us, completion wait "
                   "%.2f us, last call)\n",
                   st.tasks, st.submits, npk_rk_submission(rt), st.submit_ns / 1e3,
                   st.wait_ns / 1e3);
            printf("  NPU time   %10.3f ms  (%s)  %8.2f GOP/s\n", mn / 1e6, label, gops);
            printf("  host time  %10.3f ms  (wall, whole call)\n", mh / 1e6);
            printf("  host overhead per submit %8.2f us: synth %.2f, pack %.2f, sync %.2f, "
                   "accumulate %.2f\n",
                   mo / 1e3, npk_median(syn, (size_t)iters) / 1e3,
                   npk_median(pack, (size_t)iters) / 1e3, npk_median(sync, (size_t)iters) / 1e3,
                   npk_median(acc, (size_t)iters) / 1e3);
            printf("  host overhead per call %8.2f us: core hand-off %.2f, bound-weights check "
                   "%.2f\n",
                   (mhand + mbchk) / 1e3, mhand / 1e3, mbchk / 1e3);
            if (info.simulated && st.cores_used > 1)
                printf(
                    "  (%u cores on the simulator: its requests are serialised, so sync includes "
                    "waiting for the other cores' submits; --cores 1 gives the host's own "
                    "cost)\n",
                    st.cores_used);
            printf("  memcpy of the same bytes per submit %8.2f us  (overhead / memcpy = %.2f)\n",
                   mc / 1e3, mc > 0 ? mo / mc : 0);
            if (have_rknn)
                printf("  rknn_matmul_run %8.2f us per run, npk_rk_matmul %8.2f us: the compatible "
                       "layer's overhead %+.2f us per run (%.2fx)\n",
                       rknn_ns / 1e3, direct_ns / 1e3, (rknn_ns - direct_ns) / 1e3,
                       direct_ns > 0 ? rknn_ns / direct_ns : 0);
            else
                printf("  rknn_matmul_run: not compared (%s)\n", why);
            if (epilogue && !rk_bench_ew(rt, w, &o, iters, warm, NULL))
                goto done;
        }
        rc = 0;
    }
done:
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    rk_operands_free(&o);
    free(host);
    free(npu);
    free(over);
    free(syn);
    free(pack);
    free(sync);
    free(acc);
    free(cpy);
    free(hand);
    free(bchk);
    free(src);
    free(dst);
    return rc;
}
