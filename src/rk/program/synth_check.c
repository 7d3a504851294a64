/* SPDX-License-Identifier: MIT */
/* The limits of one matmul task, each with an error that names the value and the limit. */
#include <stdio.h>

#include "npukit/rk_regs.h"
#include "rk_sched.h"
#include "npukit/rk_synth.h"

npk_rk_mm npk_rk_mm_default(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n)
{
    npk_rk_mm mm = {0};
    mm.in = in;
    mm.out = npk_rk_default_out(in);
    mm.m = m;
    mm.k = k;
    mm.n = n;
    mm.mode = -1;
    mm.sched = NPK_SCHED_AUTO;
    return mm;
}

static const char *pname(npk_rk_prec p)
{
    const char *s = npk_rk_prec_name(p);
    return s ? s : "?";
}

/* The outputs the stage table has for `in`, for a message: the completing ones joined by
 * "or", then those that never complete ("int32; int16/int8 never complete"). */
static const char *stage_outs(npk_rk_prec in, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int pass = 0; pass < 2; pass++) {
        bool first = true;
        const npk_rk_out_stage *st;
        for (unsigned i = 0; (st = npk_rk_out_stage_at(i)); i++) {
            if (st->in != in || st->completes != (pass == 0) || n >= size)
                continue;
            const char *sep = first ? (pass && n ? "; " : "") : (pass ? "/" : " or ");
            n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, pname(st->out));
            first = false;
        }
        if (pass && !first && n < size)
            n += (size_t)snprintf(buf + n, size - n, " never complete");
    }
    return buf;
}

/* Checks that hold even for --unchecked: without them there is no program to emit. */
static npk_status check_encodable(const npk_rk_mm *mm)
{
    if (!npk_rk_input_row(mm->in))
        return npk_fail(NPK_EINVAL, "input dtype %s is not synthesized (fp16, int8, int4)",
                        pname(mm->in));
    char outs[96];
    if (!npk_rk_out_stage_find(mm->in, mm->out))
        return npk_fail(NPK_EINVAL, "%s inputs cannot produce %s output (%s)", pname(mm->in),
                        pname(mm->out), stage_outs(mm->in, outs, sizeof outs));
    if (!mm->m || !mm->k || !mm->n)
        return npk_fail(NPK_EINVAL, "M=%u K=%u N=%u: every dimension must be at least 1", mm->m,
                        mm->k, mm->n);
    if (mm->mode != -1 && mm->mode != NPK_MODE_LINE && mm->mode != NPK_MODE_CUBE)
        return npk_fail(NPK_EINVAL, "mode %d is neither line (0) nor cube (1)", mm->mode);
    if (mm->sched != NPK_SCHED_AUTO && mm->sched != NPK_SCHED_0 && mm->sched != NPK_SCHED_1 &&
        mm->sched != NPK_SCHED_CHAIN)
        return npk_fail(NPK_EINVAL, "sched %d is not auto, 0, 1 or 2 (the M-tile chain)",
                        mm->sched);
    if (mm->sched == NPK_SCHED_CHAIN && !npk_rk_mtile_row_of(mm->k))
        return npk_fail(NPK_EINVAL,
                        "sched chain at K=%u: the M-tile chain's values are captured at K = 512, "
                        "1024, 2048, 4096, 6144, 8192 only",
                        mm->k);
    /* The requantization converter: only the narrow int8 outputs use it, and the shift is a
     * 12-bit field (facts B.4 OUT_CVT_SHIFT[11:0]). Anything else used to be ignored or cut. */
    if (mm->requant_scale || mm->requant_shift) {
        if (!npk_rk_out_stage_find(mm->in, mm->out)->requant)
            return npk_fail(NPK_EINVAL,
                            "requantization (scale %u, shift %u) applies only to int8->int8 "
                            "and int8->int16 outputs, not %s->%s",
                            mm->requant_scale, mm->requant_shift, pname(mm->in), pname(mm->out));
        if (!mm->requant_scale)
            return npk_fail(NPK_EINVAL,
                            "requantization shift %u needs its multiplier (scale 1..65535; "
                            "0 selects the identity 0x4000 >> 14)",
                            mm->requant_shift);
        if (!npk_rk_field_fits(NPK_RKF(DPU_OUT_CVT_SHIFT, OUT_CVT_SHIFT), mm->requant_shift))
            return npk_fail(NPK_EINVAL,
                            "requantization shift %u exceeds OUT_CVT_SHIFT's 12 bits (at most "
                            "4095)",
                            mm->requant_shift);
    }
    if (mm->row_offset && !npk_rk_input_row(mm->in)->top_pad)
        return npk_fail(NPK_EINVAL,
                        "output row offset %u: 0x1068 is described for int8 matmuls only, not %s",
                        mm->row_offset, pname(mm->in));
    if (!npk_rk_field_fits(NPK_RKF(CNA_PAD_CON0, PAD_TOP), mm->row_offset))
        return npk_fail(NPK_EINVAL, "output row offset %u exceeds PAD_TOP's 4 bits (at most 15)",
                        mm->row_offset);
    if (!mm->unchecked && mm->c_rows && mm->c_rows < mm->m + mm->row_offset)
        return npk_fail(NPK_EINVAL,
                        "output surface of %u rows: the task's M=%u rows at offset %u need %u "
                        "(rows past it are lost)",
                        mm->c_rows, mm->m, mm->row_offset, mm->m + mm->row_offset);
    return NPK_OK;
}

