/* SPDX-License-Identifier: MIT */
/* The matmul's executor and its simulator row (ops.h): decode the core's
 * registers into a matmul, apply the hazard table, run it. */
#include <stdio.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_types.h"
#include "rksim/matmul.h"
#include "rksim/ops.h"
#include "rksim/regs_view.h"

#define OPEN(field) NPK_RKF(PC_OP_ENABLE, field)

/* The matmul: CNA|CORE|DPU (0x0D, or 0x0F with the WAIT bit of CORE_CTRL, spec "Key
 * registers"); +DPU_RDMA (0x1D) is the same matmul when the RDMA block disables its main read
 * (facts C.6), else the DPU waits for a feed that never comes. */
static void matmul_op(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                      rksim_core_result *r)
{
    rksim_core *c = &s->core[core];
    const rksim_regfile *rf = &c->regs;
    uint32_t enable = blocks;
    uint32_t rdma = npk_rk_field_put(OPEN(DPU_RDMA), 1);

    /* 0x0D on rocket runs like on rknpu: the kernel kicks the PC with the same registers and
     * the DPU interrupt mask (facts A.2), and the NPU runs 0x0D without touching the DPU_RDMA
     * (facts C.1, B.3). The MRDMA trap below needs the RDMA block enabled; whether a board
     * hangs otherwise is still untested there (facts J.5, docs/rk-simulator.md). */
    /* The DPU_RDMA's main read armed: the K accumulation when COMB_USE combines it with the
     * ERDMA's partial (facts C.6), else the MRDMA trap (facts B.3). */
    bool mrdma =
        (blocks & rdma) && !rksim_field(rf, NPK_RKF(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE));
    if (mrdma && rksim_field(rf, NPK_RKF(DPU_RDMA_FEATURE_MODE_CFG, COMB_USE)) !=
                     RKSIM_COMB_USE_ACCUMULATE) {
        rksim_result_fail(r, RKSIM_WEDGE,
                          "op-enable 0x%x with DPU_RDMA_FEATURE_MODE_CFG.MRDMA_DISABLE = 0 and "
                          "COMB_USE %u: the DPU waits for a main-RDMA feed (facts B.3 MRDMA trap; "
                          "COMB_USE %u is the K accumulation)",
                          enable, rksim_field(rf, NPK_RKF(DPU_RDMA_FEATURE_MODE_CFG, COMB_USE)),
                          RKSIM_COMB_USE_ACCUMULATE);
        return;
    }
    rksim_mm mm;
    if (!rksim_mm_decode(s, rf, mrdma, &mm, &r->hazards, r))
        return;
    rksim_effect e;
    rksim_hazards_op(s, core, rf, &mm, first_in_job, &e, &r->hazards, r);
    if (r->outcome != RKSIM_OK)
        return;
    if (e.wedge) {
        rksim_result_fail(r, RKSIM_WEDGE, "wedge: %s", e.why);
        return;
    }
    if (!rksim_mm_run(s, core, &mm, &e, first_in_job, r))
        return;
    /* mode bookkeeping for hazard 3: leaving integer mode un-primes the core */
    if (npk_rk_input_row((npk_rk_prec)mm.in)->is_float)
        c->int_primed = false;
    c->last_prec = mm.in;
    c->job_out_prec = mm.out;
}

const rksim_op_row rksim_op_matmul = {matmul_op};
