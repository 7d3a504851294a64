/* SPDX-License-Identifier: MIT */
/* The operation table: every row of rk/hw/rk_ops.def has its hardware row, its driver row
 * (order, synthesizer, sample task) and its simulator row (executor); each driver row's order
 * is what its synthesizer writes, and its sample task runs on both kernels' simulator front
 * ends. Nothing here names an operation: a new row is swept unedited. An operation past the
 * enum is refused by name at every layer: the rows, the job writer, the simulator (a block set
 * no row names), the CLI and the Python package. */
#include <stddef.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "rk/hw/rk_ops.h"
#include "rk/program/rk_job.h"
#include "rksim/ops.h"
#include "rksim_testlib.h"

/* Room for any operation's argument struct (its driver row's args_size). */
typedef union {
    max_align_t align;
    unsigned char bytes[2048];
} task_args;

/* Operation op's sample task (its driver row's) over buffers at in, in2 and out. */
static npk_rk_job_task sample_task(npk_rk_op op, task_args *args, uint32_t in, uint32_t in2,
                                   uint32_t out)
{
    const npk_rk_op_synth *sy = npk_rk_op_synth_of(op);
    CHECK(sy && sy->args_size <= sizeof args->bytes);
    memset(args, 0, sizeof *args);
    sy->sample(args, in, in2, out);
    return (npk_rk_job_task){.op = op, .args = args};
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
        CHECK(d->name && d->name[0] && d->source && d->source[0]);
        CHECK(sy->check && sy->synth && sy->out_prec && sy->sample && sy->args_size > 0);
        CHECK(sy->body > 0 && sy->order);
        CHECK(d->in_precs != 0);
        if (sy->body > max_body)
            max_body = sy->body;
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
        for (unsigned k = 0; k < sy->body; k++)
            CHECK(npk_rk_reg_info(sy->order[k]) != NULL);
        /* the synthesizer writes exactly the row's order, each entry to its register's block */
        task_args args;
        npk_rk_job_task t = sample_task(op, &args, 0x10000, 0x20000, 0x30000);
        CHECK_EQ(sy->check(t.args), NPK_OK);
        npk_rk_entry body[512];
        CHECK(sy->body <= sizeof body / sizeof body[0]);
        CHECK_EQ(sy->synth(t.args, body), NPK_OK);
        for (unsigned k = 0; k < sy->body; k++) {
            const npk_rk_reg *r = npk_rk_reg_info(sy->order[k]);
            CHECK_EQ(npk_rk_entry_reg(body[k]), r->offset);
            CHECK_EQ(npk_rk_entry_target(body[k]), r->target);
        }
    }
    CHECK_EQ(npk_rk_op_max_body(), max_body);
}

/* A job of every operation, alone, runs on both kernels' simulator front ends and writes its
 * output. */
static void every_op_runs(bool rocket)
{
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++) {
        npk_rk_device *d = rocket ? tl_open_kernel(true) : tl_open(0);
        npk_rk_mem in, in2, out, task;
        CHECK_EQ(npk_rk_mem_create(d, 1 << 16, 0, &in), NPK_OK);
        CHECK_EQ(npk_rk_mem_create(d, 1 << 16, 0, &in2), NPK_OK);
        CHECK_EQ(npk_rk_mem_create(d, 1 << 16, 0, &out), NPK_OK);
        task_args args;
        const npk_rk_job_task t = sample_task((npk_rk_op)i, &args, in.iova, in2.iova, out.iova);
        memset(out.host, 0x5a, out.size); /* the inputs are zeros: an output is not this */
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
            CHECK(memcmp(out.host, "\x5a\x5a\x5a\x5a", 4) != 0); /* the executor wrote it */
        }

        /* the same program with an op-enable no row names is refused, naming the known sets */
        npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)task.host + npk_rk_job_program_offset(1, 0));
        const unsigned body = npk_rk_op_synth_of(t.op)->body;
        for (unsigned k = body; k < body + NPK_RK_TRAILER_ENTRIES; k++)
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
    CHECK(npk_rk_op_by_enable(0x41) == NULL);
    char want[64];
    snprintf(want, sizeof want, "operation %d", (int)fake);
    CHECK_STR_HAS(npk_rk_op_name(fake, buf), want);
    uint8_t host[8192] __attribute__((aligned(16)));
    task_args args;
    npk_rk_job_task tasks[2] = {sample_task(NPK_RK_OP_MATMUL, &args, 0x10000, 0x20000, 0x30000),
                                {.op = fake, .args = &args}};
    CHECK_EQ(npk_rk_job_write(host, 0x1000, sizeof host, &tasks[1], 1), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), want);
    /* behind a known task too: the job is refused before anything is written for it */
    CHECK_EQ(npk_rk_job_write(host, 0x1000, sizeof host, tasks, 2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "job task 1: ");
    CHECK_STR_HAS(npk_last_error(), want);
    /* a known operation without its arguments is refused naming it */
    tasks[1] = (npk_rk_job_task){.op = NPK_RK_OP_MATMUL, .args = NULL};
    CHECK_EQ(npk_rk_job_write(host, 0x1000, sizeof host, tasks, 2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "job task 1: the matmul task has no arguments");
}

/* The PC fetches pairs of entries: a program of odd length (body and trailer) ends its last
 * pair on a no-op, never on what the slot held before (a stale LUT upload, say). */
static void odd_program_padded(void)
{
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++) {
        static uint64_t host[4096];
        memset(host, 0xff, sizeof host);
        task_args args;
        const npk_rk_job_task t = sample_task((npk_rk_op)i, &args, 0x10000, 0x20000, 0x30000);
        CHECK_EQ(npk_rk_job_write(host, 0x1000, sizeof host, &t, 1), NPK_OK);
        const uint32_t body = npk_rk_op_synth_of(t.op)->body;
        const uint32_t fetched = (npk_rk_pc_amount(body) + 1) * 2;
        const npk_rk_entry *prog =
            (const npk_rk_entry *)((const uint8_t *)host + npk_rk_job_program_offset(1, 0));
        CHECK(fetched == body + NPK_RK_TRAILER_ENTRIES ||
              fetched == body + NPK_RK_TRAILER_ENTRIES + 1);
        for (uint32_t k = body + NPK_RK_TRAILER_ENTRIES; k < fetched; k++)
            CHECK_EQ(prog[k], 0);
    }
}

int main(void)
{
    every_row();
    every_op_runs(false);
    every_op_runs(true);
    fake_op_refused();
    odd_program_padded();
    return check_done();
}
