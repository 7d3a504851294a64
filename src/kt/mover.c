/* SPDX-License-Identifier: MIT */
/* Mover driver: a move as data -> validated -> ordered register writes -> issue -> wait.
 * Register fields and names are tables; every refusal names the field, its value and the limit. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "npukit/kt_mover.h"
#include "npukit/kt_regs.h"

/* ---- ready-made moves ---- */

kt_mv_walker kt_mv_linear(uint64_t base, uint16_t words)
{
    kt_mv_walker w;
    memset(&w, 0, sizeof w);
    w.base = base;
    w.ndim = 1;
    w.dims[0].count = words;
    w.dims[0].stride = KT_MV_WORD;
    return w;
}

static kt_mv_move blank(kt_mv_mode mode)
{
    kt_mv_move m;
    memset(&m, 0, sizeof m);
    m.mode = mode;
    m.width = KT_MV_W16; /* the reset value */
    m.flags = KT_MV_FLAG_WCOAL;
    m.gather_words = 1;
    return m;
}

kt_mv_move kt_mv_copy(uint64_t dst, uint64_t src, uint16_t words)
{
    kt_mv_move m = blank(KT_MV_COPY);
    m.src = kt_mv_linear(src, words);
    m.dst = kt_mv_linear(dst, words);
    return m;
}

kt_mv_move kt_mv_fill(uint64_t dst, uint16_t words, kt_mv_width width, uint32_t value)
{
    kt_mv_move m = blank(KT_MV_FILL);
    m.width = width;
    m.imm = value;
    m.dst = kt_mv_linear(dst, words);
    return m;
}

kt_mv_move kt_mv_generate(uint64_t dst, uint16_t words, uint64_t seed)
{
    kt_mv_move m = blank(KT_MV_GENERATE);
    m.seed = seed;
    m.dst = kt_mv_linear(dst, words);
    return m;
}

kt_mv_move kt_mv_gather(uint64_t dst, uint64_t src, const uint32_t *indices, uint16_t count,
                        uint64_t index_base, uint32_t pitch, uint16_t words_per_index)
{
    kt_mv_move m = blank(KT_MV_GATHER_MODE);
    m.src = kt_mv_linear(src, 1);
    m.dst = kt_mv_linear(dst, (uint16_t)(count * words_per_index));
    m.indices = indices;
    m.index_count = count;
    m.index_base = index_base;
    m.gather_pitch = pitch;
    m.gather_words = words_per_index;
    return m;
}

kt_mv_move kt_mv_transform(uint64_t dst, uint64_t src, uint16_t entries, uint8_t xform_id,
                           uint8_t xform_mode)
{
    kt_mv_move m = blank(KT_MV_XFORM);
    const kt_mv_slot *slot = kt_mv_slot_find(xform_id);
    unsigned in = slot ? slot->in_beats : 1, out = slot ? slot->out_words : 1;
    /* Two source dimensions (entry, beat) so that every entry count the destination's 16-bit
     * count takes fits; validation refuses an empty slot. */
    m.src = kt_mv_linear(src, entries);
    m.src.ndim = 2;
    m.src.dims[0].stride = (int32_t)(in * KT_MV_WORD);
    m.src.dims[1] = (kt_mv_dim){(uint16_t)in, KT_MV_WORD, 0, 0};
    m.src.xform_id = xform_id;
    m.src.xform_mode = xform_mode;
    m.dst = kt_mv_linear(dst, entries);
    m.dst.dims[0].stride = (int32_t)(out * KT_MV_WORD);
    return m;
}

/* ---- validation ---- */

static bool uses_src_walker(kt_mv_mode m)
{
    return m == KT_MV_COPY || m == KT_MV_GATHER_MODE || m == KT_MV_XFORM;
}

enum { ENUMERATE_LIMIT = 1u << 20 }; /* walk every element below this; bound the extremes above */

