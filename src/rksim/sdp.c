/* SPDX-License-Identifier: MIT */
/* The SDP executor: the hazard rows of an SDP task, then the operation itself from the decoded
 * registers (sdp_decode.c), operands through bounds-checked DMA.
 *
 * Numerics: fp16 is read through MRDMA_FP16TOFP32_EN, computed in fp32 and written through
 * FP32TOFP16_EN (round to nearest even); int16 and int8 are computed exactly and the output
 * converter (scale 1, shift 0) saturates to the element's range — the NVDLA converter's clamp.
 * max/min keep a NaN of either operand. ReLU maps values below zero to zero. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "rksim/regs_view.h"
#include "rksim/lut.h"
#include "rksim/ops.h"
#include "rksim/sdp.h"
#include "rksim/timing.h"

/* ---- the hazard rows of an SDP task ---- */

/* The effect the rows decide: a stall, a refusal (ideal mode), or the two-lane reading. */
typedef struct sdp_effect {
    bool wedge;
    bool two_lane;
    char why[160];
} sdp_effect;

static bool hazards(rksim *s, rksim_core *c, rksim_sdp *t, bool first, sdp_effect *e,
                    rksim_core_result *r)
{
    memset(e, 0, sizeof *e);
    if (t->feature == NPK_PREC_INT32) {
        rksim_hazard_id id;
        if (t->rdma_ch == t->n)
            id = RKSIM_HZ_SDP_INT32_UNDERFETCH;
        else if (t->rdma_ch == 2 * t->n)
            id = RKSIM_HZ_SDP_INT32_TWO_LANE;
        else
            return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                     "unsupported by the model: DPU_RDMA_DATA_CUBE_CHANNEL "
                                     "(0x5014) = 0x%08X: an int32 feature is described with N "
                                     "or 2N RDMA channels (N=%u), spec OVER-FETCH",
                                     t->rdma_ch - 1, t->n);
        r->hazards |= RKSIM_HZ_BIT(id);
        if (!rksim_faithful(s, id))
            return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                     "unsupported by the model (ideal): DPU_RDMA_FEATURE_MODE_CFG "
                                     "(0x5044) IN_PRECISION int32: a true int32 SDP feature "
                                     "path is not described");
        if (id == RKSIM_HZ_SDP_INT32_UNDERFETCH) {
            e->wedge = true;
            snprintf(e->why, sizeof e->why,
                     "int32 SDP feature: the RDMA fetches 2 bytes per "
                     "element (%u of %u bytes per row) and the DPU starves",
                     2 * t->n, 4 * t->n);
            return true;
        }
        e->two_lane = true;
        t->lanes = 2 * t->n;
    }
    if (t->ew_on && t->op->not_simulated)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: DPU_EW_CFG (0x4070) EW_ALU_ALGO %u "
                                 "(%s): %s",
                                 t->op->alu_algo, t->op->name, t->op->not_simulated);
    if (t->ew_on && !first && c->job_out_prec >= 0 && c->job_out_prec != t->feature) {
        r->hazards |= RKSIM_HZ_BIT(RKSIM_HZ_SDP_CHAIN_PRECISION);
        if (rksim_faithful(s, RKSIM_HZ_SDP_CHAIN_PRECISION)) {
            e->wedge = true;
            snprintf(e->why, sizeof e->why,
                     "chained 2-input %s SDP fed %s by the previous "
                     "task: the chained DMA stalls",
                     npk_rk_prec_name((npk_rk_prec)t->feature),
                     npk_rk_prec_name((npk_rk_prec)c->job_out_prec));
        }
    }
    return true;
}

/* ---- the operation ---- */

static bool dma_fail(const rksim_fault *f, rksim_core_result *r)
{
    return rksim_result_dma_fault(r, f->what, f->iova, f->len);
}

/* One element as a double: fp16 bits through fp32 (exact), integers as they are. */
static double load(const rksim_sdp *t, const uint8_t *p)
{
    if (t->eb == 1)
        return (double)(int8_t)p[0];
    uint16_t h;
    memcpy(&h, p, 2);
    return t->prec == NPK_PREC_FP16 ? (double)npk_f16_to_f32(h) : (double)(int16_t)h;
}

static void store(const rksim_sdp *t, uint8_t *p, double v)
{
    if (t->prec == NPK_PREC_FP16) {
        uint16_t h = npk_f32_to_f16((float)v);
        memcpy(p, &h, 2);
        return;
    }
    const npk_rk_sdp_prec_row *pr = npk_rk_sdp_prec_row_of((npk_rk_prec)t->prec);
    double x = v < pr->min ? pr->min : v > pr->max ? pr->max : v;
    if (t->eb == 1) {
        p[0] = (uint8_t)(int8_t)x;
    } else {
        int16_t h = (int16_t)x;
        memcpy(p, &h, 2);
    }
}

/* The task in the SDP's arithmetic: the BS and BN stages (rk_sdp_hw.h), then the EW op.
 * fp16 operands are exact in fp32 and each unit rounds in fp32; integers are exact in double
 * (|x| < 2^53) until the output converter saturates them. */
