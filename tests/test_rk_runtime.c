/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The runtime on the faithful simulator: results against the CPU reference, the state policy
 * against the hazards it exists for, and every bad argument. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define RK_TEST_SEED 42
#include "rk_operands_testlib.h"
#include "npukit/rk_plan.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rk_reference.h"
#include "npukit/rksim.h"
#include "rk/runtime/runtime_internal.h"
#include "rk/runtime/runtime_request.h"

/* Run one matmul and compare with the reference; returns the mismatching elements. */
static uint64_t run_checked(npk_rk *rt, npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                            uint32_t n, npk_rk_stats *st)
{
    void *a = rk_test_operands(in, (size_t)m * k), *b = rk_test_operands(in, (size_t)k * n);
    size_t ob = out == NPK_PREC_FP16 ? 2 : 4;
    void *c = calloc((size_t)m * n, ob), *ref = calloc((size_t)m * n, ob);
    npk_rk_weights *w = NULL;
    uint64_t bad = UINT64_MAX;
    if (npk_rk_weights_pack(rt, in, k, n, b, m, &w) == NPK_OK &&
        npk_rk_matmul(rt, w, m, a, out, c, st) == NPK_OK &&
        npk_rk_reference_matmul(in, out, m, k, n, a, b, ref) == NPK_OK) {
        /* These operands (multiples of 1/8, small K) are exact in fp32 accumulation. */
        bad = npk_rk_compare(out, c, ref, (uint64_t)m * n).mismatches;
    } else {
        fprintf(stderr, "run %ux%ux%u: %s\n", m, k, n, npk_last_error());
    }
    npk_rk_weights_free(rt, w);
    free(a);
    free(b);
    free(c);
    free(ref);
    return bad;
}

/* A last K slice the planner zero-pads to the others' K (392 of 904 padded to 512, which keeps
 * the sched-1 M tile): the weights are packed with the zero tail, each feature slot's tail is
 * zeroed (after an int8 call the slot's old bytes read as fp16 can be NaN, and NaN * 0 is NaN),
 * and the results are exact. */
static void test_padded_last_slice(void)
{
    static const struct {
        npk_rk_prec in, out;
        uint32_t m, k, n;
        unsigned cores;
    } cases[] = {
        {NPK_PREC_INT8, NPK_PREC_INT32, 700, 904, 64, 1},
        {NPK_PREC_FP16, NPK_PREC_FP32, 300, 904, 1024, 2}, /* wide N: the cores split N */
        {NPK_PREC_INT8, NPK_PREC_INT32, 130, 904, 96, 1},
        {NPK_PREC_FP16, NPK_PREC_FP32, 100, 904, 48, 1},
    };
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 2), NPK_OK); /* the padded task in its own feature slot */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        npk_rk_plan_request req;
        npk_rk_plan_request_init(&req, cases[i].in, cases[i].m, cases[i].k, cases[i].n);
        req.cores = cases[i].cores;
        bool pad = false;
        CHECK_EQ(npk_rk_plan_k_choice(&req, &pad), 512);
        CHECK(pad);
        CHECK_EQ(npk_rk_set_cores(rt, cases[i].cores), NPK_OK);
        npk_rk_stats st;
        CHECK_EQ(
            run_checked(rt, cases[i].in, cases[i].out, cases[i].m, cases[i].k, cases[i].n, &st), 0);
        /* a second call reuses the feature slots the first one zeroed and filled */
        CHECK_EQ(
            run_checked(rt, cases[i].in, cases[i].out, cases[i].m, cases[i].k, cases[i].n, &st), 0);
    }
    npk_rk_close(rt);
}

static void test_open_query(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK(info.simulated);
    CHECK_STR_HAS(info.soc, "rk3588");
    CHECK_EQ(info.cores, 3);
    CHECK_EQ(info.drv_version, 908);
    CHECK_EQ(npk_rk_set_cores(rt, 4), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "cores=4");
    CHECK_EQ(npk_rk_set_cores(rt, 2), NPK_OK);
    npk_rk_close(rt);
    CHECK(npk_rk_open("/nonexistent/card9", &rt) != NPK_OK);
}