static npk_status check_range(const char *which, const kt_mv_walker *w)
{
    uint64_t n = kt_mv_walker_elements(w);
    if (n <= ENUMERATE_LIMIT) {
        uint32_t idx[KT_MV_MAX_DIMS] = {0};
        for (uint64_t e = 0; e < n; e++, kt_mv_walker_next(w, idx)) {
            kt_mv_point p = kt_mv_walker_point(w, idx);
            /* A padded (invalid) element issues no access, so only valid ones must be in range. */
            if (p.valid && !kt_mv_addr_in_range(p.addr))
                return npk_fail(NPK_ELIMIT,
                                "%s walker element %" PRIu64 " at address %" PRId64
                                " is outside the 40-bit space [0, 2^40) (mover fault 2, range)",
                                which, e, p.addr);
        }
        return NPK_OK;
    }
    int64_t lo = (int64_t)w->base, hi = (int64_t)w->base;
    for (unsigned i = 0; i < w->ndim; i++) {
        int64_t span = (int64_t)((w->dims[i].count ? w->dims[i].count : 1) - 1) * w->dims[i].stride;
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    if (!kt_mv_addr_in_range(lo) || !kt_mv_addr_in_range(hi))
        return npk_fail(NPK_ELIMIT,
                        "%s walker spans addresses %" PRId64 "..%" PRId64
                        ", outside the 40-bit space [0, 2^40) (mover fault 2, range)",
                        which, lo, hi);
    return NPK_OK;
}

static npk_status check_walker(const char *which, const kt_mv_walker *w)
{
    if (w->ndim < 1 || w->ndim > KT_MV_MAX_DIMS)
        return npk_fail(NPK_EINVAL, "%s walker ndim=%u, need 1..%u", which, w->ndim,
                        KT_MV_MAX_DIMS);
    if (w->base >> KT_MV_ADDR_BITS)
        return npk_fail(NPK_ELIMIT,
                        "%s walker base 0x%" PRIx64 " does not fit 40 bits (mover fault 2, range)",
                        which, w->base);
    /* Every transfer is one 32-byte word (AXI size 5): the destination is checked per element
     * by the hardware (fault 6); the source is not checked at all and would issue an illegal
     * burst, so both are refused here. */
    if (w->base % KT_MV_WORD)
        return npk_fail(NPK_EINVAL,
                        "%s walker base 0x%" PRIx64
                        " is not 32-byte aligned (mover fault 6, alignment)",
                        which, w->base);
    for (unsigned i = 0; i < w->ndim; i++) {
        const kt_mv_dim *d = &w->dims[i];
        if (!d->count)
            return npk_fail(NPK_EINVAL,
                            "%s walker dim %u count 0 (the hardware reads it as 1: say 1)", which,
                            i);
        if (d->stride % KT_MV_WORD)
            return npk_fail(NPK_EINVAL,
                            "%s walker dim %u stride %" PRId32
                            " is not a multiple of 32 (mover fault 6, alignment)",
                            which, i, d->stride);
        if (d->axis > 2)
            return npk_fail(NPK_EINVAL, "%s walker dim %u axis %u, need 0 (none), 1 or 2", which, i,
                            d->axis);
    }
    if (w->xform_id > 15 || w->xform_mode > 15)
        return npk_fail(NPK_ELIMIT, "%s walker XFORM_ID %u / XFORM_MODE %u exceed 4 bits", which,
                        w->xform_id, w->xform_mode);
    return check_range(which, w);
}

static bool binds_axis(const kt_mv_walker *w) { return w->window[0].extent || w->window[1].extent; }

/* A converting move (spec §3.2): the source walks whole entries of the occupant's IN beats, and
 * the destination one element per entry. The hardware counts entries off the source and steps
 * the destination once per entry, so a mismatch would leave the occupant a beat short forever or
 * wrap the destination over its first entries. */
static npk_status check_transform(const kt_mv_move *m)
{
    const kt_mv_slot *slot = kt_mv_slot_find(m->src.xform_id);
    if (!slot)
        return npk_fail(NPK_EINVAL,
                        "transform slot %u (XFORM_ID) holds no occupant: the slots are 0 (bypass) "
                        "and 1 (MXFP7 quantiser)",
                        m->src.xform_id);
    uint64_t beats = kt_mv_walker_elements(&m->src), entries = kt_mv_walker_elements(&m->dst);
    if (beats % slot->in_beats)
        return npk_fail(NPK_EINVAL,
                        "transform through slot %u (%s): the source walks %" PRIu64
                        " words, not a whole number of %u-word entries",
                        slot->id, slot->name, beats, slot->in_beats);
    if (entries != beats / slot->in_beats)
        return npk_fail(NPK_EINVAL,
                        "transform through slot %u (%s): the source feeds %" PRIu64
                        " entries but the destination walks %" PRIu64
                        " (it counts entries, one per %u source words)",
                        slot->id, slot->name, beats / slot->in_beats, entries, slot->in_beats);
    return NPK_OK;
}

npk_status kt_mv_validate(const kt_mv_move *m)
{
    if (m->mode == KT_MV_TRANSPOSE || m->mode > KT_MV_XFORM)
        return npk_fail(
            NPK_EUNSUPPORTED,
            "mover mode %u (%s) is not implemented by the hardware (mover fault 4, mode)", m->mode,
            kt_mv_mode_name(m->mode));
    if (m->width > KT_MV_W32)
        return npk_fail(
            NPK_EINVAL,
            "element width %u: need 0 (8-bit), 1 (16-bit) or 2 (32-bit) (mover fault 5)", m->width);
    if (m->flags & ~KT_MV_FLAGS_DEFINED)
        return npk_fail(NPK_EINVAL,
                        "mover flags 0x%02x: bits 0x%02x are read by nothing (the mover reads [3] "
                        "write coalescing and [7:5] the burst cap)",
                        m->flags, m->flags & ~KT_MV_FLAGS_DEFINED & 0xFF);
    npk_status s = check_walker("destination", &m->dst);
    if (s)
        return s;
    if (uses_src_walker(m->mode) && (s = check_walker("source", &m->src)))
        return s;
    if (m->mode == KT_MV_XFORM && (binds_axis(&m->src) || binds_axis(&m->dst)))
        return npk_fail(
            NPK_EINVAL,
            "a transform move with a bound axis (window extent %u/%u source, %u/%u "
            "destination): the occupant would wait forever for a padded beat (mover fault 7)",
            m->src.window[0].extent, m->src.window[1].extent, m->dst.window[0].extent,
            m->dst.window[1].extent);
    if (m->mode == KT_MV_XFORM && (s = check_transform(m)))
        return s;
    if (m->mode == KT_MV_GATHER_MODE) {
        if (m->index_count == 0 || m->index_count > KT_MV_MAX_INDICES)
            return npk_fail(NPK_ELIMIT,
                            "gather index count %u, need 1..%u (mover fault 1, index length)",
                            m->index_count, KT_MV_MAX_INDICES);
        if (m->index_base % KT_MV_WORD || m->index_base >> KT_MV_ADDR_BITS)
            return npk_fail(NPK_EINVAL,
                            "gather index buffer 0x%" PRIx64 " must be 32-byte aligned, below 2^40",
                            m->index_base);
        if (m->gather_pitch % KT_MV_WORD)
            return npk_fail(NPK_EINVAL,
                            "gather pitch %" PRIu32 " is not a multiple of 32 (mover fault 6)",
                            m->gather_pitch);
        if (!m->gather_words)
            return npk_fail(NPK_EINVAL, "gather words per index 0, need >= 1");
        uint64_t want = (uint64_t)m->index_count * m->gather_words,
                 have = kt_mv_walker_elements(&m->dst);
        if (want != have)
            return npk_fail(NPK_EINVAL,
                            "gather of %u indices x %u words = %" PRIu64
                            " words, but the destination walks %" PRIu64,
                            m->index_count, m->gather_words, want, have);
        for (unsigned i = 0; m->indices && i < m->index_count; i++) {
            int64_t row = (int64_t)m->src.base + (int64_t)m->indices[i] * m->gather_pitch;
            int64_t end = row + (int64_t)(m->gather_words - 1) * KT_MV_WORD;
            if (!kt_mv_addr_in_range(row) || !kt_mv_addr_in_range(end))
                return npk_fail(NPK_ELIMIT,
                                "gather index %u = %" PRIu32 " names address %" PRId64
                                ", outside the 40-bit space (mover fault 2, range)",
                                i, m->indices[i], row);
        }
    }
    return NPK_OK;
}

/* ---- encoding: every word through the mover's register table ---- */

typedef struct emitter {
    kt_mv_write *out;
    size_t cap, n;
    npk_status s; /* the first refusal; later words are skipped */
} emitter;

static void emit(emitter *e, uint8_t off, kt_mv_word w)
{
    uint64_t v = 0;
    if (e->s || (e->s = kt_mv_word_encode(off, &w, &v)))
        return;
    if (e->n < e->cap)
        e->out[e->n] = (kt_mv_write){off, v};
    e->n++;
}

static void emit_walker(emitter *e, uint8_t sel, const kt_mv_walker *w)
{
    /* The transform fields are read from the source walker's header only. */
    kt_mv_hdr_word hdr = {sel, w->base, (uint8_t)w->ndim, sel ? 0 : w->xform_id,
                          sel ? 0 : w->xform_mode};
    emit(e, KT_MV_HDR, (kt_mv_word){.hdr = hdr});
    for (unsigned i = 0; i < w->ndim; i++) {
        const kt_mv_dim *d = &w->dims[i];
        /* DIM only stages; the AXIS write that follows commits it into walker `sel`. */
        emit(e, KT_MV_DIM, (kt_mv_word){.dim = {sel, (uint8_t)i, d->count, d->stride}});
        emit(e, KT_MV_AXIS, (kt_mv_word){.axis = {d->axis, d->astep}});
    }
    /* Windows persist across moves (only reset clears them): always restate both. */
    for (uint8_t a = 0; a < 2; a++)
        emit(e, KT_MV_WINDOW,
             (kt_mv_word){.window = {sel, a, w->window[a].base, w->window[a].extent}});
}

npk_status kt_mv_build(const kt_mv_move *m, kt_mv_write *out, size_t cap, size_t *n)
{
    *n = 0;
    npk_status s = kt_mv_validate(m);
    if (s)
        return s;
    emitter e = {out, cap, 0, NPK_OK};
    if (uses_src_walker(m->mode))
        emit_walker(&e, 0, &m->src);
    emit_walker(&e, 1, &m->dst);
    if (m->mode == KT_MV_GATHER_MODE) {
        emit(&e, KT_MV_INDEX, (kt_mv_word){.index = {m->index_base, m->index_count}});
        emit(&e, KT_MV_GATHER, (kt_mv_word){.gather = {m->gather_pitch, m->gather_words}});
    }
    if (m->mode == KT_MV_GENERATE)
        emit(&e, KT_MV_SEED, (kt_mv_word){.seed = {m->seed}});
    /* IMM is the fill value, and the padding of any element a source window marks invalid. */
    if (m->mode == KT_MV_FILL || (uses_src_walker(m->mode) && binds_axis(&m->src)))
        emit(&e, KT_MV_IMM, (kt_mv_word){.imm = {m->imm}});
    emit(&e, KT_MV_CTRL,
         (kt_mv_word){.ctrl = {(uint8_t)m->mode, (uint8_t)m->width, m->flags, true}});
    if (e.s)
        return e.s;
    if (e.n > cap)
        return npk_fail(NPK_ELIMIT, "move needs %zu register writes, room for %zu", e.n, cap);
    *n = e.n;
    return NPK_OK;
}


/* What a fault code found after a move usually means to the person who asked for the move: the
 * code's name alone ("AXI") says which check fired, not what to change. Codes the driver
 * refuses before GO (range, mode, width, alignment, ...) are named by kt_mv_validate already. */
static const struct {
    unsigned code;
    const char *meaning;
} fault_meanings[] = {
    {3, "the memory answered a transfer with an error: the source range was never written (card "
        "DRAM reads of never-written words fail) or lies outside the mesh's populated DRAM; write "
        "the source first"},
};

static const char *fault_meaning(unsigned code)
{
    for (size_t i = 0; i < sizeof fault_meanings / sizeof fault_meanings[0]; i++)
        if (fault_meanings[i].code == code)
            return fault_meanings[i].meaning;
    return NULL;
}

/* ---- status, issue, run ---- */

npk_status kt_mv_issue(kt_transport *t, uint64_t ctrl_base, const kt_mv_write *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[i].offset >= KT_MV_AUX_LIMIT || w[i].offset % 8)
            return npk_fail(NPK_EINVAL,
                            "mover write %zu at client offset 0x%02x: the mover owns 8-aligned "
                            "offsets 0x00-0x7F of AUX_CFG",
                            i, w[i].offset);
    /* One whole 64-bit write per register, in order: the cfg port pulses once per write and
     * the order is part of the protocol (DIM stages, AXIS commits, CTRL|GO starts). */
    for (size_t i = 0; i < n; i++) {
        npk_status s = kt_write64(t, ctrl_base + KT_AUX_CFG + w[i].offset, w[i].value);
        if (s)
            return s;
    }
    return NPK_OK;
}

