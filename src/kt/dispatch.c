/* SPDX-License-Identifier: MIT */
/* Staging, dispatch with credit, and completion waits — in the forms that are correct on both
 * bitstream generations (spec §2.3, §2.4, §2.7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch_rules.h"
#include "kt/hw/transport_trace.h"
#include "npukit/kt.h"

static bool known(const kt_dev *d, size_t w) { return d->stage_known[w / 8] >> (w % 8) & 1; }

static bool all_known(const kt_dev *d, size_t from, size_t to)
{
    for (size_t w = from; w < to; w++)
        if (!known(d, w))
            return false;
    return true;
}

/* n flits from slot `base` must be at least one and stay inside STAGE_FLITS. */
static npk_status stage_check(const kt_dev *d, unsigned base, size_t n)
{
    if (!n)
        return npk_fail(NPK_EINVAL, "staging 0 flits");
    if (base + n > d->opt.stage_flits)
        return npk_fail(NPK_ELIMIT, "staging slots %u..%zu exceed STAGE_FLITS=%u", base,
                        base + n - 1, d->opt.stage_flits);
    return NPK_OK;
}

/* Flits in the staging RAM's layout: flit_words words each, ascending, into out. */
static void stage_pack(const kt_dev *d, const kt_flit *flits, size_t n, uint8_t *out)
{
    size_t stride = d->flit_words * 8u; /* derived from CAPS, never assumed to be five words */
    for (size_t i = 0; i < n; i++) {
        uint8_t bytes[KT_FLIT_WORDS * 8];
        kt_flit_to_bytes(&flits[i], bytes);
        memcpy(out + i * stride, bytes, stride);
    }
}

npk_status kt_stage_block(const kt_dev *d, unsigned base, const kt_flit *flits, size_t n,
                          kt_stage_buf *b)
{
    npk_status s = stage_check(d, base, n);
    if (s)
        return s;
    size_t fw = d->flit_words; /* derived, never assumed to be five */
    size_t first = (size_t)base * fw, end = first + n * fw, lo = first, hi = end;
    size_t stage_words = (size_t)d->opt.stage_flits * fw;
    /* A 32-byte bus flit is four words; extend the block to whole flits where this session knows
     * what the neighbouring words hold, so no beat of a touched flit goes out unstrobed. */
    size_t per_flit = KT_BUS_FLIT_BYTES / 8;
    if (stage_words <= KT_STAGE_SHADOW_WORDS) {
        size_t plo = first & ~(per_flit - 1), phi = (end + per_flit - 1) & ~(per_flit - 1);
        if (phi > stage_words)
            phi = stage_words;
        if (all_known(d, plo, first))
            lo = plo;
        if (all_known(d, end, phi))
            hi = phi;
    }
    b->bytes = malloc((hi - lo) * 8);
    if (!b->bytes)
        return npk_fail(NPK_ENOMEM, "staging %zu flits: out of memory", n);
    b->first = first;
    b->lo = lo;
    b->len = (hi - lo) * 8;
    b->offset = KT_STAGE + lo * 8; /* the extent runs from 0x2000 past 0x2FFF: one block */
    for (size_t w = lo; w < first; w++)
        kt_put_le64(b->bytes + (w - lo) * 8, d->stage_shadow[w]);
    stage_pack(d, flits, n, b->bytes + (first - lo) * 8);
    for (size_t w = end; w < hi; w++)
        kt_put_le64(b->bytes + (w - lo) * 8, d->stage_shadow[w]);
    b->end = end;
    return NPK_OK;
}

void kt_stage_commit(kt_dev *d, kt_stage_buf *b)
{
    if ((size_t)d->opt.stage_flits * d->flit_words <= KT_STAGE_SHADOW_WORDS)
        for (size_t w = b->first; w < b->end; w++) {
            d->stage_shadow[w] = kt_le64(b->bytes + (w - b->lo) * 8);
            d->stage_known[w / 8] |= (uint8_t)(1u << (w % 8));
        }
    free(b->bytes);
    b->bytes = NULL;
}