/* Hazards 1-4 in the faithful simulator: the runtime's warm-up, stable feature buffer, reset
 * on integer entry and filled subcore entries give exact results on every core. */
static void test_policy_defences(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_stats st;
    /* fp16 first: fresh output buffers are warmed once per core, no reset (fp16 never wedges). */
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP32, 8, 64, 96, &st), 0);
    CHECK_EQ(st.warmups, 3);
    CHECK_EQ(st.resets, 0);
    CHECK_EQ(st.retries, 0);
    /* Warm buffers stay warm: no second warm-up; a new A in the same feature buffer is fine. */
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP32, 8, 64, 96, &st), 0);
    CHECK_EQ(st.warmups, 0);
    /* Entering int8: one ACT_RESET, the warm-ups again, and no wedge. */
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 5, 96, 96, &st), 0);
    CHECK_EQ(st.resets, 1);
    CHECK_EQ(st.retries, 0);
    CHECK(st.warmups >= 1);
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 5, 96, 96, &st), 0);
    CHECK_EQ(st.resets, 0);
    /* int4, then back to fp16 with fp16 output. */
    CHECK_EQ(run_checked(rt, NPK_PREC_INT4, NPK_PREC_INT32, 3, 1000, 200, &st), 0);
    CHECK_EQ(st.resets, 1);
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP16, 4, 64, 64, &st), 0);
    CHECK_EQ(st.resets, 0);
    /* The simulator saw no crash (hazard 4) and no wedge. */
    CHECK(!rksim_is_dead(npk_rk_device_sim(rt->dev)));
    npk_rk_close(rt);
}

/* A wedge is recovered with a reset and one retry, never a submit straight over it: make the
 * runtime believe int8 is already entered so its first int8 submit wedges (hazard 3). */
static void test_wedge_recovery(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_stats st;
    rt->eng->have_prec = true;
    rt->eng->last_prec = NPK_PREC_INT8;
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 4, 64, 32, &st), 0);
    CHECK_EQ(st.retries, 1);
    CHECK_EQ(st.resets, 1);
    CHECK(!rksim_is_dead(npk_rk_device_sim(rt->dev)));
    npk_rk_close(rt);
}

/* Chained jobs: consecutive tasks of a core share one SUBMIT through linked trailers; the
 * results stay exact, every dtype, and a wedge inside a chained job is recovered too. */
static void test_chained_jobs(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 0), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "chain=0: tasks per submit must be 1..64");
    CHECK_EQ(npk_rk_set_chain(rt, 65), NPK_EINVAL);
    CHECK_EQ(npk_rk_set_chain(rt, 8), NPK_OK);
    npk_rk_stats st;
    /* int4 K=2000 in slices of 480 x M tiles: many tasks per core. */
    CHECK_EQ(run_checked(rt, NPK_PREC_INT4, NPK_PREC_INT32, 70, 2000, 200, &st), 0);
    CHECK(st.tasks > 8);
    CHECK(st.submits - st.warmups < st.tasks);
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP32, 400, 3000, 100, &st), 0);
    CHECK(st.submits - st.warmups < st.tasks);
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP16, 1, 100, 17, &st), 0);
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 300, 5000, 64, &st), 0);
    /* A wedge in a chained job: reset, retry once, exact result. After fp16, make the runtime
     * believe int8 is current so it misses the entry reset. */
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP32, 400, 3000, 100, &st), 0);
    rt->eng->have_prec = true;
    rt->eng->last_prec = NPK_PREC_INT8;
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 300, 5000, 64, &st), 0);
    /* Every core keeps its own mode (hazard 3 is per core): a core whose int8 submit was
     * already in flight when another core's wedge was seen wedges too, so there is one retry
     * per wedged core, at least one and at most one per core. */
    CHECK(st.retries >= 1 && st.retries <= NPK_RK_MAX_CORES);
    CHECK(st.resets >= 1);
    CHECK(!rksim_is_dead(npk_rk_device_sim(rt->dev)));
    npk_rk_close(rt);
}

/* Weights belong to the runtime that packed them: their IOVAs name buffers of its device. On
 * another device the same IOVA may be another live buffer, which used to give a silently wrong
 * result (here the other runtime's own weights). */
