/* SPDX-License-Identifier: MIT */
/* The hazard table: each of the 18 documented hazards shown in the faithful mode, with the
 * driver-side defence that avoids it and the ideal mode that switches it off. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <time.h>

#include "rksim_testlib.h"

#include <string.h>

#include "common/dense.h"

#include "npukit/rk_regcmd.h"
#include "rk/program/rk_sched.h"

#define HZ(id) RKSIM_HZ_BIT(RKSIM_HZ_##id)

typedef struct hcase {
    tl_case t;
    npk_rk_devtask tk;
    npk_rk_mm mm;
} hcase;

/* Build a task (unchecked synthesis when asked, so limits can be broken on purpose). */
static void hc_make(npk_rk_device *d, hcase *h, npk_rk_prec in, npk_rk_prec out, int mode,
                    uint32_t m, uint32_t k, uint32_t n, int sched, bool unchecked, uint32_t flags)
{
    tl_case_init(&h->t, in, out, m, k, n);
    tl_case_reference(&h->t);
    h->mm = npk_rk_mm_default(in, m, k, n);
    h->mm.out = out;
    h->mm.mode = mode;
    h->mm.sched = sched;
    h->mm.unchecked = unchecked;
    npk_status s = npk_rk_devtask_create(d, &h->mm, flags, &h->tk);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "%s\n", npk_last_error());
    CHECK_EQ(npk_rk_devtask_load(d, &h->tk, h->t.a, h->t.b), NPK_OK);
}

static void hc_free(npk_rk_device *d, hcase *h)
{
    npk_rk_devtask_destroy(d, &h->tk);
    tl_case_free(&h->t);
}

static void hc_set(hcase *h, npk_rk_reg_id id, uint32_t v, bool every_copy)
{
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_reg_lookup(npk_rk_entry_target(h->tk.body[i]),
                              npk_rk_entry_reg(h->tk.body[i])) == npk_rk_reg_info(id)) {
            h->tk.body[i] = npk_rk_entry_reg_write(id, v);
            if (!every_copy)
                break;
        }
}

/* Submit on core 0; on success read the output. Returns the status. */
static npk_status hc_run(npk_rk_device *d, hcase *h, struct rknpu_submit *sub)
{
    struct rknpu_submit local;
    if (!sub)
        sub = &local;
    memset(h->t.c, 0, (size_t)h->t.m * h->t.n * 4);
    npk_status s = npk_rk_devtask_submit(d, &h->tk, 0, 100, sub);
    if (s == NPK_OK)
        CHECK_EQ(npk_rk_devtask_read(d, &h->tk, h->t.c), NPK_OK);
    return s;
}

static npk_status hc_rewrite_run(npk_rk_device *d, hcase *h)
{
    CHECK_EQ(npk_rk_devtask_write_program(d, &h->tk), NPK_OK);
    return hc_run(d, h, NULL);
}

static bool fired(npk_rk_device *d, uint32_t bit) { return (tl_report(d)->hazards & bit) != 0; }

static void test_table(void)
{
    for (unsigned i = 0; i < RKSIM_HZ_COUNT; i++) {
        const rksim_hazard *h = &rksim_hazards[i];
        CHECK_EQ(h->id, i + 1);
        CHECK(h->name && *h->name && h->trigger && *h->trigger && h->faithful && *h->faithful &&
              h->ideal && *h->ideal && h->defence && *h->defence && h->source && *h->source);
    }
}

/* The rows' kernels: the vendor driver's state hazards (2 and 3 here) do not reach a rocket
 * job, which starts clean; a hardware row (7's truncated channel count) reaches both. */
