/* SPDX-License-Identifier: MIT */
/* rksim's PC and jobs: CORE_CTRL (op-enable 0x000f) inside one concatenated task, trailer
 * chaining across task records, three cores with their own state, DMA faults (never a host
 * crash) and refused operations. */
#include "rksim_testlib.h"

#include <pthread.h>

#include "npukit/rk_regcmd.h"
#include "rksim/timing.h"

typedef struct job {
    tl_case t;
    npk_rk_devtask tk;
} job;

static void job_make(npk_rk_device *d, job *j, npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n)
{
    tl_case_init(&j->t, in, npk_rk_default_out(in), m, k, n);
    tl_case_reference(&j->t);
    npk_rk_mm mm = npk_rk_mm_default(in, m, k, n);
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &j->tk), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &j->tk, j->t.a, j->t.b), NPK_OK);
}

static size_t job_check(npk_rk_device *d, job *j)
{
    memset(j->t.c, 0, (size_t)j->t.m * j->t.n * 4);
    CHECK_EQ(npk_rk_devtask_read(d, &j->tk, j->t.c), NPK_OK);
    return tl_mismatches(&j->t);
}

static void job_free(npk_rk_device *d, job *j)
{
    npk_rk_devtask_destroy(d, &j->tk);
    tl_case_free(&j->t);
}

static struct rknpu_submit submit_of(const npk_rk_mem *task, uint32_t n, uint32_t core_mask)
{
    struct rknpu_submit s = {.flags = RKNPU_JOB_PC | RKNPU_JOB_PINGPONG,
                             .timeout = 6000,
                             .task_number = n,
                             .task_obj_addr = task->obj_addr,
                             .core_mask = core_mask,
                             .fence_fd = -1};
    for (int i = 0; i < 5; i++)
        s.subcore_task[i] = (struct rknpu_subcore_task){0, n};
    return s;
}

static void write_record(npk_rk_mem *task, unsigned i, uint32_t regcmd, uint32_t amount)
{
    ((struct rknpu_task *)task->host)[i] = (struct rknpu_task){.enable_mask = 0xd,
                                                               .int_mask = 0x300,
                                                               .int_clear = 0x1ffff,
                                                               .regcfg_amount = amount,
                                                               .regcmd_addr = regcmd};
}

/* Two matmuls in one task: body1, op-enable 0x000f (start and wait) or 0x000d (start),
 * body2, trailer. */
static void test_core_ctrl_concat(uint32_t core_ctrl)
{
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    job j1, j2;
    job_make(d, &j1, NPK_PREC_FP16, 4, 64, 32);
    job_make(d, &j2, NPK_PREC_FP16, 4, 64, 32); /* same feature address rule: separate */
    npk_rk_mem r, task;
    const unsigned body = 2 * NPK_RK_MATMUL_BODY + 1;
    CHECK_EQ(npk_rk_mem_create(d, (body + 8) * 8, 0, &r), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(d, 64, RKNPU_MEM_KERNEL_MAPPING, &task), NPK_OK);
    npk_rk_entry *e = r.host;
    memcpy(e, j1.tk.body, j1.tk.body_count * sizeof *e);
    e[NPK_RK_MATMUL_BODY] = npk_rk_entry_make(NPK_TARGET_PC_OPEN, 0x0008, core_ctrl);
    memcpy(e + NPK_RK_MATMUL_BODY + 1, j2.tk.body, j2.tk.body_count * sizeof *e);
    CHECK_EQ(npk_rk_trailer(e + body, 0, 0, NPK_RK_ENABLE_MATMUL), NPK_OK);
    write_record(&task, 0, r.iova, body);
    struct rknpu_submit s = submit_of(&task, 1, 1);
    CHECK_EQ(npk_rk_submit(d, &s), NPK_OK);
    CHECK_EQ(s.task_counter, 1);
    CHECK_EQ(tl_report(d)->ops, 2);
    CHECK_EQ(job_check(d, &j1), 0);
    CHECK_EQ(job_check(d, &j2), 0);
    npk_rk_mem_destroy(d, &r);
    npk_rk_mem_destroy(d, &task);
    job_free(d, &j1);
    job_free(d, &j2);
    npk_rk_device_close(d);
}