static void test_foreign_weights(void)
{
    npk_rk *r1, *r2;
    CHECK_EQ(npk_rk_open("sim", &r1), NPK_OK);
    CHECK_EQ(npk_rk_open("sim", &r2), NPK_OK);
    int8_t b1[64 * 32], b2[64 * 32], a[64];
    int32_t c[32] = {0};
    memset(b1, 1, sizeof b1);
    memset(b2, 2, sizeof b2);
    memset(a, 1, sizeof a);
    npk_rk_weights *w1, *w2;
    CHECK_EQ(npk_rk_weights_pack(r1, NPK_PREC_INT8, 64, 32, b1, 1, &w1), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(r2, NPK_PREC_INT8, 64, 32, b2, 1, &w2), NPK_OK);
    CHECK_EQ(npk_rk_matmul(r2, w1, 1, a, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "packed by another runtime");
    /* Freed through the wrong runtime: the owner's buffer goes, r2's weights stay intact. */
    npk_rk_weights_free(r2, w1);
    CHECK_EQ(npk_rk_matmul(r2, w2, 1, a, NPK_PREC_INT32, c, NULL), NPK_OK);
    CHECK_EQ(c[0], 128);
    CHECK_EQ(c[31], 128);
    npk_rk_weights_free(r2, w2);
    npk_rk_close(r1);
    npk_rk_close(r2);
}

/* Three cores driven from three threads, and all of them wedging at once: the reset waits for
 * every in-flight job, happens once for all, and each core retries once (hazards 3 and 5). */
static void test_parallel_cores_wedge(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_stats st;
    CHECK_EQ(run_checked(rt, NPK_PREC_FP16, NPK_PREC_FP32, 64, 512, 192, &st), 0);
    CHECK_EQ(st.cores_used, 3);
    rt->eng->have_prec = true;
    rt->eng->last_prec = NPK_PREC_INT8; /* the runtime misses the int8 entry reset on every core */
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 64, 512, 192, &st), 0);
    CHECK_EQ(st.cores_used, 3);
    CHECK(st.retries >= 1 && st.retries <= 3);
    CHECK(st.resets >= 1);
    CHECK(!rksim_is_dead(npk_rk_device_sim(rt->dev)));
    /* And the next call runs clean. */
    CHECK_EQ(run_checked(rt, NPK_PREC_INT8, NPK_PREC_INT32, 64, 512, 192, &st), 0);
    CHECK_EQ(st.retries, 0);
    npk_rk_close(rt);
}

static void test_bad_arguments(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL output handle");
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t b[64 * 32] = {0}, a[64] = {0};
    int32_t c[32];
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_BF16, 64, 32, b, 1, &w), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "bf16");
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 0, 32, b, 1, &w), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "K=0");
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 64, 32, NULL, 1, &w), NPK_EINVAL);
    /* The limits are checked before B is read. */
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, (1u << 24) + 1, 32, b, 1, &w), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "K=16777217 N=32: each must be at most 16777216");
    /* m_hint is a hint: one beyond the planner's limit slices as the limit does (it used to
     * fail with the planner's error about an M the caller never asked to multiply). */
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 64, 32, b, UINT32_MAX, &w), NPK_OK);
    CHECK_EQ(npk_rk_matmul(rt, w, (1u << 24) + 1, a, NPK_PREC_INT32, c, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "M=16777217 exceeds 16777216");
    npk_rk_weights_free(rt, w);
    w = NULL;
    b[5] = 9;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT4, 64, 32, b, 1, &w), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "B[5] = 9 is outside the int4 range [-8, 7]");
    b[5] = 0;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT4, 64, 32, b, 1, &w), NPK_OK);
    a[3] = -9;
    CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "A[3] = -9");
    a[3] = 0;
    CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "int4 weights give int32, not fp32");
    CHECK_EQ(npk_rk_matmul(rt, w, 0, a, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "M=0");
    CHECK_EQ(npk_rk_matmul(rt, w, 1, NULL, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul(rt, NULL, 1, a, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, NULL), NPK_OK);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
}

/* A call that finds another in progress gets NPK_EBUSY at once. */
static void test_busy(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t b[64 * 32] = {0}, a[64] = {0};
    int32_t c[32];
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 64, 32, b, 1, &w), NPK_OK);
    pthread_mutex_lock(&rt->lock); /* stands for a call in progress on another thread */
    CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, NULL), NPK_EBUSY);
    CHECK_STR_HAS(npk_last_error(), "another call is running");
    pthread_mutex_unlock(&rt->lock);
    CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, NULL), NPK_OK);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
}