static void test_kernel_scope(void)
{
    for (unsigned i = 0; i < RKSIM_HZ_COUNT; i++) {
        const rksim_hazard *h = &rksim_hazards[i];
        CHECK(h->kernels && !(h->kernels & ~(unsigned)RKSIM_KERNEL_ALL) && h->scope && *h->scope);
    }
    CHECK(!strcmp(rksim_kernels_name(RKSIM_KERNEL_ALL), "rknpu, rocket"));
    CHECK_EQ(rksim_hazards[RKSIM_HZ_FEATURE_ADDR_CACHE - 1].kernels, RKSIM_KERNEL_RKNPU);
    CHECK_EQ(rksim_hazards[RKSIM_HZ_INT8_ENTRY_WEDGE - 1].kernels, RKSIM_KERNEL_RKNPU);
    npk_rk_device *d = tl_open_kernel(true);
    /* an int8 job first, no reset (rocket has none): completes */
    hcase h1, h2;
    hc_make(d, &h1, NPK_PREC_INT8, NPK_PREC_INT32, -1, 4, 64, 32, -1, false, 0);
    hc_make(d, &h2, NPK_PREC_INT8, NPK_PREC_INT32, -1, 4, 64, 32, -1, false, 0);
    CHECK_EQ(hc_run(d, &h1, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h1.t), 0);
    CHECK(!fired(d, HZ(INT8_ENTRY_WEDGE)));
    /* the next job's feature at another address: read from memory */
    CHECK_EQ(hc_run(d, &h2, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h2.t), 0);
    CHECK(!fired(d, HZ(FEATURE_ADDR_CACHE)));
    /* an fp16 job, then int8 again: still no priming */
    hcase f;
    hc_make(d, &f, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
    CHECK_EQ(hc_run(d, &f, NULL), NPK_OK);
    CHECK_EQ(hc_run(d, &h1, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h1.t), 0);
    hc_free(d, &f);
    hc_free(d, &h2);
    hc_free(d, &h1);
    /* a hardware row reaches rocket: N > 8192 truncates the DPU's channel count */
    hc_make(d, &h1, NPK_PREC_FP16, NPK_PREC_FP32, -1, 1, 32, 8192 + 32, -1, true, 0);
    CHECK_EQ(hc_run(d, &h1, NULL), NPK_OK);
    CHECK(fired(d, HZ(N_CEILING)));
    CHECK(tl_mismatches(&h1.t) > 0);
    hc_free(d, &h1);
    npk_rk_device_close(d);
}

/* 1: stale first result on a fresh cacheable output buffer. */
static void test_h1_stale_output(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(STALE_FRESH_OUTPUT) : 0);
        hcase h;
        /* ork's flags: NON_CONTIGUOUS | CACHEABLE | IOVA_ALIGN (facts A.1) */
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0x403);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t) > 0, !ideal);
        CHECK_EQ(fired(d, HZ(STALE_FRESH_OUTPUT)), !ideal);
        /* defence 1: the warm-up; the second submit is right */
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
    npk_rk_device *d = tl_open(0);
    hcase h;
    /* defence 2: clean the fresh output's CPU lines before the first submit */
    hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0x403);
    CHECK_EQ(npk_rk_devtask_clean_output(d, &h.tk), NPK_OK);
    CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h.t), 0);
    hc_free(d, &h);
    /* non-cacheable buffers (mtx's flags 0) work with one submit per fresh buffer */
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
    CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h.t), 0);
    hc_free(d, &h);
    npk_rk_device_close(d);
}

/* 2: rotating feature buffers across submits corrupts; one stable buffer is right. */
static void test_h2_feature_cache(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(FEATURE_ADDR_CACHE) : 0);
        hcase h1, h2;
        hc_make(d, &h1, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        hc_make(d, &h2, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        CHECK_EQ(hc_run(d, &h1, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h1.t), 0);
        CHECK_EQ(hc_run(d, &h2, NULL), NPK_OK); /* another feature address */
        CHECK_EQ(tl_mismatches(&h2.t) > 0, !ideal);
        CHECK_EQ(fired(d, HZ(FEATURE_ADDR_CACHE)), 1);
        /* defence: one stable feature buffer, new rows copied into it */
        CHECK_EQ(hc_run(d, &h2, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h2.t), 0);
        tl_fill(NPK_PREC_FP16, h2.t.a, 4 * 64);
        tl_case_reference(&h2.t);
        CHECK_EQ(npk_rk_devtask_load(d, &h2.tk, h2.t.a, h2.t.b), NPK_OK);
        CHECK_EQ(hc_run(d, &h2, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h2.t), 0);
        /* a reset also forgets the cached rows */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        CHECK_EQ(hc_run(d, &h1, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h1.t), 0);
        hc_free(d, &h1);
        hc_free(d, &h2);
        npk_rk_device_close(d);
    }
}

/* 2 across precisions: an int4 job after an int8 (or fp16) job on the same core reads the
 * stale rows as int4 operands (rounded, clamped to -8..7, NaN as 0), with the same result on
 * the byte kernel and the portable float GEMM: int8 rows of 90 and -100 act as 7 and -8. */
