/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The rocket kernel interface end to end on the simulator: the per-kernel program forms, the
 * device layer's rocket backend over rksim's rocket front end, and the unchanged runtime on
 * it, against the CPU reference. */
#include <stdlib.h>

#include "check.h"
#define RK_TEST_SEED 7
#include "rk_operands_testlib.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/device/rk_device_sim.h"
#include "rk/program/rk_kernel.h"
#include "npukit/rk_reference.h"
#include "npukit/rksim.h"

/* Index of the first entry writing (target, reg) at or after `from`, or -1. */
static long find_entry(const npk_rk_entry *p, size_t n, npk_rk_reg_id id, size_t from)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    for (size_t i = from; i < n; i++)
        if (npk_rk_entry_target(p[i]) == npk_rk_unit_target(r->block) &&
            npk_rk_entry_reg(p[i]) == r->offset)
            return (long)i;
    return -1;
}

/* The two rows, and the rocket form checked against facts C.6 and the rknpu form. */
static void test_forms(void)
{
    const npk_rk_kernel_form *kn = npk_rk_kernel_form_find("rknpu");
    const npk_rk_kernel_form *kr = npk_rk_kernel_form_find("rocket");
    CHECK(kn && kr && !npk_rk_kernel_form_find("rocket2"));
    CHECK_EQ(npk_rk_kernel_form_count(), 2);
    CHECK_EQ(kn->enable, 0x0D);
    CHECK_EQ(kr->enable, 0x1D);
    CHECK_EQ(npk_rk_kernel_task_count(kn, 108), 108);
    CHECK_EQ(npk_rk_kernel_task_count(kr, 126), 130);

    static const struct {
        npk_rk_prec in, out;
        uint32_t m, k, n;
    } cases[] = {{NPK_PREC_FP16, NPK_PREC_FP32, 33, 64, 48},
                 {NPK_PREC_FP16, NPK_PREC_FP16, 5, 32, 16},
                 {NPK_PREC_INT8, NPK_PREC_INT32, 7, 64, 64},
                 {NPK_PREC_INT4, NPK_PREC_INT16, 1, 64, 64}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        npk_rk_mm mm = npk_rk_mm_default(cases[c].in, cases[c].m, cases[c].k, cases[c].n);
        mm.out = cases[c].out;
        mm.a = 0xFFFF5000u, mm.b = 0xFFFF6000u, mm.c = 0xFFFF3000u;
        npk_rk_entry base[NPK_RK_BODY_MAX], rk[NPK_RK_BODY_MAX];
        size_t nb = 0, nr = 0;
        CHECK_EQ(npk_rk_synth_for(kn, &mm, base, &nb, NULL), NPK_OK);
        CHECK_EQ(npk_rk_synth_for(kr, &mm, rk, &nr, NULL), NPK_OK);
        CHECK_EQ(nb, NPK_RK_MATMUL_BODY);
        CHECK_EQ(nr, NPK_RK_MATMUL_BODY + NPK_RK_RDMA_ENTRIES);
        CHECK_EQ(find_entry(base, nb, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, 0), -1);
        /* the RDMA S_POINTER follows the DPU's; the rest keeps the rknpu order */
        long dp = find_entry(rk, nr, NPK_REG_DPU_S_POINTER, 0);
        CHECK(dp >= 0 && find_entry(rk, nr, NPK_REG_DPU_RDMA_S_POINTER, 0) == dp + 1);
        CHECK_EQ(npk_rk_entry_value(rk[dp + 1]), 0xE);
        CHECK(!memcmp(rk, base, (size_t)(dp + 1) * sizeof *rk));
        CHECK(!memcmp(rk + dp + 2, base + dp + 1, (nb - (size_t)dp - 1) * sizeof *rk));
        /* the block (facts C.6): the output cube, ERDMA off, burst 15 | MRDMA_DISABLE, plus
         * FP16TOFP32 for an fp16 output */
        long mode = find_entry(rk, nr, NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, 0);
        uint32_t want = 0x7810u | (cases[c].out == NPK_PREC_FP16 ? 0x8u : 0);
        CHECK(mode >= 0 && npk_rk_entry_value(rk[mode]) == want);
        long h = find_entry(rk, nr, NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT, 0);
        long ch = find_entry(rk, nr, NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL, 0);
        CHECK(h > (long)nb - 1 && npk_rk_entry_value(rk[h]) == cases[c].m - 1);
        CHECK(ch >= 0 && npk_rk_entry_value(rk[ch]) == cases[c].n - 1);
        long e = find_entry(rk, nr, NPK_REG_DPU_RDMA_ERDMA_CFG, 0);
        CHECK(e >= 0 && npk_rk_entry_value(rk[e]) == 1);
        long wgt = find_entry(rk, nr, NPK_REG_DPU_RDMA_WEIGHT, 0);
        CHECK(wgt >= 0 && npk_rk_entry_value(rk[wgt]) == 0x01010101u);
    }
}

