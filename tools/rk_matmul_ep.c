/* SPDX-License-Identifier: MIT */
/* `rk matmul --scale FILE|random --residual FILE|random`: C = A.B (.) scale + residual through
 * npk_rk_matmul_epilogue, fused or split by the runtime's fusion rules. */
#include "rk_matmul_ep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* count fp16 values from a raw file or random (seeded) */
static bool load(const char *src, uint16_t *dst, uint64_t count, uint64_t *seed)
{
    if (strcmp(src, "random") == 0) {
        rk_fill_random(NPK_PREC_FP16, dst, count, seed);
        return true;
    }
    return rk_read_file(src, dst, count * 2);
}

int rk_matmul_epilogue(npk_rk *rt, const npk_rk_weights *w, rk_operands *o,
                       const rk_epilogue_opts *eo, uint64_t seed, bool check, bool json,
                       const npk_rk_info *info)
{
    const uint64_t mn = (uint64_t)o->m * o->n;
    uint16_t *scale = malloc(o->n * 2ull), *res = malloc(mn * 2), *c0 = NULL, *ref = NULL;
    npk_rk_epilogue ep = {0};
    npk_rk_stats st;
    npk_rk_verdict v = {0};
    uint64_t bad = 0, s = seed ^ 0x5ca1eu;
    int rc = 1;
    if (!scale || !res) {
        fprintf(stderr, "npukit rk matmul: out of memory for the epilogue operands\n");
        goto out;
    }
    if (eo->scale) {
        if (!load(eo->scale, scale, o->n, &s))
            goto out;
        ep.step[ep.count++] = (npk_rk_ew_step){NPK_EW_MUL, NPK_EW_PER_CHANNEL, scale};
    }
    if (eo->residual) {
        if (!load(eo->residual, res, mn, &s))
            goto out;
        ep.step[ep.count++] = (npk_rk_ew_step){NPK_EW_ADD, NPK_EW_PER_ELEMENT, res};
    }
    ep.no_fuse = eo->no_fuse;
    if (npk_rk_matmul_epilogue(rt, w, o->m, o->a, o->out, o->c, &ep, &st)) {
        cli_lib_error("rk matmul");
        goto out;
    }
    if (check) {
        /* the matmul alone against the exact product (its bound), then the epilogue exactly
         * as the SDP computes it, on that matmul's own output */
        c0 = malloc(mn * 2);
        ref = malloc(mn * 2);
        if (!c0 || !ref) {
            fprintf(stderr, "npukit rk matmul: out of memory for the check\n");
            goto out;
        }
        rk_operands plain = *o;
        plain.c = c0;
        if (npk_rk_matmul(rt, w, o->m, o->a, NPK_PREC_FP16, c0, NULL)) {
            cli_lib_error("rk matmul");
            goto out;
        }
        if (!rk_operands_check(&plain, &v))
            goto out;
        memcpy(ref, c0, mn * 2);
        for (uint32_t i = 0; i < ep.count; i++)
            rk_ew_reference(ep.step[i].op, NPK_PREC_FP16, o->m, o->n, ref, ep.step[i].operand,
                            ep.step[i].b, ref);
        for (uint64_t i = 0; i < mn; i++)
            bad += ((uint16_t *)o->c)[i] != ref[i];
    }
    const char *label = info->simulated ? "modelled" : "measured";
    const char *steps = eo->scale && eo->residual ? "* scale[n] + residual"
                        : eo->scale               ? "* scale[n]"
                                                  : "+ residual";
    bool printed = true;
    if (json) {
        cJSON *doc = json_doc();
        json_str(doc, "dtype", "fp16"); /* the epilogue's products are fp16 in and out */
        json_str(doc, "out", "fp16");
        json_u64(doc, "m", o->m);
        json_u64(doc, "k", o->k);
        json_u64(doc, "n", o->n);
        json_str(doc, "epilogue", steps);
        json_u64(doc, "tasks", st.tasks);
        json_u64(doc, "sdp_tasks", st.sdp_tasks);
        json_u64(doc, "submits", st.submits);
        json_u64(doc, "fused_jobs", st.fused_jobs);
        json_fixed(doc, "npu_ms", st.npu_span_ns / 1e6, 6);
        json_str(doc, "npu_time", label);
        json_fixed(doc, "host_ms", st.host_ns / 1e6, 6);
        if (check) {
            cJSON *c = json_obj(doc, "check");
            json_u64(c, "matmul_outside_bound", v.outside);
            json_u64(c, "epilogue_mismatches", bad);
            json_bool(c, "ok", !v.outside && !bad);
        }
        printed = json_print(doc, "rk matmul") == 0;
    } else {
        printf("fp16 %ux%ux%u -> fp16 %s on %s (%s)\n", o->m, o->k, o->n, steps, info->device,
               info->soc);
        printf("  tasks %u (SDP %u), submits %u (warm-ups %u, resets %u), %s\n", st.tasks,
               st.sdp_tasks, st.submits, st.warmups, st.resets,
               st.fused_jobs ? "fused: matmul and SDP tasks chained in one submit"
                             : "split: the matmul, then separate SDP submits");
        printf("  NPU time %.3f ms (%s), host time %.3f ms\n", st.npu_span_ns / 1e6, label,
               st.host_ns / 1e6);
        if (check)
            printf("  check vs CPU: matmul %llu elements outside the bound; epilogue %llu of %llu "
                   "elements differ from the host's fp32 ops on that matmul (exact required): "
                   "%s\n",
                   (unsigned long long)v.outside, (unsigned long long)bad, (unsigned long long)mn,
                   v.outside || bad ? "MISMATCH" : "ok");
    }
    rc = v.outside || bad || !printed ? 1 : 0;
out:
    free(scale);
    free(res);
    free(c0);
    free(ref);
    return rc;
}
