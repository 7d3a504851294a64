/* SPDX-License-Identifier: MIT */
/* The operation table: every operation has its row in each of the three tables (the hardware
 * description, the driver's synthesizer, the simulator's executor), each row's body is the order
 * its synthesizer writes, and a job of every operation runs on the simulator. An operation past
 * the enum — a row one table lacks — is refused by name at every layer: the rows, the job
 * writer, the simulator (a block set no row names), the CLI and the Python package. */
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "rk/hw/rk_ops.h"
#include "rk/program/rk_job.h"
#include "rksim/ops.h"
#include "rksim_testlib.h"

/* A task of each operation with its defaults. No default case: an operation added to the enum
 * without a case here fails the build (-Wswitch), so this test covers every row. */
static npk_rk_job_task default_task(npk_rk_op op)
{
    npk_rk_job_task t = {.op = op};
    switch (op) {
    case NPK_RK_OP_MATMUL:
        t.mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 32);
        t.mm.a = 0x10000;
        t.mm.b = 0x20000;
        t.mm.c = 0x30000;
        break;
    case NPK_RK_OP_SDP:
        t.sdp = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 4, 16);
        t.sdp.a = 0x10000;
        t.sdp.b = 0x20000;
        t.sdp.c = 0x30000;
        break;
    case NPK_RK_OP_CONV:
        t.conv = (npk_rk_conv){.prec = NPK_PREC_FP16, .in_h = 6, .in_w = 5, .in_c = 3,
                               .out_h = 6, .out_w = 5, .out_c = 4, .k_h = 3, .k_w = 3,
                               .stride_y = 1, .stride_x = 1, .pad_top = 1, .pad_left = 1,
                               .in = 0x10000, .weights = 0x20000, .bias = 0x28000,
                               .out = 0x30000};
        break;
    case NPK_RK_OP_POOL:
        t.pool = (npk_rk_pool){.method = NPK_RK_POOL_MAX, .in_h = 4, .in_w = 4, .c = 8,
                               .out_h = 2, .out_w = 2, .k_h = 2, .k_w = 2, .stride_y = 2,
                               .stride_x = 2, .in = 0x10000, .out = 0x30000};
        break;
    case NPK_RK_OP_COUNT:
        break;
    }
    return t;
}

/* A register file of one value, for the rows' marks. */
static uint32_t one_reg(const void *ctx, npk_rk_reg_id id)
{
    const uint32_t *v = ctx;
    return id == (npk_rk_reg_id)v[0] ? v[1] : 0;
}

static void every_row(void)
{
    uint32_t max_body = 0;
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++) {
        npk_rk_op op = (npk_rk_op)i;
        const npk_rk_op_desc *d = npk_rk_op_desc_of(op);
        const npk_rk_op_synth *sy = npk_rk_op_synth_of(op);
        const rksim_op_row *sim = rksim_op_row_of(op);
        CHECK(d && sy && sim);
        if (!d || !sy || !sim)
            continue;
        CHECK_EQ(d->op, op);
        CHECK_EQ(sy->op, op);
        CHECK_EQ(sim->op, op);
        CHECK(d->name && d->name[0] && d->source && d->source[0]);
        CHECK(sy->check && sy->synth && sy->out_prec);
        CHECK(d->body > 0 && d->order);
        CHECK(d->in_precs != 0);
        if (d->body > max_body)
            max_body = d->body;
        /* names and block sets are unique: the decoder and the simulator find one row */
        for (unsigned j = 0; j < i; j++) {
            const npk_rk_op_desc *o = npk_rk_op_desc_of((npk_rk_op)j);
            CHECK(strcmp(o->name, d->name) != 0);
            CHECK(o->enable != d->enable);
        }
        /* an unmarked row is its block set's; a marked one claims the set when its mark holds */
        const uint32_t wait = npk_rk_field_put(NPK_RKF(PC_OP_ENABLE, WAIT), 1);
        const uint32_t marked[2] = {d->mark_reg, d->mark_value};
        if (!d->mark_mask) {
            CHECK(npk_rk_op_by_enable(d->enable) == d);
            CHECK(npk_rk_op_by_enable(d->enable | wait) == d);
        }
        CHECK(npk_rk_op_select(d->enable | wait, one_reg, marked) == d);
        if (d->enable_also)
            CHECK(npk_rk_op_by_enable(d->enable_also) == d);
        /* the interrupt masks are the register table's pairs */
        const uint32_t dpu = npk_rk_field_mask(NPK_RKF(PC_INTERRUPT_MASK, DPU_GROUP0)) |
                             npk_rk_field_mask(NPK_RKF(PC_INTERRUPT_MASK, DPU_GROUP1));
        const uint32_t ppu = npk_rk_field_mask(NPK_RKF(PC_INTERRUPT_MASK, PPU_GROUP0)) |
                             npk_rk_field_mask(NPK_RKF(PC_INTERRUPT_MASK, PPU_GROUP1));
        CHECK(d->int_mask == dpu || d->int_mask == ppu);
        /* every register of the order is in the register table */
        for (unsigned k = 0; k < d->body; k++)
            CHECK(npk_rk_reg_info(d->order[k]) != NULL);
        /* the synthesizer writes exactly the row's order */
        npk_rk_job_task t = default_task(op);
        CHECK_EQ(sy->check(&t), NPK_OK);
        npk_rk_entry body[512];
        CHECK(d->body <= sizeof body / sizeof body[0]);
        CHECK_EQ(sy->synth(&t, body), NPK_OK);
        for (unsigned k = 0; k < d->body; k++) {
            const npk_rk_reg *r = npk_rk_reg_info(d->order[k]);
            CHECK_EQ(npk_rk_entry_reg(body[k]), r->offset);
        }
    }
    CHECK_EQ(npk_rk_op_max_body(), max_body);
}