static int16_t stale_int4_run(npk_rk_prec first, bool portable, int16_t *c4)
{
    npk_dense_force_portable(portable);
    npk_rk_device *d = tl_open(RKSIM_HZ_ALL & ~HZ(FEATURE_ADDR_CACHE));
    enum { M = 4, K = 64, N = 64 };
    const bool fp = first == NPK_PREC_FP16;
    npk_rk_mm mm1 = npk_rk_mm_default(first, M, K, N),
              mm4 = npk_rk_mm_default(NPK_PREC_INT4, M, K, N);
    uint16_t a1[M * K], b1[K * N]; /* fp16 bits or int8 bytes (the first half used) */
    int8_t a4[M * K], b4[K * N];
    for (int i = 0; i < M * K; i++) {
        int8_t v = i % 2 ? -100 : 90;
        if (fp)
            a1[i] = i % 3 ? (i % 2 ? 0x7c00 /* inf */ : 0x7e00 /* NaN */) : 0x3c00 /* 1.0 */;
        else
            ((int8_t *)a1)[i] = v;
        a4[i] = 1;
    }
    for (int i = 0; i < K * N; i++) {
        if (fp)
            b1[i] = 0x3c00;
        else
            ((int8_t *)b1)[i] = 1;
        b4[i] = (int8_t)(i % 3 ? -8 : 7);
    }
    npk_rk_devtask t1, t4;
    CHECK_EQ(npk_rk_devtask_create(d, &mm1, 0, &t1), NPK_OK);
    CHECK_EQ(npk_rk_devtask_create(d, &mm4, 0, &t4), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t1, a1, b1), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t4, a4, b4), NPK_OK);
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_devtask_submit(d, &t1, 0, 6000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &t4, 0, 6000, &sub), NPK_OK);
    CHECK_EQ(fired(d, HZ(FEATURE_ADDR_CACHE)), 1);
    CHECK_EQ(npk_rk_devtask_read(d, &t4, c4), NPK_OK);
    npk_rk_devtask_destroy(d, &t1);
    npk_rk_devtask_destroy(d, &t4);
    npk_rk_device_close(d);
    npk_dense_force_portable(false);
    return c4[0];
}

static void test_h2_across_precisions(void)
{
    enum { M = 4, K = 64, N = 64 };
    int16_t fast[M * N], portable[M * N];
    /* C[0][0] = sum over k of A[0][k] (the stale int8 row: 90 at even k, -100 at odd, as 7
     * and -8) times B[k][0] = b4[k * N] */
    int32_t want0 = 0;
    for (int k = 0; k < K; k++)
        want0 += (k % 2 ? -8 : 7) * ((k * N) % 3 ? -8 : 7);
    for (int f = 0; f < 2; f++) {
        npk_rk_prec first = f ? NPK_PREC_FP16 : NPK_PREC_INT8;
        stale_int4_run(first, false, fast);
        stale_int4_run(first, true, portable);
        CHECK(!memcmp(fast, portable, sizeof fast));
        if (first == NPK_PREC_INT8)
            CHECK_EQ(fast[0], want0);
    }
}

/* 3: the first int8 submit after entering int8 mode wedges unless ACT_RESET was issued. */
static void test_h3_int8_entry(void)
{
    npk_rk_device *d = tl_open(0);
    hcase h;
    hc_make(d, &h, NPK_PREC_INT8, NPK_PREC_INT32, -1, 4, 64, 32, -1, false, 0);
    struct rknpu_submit s;
    CHECK_EQ(hc_run(d, &h, &s), NPK_ETIMEDOUT);
    CHECK_EQ(s.task_counter, 0);
    CHECK(fired(d, HZ(INT8_ENTRY_WEDGE)));
    CHECK_STR_HAS(npk_last_error(), "needs ACT_RESET");
    /* the kernel soft-reset the core after the timeout: the retry completes */
    CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h.t), 0);
    hc_free(d, &h);
    /* fp16 then int8 again: wedges; the defence (ACT_RESET on entry) avoids it */
    hcase f;
    hc_make(d, &f, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(hc_run(d, &f, NULL), NPK_OK);
    hc_make(d, &h, NPK_PREC_INT8, NPK_PREC_INT32, -1, 4, 64, 32, -1, false, 0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h.t), 0);
    hc_free(d, &h);
    hc_free(d, &f);
    npk_rk_device_close(d);
    /* ideal: no priming needed */
    d = tl_open(HZ(INT8_ENTRY_WEDGE));
    hc_make(d, &h, NPK_PREC_INT4, NPK_PREC_INT16, -1, 1, 64, 64, -1, false, 0);
    CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h.t), 0);
    hc_free(d, &h);
    npk_rk_device_close(d);
}