/* The largest value a register field holds. */
static uint64_t field_max(npk_rk_field_id f)
{
    return npk_rk_field_mask(f) >> npk_rk_field_info(f)->lo;
}

static npk_status check_pitches(const npk_rk_mm *mm, npk_rk_mode mode)
{
    if (mode == NPK_MODE_CUBE) {
        if ((mm->a_pitch && mm->a_pitch != mm->k) || (mm->c_pitch && mm->c_pitch != mm->n))
            return npk_fail(NPK_EINVAL,
                            "row pitches apply to line mode only (cube layouts have none)");
        return NPK_OK;
    }
    /* LINE_STRIDE counts 16-byte units; int4 rows use int8's 16-element entries (spec). */
    uint32_t per16 = npk_rk_input_row(mm->in)->line_unit;
    if (mm->a_pitch && (mm->a_pitch < mm->k || mm->a_pitch % per16))
        return npk_fail(NPK_EINVAL,
                        "feature row pitch %u must be >= K=%u and a multiple of %u elements "
                        "(one 16-byte LINE_STRIDE unit)",
                        mm->a_pitch, mm->k, per16);
    uint32_t out_per16 = 128 / npk_rk_prec_bits(mm->out);
    if (mm->c_pitch && (mm->c_pitch < mm->n || mm->c_pitch % out_per16))
        return npk_fail(NPK_EINVAL,
                        "output row stride %u must be >= N=%u and a multiple of %u elements "
                        "(one 16-byte notch unit)",
                        mm->c_pitch, mm->n, out_per16);
    /* Both pitches are register fields: a wider value would be cut to its low bits and the
     * task would read or write other rows than asked (LINE_STRIDE 28 bits, NOTCH_ADDR_1 13). */
    uint64_t line = (uint64_t)mm->a_pitch / per16;
    if (!npk_rk_field_fits(NPK_RKF(CNA_DMA_CON1, LINE_STRIDE), line))
        return npk_fail(NPK_ELIMIT,
                        "feature row pitch %u is %llu 16-byte units, beyond LINE_STRIDE's "
                        "28 bits (at most %llu elements)",
                        mm->a_pitch, (unsigned long long)line,
                        (unsigned long long)field_max(NPK_RKF(CNA_DMA_CON1, LINE_STRIDE)) * per16);
    uint64_t notch = mm->c_pitch ? (uint64_t)mm->c_pitch / out_per16 - 1 : 0;
    uint64_t notch_max = field_max(NPK_RKF(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1));
    if (notch > notch_max)
        return npk_fail(NPK_ELIMIT,
                        "output row stride %u is %llu 16-byte units, beyond NOTCH_ADDR_1's "
                        "13 bits (at most %llu elements of %s)",
                        mm->c_pitch, (unsigned long long)notch + 1,
                        (unsigned long long)(notch_max + 1) * out_per16, pname(mm->out));
    return NPK_OK;
}

