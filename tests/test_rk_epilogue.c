/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* setenv, pthread_rwlock_t in runtime_internal.h */
/* Matmuls with element-wise epilogues on the faithful simulator: the per-channel-scaled fp16
 * matmul and C = A.B (.) scale + residual, fused into one submit per matmul task and split into
 * separate submits, against a CPU reference over the edge shapes; the fusion rules; bad input. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/runtime/runtime_internal.h"

static uint64_t seed = 11;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

/* Multiples of 1/8 in [-1, 1]: every product and short sum is exact in fp32. */
static uint16_t *make(size_t count)
{
    uint16_t *v = malloc(count * 2 + 2);
    for (size_t i = 0; i < count; i++)
        v[i] = npk_f32_to_f16((float)((int)(rnd() % 17) - 8) / 8.0f);
    return v;
}

/* The reference: A.B summed in double (exact here) rounded to fp16, then each step in fp32
 * rounded to fp16. */
static void reference(uint32_t m, uint32_t k, uint32_t n, const uint16_t *a, const uint16_t *b,
                      const npk_rk_epilogue *ep, uint16_t *c)
{
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            double acc = 0;
            for (uint32_t x = 0; x < k; x++)
                acc += (double)npk_f16_to_f32(a[(size_t)i * k + x]) *
                       npk_f16_to_f32(b[(size_t)x * n + j]);
            uint16_t v = npk_f32_to_f16((float)acc);
            for (uint32_t s = 0; ep && s < ep->count; s++) {
                const uint16_t *op = ep->step[s].b;
                float y = npk_f16_to_f32(
                    op[ep->step[s].operand == NPK_EW_PER_CHANNEL ? j : (size_t)i * n + j]);
                float x = npk_f16_to_f32(v), r;
                /* the binary ops the epilogues here chain (add, mul, max, min) */
                const npk_rk_ew_op ew = ep->step[s].op;
                r = ew == NPK_EW_ADD   ? x + y
                    : ew == NPK_EW_MUL ? x * y
                    : ew == NPK_EW_MAX ? (x > y ? x : y)
                                       : (x < y ? x : y);
                v = npk_f32_to_f16(r);
            }
            c[(size_t)i * n + j] = v;
        }
}

static uint64_t diff(const uint16_t *x, const uint16_t *y, size_t count)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < count; i++)
        bad += x[i] != y[i];
    return bad;
}

/* C = A.B (.) scale + residual, and the scaled matmul, on one shape; fused_jobs of the
 * epilogue call in *fused. */
static void run_shape(npk_rk *rt, uint32_t m, uint32_t k, uint32_t n, bool no_fuse, uint32_t *fused)
{
    uint16_t *a = make((size_t)m * k), *b = make((size_t)k * n), *scale = make(n),
             *res = make((size_t)m * n);
    uint16_t *c = malloc((size_t)m * n * 2), *ref = malloc((size_t)m * n * 2);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    npk_rk_epilogue ep = {
        2,
        {{NPK_EW_MUL, NPK_EW_PER_CHANNEL, scale}, {NPK_EW_ADD, NPK_EW_PER_ELEMENT, res}},
        no_fuse};
    npk_rk_stats st;
    reference(m, k, n, a, b, &ep, ref);
    memset(c, 0xEE, (size_t)m * n * 2);
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, &st), NPK_OK);
    uint64_t bad = diff(c, ref, (size_t)m * n);
    if (bad)
        fprintf(stderr, "epilogue %ux%ux%u%s: %llu wrong (%s)\n", m, k, n, no_fuse ? " split" : "",
                (unsigned long long)bad, npk_last_error());
    CHECK_EQ(bad, 0);
    *fused = st.fused_jobs;
    CHECK(st.sdp_tasks >= 2);

    /* max and min steps, per element then per channel */
    npk_rk_epilogue ep2 = {
        2,
        {{NPK_EW_MAX, NPK_EW_PER_ELEMENT, res}, {NPK_EW_MIN, NPK_EW_PER_CHANNEL, scale}},
        no_fuse};
    reference(m, k, n, a, b, &ep2, ref);
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep2, &st), NPK_OK);
    CHECK_EQ(diff(c, ref, (size_t)m * n), 0);

    ep.count = 1;
    reference(m, k, n, a, b, &ep, ref);
    memset(c, 0xEE, (size_t)m * n * 2);
    CHECK_EQ(npk_rk_matmul_scaled(rt, w, m, a, scale, c, &st), NPK_OK);
    bad = diff(c, ref, (size_t)m * n);
    if (bad)
        fprintf(stderr, "scaled %ux%ux%u: %llu wrong\n", m, k, n, (unsigned long long)bad);
    CHECK_EQ(bad, 0);
    /* SDP tasks of at most 64 rows */
    CHECK(st.sdp_tasks >= (m + 63) / 64);
    npk_rk_weights_free(rt, w);
    free(a);
    free(b);
    free(scale);
    free(res);
    free(c);
    free(ref);
}