/* Two task records whose first trailer chains to the second (facts B.3). */
static void test_chain(uint32_t ideal, bool chained)
{
    npk_rk_device *d = tl_open(ideal);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    job j1, j2;
    job_make(d, &j1, NPK_PREC_INT8, 4, 64, 32);
    job_make(d, &j2, NPK_PREC_INT8, 8, 128, 64);
    if (chained) {
        npk_rk_entry *e = j1.tk.regcmd.host;
        CHECK_EQ(npk_rk_trailer(e + NPK_RK_MATMUL_BODY, j2.tk.regcmd.iova, NPK_RK_MATMUL_BODY,
                                NPK_RK_ENABLE_MATMUL),
                 NPK_OK);
        CHECK_EQ(npk_rk_mem_sync(d, &j1.tk.regcmd, 0, j1.tk.regcmd.size, RKNPU_MEM_SYNC_TO_DEVICE),
                 NPK_OK);
    }
    npk_rk_mem task;
    CHECK_EQ(npk_rk_mem_create(d, 2 * sizeof(struct rknpu_task), RKNPU_MEM_KERNEL_MAPPING, &task),
             NPK_OK);
    write_record(&task, 0, j1.tk.regcmd.iova, NPK_RK_MATMUL_BODY);
    write_record(&task, 1, j2.tk.regcmd.iova, NPK_RK_MATMUL_BODY);
    struct rknpu_submit s = submit_of(&task, 2, 1);
    npk_status st = npk_rk_submit(d, &s);
    if (chained || ideal) {
        CHECK_EQ(st, NPK_OK);
        CHECK_EQ(s.task_counter, 2);
        CHECK_EQ(job_check(d, &j1), 0);
        CHECK_EQ(job_check(d, &j2), 0);
        /* the report names a triggered hazard in the ideal mode too */
        CHECK_EQ(!!(tl_report(d)->hazards & RKSIM_HZ_BIT(RKSIM_HZ_UNCHAINED_TASKS)), !chained);
    } else {
        /* hazard 17: the PC waits forever; the board says "task counter 0" */
        CHECK_EQ(st, NPK_ETIMEDOUT);
        CHECK_EQ(s.task_counter, 0);
        CHECK(tl_report(d)->hazards & RKSIM_HZ_BIT(RKSIM_HZ_UNCHAINED_TASKS));
        CHECK_STR_HAS(npk_last_error(), "task_counter 0 of 2");
    }
    npk_rk_mem_destroy(d, &task);
    job_free(d, &j1);
    job_free(d, &j2);
    npk_rk_device_close(d);
}

/* task_counter tells how far a chained job got: the second task faults, the first counted. */
static void test_chain_counter(void)
{
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    job j1, j2;
    job_make(d, &j1, NPK_PREC_FP16, 4, 64, 32);
    job_make(d, &j2, NPK_PREC_FP16, 4, 64, 32);
    npk_rk_entry *e1 = j1.tk.regcmd.host, *e2 = j2.tk.regcmd.host;
    CHECK_EQ(npk_rk_trailer(e1 + NPK_RK_MATMUL_BODY, j2.tk.regcmd.iova, NPK_RK_MATMUL_BODY,
                            NPK_RK_ENABLE_MATMUL),
             NPK_OK);
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_entry_reg(e2[i]) == 0x4020) /* DST_BASE_ADDR */
            e2[i] = npk_rk_entry_reg_write(NPK_REG_DPU_DST_BASE_ADDR, 0x3000);
    npk_rk_mem task;
    CHECK_EQ(npk_rk_mem_create(d, 2 * sizeof(struct rknpu_task), RKNPU_MEM_KERNEL_MAPPING, &task),
             NPK_OK);
    write_record(&task, 0, j1.tk.regcmd.iova, NPK_RK_MATMUL_BODY);
    write_record(&task, 1, j2.tk.regcmd.iova, NPK_RK_MATMUL_BODY);
    struct rknpu_submit s = submit_of(&task, 2, 1);
    CHECK_EQ(npk_rk_submit(d, &s), NPK_ETIMEDOUT);
    CHECK_EQ(s.task_counter, 1);
    CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
    CHECK_EQ(job_check(d, &j1), 0); /* the first task's output was written */
    npk_rk_mem_destroy(d, &task);
    job_free(d, &j1);
    job_free(d, &j2);
    npk_rk_device_close(d);
}