/* A precision's native multi-M batch in line form (rk_cbuf.h, spec "0x107c — entries per
 * activation slice"): several rows need the gate's LINE_STRIDE (int4: K/16, two lines per row),
 * the only stride the spec describes for the mode, and at most min(lines/2, 16384/K) rows. */
static npk_status check_batch_rule(const npk_rk_soc *soc, const npk_rk_mm *mm, npk_rk_mode mode)
{
    const npk_rk_batch_rule *br = npk_rk_batch_rule_of(mm->in);
    if (!br || mode != NPK_MODE_LINE || mm->m == 1)
        return NPK_OK;
    const uint32_t unit = npk_rk_input_row(mm->in)->line_unit;
    const uint64_t stride = (uint64_t)(mm->a_pitch ? mm->a_pitch : mm->k) / unit;
    const uint32_t gate = npk_rk_batch_gate(br, mm->k);
    if (stride != gate)
        return npk_fail(NPK_EUNSUPPORTED,
                        "%s M=%u in line form with LINE_STRIDE %llu (row pitch %u): the "
                        "multi-row batch is gated by 0x107c = K/%u = %u, the only stride "
                        "described for it (%s)",
                        pname(mm->in), mm->m, (unsigned long long)stride,
                        mm->a_pitch ? mm->a_pitch : mm->k, br->entry_elems, gate, br->source);
    const uint32_t lines = mm->m * br->lines_per_row; /* mc_phys = 2H */
    const uint32_t rows = npk_rk_batch_rows(soc, br, lines, mm->k, gate);
    if (mm->m > rows)
        return npk_fail(NPK_ELIMIT,
                        "%s M=%u rows at K=%u: rows x K = %llu exceeds the %u-element activation "
                        "budget; min(M/2, %u/K) = %u rows per submit over %u lines (%s)",
                        pname(mm->in), mm->m, mm->k, (unsigned long long)mm->m * mm->k,
                        npk_rk_batch_budget(soc, br), npk_rk_batch_budget(soc, br), rows, lines,
                        br->source);
    return NPK_OK;
}