static void test_shapes(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 3), NPK_OK);
    static const uint32_t ns[] = {1, 3, 17, 33}, ms[] = {1, 64, 65};
    uint32_t fused;
    for (unsigned mi = 0; mi < 3; mi++)
        for (unsigned ni = 0; ni < 4; ni++) {
            run_shape(rt, ms[mi], 64, ns[ni], false, &fused);
            CHECK(fused >= 1); /* one K slice, fp16 out, chain 3: fused */
            run_shape(rt, ms[mi], 64, ns[ni], true, &fused);
            CHECK_EQ(fused, 0);
        }
    /* K off the 32-element tiles and past them, fused and split */
    static const uint32_t ks[] = {40, 100, 1000};
    for (unsigned ki = 0; ki < 3; ki++) {
        run_shape(rt, 65, ks[ki], 33, false, &fused);
        CHECK(fused >= 1);
        run_shape(rt, 65, ks[ki], 33, true, &fused);
        CHECK_EQ(fused, 0);
    }
    /* N = 8192 spreads over the cores: fused on each core at once, and on one core */
    run_shape(rt, 65, 32, 8192, false, &fused);
    CHECK(fused >= 3);
    CHECK_EQ(npk_rk_set_cores(rt, 1), NPK_OK);
    run_shape(rt, 65, 32, 8192, false, &fused);
    CHECK(fused >= 1);
    /* a chain too short for the matmul and two steps: split */
    CHECK_EQ(npk_rk_set_chain(rt, 1), NPK_OK);
    run_shape(rt, 64, 64, 33, false, &fused);
    CHECK_EQ(fused, 0);
    npk_rk_close(rt);
}

/* One epilogue call (fused unless no_fuse) into a poisoned C: the mismatches against ref. */
static uint64_t epilogue_diff(npk_rk *rt, const npk_rk_weights *w, uint32_t m, uint32_t n,
                              const uint16_t *a, npk_rk_epilogue *ep, bool no_fuse, uint16_t *c,
                              const uint16_t *ref, npk_rk_stats *st)
{
    ep->no_fuse = no_fuse;
    memset(c, 0xEE, (size_t)m * n * 2);
    if (npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, ep, st) != NPK_OK) {
        fprintf(stderr, "epilogue %ux%u: %s\n", m, n, npk_last_error());
        return UINT64_MAX;
    }
    return diff(c, ref, (size_t)m * n);
}

/* The fused jobs of a matmul spread over 3 cores run one worker per core, as the matmul's do:
 * every core's jobs fused, the same result as on one core and split, and an NPU span (the
 * busiest core) no longer than the split's matmul + SDP. */