static double apply(const rksim_sdp *t, double a, double b)
{
    const bool fp32 = t->prec == NPK_PREC_FP16;
    /* A LUT task's BN stage is the LUT's input transform, (x + offset) * scale, which
     * npk_rk_lut_eval applies from the same registers (rksim_lut_decode): only BS runs here. */
    const unsigned stages = t->lut ? NPK_SDP_STAGE_BN : NPK_SDP_STAGE_COUNT;
    for (unsigned i = 0; i < stages; i++)
        a = npk_rk_sdp_stage_apply(&t->stage[i], fp32, a);
    if (!t->ew_on)
        return a;
    /* The EW stage's own units, never a switch over the ops: an op is a setting of these units
     * (its row, rk_sdp_hw.h), so a new op row needs nothing here. The LUT's tables were decoded
     * by rksim/lut.c (fp16 read exactly into fp32, its arithmetic in fp32). */
    if (t->lut)
        return (double)npk_rk_lut_eval(&t->lut_prog, (float)a);
    /* The EW ALU and MUL compute as the BS/BN stages' units do (npk_rk_sdp_stage_apply), the
     * operand from memory instead of a register. EQL never gets here (its row's not_simulated
     * refuses the task first). */
    npk_rk_sdp_stage ew = {0};
    if (t->op->op_type == NPK_EW_OP_TYPE_MUL) {
        ew.mul = true;
        ew.mul_operand = b;
    } else {
        ew.alu = true;
        ew.alu_algo = t->op->alu_algo;
        ew.alu_operand = b;
    }
    return npk_rk_sdp_stage_apply(&ew, fp32, a);
}

static bool run(rksim *s, const rksim_sdp *t, rksim_core_result *r)
{
    const uint32_t surfaces = (t->lanes + t->c2 - 1) / t->c2;
    rksim_fault f = {0};
    /* the whole extent of each operand in one bounds check: a wild program faults before
     * anything is written */
    uint64_t feat_len =
        (uint64_t)(surfaces - 1) * t->surf_bytes + (uint64_t)(t->m - 1) * t->line_bytes + 16;
    const uint8_t *feat = rksim_dma(&s->mem, t->src, feat_len, false, "SDP feature read", &f);
    if (!feat)
        return dma_fail(&f, r);
    const uint8_t *ew = NULL;
    uint64_t ew_len = 0;
    if (t->operand == NPK_EW_PER_ELEMENT)
        ew_len = (uint64_t)(surfaces - 1) * t->ew_surf_bytes + (uint64_t)t->m * 16;
    else if (t->operand == NPK_EW_PER_CHANNEL)
        ew_len = (uint64_t)t->lanes * t->eb;
    if (ew_len && !(ew = rksim_dma(&s->mem, t->ew, ew_len, false, "SDP operand read", &f)))
        return dma_fail(&f, r);
    uint64_t out_len = (uint64_t)surfaces * t->out_surf_bytes;
    uint8_t *out = rksim_dma(&s->mem, t->dst, out_len, true, "SDP output write", &f);
    if (!out)
        return dma_fail(&f, r);

    for (uint32_t sf = 0; sf < surfaces; sf++)
        for (uint32_t m = 0; m < t->m; m++) {
            const uint8_t *a = feat + sf * t->surf_bytes + m * t->line_bytes;
            uint8_t *o = out + sf * t->out_surf_bytes + (uint64_t)m * 16;
            for (uint32_t j = 0; j < t->c2 && sf * t->c2 + j < t->lanes; j++) {
                uint32_t ch = sf * t->c2 + j;
                double b = 0;
                if (t->operand == NPK_EW_PER_ELEMENT)
                    b = load(t, ew + sf * t->ew_surf_bytes + (uint64_t)m * 16 + j * t->eb);
                else if (t->operand == NPK_EW_PER_CHANNEL)
                    b = load(t, ew + (uint64_t)ch * t->eb);
                store(t, o + j * t->eb, apply(t, load(t, a + j * t->eb), b));
            }
        }
    r->model_us += npk_rk_time_sdp_us(s->soc, (double)feat_len + (double)ew_len, (double)out_len);
    /* A LUT task's body carries the tables' upload, 2 x (1 + 513) writes, ten matmul bodies'
     * worth: its fetch is modelled as the row's per-task step (the PC's fetch of a body) for
     * each matmul body's worth of entries (an inference: no measured LUT task time is known). */
    if (t->lut)
        r->model_us +=
            npk_rk_time_task_step_us(s->soc) * 2.0 * (1 + NPK_RK_LUT_ENTRIES) / NPK_RK_MATMUL_BODY;
    return true;
}

/* Run one SDP task: the hazard rows (chained precision path, int32 feature), then the
 * operation. `first_in_job` tells whether a task of this job ran before it. */
static void sdp_op(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                   rksim_core_result *r)
{
    (void)blocks; /* one block set: DPU | DPU_RDMA (its row, rk/hw/rk_ops.def) */
    rksim_core *c = &s->core[core];
    rksim_sdp t;
    if (!rksim_sdp_decode(&c->regs, &t, r))
        return;
    if (t.lut && !rksim_lut_decode(&c->lut, &c->regs, &t.lut_prog, r))
        return;
    sdp_effect e;
    if (!hazards(s, c, &t, first_in_job, &e, r))
        return;
    if (e.wedge) {
        rksim_result_fail(r, RKSIM_WEDGE, "wedge: %s", e.why);
        return;
    }
    if (!run(s, &t, r))
        return;
    /* The SDP is transient: it leaves the core's matmul precision mode alone (spec
     * "RC_SDPKW", setdt=0). */
    c->job_out_prec = t.prec;
}

/* The SDP's simulator row (ops.h). */
const rksim_op_row rksim_op_sdp = {sdp_op};
