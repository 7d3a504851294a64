/* SPDX-License-Identifier: MIT */
/* The limits of one SDP task and the fusion rule, each with an error that names the value and
 * the limit. */
#include <math.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "rk_sdp.h"

npk_rk_sdp npk_rk_sdp_default(npk_rk_ew_op op, npk_rk_ew_operand operand, npk_rk_prec prec,
                              uint32_t m, uint32_t n)
{
    npk_rk_sdp t = {0};
    t.op = op;
    t.operand = operand;
    t.prec = prec;
    t.feature = prec;
    t.m = m;
    t.n = n;
    return t;
}

static const char *pname(npk_rk_prec p)
{
    const char *s = npk_rk_prec_name(p);
    return s ? s : "?";
}

/* The immediates must be what their registers hold (rk_sdp.h): finite; for integer SDPs whole
 * numbers, the MUL operand an int16, the ALU operand an int32; for fp16 the MUL operand an
 * fp16 value (its register is 16 bits). */
static npk_status check_immediates(const npk_rk_sdp *t, const npk_rk_ew_op_row *op)
{
    if (t->operand != NPK_EW_IMMEDIATE)
        return NPK_OK;
    const npk_rk_sdp_prec_row *pr = npk_rk_sdp_prec_row_of(t->prec);
    npk_rk_sdp_stage st[NPK_SDP_STAGE_COUNT];
    npk_rk_sdp_stages(t, st);
    const unsigned count = npk_rk_ew_op_immediates(t->op);
    for (unsigned i = 0; i < count; i++) {
        double v = t->imm[i];
        if (!isfinite(v))
            return npk_fail(NPK_EINVAL, "sdp: %s immediate %u is not finite", op->name, i);
        if (!pr->fp32_compute && v != floor(v))
            return npk_fail(NPK_EINVAL,
                            "sdp: %s immediate %g is not a whole number (a %s SDP's "
                            "registers hold integers)",
                            op->name, v, pname(t->prec));
    }
    for (unsigned i = 0; i < NPK_SDP_STAGE_COUNT; i++) {
        const npk_rk_sdp_stage *s = &st[i];
        const char *name = npk_rk_sdp_stage_row_of((npk_rk_sdp_stage_id)i)->name;
        if (s->mul && pr->fp32_compute &&
            !isfinite(npk_f16_to_f32(npk_f32_to_f16((float)s->mul_operand))))
            return npk_fail(NPK_ELIMIT,
                            "sdp: %s MUL operand %g overflows fp16 (its register "
                            "field is 16 bits)",
                            name, s->mul_operand);
        if (s->mul && !pr->fp32_compute && (s->mul_operand < -32768 || s->mul_operand > 32767))
            return npk_fail(NPK_ELIMIT,
                            "sdp: %s MUL operand %g exceeds int16 (-32768..32767, "
                            "BS_MUL_OPERAND's 16 bits)",
                            name, s->mul_operand);
        if (s->alu && !pr->fp32_compute &&
            (s->alu_operand < -2147483648.0 || s->alu_operand > 2147483647.0))
            return npk_fail(NPK_ELIMIT, "sdp: %s ALU operand %g exceeds int32", name,
                            s->alu_operand);
        if (s->alu && pr->fp32_compute && !isfinite((float)s->alu_operand))
            return npk_fail(NPK_ELIMIT, "sdp: %s ALU operand %g overflows fp32", name,
                            s->alu_operand);
    }
    return NPK_OK;
}

