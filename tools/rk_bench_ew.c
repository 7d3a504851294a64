/* SPDX-License-Identifier: MIT */
/* `rk bench --epilogue`: the matmul with an element-wise epilogue (C = A.B (.) scale + residual)
 * fused into one submit per matmul task against the same run split into the matmul and separate
 * SDP submits, and the per-channel-scaled fp16 path at M = 64 against the spec's figures. */
#include "rk_bench_ew.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/measure.h"
#include "npukit/rk.h"

/* The spec's per-channel-scaled path: "flat ~40-110 us across N=64..2048" at M = 64. */
#define SPEC_LO_US 40.0
#define SPEC_HI_US 110.0
static const uint32_t scaled_n[] = {64, 256, 1024, 2048};
enum { SCALED_K = 512, SCALED_N = sizeof scaled_n / sizeof scaled_n[0] };

/* Medians of the NPU span and host time of `iters` calls after `warm`. */
typedef struct timing {
    double npu_ns, host_ns;
    uint32_t submits, fused;
} timing;

typedef struct job {
    npk_rk *rt;
    const npk_rk_weights *w;
    uint32_t m, n;
    const void *a;
    void *c;
    const npk_rk_epilogue *ep; /* NULL: the scaled matmul by `scale`, or with no scale the SDP */
    const uint16_t *scale;     /* mul alone on C [M][N] by the weights' N channels */
} job;

static bool measure(const job *j, int iters, int warm, timing *t)
{
    double *npu = calloc((size_t)iters, 8), *host = calloc((size_t)iters, 8);
    bool ok = npu && host;
    npk_rk_stats st = {0};
    for (int i = -warm; ok && i < iters; i++) {
        npk_status s;
        if (j->ep)
            s = npk_rk_matmul_epilogue(j->rt, j->w, j->m, j->a, NPK_PREC_FP16, j->c, j->ep, &st);
        else if (j->scale)
            s = npk_rk_matmul_scaled(j->rt, j->w, j->m, j->a, j->scale, j->c, &st);
        else
            s = npk_rk_ew(j->rt, &(npk_rk_ew_args){.op = NPK_EW_MUL, .prec = NPK_PREC_FP16, .m = j->m, .n = j->n, .operand = NPK_EW_PER_CHANNEL, .a = j->c, .b = j->a, .c = j->c}, &st);
        if (s) {
            cli_lib_error("rk bench");
            ok = false;
        } else if (i >= 0) {
            npu[i] = (double)st.npu_span_ns;
            host[i] = (double)st.host_ns;
        }
    }
    if (ok) {
        t->npu_ns = npk_median(npu, (size_t)iters);
        t->host_ns = npk_median(host, (size_t)iters);
        t->submits = st.submits;
        t->fused = st.fused_jobs;
    }
    free(npu);
    free(host);
    return ok;
}

static uint16_t *random_fp16(size_t count, uint64_t seed)
{
    uint16_t *v = malloc(count * 2 + 2);
    for (size_t i = 0; v && i < count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (uint16_t)(0x3800 + (seed >> 54)); /* fp16 in [0.5, 1) */
    }
    return v;
}