/* 4: core_mask != 1 with only subcore_task[0] filled crashes the kernel. */
static void test_h4_subcore_crash(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(SUBCORE_NULL_CRASH) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        struct rknpu_submit s = {.flags = RKNPU_JOB_PC | RKNPU_JOB_PINGPONG,
                                 .timeout = 100,
                                 .task_number = 1,
                                 .task_obj_addr = h.tk.task.obj_addr,
                                 .core_mask = 0x2};
        s.subcore_task[0] = (struct rknpu_subcore_task){0, 1};
        npk_status st = npk_rk_submit(d, &s);
        if (!ideal) {
            CHECK_EQ(st, NPK_ENODEV);
            CHECK(rksim_is_dead(npk_rk_device_sim(d)));
            CHECK(fired(d, HZ(SUBCORE_NULL_CRASH)));
            /* the device stays dead until re-opened */
            CHECK_EQ(npk_rk_action(d, RKNPU_GET_HW_VERSION, NULL), NPK_ENODEV);
            hc_free(d, &h);
            npk_rk_device_close(d);
            d = tl_open(0); /* the reboot */
            CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
            hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        } else {
            CHECK_EQ(st, NPK_EINVAL);
        }
        /* defence: every subcore_task entry filled; core 1 runs it */
        CHECK_EQ(npk_rk_devtask_submit(d, &h.tk, 1, 100, &s), NPK_OK);
        CHECK_EQ(npk_rk_devtask_read(d, &h.tk, h.t.c), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* 5: storming wedging submits without ACT_RESET in between is a hard hang. */
static void test_h5_storm(void)
{
    for (int mode = 0; mode < 3; mode++) { /* 0 faithful, 1 faithful + defence, 2 ideal */
        npk_rk_device *d = tl_open(mode == 2 ? HZ(WEDGE_STORM_HANG) : 0);
        hcase h;
        /* a wedging program: the CBUF split below its floor (hazard 8) */
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, 0x0C, true);
        CHECK_EQ(npk_rk_devtask_write_program(d, &h.tk), NPK_OK);
        npk_status last = NPK_OK;
        for (int i = 0; i < 4; i++) {
            if (mode == 1)
                CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
            last = hc_run(d, &h, NULL);
        }
        CHECK_EQ(last, mode == 0 ? NPK_ENODEV : NPK_ETIMEDOUT);
        CHECK_EQ(rksim_is_dead(npk_rk_device_sim(d)), mode == 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* 6: single-op K above 10752 wedges. */
static void test_h6_k_ceiling(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(K_CEILING) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_INT8, NPK_PREC_INT32, -1, 1, 10784, 32, NPK_SCHED_0, true, 0);
        CHECK_EQ(hc_run(d, &h, NULL), ideal ? NPK_OK : NPK_ETIMEDOUT);
        CHECK(fired(d, HZ(K_CEILING)));
        if (ideal)
            CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        /* defence: K within the ceiling (K-split) */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_make(d, &h, NPK_PREC_INT8, NPK_PREC_INT32, -1, 1, 10752, 32, NPK_SCHED_0, false, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* 7: N above 8192 per task is silently wrong. */
static void test_h7_n_ceiling(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(N_CEILING) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 1, 32, 8192 + 32, -1, true, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK); /* completes: silently */
        CHECK_EQ(tl_mismatches(&h.t) > 0, !ideal);
        CHECK(fired(d, HZ(N_CEILING)));
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
    /* defence: N tiled at 8192 */
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    hcase h;
    hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 1, 32, 8192, -1, false, 0);
    CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
    CHECK_EQ(tl_mismatches(&h.t), 0);
    hc_free(d, &h);
    npk_rk_device_close(d);
}

/* 8: CBUF_CON0 below the 0x1B floor hangs; 9: a sched-1 value at small K gives zeros (M=1) or
 * garbage (M>1). */
static void test_h8_h9_cbuf(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? (HZ(CBUF_FLOOR) | HZ(SCHED_SMALL_K)) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, 0x1A, true);
        CHECK_EQ(hc_rewrite_run(d, &h), ideal ? NPK_OK : NPK_ETIMEDOUT);
        CHECK(fired(d, HZ(CBUF_FLOOR)));
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, NPK_RK_CBUF_FLOOR, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        /* 0xBC, the sched-1 fit at fp16 K=64 (spec "Small-K validity") */
        CHECK_EQ(npk_rk_sched_fit_value(NPK_PREC_FP16, 4, 64), 0xBC);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, 0xBC, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t) > 0, !ideal);
        CHECK(fired(d, HZ(SCHED_SMALL_K)));
        hc_free(d, &h);
        /* M=1: zeros */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 1, 32, 16, -1, false, 0);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, 0xBE, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        float *c = h.t.c;
        bool all_zero = true;
        for (int i = 0; i < 16; i++)
            all_zero &= c[i] == 0.0f;
        CHECK_EQ(all_zero, !ideal);
        /* defence: sched 0 (the 0xB1 template) */
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, NPK_RK_CBUF_TEMPLATE, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* 10: 0xB1 above K=256 with more rows than a bank; 11: M above its ceiling; 12: the fp16 K=128
 * envelope. */