static void test_cores(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 3), NPK_OK);
    const uint32_t m = 64, k = 512, n = 1024;
    uint16_t *a = make((size_t)m * k), *b = make((size_t)k * n), *scale = make(n),
             *res = make((size_t)m * n);
    uint16_t *c = malloc((size_t)m * n * 2), *ref = malloc((size_t)m * n * 2);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    npk_rk_epilogue ep = {
        2, {{NPK_EW_MUL, NPK_EW_PER_CHANNEL, scale}, {NPK_EW_ADD, NPK_EW_PER_ELEMENT, res}}, false};
    reference(m, k, n, a, b, &ep, ref);
    npk_rk_stats fused, split;
    /* each path once first: its output buffers grown and warmed up, so the runs compared
     * below are submits of the work alone */
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, &fused), NPK_OK);
    ep.no_fuse = true;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, &split), NPK_OK);
    CHECK_EQ(epilogue_diff(rt, w, m, n, a, &ep, false, c, ref, &fused), 0);
    CHECK_EQ(fused.warmups, 0);
    CHECK_EQ(fused.cores_used, 3);
    CHECK_EQ(fused.core_mask, 7);
    CHECK_EQ(fused.fused_jobs, fused.tasks / 3); /* each job: the matmul task and 2 steps */
    CHECK(fused.npu_span_ns < fused.npu_ns);     /* the cores ran side by side */
    CHECK_EQ(epilogue_diff(rt, w, m, n, a, &ep, true, c, ref, &split), 0);
    CHECK_EQ(split.fused_jobs, 0);
    CHECK_EQ(split.warmups, 0);
    CHECK(fused.npu_span_ns <= split.npu_span_ns);
    CHECK(fused.submits < split.submits);
    /* one core: the same result */
    CHECK_EQ(npk_rk_set_cores(rt, 1), NPK_OK);
    CHECK_EQ(epilogue_diff(rt, w, m, n, a, &ep, false, c, ref, &fused), 0);
    CHECK_EQ(fused.core_mask, 1);
    CHECK(fused.fused_jobs >= 1);
    CHECK_EQ(fused.npu_span_ns, fused.npu_ns);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(scale);
    free(res);
    free(c);
    free(ref);
}

/* K slices write fp32 partials: the dtype-path rule keeps the steps out of the chain. */
static void test_k_slices_split(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    uint32_t m = 64, k = 8192 + 64, n = 16;
    uint16_t *a = make((size_t)m * k), *b = make((size_t)k * n), *scale = make(n);
    uint16_t *c = malloc((size_t)m * n * 2), *ref = malloc((size_t)m * n * 2);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    npk_rk_epilogue ep = {1, {{NPK_EW_MUL, NPK_EW_PER_CHANNEL, scale}}, false};
    reference(m, k, n, a, b, &ep, ref);
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, &st), NPK_OK);
    CHECK_EQ(st.fused_jobs, 0);
    CHECK_EQ(diff(c, ref, (size_t)m * n), 0);
    npk_rk_weights_free(rt, w);
    free(a);
    free(b);
    free(scale);
    free(c);
    free(ref);
    npk_rk_close(rt);
}

/* The rocket kernel runs SDP tasks (they end on the DPU interrupt it waits for, facts A.2) but
 * kicks each task on its own, so the epilogue runs split: the same result, no fused job. */
static void test_rocket_split(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 3), NPK_OK);
    uint32_t fused = 1;
    run_shape(rt, 65, 64, 33, false, &fused);
    CHECK_EQ(fused, 0);
    run_shape(rt, 1, 100, 17, false, &fused);
    CHECK_EQ(fused, 0);
    npk_rk_close(rt);
}

static void test_bad_input(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t b8[64 * 32] = {0}, a8[64] = {0};
    uint16_t b16[64 * 32] = {0}, a16[64] = {0}, s[32] = {0}, c[32];
    npk_rk_weights *w8 = NULL, *w16 = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 64, 32, b8, 1, &w8), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, 64, 32, b16, 1, &w16), NPK_OK);
    npk_rk_epilogue ep = {1, {{NPK_EW_MUL, NPK_EW_PER_CHANNEL, s}}, false};
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w8, 1, a8, NPK_PREC_FP16, c, &ep, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "dtype-path rule");
    CHECK_EQ(npk_rk_matmul_scaled(rt, w8, 1, a8, s, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "int8 weights write int32");
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w16, 1, a16, NPK_PREC_FP32, c, &ep, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "output fp32");
    CHECK_EQ(npk_rk_matmul_scaled(rt, w16, 1, a16, NULL, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL scale");
    ep.count = NPK_RK_EPILOGUE_MAX + 1;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w16, 1, a16, NPK_PREC_FP16, c, &ep, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "5 steps exceed 4");
    ep.count = 1;
    ep.step[0].op = NPK_EW_RELU;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w16, 1, a16, NPK_PREC_FP16, c, &ep, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "epilogue step 0");
    ep.step[0].op = NPK_EW_ADD;
    ep.step[0].b = NULL;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w16, 1, a16, NPK_PREC_FP16, c, &ep, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL B");
    /* no steps: a plain matmul */
    ep.count = 0;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w16, 1, a16, NPK_PREC_FP32, (float[32]){0}, &ep, NULL),
             NPK_OK);
    npk_rk_weights_free(rt, w8);
    npk_rk_weights_free(rt, w16);
    npk_rk_close(rt);
}