/* Three cores in one submit (core_mask 0x7 takes subcore_task[core + 2]), and per-core state. */
static void test_three_cores(void)
{
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    job j[3];
    job_make(d, &j[0], NPK_PREC_FP16, 4, 64, 32);
    job_make(d, &j[1], NPK_PREC_INT8, 4, 64, 32);
    job_make(d, &j[2], NPK_PREC_INT4, 1, 64, 64);
    npk_rk_mem task;
    CHECK_EQ(npk_rk_mem_create(d, 3 * sizeof(struct rknpu_task), RKNPU_MEM_KERNEL_MAPPING, &task),
             NPK_OK);
    for (unsigned i = 0; i < 3; i++)
        write_record(&task, i, j[i].tk.regcmd.iova, NPK_RK_MATMUL_BODY);
    struct rknpu_submit s = submit_of(&task, 1, 0x7);
    for (unsigned c = 0; c < 3; c++)
        s.subcore_task[c + 2] = (struct rknpu_subcore_task){c, 1};
    s.subcore_task[0] = s.subcore_task[1] = (struct rknpu_subcore_task){0, 0};
    CHECK_EQ(npk_rk_submit(d, &s), NPK_OK);
    CHECK_EQ(s.task_counter, 3);
    for (unsigned i = 0; i < 3; i++)
        CHECK_EQ(job_check(d, &j[i]), 0);

    /* Per-core mode state: core 0 ran fp16 (leaving integer mode), core 1 ran int8. An int8
     * job now wedges on core 0 only (hazard 3); core 1 stays in integer mode. */
    struct rknpu_submit one;
    CHECK_EQ(npk_rk_devtask_submit(d, &j[1].tk, 1, 100, &one), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &j[1].tk, 0, 100, &one), NPK_ETIMEDOUT);
    CHECK(tl_report(d)->hazards & RKSIM_HZ_BIT(RKSIM_HZ_INT8_ENTRY_WEDGE));
    npk_rk_mem_destroy(d, &task);
    for (unsigned i = 0; i < 3; i++)
        job_free(d, &j[i]);
    npk_rk_device_close(d);
}

/* Every DMA is bounds-checked: a fault fails the job (ETIMEDOUT, the board's answer), never
 * the host. */
static void test_dma_faults(void)
{
    npk_rk_device *d = tl_open(0);
    job j;
    job_make(d, &j, NPK_PREC_FP16, 4, 64, 32);
    const npk_rk_reg_id regs[] = {NPK_REG_CNA_FEATURE_DATA_ADDR, NPK_REG_CNA_DCOMP_ADDR0,
                                  NPK_REG_DPU_DST_BASE_ADDR};
    const char *what[] = {"feature read", "weight read", "output write"};
    for (unsigned i = 0; i < 3; i++) {
        npk_rk_devtask tk = j.tk;
        for (unsigned e = 0; e < NPK_RK_MATMUL_BODY; e++)
            if (npk_rk_reg_lookup(npk_rk_entry_target(tk.body[e]), npk_rk_entry_reg(tk.body[e])) ==
                npk_rk_reg_info(regs[i]))
                tk.body[e] = npk_rk_entry_reg_write(regs[i], 0x1000); /* never mapped */
        CHECK_EQ(npk_rk_devtask_write_program(d, &tk), NPK_OK);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        struct rknpu_submit s;
        CHECK_EQ(npk_rk_devtask_submit(d, &tk, 0, 100, &s), NPK_ETIMEDOUT);
        CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
        CHECK_EQ(tl_report(d)->fault_iova, 0x1000);
        CHECK_STR_HAS(tl_report(d)->message, what[i]);
    }
    /* the regcmd fetch itself */
    struct rknpu_task *rec = j.tk.task.host;
    rec->regcmd_addr = 0x2000;
    struct rknpu_submit s;
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_ETIMEDOUT);
    CHECK_STR_HAS(tl_report(d)->message, "regcmd fetch");
    /* an output that runs past the end of its buffer (a too-large row stride) */
    CHECK_EQ(npk_rk_devtask_write_program(d, &j.tk), NPK_OK);
    for (unsigned e = 0; e < NPK_RK_MATMUL_BODY; e++)
        if (npk_rk_entry_reg(j.tk.body[e]) == 0x4038)
            j.tk.body[e] =
                npk_rk_entry_reg_write(NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR,
                                       NPK_RKPUT(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1, 4095) |
                                           NPK_RKPUT(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0, 7));
    CHECK_EQ(npk_rk_devtask_write_program(d, &j.tk), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_ETIMEDOUT);
    CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
    job_free(d, &j);
    npk_rk_device_close(d);
}