bool rk_bench_ew(npk_rk *rt, const npk_rk_weights *w, const rk_operands *o, int iters, int warm,
                 cJSON *doc)
{
    if (npk_rk_set_chain(rt, 3) != NPK_OK) { /* the matmul and two steps in one submit */
        cli_lib_error("rk bench");
        return false;
    }
    uint16_t *scale = random_fp16(o->n > 2048 ? o->n : 2048, 5),
             *res = random_fp16((size_t)o->m * o->n, 6);
    uint16_t *c = malloc((size_t)(o->m > 64 ? o->m : 64) * (o->n > 2048 ? o->n : 2048) * 2);
    uint16_t *a64 = random_fp16((size_t)64 * SCALED_K, 7), *b = NULL;
    bool ok = scale && res && c && a64;
    npk_rk_epilogue fused = {2,
                             {{NPK_EW_MUL, NPK_EW_PER_CHANNEL, scale},
                              {NPK_EW_ADD, NPK_EW_PER_ELEMENT, res}},
                             false},
                    split = fused;
    split.no_fuse = true;
    timing tf = {0}, ts = {0}, tn[SCALED_N] = {{0}}, te[SCALED_N] = {{0}};
    job j = {rt, w, o->m, o->n, o->a, c, &fused, NULL};
    ok = ok && measure(&j, iters, warm, &tf);
    j.ep = &split;
    ok = ok && measure(&j, iters, warm, &ts);
    for (unsigned i = 0; ok && i < SCALED_N; i++) {
        npk_rk_weights *ws = NULL;
        b = random_fp16((size_t)SCALED_K * scaled_n[i], 8 + i);
        ok = b &&
             npk_rk_weights_pack(rt, NPK_PREC_FP16, SCALED_K, scaled_n[i], b, 64, &ws) == NPK_OK;
        if (!ok)
            cli_lib_error("rk bench");
        job js = {rt, ws, 64, scaled_n[i], a64, c, NULL, scale};
        ok = ok && measure(&js, iters, warm, &tn[i]);
        job je = {rt, NULL, 64, scaled_n[i], scale, c, NULL, NULL}; /* the SDP task alone */
        ok = ok && measure(&je, iters, warm, &te[i]);
        npk_rk_weights_free(rt, ws);
        free(b);
    }
    if (ok && doc) {
        cJSON *ep = json_obj(doc, "epilogue");
        json_str(ep, "steps", "mul per-channel, add per-element");
        cJSON *f = json_obj(ep, "fused"), *sp = json_obj(ep, "split");
        json_fixed(f, "npu_ms", tf.npu_ns / 1e6, 6);
        json_fixed(f, "host_ms", tf.host_ns / 1e6, 6);
        json_u64(f, "submits", tf.submits);
        json_u64(f, "fused_jobs", tf.fused);
        json_fixed(sp, "npu_ms", ts.npu_ns / 1e6, 6);
        json_fixed(sp, "host_ms", ts.host_ns / 1e6, 6);
        json_u64(sp, "submits", ts.submits);
        char key[32];
        snprintf(key, sizeof key, "scaled_m64_k%u", SCALED_K);
        cJSON *scaled = json_arr(doc, key);
        for (unsigned i = 0; i < SCALED_N; i++) {
            cJSON *row = json_item(scaled);
            json_u64(row, "n", scaled_n[i]);
            json_fixed(row, "npu_us", tn[i].npu_ns / 1e3, 3);
            json_fixed(row, "host_us", tn[i].host_ns / 1e3, 3);
            json_fixed(row, "sdp_npu_us", te[i].npu_ns / 1e3, 3);
            cJSON *spec = json_arr(row, "spec_us");
            json_fixed(spec, NULL, SPEC_LO_US, 0);
            json_fixed(spec, NULL, SPEC_HI_US, 0);
        }
    } else if (ok) {
        printf("  epilogue C = A.B (.) scale[n] + residual (chain 3), medians:\n");
        printf("    fused (%u of %u submits chain matmul->SDP): NPU %8.3f ms, host %8.3f ms\n",
               tf.fused, tf.submits, tf.npu_ns / 1e6, tf.host_ns / 1e6);
        printf("    split (matmul, then SDP submits, %u submits): NPU %8.3f ms, host %8.3f ms\n",
               ts.submits, ts.npu_ns / 1e6, ts.host_ns / 1e6);
        printf("    fused / split: NPU %.2f, host %.2f\n",
               ts.npu_ns > 0 ? tf.npu_ns / ts.npu_ns : 0,
               ts.host_ns > 0 ? tf.host_ns / ts.host_ns : 0);
        printf("  per-channel-scaled fp16 matmul, M=64 K=%u (spec: ~%.0f-%.0f us flat over "
               "N=64..2048):\n",
               SCALED_K, SPEC_LO_US, SPEC_HI_US);
        for (unsigned i = 0; i < SCALED_N; i++)
            printf("    N=%-5u NPU %8.1f us (matmul + SDP submits; the SDP submit alone %6.1f us), "
                   "host %8.1f us\n",
                   scaled_n[i], tn[i].npu_ns / 1e3, te[i].npu_ns / 1e3, tn[i].host_ns / 1e3);
    }
    free(scale);
    free(res);
    free(c);
    free(a64);
    return ok;
}
