/* SPDX-License-Identifier: MIT */
/* The PC of one core: fetches regcmd bodies by DMA, lands register writes in the per-block
 * register files, runs an operation at each op-enable entry, and follows the trailer's chain
 * (facts A.1 "How the kernel programs the PC", B.1-B.3). */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rknpu_uapi.h"
#include "rk/hw/rk_ops.h"
#include "rksim/exec.h"
#include "rksim/lut.h"
#include "rksim/regs_view.h"
#include "rksim/sim.h"
#include "rksim/timing.h"

/* PC_DATA_AMOUNT the kernel programs for a body of `regcfg_amount` entries:
 * ceil((amount + 4) / pc_data_amount_scale(2)) - 1 (facts A.1 step 4: 108 -> 55), as the
 * register's field keeps it (a wrapped value is the field's largest). */
static uint32_t kernel_pc_amount(uint32_t regcfg_amount)
{
    npk_rk_field_id f = NPK_RKF(PC_REGISTER_AMOUNTS, PC_DATA_AMOUNT);
    return npk_rk_field_get(f, npk_rk_field_put(f, npk_rk_pc_amount(regcfg_amount)));
}

/* The address the kernel's PC_BASE_ADDRESS write gives the PC: the register keeps
 * PC_SOURCE_ADDR (bits [31:4], facts B.4) of the 32-bit value. */
static uint32_t pc_address(uint64_t iova)
{
    return (uint32_t)iova & npk_rk_field_mask(NPK_RKF(PC_BASE_ADDRESS, PC_SOURCE_ADDR));
}

/* Interrupt-status bits a CNA+CORE+DPU operation raises (facts B.4 INTERRUPT_* layout):
 * CNA feature/weight/CSC groups [5:0], CORE [7:6], DPU [9:8]. The IRQ handler "fuzzes" each
 * pair to both bits, so a finished matmul satisfies any mask within these (0x3ff). */
static uint32_t matmul_raised_irqs(void)
{
#define IRQ(group) NPK_RKF(PC_INTERRUPT_MASK, group)
    static const npk_rk_field_id raised[] = {
        IRQ(CNA_FEATURE_GROUP0), IRQ(CNA_FEATURE_GROUP1), IRQ(CNA_WEIGHT_GROUP0),
        IRQ(CNA_WEIGHT_GROUP1),  IRQ(CNA_CSC_GROUP0),     IRQ(CNA_CSC_GROUP1),
        IRQ(CORE_GROUP0),        IRQ(CORE_GROUP1),        IRQ(DPU_GROUP0),
        IRQ(DPU_GROUP1),
    };
#undef IRQ
    uint32_t m = 0;
    for (size_t i = 0; i < sizeof raised / sizeof raised[0]; i++)
        m |= npk_rk_field_mask(raised[i]);
    return m;
}

/* The interrupt bits an operation raises: its row's (rk/hw/rk_ops.def; a shared block set's
 * rows end on the same pair), fuzzed to both bits of each pair by the IRQ handler; an operation
 * without a row never ran. */
static uint32_t raised_irqs(uint32_t enable)
{
    const npk_rk_op_desc *d = npk_rk_op_by_enable(enable);
    return d && d->int_mask != npk_rk_matmul_int_mask() ? d->int_mask : matmul_raised_irqs();
}

