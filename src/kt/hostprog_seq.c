/* SPDX-License-Identifier: MIT */
/* The core driver's sequences (stage, dispatch, wait) and a move, emitted as host-program data,
 * so the same stage + dispatch + wait can run on the host or in the engine. The order and the
 * rules are the core's (spec §2.3, §2.7): BASE, LEN, DST, CRED, KICK, none elided, each a whole
 * 64-bit write, the NODE_STATUS baseline read before any of them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_rules.h"
#include "npukit/kt_hostprog.h"

npk_status kt_hp_stage(kt_hostprog *p, kt_dev *d, unsigned base, const kt_flit *flits, size_t n)
{
    /* The same padded block kt_stage writes, as a setup block; the session's record of what is
     * staged is updated now, since the program carries the block from here. */
    kt_stage_buf b;
    npk_status s = kt_stage_block(d, base, flits, n, &b);
    if (s)
        return s;
    s = kt_hp_setup(p, d->base + b.offset, b.bytes, b.len);
    if (s)
        free(b.bytes);
    else
        kt_stage_commit(d, &b);
    return s;
}

/* A POLL on a NODE_STATUS: count == `count` and valid, the code and arg free. */
static npk_status poll_count(kt_hostprog *p, uint64_t addr, uint16_t count, const char *what)
{
    const kt_word_layout *L = &kt_word_node_status;
    uint64_t want =
        kt_word_bits(L, KT_NODE_STATUS_F_COUNT, count) | kt_word_bits(L, KT_NODE_STATUS_F_VALID, 1);
    uint64_t mask =
        kt_word_mask(L, KT_NODE_STATUS_F_COUNT) | kt_word_mask(L, KT_NODE_STATUS_F_VALID);
    return kt_hp_poll(p, addr, want, mask, what);
}

npk_status kt_hp_dispatch(kt_hostprog *p, kt_dev *d, const kt_unit *unit, unsigned base, unsigned n,
                          unsigned credit, kt_ticket *tk)
{
    npk_status s = kt_dispatch_check(d, unit, base, n, &credit);
    if (s || (s = kt_ticket_baseline(d, unit, n, tk)))
        return s;
    uint64_t b = d->base;
    const uint64_t run = kt_word_mask(&kt_word_prog_stat, KT_PROG_STAT_F_RUN);
    if ((s = kt_hp_poll(p, b + KT_PROG_STAT, 0, run, "PROG_STAT.run")))
        return s;
    /* PROG_CRED is one counter refilled by INST_COMPLETE from any node: a program still
     * returning credit would inflate this one's seed past its target's FIFO and deadlock the
     * mesh. The core waits for those returns before a new dispatch; a POLL matches only an
     * exact value, so the program waits for each earlier program's final count instead. */
    for (unsigned i = 0; i < d->n_pending; i++) {
        const kt_pending *e = &d->pending[i];
        char what[KT_HP_LABEL];
        snprintf(what, sizeof what, "NODE_STATUS(%u,%u).count", e->dst.x, e->dst.y);
        if ((s = poll_count(p, b + kt_node_status_offset(e->dst), (uint16_t)(e->until + 1), what)))
            return s;
    }
    d->n_pending = 0;
    d->pending[d->n_pending++] = (kt_pending){unit->at, (uint16_t)(tk->baseline + n - 1),
                                              tk->expect_cycles, d->waits.paused_cycles};
    d->stream_idle = false; /* the engine kicks */
    if ((s = kt_hp_wr(p, b + KT_PROG_BASE, base, "PROG_BASE")) ||
        (s = kt_hp_wr(p, b + KT_PROG_LEN, n, "PROG_LEN")) ||
        (s = kt_hp_wr(p, b + KT_PROG_DST, kt_coord_pack(unit->at), "PROG_DST")) ||
        (s = kt_hp_wr(p, b + KT_PROG_CRED, credit, "PROG_CRED")) ||
        /* On a pre-strobe bitstream LEN already launched the stream and KICK zeroes PROG_DST,
         * which every push reads live: wait for the stream to end before the (no-op) kick. */
        (s = kt_hp_poll(p, b + KT_PROG_STAT, 0, run, "PROG_STAT.run")) ||
        (s = kt_hp_wr(p, b + KT_PROG_KICK, 1, "PROG_KICK")))
        return s;
    kt_note_last_dispatch(d, tk, credit);
    return NPK_OK;
}

npk_status kt_hp_await(kt_hostprog *p, const kt_dev *d, const kt_ticket *tk)
{
    char what[KT_HP_LABEL];
    snprintf(what, sizeof what, "NODE_STATUS(%u,%u).count", tk->dst.x, tk->dst.y);
    /* Count and valid; the code is checked after the run (a count alone is satisfied by a fault,
     * and a poll that wanted a specific code would hang forever on one). */
    return poll_count(p, d->base + kt_node_status_offset(tk->dst), (uint16_t)(tk->baseline + tk->n),
                      what);
}