static void test_h10_h11_h12_rows(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d =
            tl_open(ideal ? (HZ(B1_LARGE_M) | HZ(M_CEILING) | HZ(K128_ENVELOPE)) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        /* 10: fp16 K=512, 0xB1 holds 32 rows; M=64 */
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 64, 512, 16, NPK_SCHED_0, true, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK(fired(d, HZ(B1_LARGE_M)));
        size_t bad = tl_mismatches(&h.t);
        CHECK_EQ(bad > 0, !ideal);
        /* the first 32 rows are right, the partial rows after them wrong */
        float *c = h.t.c;
        CHECK_EQ(c[31 * 16 + 3] == (float)h.t.ref[31 * 16 + 3], 1);
        hc_free(d, &h);
        /* defence: sched 1 (the bank split tracks M) */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK); /* new feature buffer */
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 64, 512, 16, NPK_SCHED_1, false, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);

        /* 11: fp16 K=1024 sched 1 holds 176 rows (11 banks); M=192 */
        CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 1024, NPK_SCHED_1), 176);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 192, 1024, 16, NPK_SCHED_1, true, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK(fired(d, HZ(M_CEILING)));
        CHECK_EQ(tl_mismatches(&h.t) > 0, !ideal);
        hc_free(d, &h);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 176, 1024, 16, NPK_SCHED_1, false, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);

        /* 11 too: fp16 sched 1 at K >= 2048 gives wrong rows above M=8 (facts C.3) */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 16, 2048, 16, NPK_SCHED_1, true, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK(fired(d, HZ(M_CEILING)));
        CHECK_EQ(tl_mismatches(&h.t) > 0, !ideal);
        hc_free(d, &h);

        /* 12: fp16 K=128 sched 1: 256 ok, 320 bad, 384 ok */
        const uint32_t ms[3] = {256, 320, 384};
        for (int i = 0; i < 3; i++) {
            CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
            hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, ms[i], 128, 16, NPK_SCHED_1, true, 0);
            CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
            CHECK_EQ(tl_mismatches(&h.t) > 0, i == 1 && !ideal);
            CHECK_EQ(fired(d, HZ(K128_ENVELOPE)), i == 1);
            hc_free(d, &h);
        }
        npk_rk_device_close(d);
    }
}

/* 11's int4 ceiling where its evidence is: rows x K <= 16384 per data bank was measured with a
 * line-form feature (spec "0x107c"); a cube-form int4 program as rocket userspace runs it on
 * boards (Mode C, data banks = ceil(M*K/2 / 32 KB), facts C.6) holds a bank's bytes, two
 * elements each: 65536 per bank. M=128, K=1024 in 2 data banks (CBUF_CON0 0xA2) is its tile:
 * every row right, hazard 11 silent; M=256 in the same 2 banks is past the bytes and fires. */
static void test_h11_int4_cube(void)
{
    npk_rk_device *d = tl_open(0);
    static const struct {
        uint32_t m;
        bool fires;
    } cases[] = {{128, false}, {256, true}};
    for (unsigned i = 0; i < 2; i++) {
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_INT4, NPK_PREC_INT16, NPK_MODE_CUBE, cases[i].m, 1024, 64, -1,
                true, 0);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, 0xA2, true); /* 2 data banks, 10 weight banks */
        CHECK_EQ(npk_rk_devtask_write_program(d, &h.tk), NPK_OK);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(fired(d, HZ(M_CEILING)), cases[i].fires);
        CHECK_EQ(tl_mismatches(&h.t) > 0, cases[i].fires);
        hc_free(d, &h);
    }
    npk_rk_device_close(d);
}