/* Checks that hold even unchecked: without them there is no program to emit. */
static npk_status check_encodable(const npk_rk_sdp *t)
{
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(t->op);
    if (!op)
        return npk_fail(NPK_EINVAL, "sdp: op %d is not one of %s", (int)t->op,
                        npk_rk_ew_op_names());
    if (!npk_rk_sdp_prec_row_of(t->prec))
        return npk_fail(NPK_EINVAL,
                        "sdp: precision %s is not an SDP precision (fp16, int16, "
                        "int8: the DPU lanes are at most 16 bits, spec)",
                        pname(t->prec));
    if ((unsigned)t->operand > NPK_EW_IMMEDIATE)
        return npk_fail(NPK_EINVAL,
                        "sdp: operand mode %d is not per-element, per-channel, none or "
                        "immediate",
                        (int)t->operand);
    char kinds[64];
    if (!(npk_rk_ew_op_operands(op) & NPK_EW_OPERAND_BIT(t->operand)))
        return npk_fail(NPK_EINVAL, "sdp: %s takes %s, not %s", op->name,
                        npk_rk_ew_operand_names(npk_rk_ew_op_operands(op), kinds, sizeof kinds),
                        npk_rk_ew_operand_name(t->operand));
    if (t->ew_imm && !(op->binary && t->operand == NPK_EW_IMMEDIATE))
        return npk_fail(NPK_EINVAL,
                        "sdp: the EW stage's register operand (EW_OP_SRC) serves an "
                        "immediate add, mul, max or min, not %s with %s",
                        op->name, npk_rk_ew_operand_name(t->operand));
    if (t->ew_cvt.on && !(op->binary && t->operand != NPK_EW_IMMEDIATE))
        return npk_fail(NPK_EINVAL,
                        "sdp: the EW operand converter converts a memory operand; "
                        "%s with %s reads none",
                        op->name, npk_rk_ew_operand_name(t->operand));
    if (t->ew_cvt.on &&
        !npk_rk_field_fits(NPK_RKF(DPU_EW_CVT_SCALE_VALUE, EW_OP_CVT_SHIFT), t->ew_cvt.shift))
        return npk_fail(NPK_ELIMIT, "sdp: EW converter shift %u exceeds EW_OP_CVT_SHIFT's 6 bits",
                        t->ew_cvt.shift);
    npk_status s = check_immediates(t, op);
    if (s)
        return s;
    if ((t->op == NPK_EW_LUT) != (t->lut != NULL))
        return npk_fail(NPK_EINVAL, "sdp: %s",
                        t->lut ? "a LUT is given to a task that is not a LUT task"
                               : "a LUT task without its LUT");
    if (t->lut && t->prec != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL,
                        "sdp: a LUT task in %s: the LUT is described for an fp16 SDP only (no "
                        "source gives its integer index and output path)",
                        pname(t->prec));
    if (!t->m || !t->n)
        return npk_fail(NPK_EINVAL, "sdp: M=%u N=%u: both must be at least 1", t->m, t->n);
    if (t->feature != t->prec && t->feature != NPK_PREC_INT32)
        return npk_fail(NPK_EINVAL,
                        "sdp: feature precision %s differs from the SDP's %s (only "
                        "an int32 feature is described, spec OVER-FETCH)",
                        pname(t->feature), pname(t->prec));
    if (!npk_rk_field_fits(NPK_RKF(DPU_DATA_CUBE_HEIGHT, HEIGHT), t->m - 1))
        return npk_fail(NPK_ELIMIT, "sdp: M=%u exceeds the 13-bit DATA_CUBE_HEIGHT (M <= 8192)",
                        t->m);
    if (!npk_rk_field_fits(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL), t->n - 1))
        return npk_fail(NPK_ELIMIT, "sdp: N=%u exceeds the 13-bit DATA_CUBE_CHANNEL (N <= 8192)",
                        t->n);
    if (!npk_rk_field_fits(NPK_RKF(DPU_RDMA_SRC_DMA_CFG, LINE_NOTCH_ADDR), t->line_notch))
        return npk_fail(NPK_ELIMIT, "sdp: line notch %u exceeds the 13-bit LINE_NOTCH_ADDR",
                        t->line_notch);
    if (t->rdma_channels > 2u * 8192u)
        return npk_fail(NPK_ELIMIT,
                        "sdp: RDMA channel count %u exceeds 16384 (twice the DPU's "
                        "13-bit channel count)",
                        t->rdma_channels);
    return NPK_OK;
}

npk_status npk_rk_sdp_check(const npk_rk_sdp *t)
{
    if (!t)
        return npk_fail(NPK_EINVAL, "sdp: NULL task");
    npk_status s = check_encodable(t);
    if (s || t->unchecked)
        return s;
    if (t->feature != t->prec)
        return npk_fail(NPK_EINVAL,
                        "sdp: an int32 feature under-fetches (the RDMA reads 2 "
                        "bytes per element and the job stalls) or, with the channel count "
                        "doubled, is processed as two int16 lanes (spec OVER-FETCH); emitted "
                        "only unchecked");
    if (t->rdma_channels && t->rdma_channels != t->n)
        return npk_fail(NPK_EINVAL,
                        "sdp: RDMA channel count %u differs from N=%u (the "
                        "over-fetch experiment; emitted only unchecked)",
                        t->rdma_channels, t->n);
    unsigned c2 = npk_rk_sdp_atom_channels(t->prec);
    if (t->line_notch && t->n > c2)
        return npk_fail(NPK_EINVAL,
                        "sdp: a line notch reads one %u-channel tile of a "
                        "contiguous buffer; N=%u is wider",
                        c2, t->n);
    if (t->ew_imm || t->ew_cvt.on)
        return npk_fail(
            NPK_EUNSUPPORTED, "sdp: %s is synthesized but unchecked only: %s; --unchecked emits it",
            t->ew_imm ? "the EW stage's register operand (EW_OP_SRC)" : "the EW operand converter",
            t->ew_imm ? "the spec names EW_OP_SRC without its values or the register "
                        "holding the operand"
                      : "no source gives the converter's arithmetic");
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(t->op);
    if (op->not_simulated)
        return npk_fail(NPK_EUNSUPPORTED, "sdp: %s is synthesized but unchecked only: %s", op->name,
                        op->not_simulated);
    if ((t->a | t->c) % 16 || (t->operand == NPK_EW_PER_ELEMENT && t->b % 16))
        return npk_fail(NPK_EINVAL,
                        "sdp: feature 0x%x, output 0x%x and a per-element operand "
                        "0x%x must be 16-byte aligned (atoms)",
                        t->a, t->c, t->b);
    if (t->operand == NPK_EW_PER_CHANNEL && t->b % npk_rk_sdp_prec_row_of(t->prec)->bytes)
        return npk_fail(NPK_EINVAL, "sdp: per-channel operand 0x%x is not %s-aligned", t->b,
                        pname(t->prec));
    return NPK_OK;
}

npk_status npk_rk_sdp_chain_check(npk_rk_prec prev_out, const npk_rk_sdp *t)
{
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(t->op);
    /* the rule is the ERDMA's: a task without a memory operand chains regardless */
    if (!op || !npk_rk_sdp_uses_ew(t) || t->ew_imm || prev_out == t->feature)
        return NPK_OK;
    return npk_fail(NPK_EINVAL,
                    "dtype-path rule: a 2-input SDP (%s) runs as a chained task only when the "
                    "precision path matches end to end; the task before it writes %s, the SDP "
                    "reads %s (the chained DMA stalls, spec \"Chained 2-input SDP\"): emit the "
                    "matmul output in %s",
                    op->name, pname(prev_out), pname(t->feature), pname(t->feature));
}