npk_status kt_mv_run(kt_transport *t, uint64_t ctrl_base, const kt_mv_move *m, uint32_t poll_budget,
                     kt_mv_result *res)
{
    return kt_mv_run_idle(t, ctrl_base, m, poll_budget, NULL, NULL, res);
}

npk_status kt_mv_run_idle(kt_transport *t, uint64_t ctrl_base, const kt_mv_move *m,
                          uint32_t poll_budget, void (*idle)(void *), void *idle_user,
                          kt_mv_result *res)
{
    kt_mv_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    npk_status s = kt_mv_build(m, w, KT_MV_MAX_WRITES, &n);
    if (s)
        return s;
    uint64_t v;
    if ((s = kt_read64(t, ctrl_base + KT_AUX_STAT, &v)))
        return s;
    res->before = kt_mv_status_decode(v);
    /* A GO while busy is ignored by the hardware, and the descriptor writes would land in the
     * running move's walkers: refuse instead. */
    if (res->before.busy)
        return npk_fail(NPK_EBUSY,
                        "mover busy (AUX_STAT 0x%016" PRIx64 "): a GO now would be ignored", v);
    if ((s = kt_mv_issue(t, ctrl_base, w, n)))
        return s;
    uint32_t budget = poll_budget ? poll_budget : 100000;
    for (;;) {
        if ((s = kt_read64(t, ctrl_base + KT_AUX_STAT, &v)))
            return s;
        res->polls++;
        res->after = kt_mv_status_decode(v);
        if (!res->after.busy)
            break;
        if (res->polls >= budget)
            return npk_fail(NPK_ETIMEDOUT,
                            "mover still busy after %" PRIu32 " AUX_STAT reads (last 0x%016" PRIx64
                            ")",
                            res->polls, v);
        if (idle)
            idle(idle_user);
    }
    if (res->after.fault)
        return npk_fail(NPK_EFAULT,
                        "mover fault %u (%s) on a %s move (AUX_STAT 0x%016" PRIx64 ")%s%s",
                        res->after.fault, kt_mv_fault_name(res->after.fault),
                        kt_mv_mode_name(m->mode), v, fault_meaning(res->after.fault) ? ": " : "",
                        fault_meaning(res->after.fault) ? fault_meaning(res->after.fault) : "");
    /* A fault-free move advances the completed count by one (24-bit). Anything else means the
     * GO never reached the mover (a pre-strobe window, or another writer). */
    if (((res->after.moves_done - res->before.moves_done) & 0xFFFFFF) != 1)
        return npk_fail(NPK_EPROTO,
                        "mover idle without fault but moves completed went %" PRIu32 " -> %" PRIu32
                        " (expected +1): the GO did not start a move",
                        res->before.moves_done, res->after.moves_done);
    return NPK_OK;
}