npk_status kt_stage(kt_dev *d, unsigned base, const kt_flit *flits, size_t n)
{
    /* Word by word, a pre-strobe bitstream keeps one staging word in four, silently; so staging
     * exists only as a block, and a transport without a block path is refused. */
    if (n && base + n <= d->opt.stage_flits && !d->t->bulk)
        return npk_fail(NPK_EUNSUPPORTED,
                        "transport '%s' has no bulk path: staging must be one contiguous "
                        "ascending block (word writes lose 3 words in 4 on pre-strobe bitstreams)",
                        d->t->name ? d->t->name : "?");
    kt_stage_buf b;
    npk_status s = kt_stage_block(d, base, flits, n, &b);
    if (s)
        return s;
    s = kt_write_block(d->t, d->base + b.offset, b.bytes, b.len);
    if (s)
        free(b.bytes);
    else
        kt_stage_commit(d, &b);
    return s;
}

size_t kt_prog_stat_text(const kt_prog_stat *p, char *buf, size_t len)
{
    const char *why = "";
    if (p->run && p->flits_left > 0 && p->credit == 0)
        why = " (a starved stream: the dispatcher waits for credit that no INST_COMPLETE returns)";
    else if (p->run)
        why = " (streaming)";
    int n = snprintf(buf, len, "run=%u flits_left=%u credit=%u%s", p->run, p->flits_left, p->credit,
                     why);
    return n < 0 ? 0 : (size_t)n;
}

/* ---- pacing ---- */

static void pause_for(kt_dev *d, uint64_t cycles)
{
    if (!d->opt.pause || !cycles)
        return;
    bool traced = kt_trace_on();
    double t0 = traced ? kt_trace_now_us(d->t) : 0;
    d->opt.pause(d->opt.pause_user, cycles);
    if (traced) {
        npk_trace_arg a = NPK_TRACE_U("cycles", cycles);
        kt_trace_span(d->t, "pause", t0, &a, 1);
    }
    d->waits.pauses++;
    d->waits.paused_cycles += cycles;
}

/* `expect` cycles of work from when `paused_at` was the paused total: what is left of it now,
 * scaled by what earlier waits learnt. */
kt_pacer kt_pace_start(kt_dev *d, uint64_t expect, uint64_t paused_at)
{
    if (!d->expect_scale)
        d->expect_scale = 16;
    expect = expect * d->expect_scale / 16;
    uint64_t gone = d->waits.paused_cycles - paused_at;
    uint64_t left = expect > gone ? expect - gone : 0;
    kt_pacer p = {d, d->opt.poll_cycles, d->opt.poll_cycles, expect, paused_at, false};
    if (!d->opt.poll_cycles) {
        p.next = expect / 8 > KT_POLL_MIN_CYCLES ? expect / 8 : KT_POLL_MIN_CYCLES;
        p.cap = expect > 32 * KT_POLL_MIN_CYCLES ? expect : 32 * KT_POLL_MIN_CYCLES;
        pause_for(d, left);
    }
    return p;
}

/* The read found what it waited for (a check), or came too early (a poll): then pause. A wait
 * that found its work longer than estimated scales later estimates up to what it took. */
void kt_pace_read(kt_pacer *p, bool reached)
{
    kt_dev *d = p->d;
    if (reached) {
        d->waits.checks++;
        uint64_t took = d->waits.paused_cycles - p->start;
        if (p->missed && p->expect && !d->opt.poll_cycles && took > p->expect) {
            uint64_t scale = (d->expect_scale * took + p->expect - 1) / p->expect;
            d->expect_scale = scale > 16 * 64 ? 16 * 64 : (uint32_t)scale;
        } else if (!p->missed && d->expect_scale > 16) {
            /* The work was done by the first read: one slow wait (a fault, contention) must not
             * pad every later pause for good, so the learnt excess decays by a sixteenth with
             * each such wait — slowly, since a steady estimate is usually a right one. */
            d->expect_scale -= (d->expect_scale - 16) / 16;
        }
        return;
    }
    d->waits.polls++;
    p->missed = true;
    pause_for(d, p->next);
    p->next = p->next * 2 < p->cap ? p->next * 2 : p->cap;
}

void kt_forget_known(kt_dev *d)
{
    d->stream_idle = false;
    memset(d->count_known, 0, sizeof d->count_known);
    memset(d->known_status, 0, sizeof d->known_status);
}

/* A node's count is known once a wait sees it reach the target of the node's latest program
 * (known_count holds that target while the program runs). */
