/* SPDX-License-Identifier: MIT */
/* On-NPU K accumulation (facts C.6): a rocket-style program of our own that sums three K slices
 * on the NPU — the first slice a plain 0x1D matmul writing its fp16 cube, the later ones with
 * the DPU_RDMA armed (COMB_USE 5, main read on), the ERDMA reading the running partial and the
 * EW stage adding it in place — run through both kernels' front ends and compared bit for bit
 * with a CPU model of the same roundings; and the registers that tell it from the MRDMA trap. */
#include "rksim_testlib.h"

#include <stdio.h>

#include "rk/program/rk_kernel.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rknpu_uapi.h"

enum { M = 16, KS = 64, S = 3, N = 32, K = KS * S };

/* The K accumulation's register values (facts C.6; the rocket userspace program's words). */
enum {
    KACC_FEATURE_MODE = 0x17D40, /* burst 15 | COMB_USE 5 | IN and PROC fp16, MRDMA on */
    KACC_ERDMA = 0x40000008,     /* per-element (mode 1), 16-bit, enabled */
    KACC_EW = 0x108202C0,        /* per-element, 16-bit, ALU sum, ReLU/LUT bypassed, op src 1 */
    TRAP_FEATURE_MODE = 0x17840, /* the same with COMB_USE 0: the MRDMA trap */
};

/* NPUKIT_RK_DEVICE naming a node (/dev/accel/accel0, /dev/dri/card1): the program runs as a
 * client of that kernel interface (under the LD_PRELOAD shim on x86), so only what a client
 * sees is checked — results and submit statuses, not the simulator's reports. */
static const char *node(void)
{
    const char *n = getenv("NPUKIT_RK_DEVICE");
    return n && n[0] == '/' ? n : NULL;
}

static npk_rk_device *open_device(bool rocket)
{
    if (!node())
        return tl_open_kernel(rocket);
    npk_rk_device *d = NULL;
    npk_status s = npk_rk_device_open(node(), &d); /* the node's driver picks the backend */
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "%s: %s\n", node(), npk_last_error());
    return d;
}

/* The simulator's report of the last job, when the program holds the simulator itself. */
static const rksim_report *report(npk_rk_device *d) { return node() ? NULL : tl_report(d); }

static bool is_rocket(npk_rk_device *d)
{
    npk_rk_device_info info;
    npk_rk_device_query(d, &info);
    return !strcmp(info.kernel, "rocket");
}

/* Slice s of the operands as one fp16 -> fp16 cube task in the rocket form (0x1D). */
static void make_slice(npk_rk_device *d, npk_rk_devtask *t, const uint16_t *a, const uint16_t *b,
                       unsigned s)
{
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, M, KS, N);
    mm.out = NPK_PREC_FP16;
    mm.mode = NPK_MODE_CUBE;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, t), NPK_OK);
    t->form = npk_rk_kernel_form_find("rocket");
    CHECK_EQ(npk_rk_synth_for(t->form, &t->mm, t->body, &t->body_count, &t->info), NPK_OK);
    uint16_t as[M * KS];
    for (unsigned m = 0; m < M; m++)
        memcpy(as + m * KS, a + m * K + s * KS, KS * 2);
    CHECK_EQ(npk_rk_devtask_load(d, t, as, b + (size_t)s * KS * N), NPK_OK);
}

/* Arm slice t to add the partial at `partial` (also its destination), with the addresses the
 * board-validated rocket userspace program gives its armed RDMA block: the main read's
 * SRC_BASE_ADDR at the partial, the ERDMA's EW_BASE_ADDR one output surface (M*16 bytes) past
 * it. The model reads the partial at SRC_BASE_ADDR (docs/rk-simulator.md). */