/* Operations outside the model are refused with the register named; the MRDMA trap wedges. */
static void test_refusals(void)
{
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    job j;
    job_make(d, &j, NPK_PREC_FP16, 4, 64, 32);
    npk_rk_entry *e = j.tk.regcmd.host;
    struct rknpu_submit s;
    /* an SDP op-enable (DPU|DPU_RDMA, 0x18) over a matmul's registers: the SDP decoder
     * refuses the matmul's ping-pong S_POINTER by name */
    e[NPK_RK_MATMUL_BODY + 3] = npk_rk_entry_make(NPK_TARGET_PC_OPEN, 0x0008, 0x18);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "DPU_S_POINTER");
    /* an op-enable the model has no operation for (CNA alone) */
    e[NPK_RK_MATMUL_BODY + 3] = npk_rk_entry_make(NPK_TARGET_PC_OPEN, 0x0008, 0x01);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "op-enable 0x1");
    /* 0x1D without DPU_RDMA's MRDMA_DISABLE: the DPU waits for a feed (facts B.3) */
    e[NPK_RK_MATMUL_BODY + 3] = npk_rk_entry_make(NPK_TARGET_PC_OPEN, 0x0008, 0x1D);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_ETIMEDOUT);
    CHECK_STR_HAS(tl_report(d)->message, "MRDMA_DISABLE");
    /* ... and with it (one more entry before the trailer), the matmul runs */
    memmove(e + NPK_RK_MATMUL_BODY + 1, e + NPK_RK_MATMUL_BODY, 4 * 8);
    e[NPK_RK_MATMUL_BODY] = npk_rk_entry_reg_write(
        NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE, 1));
    ((struct rknpu_task *)j.tk.task.host)->regcfg_amount = NPK_RK_MATMUL_BODY + 1;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_OK);
    CHECK_EQ(job_check(d, &j), 0);
    /* a register the table does not know */
    e[5] = npk_rk_entry_make(NPK_TARGET_CNA, 0x10FC, 1);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "0x10fc");
    /* a target that is no block */
    e[5] = npk_rk_entry_make(0x0301, 0x1000, 1);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "target 0x0301");
    /* an int_mask the matmul's interrupts never satisfy (a PPU group) times out */
    e[5] = j.tk.body[5];
    struct rknpu_task *rec = j.tk.task.host;
    rec->int_mask = 0xc00;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_ETIMEDOUT);
    CHECK_STR_HAS(tl_report(d)->message, "int_mask 0xc00");
    rec->int_mask = 0x300;
    /* the kernel requests the PC path; others are not modelled */
    struct rknpu_submit raw = {.flags = RKNPU_JOB_PINGPONG,
                               .timeout = 100,
                               .task_number = 1,
                               .task_obj_addr = j.tk.task.obj_addr,
                               .core_mask = 1};
    raw.subcore_task[0] = (struct rknpu_subcore_task){0, 1};
    CHECK_EQ(npk_rk_submit(d, &raw), NPK_EINVAL);
    raw.flags = RKNPU_JOB_PC | RKNPU_JOB_FENCE_OUT;
    CHECK_EQ(npk_rk_submit(d, &raw), NPK_EINVAL);
    raw.flags = RKNPU_JOB_PC;
    raw.subcore_task[0] = (struct rknpu_subcore_task){1, 1}; /* past the one record */
    CHECK_EQ(npk_rk_submit(d, &raw), NPK_EINVAL);
    /* a task whose body has no op-enable never raises its interrupt */
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY + 5; i++)
        e[i] = 0;
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 100, &s), NPK_ETIMEDOUT);
    job_free(d, &j);
    npk_rk_device_close(d);
}

/* Threads sharing one simulator device, each on its own core, each with its own stable
 * buffers: the device layer serializes the requests, every result is right. */
typedef struct worker {
    npk_rk_device *d;
    job j;
    unsigned core;
    int failures;
} worker;

static void *work(void *p)
{
    worker *w = p;
    for (int i = 0; i < 4; i++) {
        struct rknpu_submit s;
        if (npk_rk_devtask_submit(w->d, &w->j.tk, w->core, 6000, &s) != NPK_OK)
            w->failures++;
    }
    return NULL;
}