void kt_note_count_seen(kt_dev *d, kt_coord at, uint16_t count)
{
    unsigned i = kt_coord_pack(at);
    if (d->known_count[i] == count)
        d->count_known[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Read register `off` until done(value, want) holds. A value that changes is progress and renews
 * the budget; poll_budget reads of the same value end the wait with *reached false and *last
 * holding that value, for the caller's message. */
typedef bool (*poll_done_fn)(uint64_t value, uint64_t want);

static npk_status poll_loop(kt_dev *d, uint32_t off, poll_done_fn done, uint64_t want,
                            uint64_t expect, uint64_t paused_at, uint64_t *last, bool *reached)
{
    uint64_t v = 0, prev = ~0ull;
    uint32_t quiet = 0;
    *reached = false;
    *last = 0;
    kt_pacer pc = kt_pace_start(d, expect, paused_at);
    while (quiet < d->opt.poll_budget) {
        npk_status s = kt_reg_read(d, off, &v);
        *last = v;
        if (s)
            return s;
        bool hit = done(v, want);
        kt_pace_read(&pc, hit);
        if (hit) {
            *reached = true;
            return NPK_OK;
        }
        quiet = v == prev ? quiet + 1 : 0;
        prev = v;
    }
    return NPK_OK;
}

/* poll_loop, a span in the trace: "wait REG" with the reads it took. */
static npk_status poll_until(kt_dev *d, uint32_t off, poll_done_fn done, uint64_t want,
                             uint64_t expect, uint64_t paused_at, uint64_t *last, bool *reached)
{
    if (!kt_trace_on())
        return poll_loop(d, off, done, want, expect, paused_at, last, reached);
    double t0 = kt_trace_now_us(d->t);
    kt_wait_stats before = d->waits;
    npk_status s = poll_loop(d, off, done, want, expect, paused_at, last, reached);
    const kt_reg_desc *r = kt_orch_reg_find(off);
    char name[48];
    snprintf(name, sizeof name, "wait %s", r ? r->name : "register");
    npk_trace_arg a[] = {NPK_TRACE_U("checks", d->waits.checks - before.checks),
                         NPK_TRACE_U("polls", d->waits.polls - before.polls),
                         NPK_TRACE_U("reached", *reached), NPK_TRACE_X("last", *last)};
    kt_trace_span(d->t, name, t0, a, sizeof a / sizeof a[0]);
    return s;
}

static bool stream_ended(uint64_t prog_stat, uint64_t want)
{
    (void)want;
    return !kt_prog_stat_decode(prog_stat).run;
}

/* Wrap-aware: the count is within half the 16-bit space past `want`. */
static bool count_reached(uint64_t node_status, uint64_t want)
{
    /* the one field, not the whole word: a poll may ask this thousands of times a job */
    uint16_t count = (uint16_t)kt_word_get(&kt_word_node_status, KT_NODE_STATUS_F_COUNT,
                                           node_status);
    return (uint16_t)(count - (uint16_t)want) < 0x8000;
}

static bool sig_done_is(uint64_t sig_done, uint64_t want)
{
    return kt_word_get(&kt_word_sig_done, 0, sig_done) == want;
}

/* Poll PROG_STAT until run == 0. Progress (flits_left or credit moving) renews the budget. */
static npk_status wait_idle(kt_dev *d, const char *before)
{
    if (d->stream_idle)
        return NPK_OK; /* seen idle, and nothing kicked since */
    uint64_t v;
    bool reached;
    /* A stream of n flits seeded with c credits ends once n - c of its instructions completed. */
    uint64_t expect = 0;
    if (d->have_last && d->last_n > d->last_seed)
        expect = d->last_expect * (uint64_t)(d->last_n - d->last_seed) / d->last_n;
    npk_status s =
        poll_until(d, KT_PROG_STAT, stream_ended, 0, expect, d->last_paused_at, &v, &reached);
    d->stream_idle = reached;
    if (s || reached)
        return s;
    kt_prog_stat p = kt_prog_stat_decode(v);
    char txt[160];
    kt_prog_stat_text(&p, txt, sizeof txt);
    return npk_fail(NPK_ETIMEDOUT,
                    "dispatcher still running before %s after %u polls without progress: %s",
                    before, d->opt.poll_budget, txt);
}

static bool count_known(const kt_dev *d, kt_coord at, uint16_t count)
{
    unsigned i = kt_coord_pack(at);
    return (d->count_known[i / 8] >> (i % 8) & 1) && d->known_count[i] == count;
}

/* Wait until every earlier program's credit-returning completions have arrived. It waits for the
 * whole program (its last signal too, one instruction later): then the program's own wait needs
 * no read of its own (the word read here is kept), and when it was the latest dispatch its stream
 * has ended (a flit signals only after it was delivered), so no PROG_STAT read either. */
static npk_status settle_pending(kt_dev *d)
{
    for (unsigned i = 0; i < d->n_pending; i++) {
        kt_pending *p = &d->pending[i];
        uint16_t end = (uint16_t)(p->until + 1);
        if (count_known(d, p->dst, end))
            continue; /* its wait saw it end */
        uint64_t v;
        bool reached;
        npk_status s = poll_until(d, kt_node_status_offset(p->dst), count_reached, end,
                                  p->expect_cycles, p->paused_at, &v, &reached);
        if (s)
            return s;
        if (!reached)
            return npk_fail(
                NPK_ETIMEDOUT,
                "an earlier program on (%u,%u) never returned its credit (count %u, want %u) "
                "after %u polls without progress",
                p->dst.x, p->dst.y, kt_node_status_decode(v).count, end, d->opt.poll_budget);
        kt_node_status ns = kt_node_status_decode(v);
        if (ns.valid && ns.count == end && ns.code != KT_SIG_FAULT) {
            kt_note_count_seen(d, p->dst, end);
            d->known_status[kt_coord_pack(p->dst)] = v;
        }
        if (d->have_last && kt_coord_eq(d->last_dst, p->dst) &&
            (uint16_t)(d->last_baseline + d->last_n) == end)
            d->stream_idle = true;
    }
    d->n_pending = 0;
    return NPK_OK;
}

npk_status kt_dispatch_check(const kt_dev *d, const kt_unit *unit, unsigned base, unsigned n,
                             unsigned *credit)
{
    if (n == 0 || n > 0xFFFF)
        return npk_fail(NPK_ELIMIT, "program length %u outside 1..65535", n);
    if (base + n > d->opt.stage_flits)
        return npk_fail(
            NPK_ELIMIT,
            "slots %u..%u exceed STAGE_FLITS=%u (the 10-bit read pointer would leave the "
            "staging RAM)",
            base, base + n - 1, d->opt.stage_flits);
    uint16_t depth = unit->caps.inst_depth;
    if (depth == 0)
        return npk_fail(NPK_EPROTO, "unit at (%u,%u) reports inst_depth 0: no credit can be seeded",
                        unit->at.x, unit->at.y);
    /* Seeding more than the target's FIFO holds is the one way to reintroduce the deadlock. */
    if (*credit > depth)
        return npk_fail(NPK_ELIMIT, "credit %u exceeds the inst_depth %u of the unit at (%u,%u)",
                        *credit, depth, unit->at.x, unit->at.y);
    if (!*credit)
        *credit = depth;
    return NPK_OK;
}

npk_status kt_ticket_baseline(kt_dev *d, const kt_unit *unit, unsigned n, kt_ticket *tk)
{
    unsigned i = kt_coord_pack(unit->at);
    if (d->count_known[i / 8] >> (i % 8) & 1) {
        tk->baseline = d->known_count[i]; /* a wait saw it there; nothing was sent since */
    } else {
        uint64_t v;
        npk_status s = kt_reg_read(d, kt_node_status_offset(unit->at), &v);
        if (s)
            return s;
        tk->baseline = kt_node_status_decode(v).count;
    }
    /* The program about to be sent moves it: unknown until a wait sees its target. */
    d->count_known[i / 8] &= (uint8_t) ~(1u << (i % 8));
    d->known_count[i] = (uint16_t)(tk->baseline + n);
    d->known_status[i] = 0;
    tk->dst = unit->at;
    tk->n = (uint16_t)n;
    return NPK_OK;
}

npk_status kt_dispatch(kt_dev *d, const kt_unit *unit, unsigned base, unsigned n, unsigned credit,
                       kt_ticket *tk)
{
    npk_status s = kt_dispatch_check(d, unit, base, n, &credit);
    if (s || (s = settle_pending(d)) || (s = wait_idle(d, "a new dispatch")) ||
        (s = kt_ticket_baseline(d, unit, n, tk)))
        return s;
    if (d->n_pending == KT_MAX_PENDING)
        memmove(d->pending, d->pending + 1, --d->n_pending * sizeof d->pending[0]);
    tk->paused_at = d->waits.paused_cycles;
    d->pending[d->n_pending++] =
        (kt_pending){unit->at, (uint16_t)(tk->baseline + n - 1), tk->expect_cycles, tk->paused_at};
    /* BASE, LEN, DST, CRED, KICK — each a whole 64-bit write, none elided. On a pre-strobe
     * bitstream BASE zeroes the credit (holding the dispatch LEN then fires), DST repairs the
     * destination LEN zeroed, CRED releases the stream, and KICK (which zeroes DST) is a no-op. */
    static const uint32_t order[] = {KT_PROG_BASE, KT_PROG_LEN, KT_PROG_DST, KT_PROG_CRED};
    uint64_t values[] = {base, n, kt_coord_pack(unit->at), credit};
    for (size_t i = 0; i < 4; i++)
        if ((s = kt_reg_write(d, order[i], values[i])))
            return s;
    /* PROG_DST is read live at every push, and on a pre-strobe bitstream the KICK write zeroes
     * it: kicking while the stream still runs would send the rest to {0,0}. On a current
     * bitstream nothing runs yet, so this costs one read. */
    if ((s = wait_idle(d, "PROG_KICK")) || (s = kt_reg_write(d, KT_PROG_KICK, 1)))
        return s;
    kt_note_last_dispatch(d, tk, credit);
    return NPK_OK;
}

void kt_note_last_dispatch(kt_dev *d, const kt_ticket *tk, unsigned credit)
{
    d->have_last = true;
    d->last_dst = tk->dst;
    d->last_baseline = tk->baseline;
    d->last_n = tk->n;
    d->last_seed = (uint16_t)credit;
    d->last_expect = tk->expect_cycles;
    d->last_paused_at = tk->paused_at;
}

/* Every instruction but the last returns one credit as INST_COMPLETE; a FAULT returns none. For
 * the most recent dispatch (earlier programs settled before its seed, none since) the credit at
 * the end is therefore seed - 1 minus the faults, whatever the polls saw. */
npk_status kt_check_credit_returned(kt_dev *d, const kt_ticket *tk)
{
    if (!d->have_last || !kt_coord_eq(d->last_dst, tk->dst) || d->last_baseline != tk->baseline ||
        d->last_n != tk->n)
        return NPK_OK;
    uint64_t v;
    npk_status s = kt_reg_read(d, KT_PROG_STAT, &v);
    if (s)
        return s;
    kt_prog_stat p = kt_prog_stat_decode(v);
    uint16_t want = (uint16_t)(d->last_seed - 1);
    uint16_t missing = (uint16_t)(want - p.credit);
    if (p.run || missing == 0 || missing >= tk->n)
        return NPK_OK; /* still streaming, all returned, or re-seeded since: nothing to conclude */
    return npk_fail(
        NPK_EFAULT,
        "node (%u,%u): all %u signals arrived but %u instruction(s) returned no credit (PROG_CRED "
        "%u, "
        "seeded %u): a FAULT that a later completion overwrote in NODE_STATUS before any poll",
        tk->dst.x, tk->dst.y, tk->n, missing, p.credit, d->last_seed);
}

static npk_status wait_program(kt_dev *d, const kt_ticket *tk, kt_wait_result *res);

/* wait_program, a span in the trace: "wait (x,y)" with the program's size and the reads. */
npk_status kt_wait(kt_dev *d, const kt_ticket *tk, kt_wait_result *res)
{
    if (!kt_trace_on())
        return wait_program(d, tk, res);
    double t0 = kt_trace_now_us(d->t);
    kt_wait_result r;
    npk_status s = wait_program(d, tk, &r);
    if (res)
        *res = r;
    char name[32];
    snprintf(name, sizeof name, "wait (%u,%u)", tk->dst.x, tk->dst.y);
    npk_trace_arg a[] = {NPK_TRACE_U("instructions", tk->n), NPK_TRACE_U("polls", r.polls),
                         NPK_TRACE_S("status", npk_status_name(s))};
    kt_trace_span(d->t, name, t0, a, sizeof a / sizeof a[0]);
    return s;
}

static npk_status wait_program(kt_dev *d, const kt_ticket *tk, kt_wait_result *res)
{
    kt_wait_result r;
    memset(&r, 0, sizeof r);
    uint16_t want = (uint16_t)(tk->baseline + tk->n);
    uint16_t prev = tk->baseline;
    uint32_t quiet = 0;
    uint32_t off = kt_node_status_offset(tk->dst);
    npk_status s = NPK_OK;
    /* A settle before a later dispatch may already have read this program's final word. */
    uint64_t kept = count_known(d, tk->dst, want) ? d->known_status[kt_coord_pack(tk->dst)] : 0;
    kt_pacer pc = {0};
    if (!kept)
        pc = kt_pace_start(d, tk->expect_cycles, tk->paused_at);
    /* Most polls read the word the last one did: it is decoded again only when it changes. */
    uint64_t decoded = 0;
    bool have_decoded = false;
    while (quiet < d->opt.poll_budget) {
        uint64_t v = kept;
        if (!kept && (s = kt_reg_read(d, off, &v)))
            break;
        r.polls += !kept;
        if (!have_decoded || v != decoded) {
            r.last = kt_node_status_decode(v);
            decoded = v;
            have_decoded = true;
        }
        if (!kept)
            kt_pace_read(&pc, r.last.valid && r.last.count == want);
        if (r.last.valid && r.last.code == KT_SIG_FAULT && r.last.count != tk->baseline &&
            !r.fault_seen) {
            r.fault_seen = true;
            r.fault_arg = r.last.arg;
        }
        /* A count alone is satisfied by a fault, so the code is checked too. */
        if (r.last.valid && r.last.count == want)
            break;
        /* Wrap-aware progress: how far past the baseline, modulo 2^16. */
        uint16_t done = kt_count_delta16(tk->baseline, r.last.count);
        if (done > tk->n) {
            s = npk_fail(
                NPK_EPROTO,
                "node (%u,%u) sent %u signals for a program of %u (baseline %u, now %u): another "
                "dispatcher is using this node",
                tk->dst.x, tk->dst.y, done, tk->n, tk->baseline, r.last.count);
            break;
        }
        quiet = r.last.count == prev ? quiet + 1 : 0;
        prev = r.last.count;
    }
    if (res)
        *res = r;
    if (s)
        return s;
    if (r.last.count != want || !r.last.valid) {
        uint64_t ps = 0, dst = 0;
        kt_reg_read(d, KT_PROG_STAT, &ps);
        kt_reg_read(d, KT_PROG_DST, &dst);
        kt_prog_stat p = kt_prog_stat_decode(ps);
        char txt[160];
        kt_prog_stat_text(&p, txt, sizeof txt);
        uint16_t done = kt_count_delta16(tk->baseline, r.last.count);
        /* A stream starved while aimed at this node has sent it flits: its silence is the unit
         * holding them, not a missing address. */
        kt_coord aimed;
        kt_word_decode(&kt_word_prog_dst, dst, &aimed);
        bool starved_here =
            p.run && p.flits_left > 0 && p.credit == 0 && kt_coord_eq(aimed, tk->dst);
        return npk_fail(NPK_ETIMEDOUT,
                        "node (%u,%u): %u of %u completions after %u polls without progress%s; "
                        "PROG_STAT %s",
                        tk->dst.x, tk->dst.y, done, tk->n, d->opt.poll_budget,
                        done == 0 && !starved_here
                            ? " (its count never moved: the node was never addressed)"
                            : "",
                        txt);
    }
    if (r.fault_seen || r.last.code == KT_SIG_FAULT)
        return npk_fail(NPK_EFAULT, "node (%u,%u) signalled FAULT (arg 0x%x) during the program",
                        tk->dst.x, tk->dst.y, r.fault_seen ? r.fault_arg : r.last.arg);
    kt_note_count_seen(d, tk->dst, want);
    /* Every flit of the most recent program reached its node: that stream has ended. */
    if (d->have_last && kt_coord_eq(d->last_dst, tk->dst) && d->last_baseline == tk->baseline &&
        d->last_n == tk->n)
        d->stream_idle = true;
    return kt_check_credit_returned(d, tk);
}

npk_status kt_sig_done_clear(kt_dev *d)
{
    if (!d->opt.bitstream_current)
        return npk_fail(NPK_EUNSUPPORTED,
                        "SIG_DONE is only usable on a bitstream known to honour strobes "
                        "(pre-strobe dispatch writes clear it); wait on NODE_STATUS instead");
    return kt_reg_write(d, KT_SIG_DONE, 0);
}

npk_status kt_wait_sig_done(kt_dev *d, uint16_t total)
{
    if (!d->opt.bitstream_current)
        return kt_sig_done_clear(d);
    uint64_t v;
    bool reached;
    npk_status s =
        poll_until(d, KT_SIG_DONE, sig_done_is, total, 0, d->waits.paused_cycles, &v, &reached);
    if (s || reached)
        return s;
    return npk_fail(NPK_ETIMEDOUT, "SIG_DONE=%u, waited for %u over %u polls without progress",
                    (unsigned)v, total, d->opt.poll_budget);
}