/* The device layer's rocket backend on the simulator: what it answers and refuses. */
static void test_device(void)
{
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open("sim-rocket", &d), NPK_OK);
    npk_rk_device_info info;
    npk_rk_device_query(d, &info);
    /* a file per core: every core of the SoC, each reading its own address space */
    CHECK(!strcmp(info.kernel, "rocket") && info.simulated && info.cores == info.soc->cores &&
          info.core_spaces);
    CHECK_STR_HAS(info.backend, "sim");
    npk_rk_mem m;
    CHECK_EQ(npk_rk_mem_create(d, 1ull << 33, 0, &m), NPK_EINVAL); /* CREATE_BO is 32-bit */
    CHECK_EQ(npk_rk_mem_create(d, 4096, 0, &m), NPK_OK);
    CHECK(m.host && m.iova && m.iova % 4096 == 0);
    CHECK_EQ(npk_rk_mem_sync(d, &m, 0, 4096, RKNPU_MEM_SYNC_TO_DEVICE), NPK_OK);
    CHECK_EQ(npk_rk_mem_sync(d, &m, 0, 4096, RKNPU_MEM_SYNC_FROM_DEVICE), NPK_OK);
    CHECK_EQ(npk_rk_mem_sync(d, &m, 4000, 200, RKNPU_MEM_SYNC_TO_DEVICE), NPK_EINVAL);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    uint32_t v = 0;
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_HW_VERSION, &v), NPK_EUNSUPPORTED);
    /* a submit naming a task buffer that is not one: the kernel's EINVAL */
    struct rknpu_submit sub = {.flags = RKNPU_JOB_PC,
                               .timeout = 100,
                               .task_number = 1,
                               .task_obj_addr = 12345,
                               .core_mask = 1};
    sub.subcore_task[0] = (struct rknpu_subcore_task){0, 1};
    CHECK_EQ(npk_rk_submit(d, &sub), NPK_EINVAL);
    CHECK_EQ(npk_rk_mem_destroy(d, &m), NPK_OK);
    npk_rk_device_close(d);
    /* no rocket node on this machine: named */
    CHECK_EQ(npk_rk_device_open_rocket(NULL, &d), NPK_ENODEV);
    CHECK_STR_HAS(npk_last_error(), "/dev/accel");
    CHECK_EQ(npk_rk_device_open_rocket("/dev/null", &d), NPK_ENODEV);
}

/* The runtime, unchanged, on the simulator behind the rocket interface. */
static void test_runtime(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK(!strcmp(info.kernel, "rocket") && info.cores == 3 && info.simulated);
    CHECK_EQ(npk_rk_set_cores(rt, 4), NPK_EINVAL);
    /* the vendor's multi-task form needs a core mask and subcore ranges rocket lacks */
    CHECK_EQ(npk_rk_set_submission(rt, "multitask"), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "no core mask or subcore ranges");
    static const struct {
        npk_rk_prec in, out;
        uint32_t m, k, n;
    } cases[] = {{NPK_PREC_FP16, NPK_PREC_FP32, 33, 200, 130},
                 {NPK_PREC_FP16, NPK_PREC_FP16, 3, 64, 17},
                 {NPK_PREC_INT8, NPK_PREC_INT32, 70, 600, 100},
                 {NPK_PREC_INT4, NPK_PREC_INT32, 5, 1000, 130},
                 {NPK_PREC_FP16, NPK_PREC_FP32, 1, 20000, 33}};
    /* every case once with one task per job, then as chained jobs of up to 4 tasks: rocket
     * kicks each task of a job on its own, so the results are the same, exactly */
    for (unsigned run = 0; run < 2 * (sizeof cases / sizeof cases[0]); run++) {
        unsigned c = run % (sizeof cases / sizeof cases[0]);
        if (run == sizeof cases / sizeof cases[0]) {
            CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
            CHECK(!strcmp(npk_rk_submission(rt), "chained"));
        }
        uint32_t m = cases[c].m, k = cases[c].k, n = cases[c].n;
        void *a = rk_test_operands(cases[c].in, (size_t)m * k),
             *b = rk_test_operands(cases[c].in, (size_t)k * n);
        size_t ob = cases[c].out == NPK_PREC_FP16 ? 2 : 4;
        void *out = calloc((size_t)m * n, ob), *ref = calloc((size_t)m * n, ob);
        npk_rk_weights *w = NULL;
        npk_rk_stats st;
        CHECK_EQ(npk_rk_weights_pack(rt, cases[c].in, k, n, b, m, &w), NPK_OK);
        CHECK_EQ(npk_rk_matmul(rt, w, m, a, cases[c].out, out, &st), NPK_OK);
        CHECK_EQ(npk_rk_reference_matmul(cases[c].in, cases[c].out, m, k, n, a, b, ref), NPK_OK);
        /* multiples of 1/8 and small sums: exact in fp32 accumulation */
        CHECK_EQ(npk_rk_compare(cases[c].out, out, ref, (uint64_t)m * n).mismatches, 0);
        CHECK(st.npu_ns > 0 && st.cores_used >= 1 && st.cores_used <= 3);
        /* chained: fewer submits than tasks wherever a core has several tasks */
        if (npk_rk_submission(rt)[0] == 'c' && st.tasks > st.cores_used)
            CHECK(st.submits - st.warmups - st.retries < st.tasks);
        npk_rk_weights_free(rt, w);
        free(a);
        free(b);
        free(out);
        free(ref);
    }
    npk_rk_close(rt);
}

