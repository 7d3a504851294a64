/* SPDX-License-Identifier: MIT */
/* Operation dispatch: an op-enable entry (target 0x0081, value = the per-block enable mask,
 * facts B.2) runs the operation whose row (rk/hw/rk_ops.def) names that block set, through
 * the operation's executor (its simulator row, rksim/ops.h); a block set two rows share goes
 * to the row whose mark the program's registers hold (npk_rk_op_select: the conv's 0x1D).
 * Anything else is outside the model, refused naming the block sets that are modelled. */
#include <stdio.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_types.h"
#include "rksim/exec.h"
#include "rksim/ops.h"
#include "rksim/regs_view.h"
#include "rksim/sim.h"

#define OPEN(field) NPK_RKF(PC_OP_ENABLE, field)

/* The operation rows' register reader over a core's register file. */
static uint32_t regfile_reg(const void *rf, npk_rk_reg_id id) { return rksim_reg(rf, id); }

void rksim_exec_op(rksim *s, unsigned core, uint32_t enable, bool first_in_job,
                   rksim_core_result *r)
{
    rksim_core *c = &s->core[core];
    uint32_t blocks = enable & ~npk_rk_field_put(OPEN(WAIT), 1);
    if (first_in_job)
        c->job_out_prec = -1;
    const npk_rk_op_desc *d = npk_rk_op_select(blocks, regfile_reg, &c->regs);
    if (!d) {
        char known[256];
        rksim_result_fail(r, RKSIM_UNSUPPORTED,
                          "unsupported by the model: op-enable 0x%x (the modelled block sets: %s)",
                          enable, npk_rk_op_enables(known, sizeof known));
        return;
    }
    const rksim_op_row *row = rksim_op_row_of(d->op);
    if (!row) {
        rksim_result_fail(r, RKSIM_UNSUPPORTED,
                          "unsupported by the model: op-enable 0x%x selects the %s operation, "
                          "which the simulator has no executor for",
                          enable, d->name);
        return;
    }
    row->exec(s, core, blocks, first_in_job, r);
}