/* The same call is tiled the same way on a fresh runtime and after its buffers are warm: a
 * warm-up is paid once per buffer and does not steer the choice (fp16 1000x1024x32 on 3 cores
 * splits M: with a fresh runtime's warm-ups costed it would take 167-row tiles, 176 after). */
static void test_plan_independent_of_buffers(void)
{
    const uint32_t m = 1000, k = 1024, n = 32;
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_cores(rt, 3), NPK_OK);
    void *a = rk_test_operands(NPK_PREC_FP16, (size_t)m * k);
    void *b = rk_test_operands(NPK_PREC_FP16, (size_t)k * n);
    float *c = calloc((size_t)m * n, sizeof *c);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    npk_rk_plan first, later;
    npk_rk_plan_request req;
    npk_rk_matmul_request(rt, w, m, NPK_PREC_FP32, &req);
    CHECK_EQ(npk_rk_plan_matmul(&req, &first), NPK_OK);
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_FP32, c, &st), NPK_OK);
    CHECK(st.warmups > 0); /* the buffers were fresh */
    npk_rk_matmul_request(rt, w, m, NPK_PREC_FP32, &req);
    CHECK_EQ(npk_rk_plan_matmul(&req, &later), NPK_OK);
    CHECK_EQ(first.count, later.count);
    for (size_t i = 0; i < first.count && i < later.count; i++)
        CHECK(!memcmp(&first.tasks[i], &later.tasks[i], sizeof first.tasks[i]));
    npk_rk_plan_free(&first);
    npk_rk_plan_free(&later);
    npk_rk_weights_free(rt, w);
    free(a), free(b), free(c);
    npk_rk_close(rt);
}

/* fp16 weights whose K fits one slice: the tasks' fp32 sums are copied into C, which is not
 * zeroed first (C starts as NaN bytes here), with the bits adding them to a zeroed C gives: an
 * A row of zeros against negative weights sums products of -0, and C holds +0 there, as the
 * CPU reference (a sum started at +0) does; every other element equals the reference bit for
 * bit. Split over cores in M and N, one K slice each. */
static void test_single_slice_sums(void)
{
    const uint32_t m = 40, k = 96, n = 72, zero_row = 3;
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_cores(rt, 3), NPK_OK);
    uint16_t *a = rk_test_operands(NPK_PREC_FP16, (size_t)m * k);
    uint16_t *b = malloc((size_t)k * n * sizeof *b);
    for (size_t i = 0; i < (size_t)k * n; i++)
        b[i] = npk_f32_to_f16(-(float)(1 + i % 7) / 8.0f);
    for (uint32_t j = 0; j < k; j++)
        a[(size_t)zero_row * k + j] = j % 2 ? 0x8000 : 0; /* +0 and -0: products -0 and +0 */
    uint32_t *c = malloc((size_t)m * n * 4), *ref = malloc((size_t)m * n * 4);
    memset(c, 0xff, (size_t)m * n * 4);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    CHECK_EQ(w->slices, 1);
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_FP32, c, &st), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_FP16, NPK_PREC_FP32, m, k, n, a, b, ref), NPK_OK);
    CHECK(!memcmp(c, ref, (size_t)m * n * 4));
    for (uint32_t j = 0; j < n; j++)
        CHECK_EQ(c[(size_t)zero_row * n + j], 0u); /* +0, not -0 */
    npk_rk_weights_free(rt, w);
    free(a), free(b), free(c), free(ref);
    npk_rk_close(rt);
}

int main(void)
{
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    test_open_query();
    test_policy_defences();
    test_wedge_recovery();
    test_chained_jobs();
    test_parallel_cores_wedge();
    test_bad_arguments();
    test_foreign_weights();
    test_busy();
    test_padded_last_slice();
    test_plan_independent_of_buffers();
    test_single_slice_sums();
    return check_done();
}