static void arm(npk_rk_devtask *t, uint32_t partial)
{
    CHECK(tl_task_set(t, NPK_REG_DPU_DST_BASE_ADDR, partial));
    CHECK(tl_task_set(t, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, KACC_FEATURE_MODE));
    CHECK(tl_task_set(t, NPK_REG_DPU_RDMA_ERDMA_CFG, KACC_ERDMA));
    CHECK(tl_task_set(t, NPK_REG_DPU_RDMA_SRC_BASE_ADDR, partial));
    CHECK(tl_task_set(t, NPK_REG_DPU_RDMA_EW_BASE_ADDR, partial + M * 16));
    CHECK(tl_task_set(t, NPK_REG_DPU_RDMA_EW_SURF_STRIDE, M * 16));
    CHECK(tl_task_set(t, NPK_REG_DPU_EW_CFG, KACC_EW));
    /* EW_OP_CVT_BYPASS is clear in the program: its converter at scale 1 */
    CHECK(tl_task_set(t, NPK_REG_DPU_EW_CVT_SCALE_VALUE, 1));
}

static npk_status submit(npk_rk_device *d, npk_rk_devtask *t)
{
    CHECK_EQ(npk_rk_devtask_write_program(d, t), NPK_OK);
    if (!is_rocket(d)) /* rknpu's defences: a new feature address per job (hazard 2) */
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    struct rknpu_submit sub;
    return npk_rk_devtask_submit(d, t, 0, 100, &sub);
}

/* The CPU model: each slice's sum is exact in fp32 here (multiples of 1/64 below 2^9), the
 * first slice is rounded to fp16, each later one added to the partial in fp32 and rounded. */
static void reference(const uint16_t *a, const uint16_t *b, uint16_t *ref)
{
    for (unsigned m = 0; m < M; m++)
        for (unsigned n = 0; n < N; n++) {
            uint16_t p = 0;
            for (unsigned s = 0; s < S; s++) {
                double c = 0;
                for (unsigned k = s * KS; k < (s + 1) * KS; k++)
                    c += (double)npk_f16_to_f32(a[m * K + k]) * npk_f16_to_f32(b[k * N + n]);
                float sum = s ? (float)c + npk_f16_to_f32(p) : (float)c;
                p = npk_f32_to_f16(sum);
            }
            ref[m * N + n] = p;
        }
}