npk_status npk_rk_mm_check(const npk_rk_mm *mm, npk_rk_synth_info *info)
{
    npk_status s = check_encodable(mm);
    if (s)
        return s;
    const npk_rk_soc *soc = mm->soc ? mm->soc : npk_rk_soc_default();
    npk_rk_synth_info r = {0};
    r.mode = mm->mode == -1 ? npk_rk_default_mode(mm->in) : (npk_rk_mode)mm->mode;
    r.sched =
        mm->sched == NPK_SCHED_AUTO ? npk_rk_sched_choose(soc, mm->in, mm->m, mm->k) : mm->sched;
    if (r.sched == NPK_SCHED_AUTO && mm->unchecked)
        r.sched = NPK_SCHED_0; /* nothing holds M: emit the template schedule */

    if (!mm->unchecked) {
        const char *in = pname(mm->in);
        uint32_t nal = npk_rk_n_align(mm->in);
        if (mm->k % 32)
            return npk_fail(NPK_ELIMIT, "K=%u is not a multiple of 32 (the K-tile)", mm->k);
        if (mm->n % nal)
            return npk_fail(NPK_ELIMIT, "N=%u is not a multiple of %u (the %s N-tile)", mm->n, nal,
                            in);
        if (mm->k > soc->k_max_single)
            return npk_fail(NPK_ELIMIT,
                            "K=%u exceeds the single-op limit %u (larger K wedges the submit; "
                            "split K)",
                            mm->k, soc->k_max_single);
        if (mm->n > soc->n_max)
            return npk_fail(NPK_ELIMIT,
                            "N=%u exceeds %u per task (wider output is silently wrong; tile N)",
                            mm->n, soc->n_max);
        if (mm->in == NPK_PREC_INT4 && mm->k > npk_rk_int4_k_max())
            return npk_fail(NPK_ELIMIT,
                            "int4 K=%u: K x 64 = %llu overflows the int16 accumulator (32767) "
                            "for full-range operands; K must be <= %u",
                            mm->k, (unsigned long long)mm->k * 64, npk_rk_int4_k_max());
        s = check_batch_rule(soc, mm, r.mode);
        if (s)
            return s;
        const npk_rk_out_stage *st = npk_rk_out_stage_find(mm->in, mm->out);
        if (!st->completes)
            return npk_fail(NPK_EUNSUPPORTED,
                            "%s->%s output never completes on the hardware (only int32 and "
                            "fp16/fp32 matmul outputs do; %s); --unchecked emits it anyway",
                            in, pname(mm->out), st->evidence);
        if (r.mode == NPK_MODE_CUBE && mm->m != 1 && mm->m % 4)
            return npk_fail(NPK_ELIMIT, "cube mode needs M = 1 or a multiple of 4, got M=%u",
                            mm->m);
        if (r.sched == NPK_SCHED_AUTO)
            return npk_fail(NPK_ELIMIT,
                            "M=%u exceeds every schedule's ceiling for %s K=%u (sched 0: %u, "
                            "sched 1: %u); tile M",
                            mm->m, in, mm->k, npk_rk_m_ceiling(soc, mm->in, mm->k, NPK_SCHED_0),
                            npk_rk_m_ceiling(soc, mm->in, mm->k, NPK_SCHED_1));
        const char *why = "";
        if (!npk_rk_sched_valid(mm->in, mm->k, r.sched, &why))
            return npk_fail(NPK_ELIMIT, "sched %d at K=%u: %s", r.sched, mm->k, why);
        uint32_t cap = npk_rk_m_ceiling(soc, mm->in, mm->k, r.sched);
        if (mm->m > cap)
            return npk_fail(NPK_ELIMIT,
                            "M=%u exceeds the ceiling %u for %s K=%u with sched %d (above it "
                            "the result is miscomputed)",
                            mm->m, cap, in, mm->k, r.sched);
        if (mm->m > soc->m_max)
            return npk_fail(NPK_ELIMIT, "M=%u exceeds %u (DATA_SIZE0 height is 11 bits)", mm->m,
                            soc->m_max);
        uint32_t grains = npk_rk_feature_grains(soc, mm->in, mm->m, mm->k);
        if (grains > soc->grains_max)
            return npk_fail(NPK_ELIMIT,
                            "M=%u needs FEATURE_GRAINS=%u, beyond its 10-bit field (%u); tile M",
                            mm->m, grains, soc->grains_max);
        s = check_pitches(mm, r.mode);
        if (s)
            return s;
    }
    if (mm->next_m_tile && r.sched != NPK_SCHED_CHAIN)
        return npk_fail(NPK_EINVAL,
                        "a later M-tile (0x1040 WEIGHT_REUSE, 0x2000) is described for the "
                        "PC-chained M-tile schedule only (sched chain), not sched %d",
                        r.sched);
    r.cbuf_con0 = npk_rk_cbuf_con0(mm->in, mm->m, mm->k, r.sched) |
                  NPK_RKPUT(CNA_CBUF_CON0, WEIGHT_REUSE, mm->next_m_tile);
    r.feature_grains = r.sched == NPK_SCHED_CHAIN && npk_rk_mtile_row_of(mm->k)
                           ? npk_rk_mtile_row_of(mm->k)->rows
                           : npk_rk_feature_grains(soc, mm->in, mm->m, mm->k);
    r.m_ceiling = npk_rk_m_ceiling(soc, mm->in, mm->k, r.sched);
    if (info)
        *info = r;
    return NPK_OK;
}