/* 13: a duplicated register whose later copy is stale: the later copy is used. */
static void test_h13_duplicate(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(DUPLICATE_REG) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        /* M=64 at K=512 needs two data banks (0xA2); patch only the first CBUF_CON0 copy */
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 64, 512, 16, NPK_SCHED_0, true, 0);
        uint32_t split = npk_rk_cbuf_con0(NPK_PREC_FP16, 64, 512, NPK_SCHED_1);
        CHECK_EQ(split, 0xA2);
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, split, false);
        npk_status st = hc_rewrite_run(d, &h);
        if (!ideal) {
            CHECK_EQ(st, NPK_OK);
            CHECK(fired(d, HZ(DUPLICATE_REG)));
            CHECK(fired(d, HZ(B1_LARGE_M))); /* the stale 0xB1 copy won */
            CHECK(tl_mismatches(&h.t) > 0);
        } else {
            CHECK_EQ(st, NPK_EUNSUPPORTED);
            CHECK_STR_HAS(npk_last_error(), "CNA_CBUF_CON0");
        }
        /* defence: patch every copy */
        hc_set(&h, NPK_REG_CNA_CBUF_CON0, split, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* 14: 0x40C0 holding a non-geometry value wild-writes: a DMA fault and a hang. */
static void test_h14_surface_add(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(SURFACE_ADD_WILD) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
        uint32_t good = 0;
        for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
            if (npk_rk_entry_reg(h.tk.body[i]) == 0x40C0)
                good = npk_rk_entry_value(h.tk.body[i]);
        CHECK_EQ(good, 0x40); /* F<<4, F = 4 for fp16 -> fp32 (facts C.1 #94) */
        hc_set(&h, NPK_REG_DPU_SURFACE_ADD, 0x00400000, true); /* a size, not the geometry */
        npk_status st = hc_rewrite_run(d, &h);
        CHECK(fired(d, HZ(SURFACE_ADD_WILD)));
        if (!ideal) {
            CHECK_EQ(st, NPK_ETIMEDOUT);
            CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
        } else {
            CHECK_EQ(st, NPK_OK);
            CHECK_EQ(tl_mismatches(&h.t), 0);
        }
        /* defence: the value the geometry implies */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_set(&h, NPK_REG_DPU_SURFACE_ADD, good, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* 15: fp16 output without FP32TOFP16_EN is zeros; BS 0x20150 hangs; the forced atom-8 output
 * (SIZE_E 0 with surface stride M*16 at M > 1, spec) hangs. Both sides of that line: the cube
 * fp16 output with SIZE_E = F-1 is written as its geometry says, and SIZE_E 0 in a geometry
 * the spec did not try is refused, not guessed. */
static void test_h15_fp16_out(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(FP16_OUT_STAGE) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP16, -1, 4, 64, 32, -1, false, 0);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_set(&h, NPK_REG_DPU_OUT_CVT_SCALE, 1, true); /* no FP32TOFP16_EN */
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        const uint16_t *c = h.t.c;
        bool zeros = true;
        for (int i = 0; i < 4 * 32; i++)
            zeros &= c[i] == 0;
        CHECK_EQ(zeros, !ideal);
        CHECK(fired(d, HZ(FP16_OUT_STAGE)));
        hc_set(&h, NPK_REG_DPU_OUT_CVT_SCALE, 0x10001, true);
        hc_set(&h, NPK_REG_DPU_BS_CFG, 0x20150, true);
        CHECK_EQ(hc_rewrite_run(d, &h), ideal ? NPK_EUNSUPPORTED : NPK_ETIMEDOUT);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_set(&h, NPK_REG_DPU_BS_CFG, 0x53, true);
        /* SIZE_E 0 on the row-major output (surface stride 16): not what the spec tried */
        hc_set(&h, NPK_REG_DPU_BS_OW_CFG, 0x2, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_EUNSUPPORTED);
        CHECK(!fired(d, HZ(FP16_OUT_STAGE)));
        CHECK_STR_HAS(tl_report(d)->message, "SIZE_E_0");
        /* defence: the synthesizer's output stage */
        hc_set(&h, NPK_REG_DPU_BS_OW_CFG, 0x126, true);
        CHECK_EQ(hc_rewrite_run(d, &h), NPK_OK);
        CHECK_EQ(tl_mismatches(&h.t), 0);
        hc_free(d, &h);

        /* the cube fp16 output [N/8][M][8] with SIZE_E = F-1 at M = 8: written, exact */
        hcase q;
        hc_make(d, &q, NPK_PREC_FP16, NPK_PREC_FP16, NPK_MODE_CUBE, 8, 64, 32, -1, false, 0);
        CHECK_EQ(hc_run(d, &q, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&q.t), 0);
        CHECK(!fired(d, HZ(FP16_OUT_STAGE)));
        /* the same surface forced to atom-8 (0x4050 = 0x2): the configuration that hung */
        hc_set(&q, NPK_REG_DPU_BS_OW_CFG, 0x2, true);
        CHECK_EQ(hc_rewrite_run(d, &q), ideal ? NPK_EUNSUPPORTED : NPK_ETIMEDOUT);
        CHECK(ideal || fired(d, HZ(FP16_OUT_STAGE)));
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_free(d, &q);

        /* M = 1: the surface stride M*16 is 16, the row-major output: not the atom-8 line */
        hc_make(d, &q, NPK_PREC_FP16, NPK_PREC_FP16, NPK_MODE_CUBE, 1, 64, 32, -1, false, 0);
        CHECK_EQ(hc_run(d, &q, NULL), NPK_OK);
        CHECK_EQ(tl_mismatches(&q.t), 0);
        hc_set(&q, NPK_REG_DPU_BS_OW_CFG, 0x2, true);
        CHECK_EQ(hc_rewrite_run(d, &q), NPK_EUNSUPPORTED);
        CHECK(!fired(d, HZ(FP16_OUT_STAGE)));
        hc_free(d, &q);
        npk_rk_device_close(d);
    }
}

/* 16: an int8 matmul with int16, int8 or fp16 output never completes, nothing written; the
 * wedge names the output-stage row's evidence. */
static void test_h16_narrow(void)
{
    const npk_rk_prec outs[3] = {NPK_PREC_INT16, NPK_PREC_INT8, NPK_PREC_FP16};
    for (int ideal = 0; ideal < 2; ideal++)
        for (int o = 0; o < 3; o++) {
            npk_rk_device *d = tl_open(ideal ? HZ(NARROW_INT_OUT) : 0);
            CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
            hcase h;
            hc_make(d, &h, NPK_PREC_INT8, outs[o], -1, 4, 64, 32, -1, true, 0);
            memset(h.tk.c.host, 0x7f, h.tk.c.size);
            CHECK_EQ(hc_run(d, &h, NULL), ideal ? NPK_EUNSUPPORTED : NPK_ETIMEDOUT);
            const uint8_t *raw = h.tk.c.host;
            bool untouched = true;
            for (size_t i = 0; i < h.tk.c.size; i++)
                untouched &= raw[i] == 0x7f;
            CHECK(untouched);
            CHECK(fired(d, HZ(NARROW_INT_OUT)));
            if (outs[o] == NPK_PREC_FP16)
                CHECK_STR_HAS(npk_last_error(), ideal ? "facts J.10" : "int32 is the only");
            hc_free(d, &h);
            /* defence: int32 output */
            CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
            hc_make(d, &h, NPK_PREC_INT8, NPK_PREC_INT32, -1, 4, 64, 32, -1, false, 0);
            CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
            CHECK_EQ(tl_mismatches(&h.t), 0);
            hc_free(d, &h);
            npk_rk_device_close(d);
        }
}

/* 17: several tasks in one submit without chained trailers time out with task counter 0
 * (the chained defence and the ideal mode are in test_rksim_pc). */
static void test_h17_unchained(void)
{
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    hcase h;
    hc_make(d, &h, NPK_PREC_FP16, NPK_PREC_FP32, -1, 4, 64, 32, -1, false, 0);
    npk_rk_mem task;
    CHECK_EQ(npk_rk_mem_create(d, 2 * sizeof(struct rknpu_task), RKNPU_MEM_KERNEL_MAPPING, &task),
             NPK_OK);
    struct rknpu_task *rec = task.host;
    rec[0] = rec[1] = *(struct rknpu_task *)h.tk.task.host;
    struct rknpu_submit s = {.flags = RKNPU_JOB_PC,
                             .timeout = 100,
                             .task_number = 2,
                             .task_obj_addr = task.obj_addr,
                             .core_mask = 1};
    for (int i = 0; i < 5; i++)
        s.subcore_task[i] = (struct rknpu_subcore_task){0, 2};
    CHECK_EQ(npk_rk_submit(d, &s), NPK_ETIMEDOUT);
    CHECK_EQ(s.task_counter, 0);
    CHECK(fired(d, HZ(UNCHAINED_TASKS)));
    npk_rk_mem_destroy(d, &task);
    hc_free(d, &h);
    npk_rk_device_close(d);
}

/* 18: int4's int16 accumulator saturates at 0x7fff. */
static void test_h18_int4_saturation(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? HZ(INT4_SATURATION) : 0);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hcase h;
        hc_make(d, &h, NPK_PREC_INT4, NPK_PREC_INT16, -1, 1, 1024, 64, -1, true, 0);
        memset(h.t.a, -8, 1024);
        memset(h.t.b, -8, 1024 * 64);
        CHECK_EQ(npk_rk_devtask_load(d, &h.tk, h.t.a, h.t.b), NPK_OK);
        npk_status st = hc_run(d, &h, NULL);
        if (!ideal) {
            CHECK_EQ(st, NPK_OK);
            const int16_t *c = h.t.c;
            CHECK_EQ(c[0], 0x7fff); /* 64 * 1024 = 65536 saturated */
            CHECK_EQ(c[63], 0x7fff);
            CHECK(fired(d, HZ(INT4_SATURATION)));
        } else {
            CHECK_EQ(st, NPK_EUNSUPPORTED);
            CHECK_STR_HAS(npk_last_error(), "int16");
        }
        hc_free(d, &h);
        /* defence: a K-slice whose extreme sum fits: 480 * 64 = 30720 */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        hc_make(d, &h, NPK_PREC_INT4, NPK_PREC_INT16, -1, 1, 480, 64, -1, false, 0);
        memset(h.t.a, -8, 480);
        memset(h.t.b, -8, 480 * 64);
        CHECK_EQ(npk_rk_devtask_load(d, &h.tk, h.t.a, h.t.b), NPK_OK);
        CHECK_EQ(hc_run(d, &h, NULL), NPK_OK);
        CHECK_EQ(((const int16_t *)h.t.c)[5], 30720);
        hc_free(d, &h);
        npk_rk_device_close(d);
    }
}