npk_status kt_hp_check_ticket(kt_dev *d, const kt_ticket *tk)
{
    uint64_t v;
    npk_status s = kt_reg_read(d, kt_node_status_offset(tk->dst), &v);
    if (s)
        return s;
    kt_node_status ns = kt_node_status_decode(v);
    if (ns.code == KT_SIG_FAULT)
        return npk_fail(NPK_EFAULT, "node (%u,%u) signalled FAULT (arg 0x%x)", tk->dst.x, tk->dst.y,
                        ns.arg);
    uint16_t done = kt_count_delta16(tk->baseline, ns.count);
    if (!ns.valid || done != tk->n)
        return npk_fail(NPK_EPROTO, "node (%u,%u): %u of %u completions after the program ended",
                        tk->dst.x, tk->dst.y, done, tk->n);
    kt_note_count_seen(d, tk->dst, ns.count);
    return kt_check_credit_returned(d, tk);
}

/* ---- programs that run again as loaded ---- */

npk_status kt_hp_signals_start(kt_hostprog *p, kt_dev *d)
{
    if (!d->opt.bitstream_current)
        return npk_fail(
            NPK_EUNSUPPORTED,
            "a program that runs again needs SIG_DONE, which every dispatch's "
            "PROG_BASE/PROG_CRED write also clears on a pre-strobe bitstream; its waits "
            "must then be on NODE_STATUS counts, which only grow, so it runs once");
    if (d->n_pending)
        return npk_fail(NPK_EBUSY,
                        "%u earlier program(s) may still return credit: their completions would "
                        "count in SIG_DONE after its clear (wait for them first)",
                        d->n_pending);
    return kt_hp_wr(p, d->base + KT_SIG_DONE, 0, "SIG_DONE clear");
}

npk_status kt_hp_dispatch_signals(kt_hostprog *p, kt_dev *d, const kt_unit *unit, unsigned base,
                                  unsigned n, unsigned credit, uint16_t before, kt_ticket *tk)
{
    npk_status s = kt_dispatch_check(d, unit, base, n, &credit);
    if (s || (s = kt_ticket_baseline(d, unit, n, tk)))
        return s;
    uint64_t b = d->base;
    if (before) {
        /* Every signal of the run's earlier programs: their credit is back (so this seed is not
         * inflated) and their streams ended (a flit signals only after it was delivered). */
        s = kt_hp_await_signals(p, d, before);
    } else {
        const uint64_t run = kt_word_mask(&kt_word_prog_stat, KT_PROG_STAT_F_RUN);
        s = kt_hp_poll(p, b + KT_PROG_STAT, 0, run, "PROG_STAT.run");
    }
    /* On a current bitstream nothing runs before the KICK, so no wait sits before it. */
    if (s || (s = kt_hp_wr(p, b + KT_PROG_BASE, base, "PROG_BASE")) ||
        (s = kt_hp_wr(p, b + KT_PROG_LEN, n, "PROG_LEN")) ||
        (s = kt_hp_wr(p, b + KT_PROG_DST, kt_coord_pack(unit->at), "PROG_DST")) ||
        (s = kt_hp_wr(p, b + KT_PROG_CRED, credit, "PROG_CRED")) ||
        (s = kt_hp_wr(p, b + KT_PROG_KICK, 1, "PROG_KICK")))
        return s;
    d->stream_idle = false; /* the engine kicks */
    kt_note_last_dispatch(d, tk, credit);
    return NPK_OK;
}

npk_status kt_hp_await_signals(kt_hostprog *p, const kt_dev *d, uint16_t total)
{
    char what[KT_HP_LABEL];
    snprintf(what, sizeof what, "SIG_DONE == %u", total);
    return kt_hp_poll(p, d->base + KT_SIG_DONE, total, 0xFFFF, what);
}

void kt_hp_signals_ended(kt_dev *d)
{
    d->n_pending = 0;
    d->stream_idle = true;
}

void kt_hp_ticket_again(kt_dev *d, kt_ticket *tk, bool last)
{
    /* The previous run's DONE came after SIG_DONE reached its total: every one of its signals
     * arrived, so each node moved by its program's length. The check after this run reads the
     * count and confirms it. */
    unsigned i = kt_coord_pack(tk->dst);
    tk->baseline = (uint16_t)(tk->baseline + tk->n);
    d->count_known[i / 8] &= (uint8_t) ~(1u << (i % 8));
    d->known_count[i] = (uint16_t)(tk->baseline + tk->n);
    if (last)
        kt_note_last_dispatch(d, tk, d->last_seed);
}

npk_status kt_hp_move(kt_hostprog *p, uint64_t ctrl_base, const kt_mv_write *w, size_t n)
{
    npk_status s;
    for (size_t i = 0; i < n; i++) {
        char what[KT_HP_LABEL];
        snprintf(what, sizeof what, "mover %s", kt_mv_reg_name(w[i].offset));
        if (w[i].offset >= KT_MV_AUX_LIMIT)
            return npk_fail(NPK_EINVAL,
                            "mover write at client offset 0x%02x: beyond the mover's 0x00-0x7F",
                            w[i].offset);
        if ((s = kt_hp_wr(p, ctrl_base + KT_AUX_CFG + w[i].offset, w[i].value, what)))
            return s;
    }
    return kt_hp_poll(p, ctrl_base + KT_AUX_STAT, 0,
                      kt_word_mask(&kt_word_aux_stat, KT_MV_STAT_F_BUSY), "AUX_STAT.busy");
}