void rksim_pc_run(rksim *s, unsigned core, const struct rknpu_task *tasks, uint32_t first,
                  uint32_t count, bool pingpong, rksim_core_result *r)
{
    (void)pingpong; /* functionally invisible: the op works on a snapshot either way */
    memset(r, 0, sizeof *r);
    rksim_core *c = &s->core[core];
    const struct rknpu_task *t0 = &tasks[first];
    const struct rknpu_task *last = &tasks[first + count - 1];
    uint64_t addr = pc_address(t0->regcmd_addr);
    uint32_t amount = kernel_pc_amount(t0->regcfg_amount);
    r->model_us = npk_rk_time_job_floor_us(s->soc);
    if (!s->soc->encodings_described) { /* the SoC row says the facts do not describe them */
        rksim_result_fail(r, RKSIM_UNSUPPORTED,
                          "unsupported by the model: %s's register encodings are not described "
                          "(%s)",
                          s->soc->name, s->soc->sources.limits);
        return;
    }
    bool first_op = true;
    uint32_t raised = 0; /* the interrupt bits of the job's last operation */
    rksim_reg_marks_clear(&c->regs);

    for (uint32_t task = 0; task < count; task++) {
        uint64_t nentries = ((uint64_t)amount + 1) * 2;
        /* every task's body fetch, the first too: the planner costs a task the same way
         * (npk_rk_time_task_body_us), so a job's modelled time is the plan's */
        r->model_us += npk_rk_time_task_step_us(s->soc);
        rksim_fault f = {0};
        const uint8_t *body = rksim_dma(&s->mem, addr, nentries * 8, false, "regcmd fetch", &f);
        if (!body) {
            r->fault_iova = f.iova;
            rksim_result_fail(r, RKSIM_FAULT,
                              "DMA fault: regcmd fetch of %llu entries at IOVA 0x%llx (task "
                              "%u) is outside every live buffer",
                              (unsigned long long)nentries, (unsigned long long)addr, task);
            return;
        }
        uint32_t ops_before = r->ops;
        rksim_regfile *rf = &c->regs;
        uint32_t pc_next = 0, pc_amount = 0;
        for (uint64_t i = 0; i < nentries; i++) {
            uint64_t e;
            memcpy(&e, body + i * 8, 8); /* the NPU is little-endian like the host */
            rksim_entry en;
            if (!rksim_decode_entry(e, &en, r))
                return;
            switch (en.kind) {
            case RKSIM_ENTRY_NOP:
            case RKSIM_ENTRY_PRE_OP: break;
            case RKSIM_ENTRY_WRITE:
                rksim_reg_write(rf, &en);
                rksim_lut_access(&c->lut, rf, &en);
                /* the trailer's chain registers are read back when the body ends */
                if (en.info == npk_rk_reg_info(NPK_REG_PC_BASE_ADDRESS))
                    pc_next = en.value;
                else if (en.info == npk_rk_reg_info(NPK_REG_PC_REGISTER_AMOUNTS))
                    pc_amount = en.value;
                break;
            case RKSIM_ENTRY_OP_ENABLE:
                rksim_exec_op(s, core, en.value, first_op, r);
                raised = raised_irqs(en.value);
                first_op = false;
                rksim_reg_marks_clear(rf);
                if (r->outcome != RKSIM_OK)
                    return;
                r->ops++;
                break;
            }
        }
        if (r->ops == ops_before) {
            rksim_result_fail(r, RKSIM_WEDGE,
                              "task %u has no op-enable entry: nothing raises its interrupt", task);
            return;
        }
        r->completed++;
        if (r->completed == count)
            break;
        /* The trailer's PC_BASE_ADDRESS / PC_REGISTER_AMOUNTS point at the next body. */
        uint32_t next_addr = pc_address(pc_next);
        uint32_t next_amount =
            npk_rk_field_get(NPK_RKF(PC_REGISTER_AMOUNTS, PC_DATA_AMOUNT), pc_amount);
        if (next_addr == 0 || next_amount == 0) {
            r->hazards |= RKSIM_HZ_BIT(RKSIM_HZ_UNCHAINED_TASKS);
            if (rksim_faithful(s, RKSIM_HZ_UNCHAINED_TASKS)) {
                r->completed = 0; /* the board reports "task counter 0" (facts A.1 Batching) */
                rksim_result_fail(r, RKSIM_WEDGE,
                                  "task %u's trailer does not chain (PC_BASE_ADDRESS 0x%x, "
                                  "amount %u) but the job has %u tasks: the PC waits forever",
                                  task, pc_next, pc_amount, count);
                return;
            }
            const struct rknpu_task *t = &tasks[first + task + 1];
            addr = pc_address(t->regcmd_addr);
            amount = kernel_pc_amount(t->regcfg_amount);
        } else {
            addr = next_addr;
            amount = next_amount;
        }
    }
    /* Completion needs the fuzzed status to equal the last task's int_mask (facts A.1). */
    if (last->int_mask == 0 || (last->int_mask & ~raised)) {
        rksim_result_fail(r, RKSIM_WEDGE,
                          "int_mask 0x%x of the last task is never satisfied by its operation's "
                          "interrupts (0x%x; the rocket kernel always waits for the DPU's 0x%x, "
                          "facts A.2)",
                          last->int_mask, raised, npk_rk_matmul_int_mask());
        return;
    }
}
