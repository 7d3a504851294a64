/* SPDX-License-Identifier: MIT */
/* Operation dispatch: an op-enable entry (target 0x0081, value = the per-block enable mask,
 * facts B.2) runs the operation the core's registers configure. CNA|CORE|DPU (0x0D, or 0x0F
 * with the WAIT bit of CORE_CTRL, spec "Key registers") is the matmul; +DPU_RDMA (0x1D) is the
 * same matmul when the RDMA block disables its main read (facts C.6), else the DPU waits for a
 * feed that never comes. DPU|DPU_RDMA (0x18) is an SDP element-wise task (rksim/sdp.c). 0x1D
 * with the spec's conv feed mode in the 0x50xx block's S_POINTER is a convolution
 * (rksim/conv.c); PPU|PPU_RDMA (0x60) is a PDP pooling task (rksim/pool.c). Anything else is
 * outside the model. */
#include <stdio.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_types.h"
#include "rk/hw/rk_conv_hw.h"
#include "rksim/conv.h"
#include "rksim/exec.h"
#include "rksim/matmul.h"
#include "rksim/pool.h"
#include "rksim/regs_view.h"
#include "rksim/sdp.h"

#define OPEN(field) NPK_RKF(PC_OP_ENABLE, field)

void rksim_exec_op(rksim *s, unsigned core, uint32_t enable, bool first_in_job,
                   rksim_core_result *r)
{
    rksim_core *c = &s->core[core];
    const rksim_regfile *rf = &c->regs;
    uint32_t matmul = npk_rk_field_put(OPEN(CNA), 1) | npk_rk_field_put(OPEN(CORE), 1) |
                      npk_rk_field_put(OPEN(DPU), 1);
    uint32_t wait = npk_rk_field_put(OPEN(WAIT), 1);
    uint32_t rdma = npk_rk_field_put(OPEN(DPU_RDMA), 1);
    uint32_t blocks = enable & ~wait;
    if (first_in_job)
        c->job_out_prec = -1;
    if (blocks == NPK_RK_ENABLE_SDP) { /* DPU | DPU_RDMA: an SDP task (rksim/sdp.c) */
        rksim_sdp_op(s, core, first_in_job, r);
        return;
    }
    if (rksim_conv_is(rf, blocks)) { /* the conv's blocks and feed mode (rksim/conv.c) */
        rksim_conv_op(s, core, r);
        c->job_out_prec = NPK_PREC_FP16;
        return;
    }
    if (blocks == NPK_RK_ENABLE_POOL) { /* PPU | PPU_RDMA: the PDP (rksim/pool.c) */
        rksim_pool_op(s, core, r);
        c->job_out_prec = NPK_PREC_FP16;
        return;
    }
    if (blocks != matmul && blocks != (matmul | rdma)) {
        rksim_result_fail(r, RKSIM_UNSUPPORTED,
                          "unsupported by the model: op-enable 0x%x (only the CNA|CORE|DPU "
                          "matmul, 0x0D/0x0F/0x1D, the conv 0x1D, the DPU|DPU_RDMA SDP task, "
                          "0x18, and the PPU|PPU_RDMA pool, 0x60, are modelled)",
                          enable);
        return;
    }
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