/* A job of every operation, alone, runs on both kernels' simulator front ends. */
static void every_op_runs(bool rocket)
{
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++) {
        npk_rk_device *d = rocket ? tl_open_kernel(true) : tl_open(0);
        npk_rk_mem in, in2, out, task;
        CHECK_EQ(npk_rk_mem_create(d, 1 << 16, 0, &in), NPK_OK);
        CHECK_EQ(npk_rk_mem_create(d, 1 << 16, 0, &in2), NPK_OK);
        CHECK_EQ(npk_rk_mem_create(d, 1 << 16, 0, &out), NPK_OK);
        npk_rk_job_task t = default_task((npk_rk_op)i);
        switch (t.op) {
        case NPK_RK_OP_MATMUL:
            t.mm.a = in.iova, t.mm.b = in2.iova, t.mm.c = out.iova;
            break;
        case NPK_RK_OP_SDP:
            t.sdp.a = in.iova, t.sdp.b = in2.iova, t.sdp.c = out.iova;
            break;
        case NPK_RK_OP_CONV:
            t.conv.in = in.iova, t.conv.weights = in2.iova, t.conv.bias = in2.iova + 0x8000;
            t.conv.out = out.iova;
            break;
        case NPK_RK_OP_POOL:
            t.pool.in = in.iova, t.pool.out = out.iova;
            break;
        case NPK_RK_OP_COUNT:
            break;
        }
        CHECK_EQ(npk_rk_mem_create(d, npk_rk_job_bytes(1), RKNPU_MEM_KERNEL_MAPPING, &task),
                 NPK_OK);
        CHECK_EQ(npk_rk_job_write(task.host, task.iova, task.size, &t, 1), NPK_OK);
        struct rknpu_submit sub = {.flags = RKNPU_JOB_PC | RKNPU_JOB_BLOCK,
                                   .timeout = 6000,
                                   .task_number = 1,
                                   .task_obj_addr = task.obj_addr,
                                   .core_mask = 1,
                                   .fence_fd = -1};
        sub.subcore_task[0] = (struct rknpu_subcore_task){0, 1};
        npk_status s = npk_rk_submit(d, &sub);
        if (s)
            fprintf(stderr, "%s: %s\n", npk_rk_op_desc_of(t.op)->name, npk_last_error());
        /* the rocket kernel ends every job on the DPU interrupt (facts A.2): a PDP pool, which
         * ends on the PPU's, never completes there */
        if (rocket && npk_rk_op_desc_of(t.op)->int_mask != npk_rk_matmul_int_mask()) {
            CHECK_EQ(tl_report(d)->outcome, RKSIM_WEDGE);
            CHECK_STR_HAS(tl_report(d)->message, "never satisfied");
        } else {
            CHECK_EQ(s, NPK_OK);
        }

        /* the same program with an op-enable no row names is refused, naming the known sets */
        npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)task.host + npk_rk_job_program_offset(1, 0));
        const npk_rk_op_desc *desc = npk_rk_op_desc_of(t.op);
        for (unsigned k = desc->body; k < desc->body + NPK_RK_TRAILER_ENTRIES; k++)
            if (npk_rk_entry_target(prog[k]) == 0x0081)
                prog[k] = npk_rk_entry_make(0x0081, npk_rk_entry_reg(prog[k]), 0x41);
        CHECK_EQ(npk_rk_submit(d, &sub), NPK_EUNSUPPORTED);
        CHECK_STR_HAS(tl_report(d)->message, "op-enable 0x41");
        CHECK_STR_HAS(tl_report(d)->message, "0x18 (sdp)");
        npk_rk_mem_destroy(d, &task);
        npk_rk_mem_destroy(d, &in);
        npk_rk_mem_destroy(d, &in2);
        npk_rk_mem_destroy(d, &out);
        npk_rk_device_close(d);
    }
}

/* One past the enum: a fake operation no table has a row for. */
static void fake_op_refused(void)
{
    npk_rk_op fake = NPK_RK_OP_COUNT;
    char buf[32];
    CHECK(npk_rk_op_desc_of(fake) == NULL);
    CHECK(npk_rk_op_synth_of(fake) == NULL);
    CHECK(rksim_op_row_of(fake) == NULL);
    CHECK_STR_HAS(npk_rk_op_name(fake, buf), "operation");
    CHECK(npk_rk_op_by_enable(0x41) == NULL);
    uint8_t host[8192] __attribute__((aligned(16)));
    npk_rk_job_task tasks[2] = {default_task(NPK_RK_OP_MATMUL), {.op = fake}};
    CHECK_EQ(npk_rk_job_write(host, 0x1000, sizeof host, &tasks[1], 1), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "operation 4");
    /* behind a known task too: the job is refused before anything is written for it */
    CHECK_EQ(npk_rk_job_write(host, 0x1000, sizeof host, tasks, 2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "job task 1: operation 4");
}

int main(void)
{
    every_row();
    every_op_runs(false);
    every_op_runs(true);
    fake_op_refused();
    return check_done();
}