static void test_threads(void)
{
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    worker w[3];
    pthread_t th[3];
    for (unsigned i = 0; i < 3; i++) {
        w[i] = (worker){.d = d, .core = i};
        job_make(d, &w[i].j, i == 1 ? NPK_PREC_INT8 : NPK_PREC_FP16, 8, 64, 32);
    }
    for (unsigned i = 0; i < 3; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, work, &w[i]), 0);
    for (unsigned i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(w[i].failures, 0);
        CHECK_EQ(job_check(d, &w[i].j), 0);
        job_free(d, &w[i].j);
    }
    npk_rk_device_close(d);
}

/* The timing model: the documented constants give the documented numbers. */
static void test_timing(void)
{
    /* fp16 512x2048x2048: 2^31 MACs / (512 MAC/cycle * 600 MHz * 31%) = 22 550 us plus the
     * DMA's 14.7 MB at 8.6 GB/s = 1 707 us */
    double us = npk_rk_time_matmul_us(NULL, NPK_PREC_FP16, 512, 2048, 2048,
                                      (512.0 * 2048 + 2048.0 * 2048) * 2, 512.0 * 2048 * 4);
    CHECK(us > 24250 && us < 24265);
    /* int8 decode 1x4096x4096: 16 MiB of weights at 8.6 GB/s (1 953 us) plus 2^24 MACs at
     * 1024 MAC/cycle * 600 MHz * 11.7% (233 us) */
    us = npk_rk_time_matmul_us(NULL, NPK_PREC_INT8, 1, 4096, 4096, 4096.0 + 4096.0 * 4096,
                               4096.0 * 4);
    CHECK(us > 2180 && us < 2193);
    /* a submit reports the floor plus the operation */
    npk_rk_device *d = tl_open(0);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    job j;
    job_make(d, &j, NPK_PREC_FP16, 4, 64, 32);
    struct rknpu_submit s;
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 6000, &s), NPK_OK);
    CHECK(s.u48_.hw_elapse_time >= (int64_t)npk_rk_time_job_floor_us(NULL));
    CHECK(s.u48_.hw_elapse_time < 2 * (int64_t)npk_rk_time_job_floor_us(NULL));
    job_free(d, &j);
    npk_rk_device_close(d);
}

/* The simulator runs at its SoC row's clock, the one the planner's estimates use: GET_FREQ reads
 * it, and SET_FREQ changes the modelled time as the MAC term says (the DMA term stays). */
static void test_clock(void)
{
    npk_rk_device *d = tl_open(0);
    uint32_t hz = 0;
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_FREQ, &hz), NPK_OK);
    CHECK_EQ(hz, (uint32_t)npk_rk_time_clock_hz(NULL));
    CHECK_EQ(hz, npk_rk_soc_default()->clock_mhz * 1000000u);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    /* fp16 256x512x256: 2^25 MACs, 1 057 us of MACs at 600 MHz, 96 us of DMA */
    job j;
    job_make(d, &j, NPK_PREC_FP16, 256, 512, 256);
    struct rknpu_submit s;
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 6000, &s), NPK_OK);
    const int64_t at_row = s.u48_.hw_elapse_time;
    const double want = npk_rk_time_task_us(NULL, NPK_PREC_FP16, NPK_PREC_FP32, 256, 512, 256);
    CHECK(at_row > want - 2 && at_row < want + 2); /* the planner's figure for the task */
    uint32_t twice = 2 * hz;
    CHECK_EQ(npk_rk_action(d, RKNPU_SET_FREQ, &twice), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &j.tk, 0, 6000, &s), NPK_OK);
    const double mac_us =
        256.0 * 512 * 256 /
        (512 * npk_rk_time_clock_hz(NULL) * npk_rk_time_mac_efficiency(NULL, NPK_PREC_FP16)) * 1e6;
    const double saved = (double)(at_row - s.u48_.hw_elapse_time);
    CHECK(saved > mac_us / 2 - 2 && saved < mac_us / 2 + 2);
    job_free(d, &j);
    npk_rk_device_close(d);
}

int main(void)
{
    test_core_ctrl_concat(0x000f);
    test_core_ctrl_concat(0x000d);
    test_chain(0, true);
    test_chain(0, false);
    test_chain(RKSIM_HZ_BIT(RKSIM_HZ_UNCHAINED_TASKS), false);
    test_chain_counter();
    test_three_cores();
    test_dma_faults();
    test_refusals();
    test_threads();
    test_timing();
    test_clock();
    return check_done();
}