typedef struct scaled_call {
    npk_rk *rt;
    const npk_rk_weights *w;
    uint32_t m;
    const uint16_t *a, *scale;
    uint16_t *c;
    npk_status s;
} scaled_call;

static void *scaled_main(void *arg)
{
    scaled_call *x = arg;
    x->s = npk_rk_matmul_scaled(x->rt, x->w, x->m, x->a, x->scale, x->c, NULL);
    return NULL;
}

/* A matmul with element-wise steps is one call: it takes the runtime's lock once, so no other
 * call runs between its matmul and its steps, and another thread's call meanwhile gets
 * NPK_EBUSY like during any call. */
static void test_one_call(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 3), NPK_OK);
    const uint32_t m = 65, k = 64, n = 33;
    uint16_t *a = make((size_t)m * k), *b = make((size_t)k * n), *scale = make(n);
    uint16_t *c = malloc((size_t)m * n * 2), *ref = malloc((size_t)m * n * 2);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    npk_rk_epilogue ep = {1, {{NPK_EW_MUL, NPK_EW_PER_CHANNEL, scale}}, false};
    reference(m, k, n, a, b, &ep, ref);

    /* The lock is taken once per call, whatever the phases (matmul, then SDP tasks). */
    npk_rk_stats st;
    uint64_t calls = rt->calls;
    CHECK_EQ(npk_rk_matmul_scaled(rt, w, m, a, scale, c, &st), NPK_OK);
    CHECK_EQ(rt->calls, calls + 1);
    CHECK(st.sdp_tasks >= 2);
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, &st), NPK_OK);
    CHECK(st.fused_jobs >= 1);
    CHECK_EQ(rt->calls, calls + 2);
    ep.no_fuse = true;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, &st), NPK_OK);
    CHECK_EQ(st.fused_jobs, 0);
    CHECK_EQ(rt->calls, calls + 3);
    CHECK_EQ(diff(c, ref, (size_t)m * n), 0);

    /* A call in progress (the lock held) turns each entry point away. */
    pthread_mutex_lock(&rt->lock);
    CHECK_EQ(npk_rk_matmul_scaled(rt, w, m, a, scale, c, NULL), NPK_EBUSY);
    CHECK_STR_HAS(npk_last_error(), "scaled matmul: another call is running");
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, NULL), NPK_EBUSY);
    ep.no_fuse = false;
    CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &ep, NULL), NPK_EBUSY);
    CHECK_STR_HAS(npk_last_error(), "epilogue: another call is running");
    pthread_mutex_unlock(&rt->lock);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);

    /* A scaled matmul held inside its matmul phase (its core's job lock taken here), entered
     * once it has set the engine's precision mode: another thread's calls get NPK_EBUSY, and
     * it completes with the right result once let go. */
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    pthread_mutex_t *job = &rt->core[rt->core_map[0]].job_lock;
    pthread_mutex_lock(job);
    scaled_call x = {rt, w, m, a, scale, c, NPK_EINVAL};
    memset(c, 0xEE, (size_t)m * n * 2);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, scaled_main, &x), 0);
    for (bool in = false; !in; sched_yield()) {
        pthread_mutex_lock(&rt->eng->policy_lock);
        in = rt->eng->have_prec;
        pthread_mutex_unlock(&rt->eng->policy_lock);
    }
    uint16_t one[8] = {0};
    CHECK_EQ(
        npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = 1, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = one, .b = one, .c = one}, NULL),
        NPK_EBUSY);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_FP16, c, NULL), NPK_EBUSY);
    pthread_mutex_unlock(job);
    pthread_join(th, NULL);
    CHECK_EQ(x.s, NPK_OK);
    CHECK_EQ(diff(c, ref, (size_t)m * n), 0);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(scale);
    free(c);
    free(ref);
}

int main(void)
{
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    test_shapes();
    test_cores();
    test_k_slices_split();
    test_bad_input();
    test_rocket_split();
    test_one_call();
    return check_done();
}