static void test_accumulation(bool rocket)
{
    npk_rk_device *d = open_device(rocket);
    if (!d)
        return;
    static uint16_t a[M * K], b[K * N], c[M * N], ref[M * N];
    tl_fill(NPK_PREC_FP16, a, M * K);
    tl_fill(NPK_PREC_FP16, b, K * N);
    npk_rk_devtask t[S];
    for (unsigned s = 0; s < S; s++)
        make_slice(d, &t[s], a, b, s);
    const uint32_t partial = t[0].c.iova;
    for (unsigned s = 1; s < S; s++)
        arm(&t[s], partial);
    for (unsigned s = 0; s < S; s++) {
        CHECK_EQ(submit(d, &t[s]), NPK_OK);
        if (report(d)) {
            CHECK_EQ(report(d)->outcome, RKSIM_OK);
            if (report(d)->outcome != RKSIM_OK)
                fprintf(stderr, "slice %u: %s\n", s, report(d)->message);
        }
    }
    CHECK_EQ(npk_rk_devtask_read(d, &t[0], c), NPK_OK);
    reference(a, b, ref);
    unsigned bad = 0, rounded = 0;
    for (unsigned i = 0; i < M * N; i++) {
        bad += c[i] != ref[i];
        /* the sum of the exact slices, rounded once: where it differs the fp16 partial
         * rounding showed, so the test sees the accumulation's own rounding */
        double exact = 0;
        for (unsigned k = 0; k < K; k++)
            exact += (double)npk_f16_to_f32(a[(i / N) * K + k]) * npk_f16_to_f32(b[k * N + i % N]);
        rounded += npk_f32_to_f16((float)exact) != ref[i];
    }
    printf("%s%s%s: K accumulation of %u slices, %u of %u elements differ from the model, %u "
           "show the fp16 partial's rounding\n",
           rocket ? "rocket" : "rknpu", node() ? " through " : "", node() ? node() : "", S, bad,
           M * N, rounded);
    CHECK_EQ(bad, 0);
    CHECK(rounded > 0);
    if (node()) {
        /* A client sees the trap as a job that never completes: rknpu's SUBMIT times out;
         * rocket's job timeout resets the core and drops the job, so its output stays as it
         * was (had it run, the partial would hold slice 1 twice). */
        CHECK(tl_task_set(&t[1], NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, TRAP_FEATURE_MODE));
        static uint16_t after[M * N];
        npk_status trapped = submit(d, &t[1]);
        CHECK_EQ(npk_rk_devtask_read(d, &t[0], after), NPK_OK);
        CHECK(trapped != NPK_OK || !memcmp(after, c, sizeof after));
        printf("the MRDMA trap through %s: %s\n", node(),
               trapped ? "the submit failed" : "the job dropped, its output untouched");
        for (unsigned s = 0; s < S; s++)
            npk_rk_devtask_destroy(d, &t[s]);
        npk_rk_device_close(d);
        return;
    }

    /* what tells the accumulation from the trap, register by register */
    npk_rk_devtask *x = &t[1];
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, TRAP_FEATURE_MODE));
    submit(d, x);
    CHECK_EQ(tl_report(d)->outcome, RKSIM_WEDGE);
    CHECK_STR_HAS(tl_report(d)->message, "MRDMA trap");
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, KACC_FEATURE_MODE));
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_ERDMA_CFG, 1)); /* no partial read */
    CHECK_EQ(submit(d, x), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(d)->message, "ERDMA_DISABLE");
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_ERDMA_CFG, KACC_ERDMA));
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_EW_SURF_STRIDE, M * 16 - 16)); /* surfaces overlap */
    CHECK_EQ(submit(d, x), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(d)->message, "DPU_RDMA_EW_SURF_STRIDE");
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_EW_SURF_STRIDE, M * 16));
    CHECK(tl_task_set(x, NPK_REG_DPU_EW_CFG, KACC_EW | 0x4)); /* the MUL unit instead of the ALU */
    CHECK_EQ(submit(d, x), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(d)->message, "EW_OP_TYPE");
    CHECK(tl_task_set(x, NPK_REG_DPU_EW_CFG, KACC_EW));
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_SRC_BASE_ADDR, 0x10)); /* partial outside every buffer */
    submit(d, x);
    CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
    CHECK_STR_HAS(tl_report(d)->message, "K-accumulation partial read");
    CHECK_EQ(tl_report(d)->fault_iova, 0x10);
    /* the refused reading: the partial at EW_BASE_ADDR with the main read elsewhere. The model
     * reads SRC_BASE_ADDR, so a program arranged that way faults there instead */
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_EW_BASE_ADDR, t[0].c.iova));
    CHECK(tl_task_set(x, NPK_REG_DPU_RDMA_SRC_BASE_ADDR, 0));
    submit(d, x);
    CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
    CHECK_EQ(tl_report(d)->fault_iova, 0);
    for (unsigned s = 0; s < S; s++)
        npk_rk_devtask_destroy(d, &t[s]);
    npk_rk_device_close(d);
}

/* An integer program armed the same way is refused: integer K accumulation on the NPU is
 * impossible (facts E.5), what it would do is not described. */
static void test_integer_refused(void)
{
    npk_rk_device *d = tl_open_kernel(true);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, M, KS, N);
    mm.mode = NPK_MODE_CUBE;
    npk_rk_devtask t;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
    arm(&t, t.c.iova);
    CHECK_EQ(submit(d, &t), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(d)->message, "K accumulation is fp16");
    npk_rk_devtask_destroy(d, &t);
    npk_rk_device_close(d);
}

int main(void)
{
    if (node()) { /* one kernel: the node's */
        npk_rk_device *d = open_device(false);
        bool rocket = d && is_rocket(d);
        if (d)
            npk_rk_device_close(d);
        test_accumulation(rocket);
        return check_done();
    }
    test_accumulation(false);
    test_accumulation(true);
    test_integer_refused();
    return check_done();
}