/* Programs the vendor driver runs, through rocket: the op-enable 0x0D form (no DPU_RDMA block)
 * runs as on rknpu (facts A.2: the kernel kicks the same PC; J.5 is open on a board), and a
 * task shorter than its trailer gets the PC amount the kernel programs: a body without an
 * op-enable raises nothing, the job times out (rocket tells user space nothing of it). */
static void test_rknpu_forms_on_rocket(void)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.timeout_scale = 0;
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open_sim_rocket(&cfg, &d), NPK_OK);
    const uint32_t m = 8, k = 64, n = 32;
    struct rknpu_submit sub;
    for (int out = 0; out < 2; out++) {
        npk_rk_prec op = out ? NPK_PREC_FP16 : NPK_PREC_FP32;
        npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, m, k, n);
        mm.out = op;
        npk_rk_devtask t;
        CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
        CHECK(t.form == npk_rk_kernel_form_find("rocket"));
        t.form = npk_rk_kernel_form_find("rknpu");
        CHECK_EQ(npk_rk_synth_for(t.form, &t.mm, t.body, &t.body_count, NULL), NPK_OK);
        CHECK_EQ(t.body_count, NPK_RK_MATMUL_BODY);
        CHECK_EQ(npk_rk_devtask_write_program(d, &t), NPK_OK);
        void *a = rk_test_operands(NPK_PREC_FP16, (size_t)m * k),
             *b = rk_test_operands(NPK_PREC_FP16, (size_t)k * n);
        void *c = calloc((size_t)m * n, 4), *ref = calloc((size_t)m * n, 4);
        CHECK_EQ(npk_rk_devtask_load(d, &t, a, b), NPK_OK);
        CHECK_EQ(npk_rk_devtask_submit(d, &t, 0, 100, &sub), NPK_OK);
        CHECK_EQ(rksim_last_report(npk_rk_device_sim(d))->outcome, RKSIM_OK);
        CHECK_EQ(npk_rk_devtask_read(d, &t, c), NPK_OK);
        CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_FP16, op, m, k, n, a, b, ref), NPK_OK);
        CHECK_EQ(npk_rk_compare(op, c, ref, (uint64_t)m * n).mismatches, 0);
        /* two entries of body (regcmd_count 2): the PC fetches them, no op-enable */
        ((struct rknpu_task *)t.task.host)[0].regcfg_amount = (uint32_t)-2;
        CHECK_EQ(npk_rk_devtask_submit(d, &t, 0, 100, &sub), NPK_OK);
        CHECK_EQ(rksim_last_report(npk_rk_device_sim(d))->outcome, RKSIM_WEDGE);
        CHECK_STR_HAS(rksim_last_report(npk_rk_device_sim(d))->message, "no op-enable");
        npk_rk_devtask_destroy(d, &t);
        free(a);
        free(b);
        free(c);
        free(ref);
    }
    npk_rk_device_close(d);
}

int main(void)
{
    test_forms();
    test_device();
    test_runtime();
    test_rknpu_forms_on_rocket();
    return check_done();
}