/* A hostile submit timeout (2^32 - 1 ms: 71 minutes at the default 1/1000 scale) on a wedging
 * job still answers ETIMEDOUT, after at most RKSIM_MAX_WAIT_MS. */
static void test_capped_wait(void)
{
    rksim_config cfg;
    rksim_config_default(&cfg); /* the default scale, not the tests' 0 */
    npk_rk_device *d = NULL;
    CHECK_EQ(npk_rk_device_open_sim(&cfg, &d), NPK_OK);
    hcase h;
    hc_make(d, &h, NPK_PREC_INT8, NPK_PREC_INT32, -1, 4, 64, 32, -1, false, 0);
    struct rknpu_submit sub;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_EQ(npk_rk_devtask_submit(d, &h.tk, 0, UINT32_MAX, &sub), NPK_ETIMEDOUT); /* hazard 3 */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    CHECK(fired(d, HZ(INT8_ENTRY_WEDGE)));
    CHECK(ms < RKSIM_MAX_WAIT_MS + 30000); /* not a timing test: a hang check (uncapped: 71 min) */
    hc_free(d, &h);
    npk_rk_device_close(d);
}

int main(void)
{
    test_capped_wait();
    test_table();
    test_kernel_scope();
    test_h1_stale_output();
    test_h2_feature_cache();
    test_h2_across_precisions();
    test_h3_int8_entry();
    test_h4_subcore_crash();
    test_h5_storm();
    test_h6_k_ceiling();
    test_h7_n_ceiling();
    test_h8_h9_cbuf();
    test_h10_h11_h12_rows();
    test_h11_int4_cube();
    test_h13_duplicate();
    test_h14_surface_add();
    test_h15_fp16_out();
    test_h16_narrow();
    test_h17_unchained();
    test_h18_int4_saturation();
    return check_done();
}
