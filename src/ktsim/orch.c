/* SPDX-License-Identifier: MIT */
/* The orchestrator model: register file, write-beat decode, dispatcher, credit, mailbox FIFOs,
 * the status mirror and the AUX_CFG forwarding. Behaviour follows the RTL per beat and per
 * cycle; the two bitstream generations differ only in their ksim_generation row. */
#include "orch.h"
#include "out_of_line.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/flit_header.h"
#include "npukit/kt_mover_hw.h"
#include "npukit/kt_regs.h"

static const ksim_generation generations[] = {
    [KTSIM_GEN_CURRENT] = {"current", true},
    [KTSIM_GEN_PRESTROBE] = {"prestrobe", false},
};

const ksim_generation *ksim_generation_row(ktsim_gen gen)
{
    return (unsigned)gen < sizeof generations / sizeof generations[0] ? &generations[gen]
                                                                      : &generations[0];
}

const char *ktsim_gen_name(ktsim_gen g) { return ksim_generation_row(g)->name; }

enum { MAX_AUX = 8 };

typedef struct aux_quiet_hooks {
    uint64_t (*quiet)(void *ctx);
    void (*skip)(void *ctx, uint64_t cycles);
} aux_quiet_hooks;

struct ksim_orch {
    ksim_orch_params p;
    const ksim_generation *gen;
    ksim_fault_sink fault;
    uint64_t cycle;

    /* plain storage */
    uint64_t ctrl, irq_stat, irq_en;
    uint8_t prog_dst;
    uint16_t prog_len, prog_base;
    uint16_t credit, sig_done;

    /* requests registered by a beat, acted on in the next cycle */
    bool kick_req, cred_req, done_clr_req, tx_push_req, rx_pop_req;
    uint16_t cred_value;

    /* dispatcher */
    bool run, push_pending;
    uint16_t left;
    unsigned rd, word;
    uint64_t assembly[8];
    bool pushed_this_cycle, inst_complete_this_cycle, signal_this_cycle;

    /* mailbox */
    uint64_t tx_stage[8];
    ksim_fifo tx, rx;
    bool out_valid;
    uint64_t *out_wake; /* ksim_orch_set_out_wake, or NULL */
    kt_flit out;
    bool rx_overflow;

    uint64_t node_status[KT_NODE_SLOTS];
    uint64_t *stage;
    unsigned stage_words;

    /* AUX_CFG */
    ktsim_aux_client aux[MAX_AUX];
    aux_quiet_hooks aux_quiet[MAX_AUX]; /* ktsim_set_quiet, per client */
    unsigned n_aux;
    uint8_t aux_shadow_addr;
    bool aux_shadow_valid;
    uint64_t aux_shadow;
    bool aux_pulse;
    uint8_t aux_pulse_addr;
    uint64_t aux_pulse_value;
    uint64_t host_pulse_cycle; /* the cycle of the host's last AUX_CFG pulse, and its offset */
    uint8_t host_pulse_addr;
    /* Client offsets where a second writer wins a same-cycle collision: a host pulse there is
     * held (aux_pulse stays set) until the cycle's clients tick, so that writer can take it. */
    bool hold;
    uint8_t hold_lo, hold_hi;
    uint16_t traffic_rd, traffic_wr;
};

ksim_orch *ksim_orch_create(const ksim_orch_params *p, ksim_fault_fn fault, void *fault_user)
{
    ksim_orch *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->p = *p;
    o->gen = ksim_generation_row(p->gen);
    o->fault = (ksim_fault_sink){fault, fault_user};
    o->stage_words = p->stage_flits * p->flit_words;
    o->stage = calloc(o->stage_words ? o->stage_words : 1, sizeof *o->stage);
    if (!o->stage || !ksim_fifo_init(&o->tx, p->tx_depth) || !ksim_fifo_init(&o->rx, p->rx_depth)) {
        ksim_orch_destroy(o);
        return NULL;
    }
    ksim_orch_reset(o);
    return o;
}

void ksim_orch_destroy(ksim_orch *o)
{
    if (!o)
        return;
    ksim_fifo_free(&o->tx);
    ksim_fifo_free(&o->rx);
    free(o->stage);
    free(o);
}

void ksim_orch_reset(ksim_orch *o)
{
    o->ctrl = o->irq_stat = o->irq_en = 0;
    o->prog_dst = 0;
    o->prog_len = o->prog_base = 0;
    o->credit = o->sig_done = 0;
    o->kick_req = o->cred_req = o->done_clr_req = o->tx_push_req = o->rx_pop_req = false;
    o->run = o->push_pending = false;
    o->left = 0;
    o->rd = o->word = 0;
    ksim_fifo_clear(&o->tx);
    ksim_fifo_clear(&o->rx);
    o->out_valid = false;
    o->rx_overflow = false;
    o->aux_shadow_valid = false; /* the RTL resets the shadow address to an impossible 0xFF */
    o->aux_pulse = false;
    o->host_pulse_cycle = UINT64_MAX;
    /* TX_FLIT staging, the staging RAM and NODE_STATUS are not reset (no reset in the RTL;
     * NODE_STATUS is zeroed only by the bitstream's initial contents). */
}

/* ---- write decode ---- */

static uint64_t strobe_mask(uint8_t strb)
{
    if (strb == 0xFF)
        return ~0ull; /* the commonest beat: the whole word */
    uint64_t m = 0;
    for (int b = 0; b < 8; b++)
        if (strb & (1u << b))
            m |= 0xFFull << (8 * b);
    return m;
}

static uint64_t merge(uint64_t old, uint64_t data, uint8_t strb)
{
    uint64_t m = strobe_mask(strb);
    return (old & ~m) | (data & m);
}

static bool in_stage(const ksim_orch *o, uint32_t off)
{
    return off >= KT_STAGE && off < kt_stage_end(o->p.stage_flits, o->p.flit_words);
}

/* The RX FIFO's head as the host sees it: a flit is readable cdc cycles after the mesh handed it
 * over (the async FIFO's crossing; 0 = at once). */
static bool rx_visible(const ksim_orch *o)
{
    return o->rx.count && ksim_fifo_head_arrived(&o->rx) + o->p.cdc_rx <= o->cycle;
}

static bool in_tx_flit(const ksim_orch *o, uint32_t off)
{
    return off >= KT_TX_FLIT && off < KT_TX_FLIT + o->p.flit_words * 8u;
}

static bool in_rx_flit(const ksim_orch *o, uint32_t off)
{
    return off >= KT_RX_FLIT && off < KT_RX_FLIT + o->p.flit_words * 8u;
}

static KSIM_OUT_OF_LINE void deliver_host_pulse(ksim_orch *o)
{
    o->aux_pulse = false;
    ksim_orch_aux_pulse(o, o->aux_pulse_addr, o->aux_pulse_value);
}

/* Deliver a held host pulse (the held one's cycle has come, or a second beat arrived before it). */
static void release_host_pulse(ksim_orch *o)
{
    if (o->aux_pulse)
        deliver_host_pulse(o);
}

static void aux_beat(ksim_orch *o, uint32_t off, uint64_t data, uint8_t strb, bool strobed)
{
    release_host_pulse(o);
    if (strobed) {
        /* Current RTL: accumulate into a one-entry shadow at the 8-aligned offset and pulse
         * the merged word, since the client has no byte enables of its own. */
        uint8_t a = (uint8_t)(off & 0xF8);
        uint64_t base = (o->aux_shadow_valid && o->aux_shadow_addr == a) ? o->aux_shadow : 0;
        uint64_t v = merge(base, data, strb);
        o->aux_shadow = v;
        o->aux_shadow_addr = a;
        o->aux_shadow_valid = true;
        o->aux_pulse_addr = a;
        o->aux_pulse_value = v;
    } else {
        /* Pre-strobe: every beat pulses its own offset with its whole data. */
        o->aux_pulse_addr = (uint8_t)(off & 0xFF);
        o->aux_pulse_value = data;
    }
    o->aux_pulse = true;
    /* The pulse leaves in the next cycle; deliver it now so two beats in a burst are two pulses
     * — unless a second writer may take that client's port in that cycle (held until it ticks). */
    o->host_pulse_cycle = o->cycle + 1;
    o->host_pulse_addr = o->aux_pulse_addr;
    if (!(o->hold && o->aux_pulse_addr >= o->hold_lo && o->aux_pulse_addr <= o->hold_hi))
        release_host_pulse(o);
}

void ksim_orch_aux_pulse(ksim_orch *o, uint8_t addr, uint64_t value)
{
    for (unsigned i = 0; i < o->n_aux; i++) {
        ktsim_aux_client *c = &o->aux[i];
        if (addr >= c->lo && addr <= c->hi && c->cfg)
            c->cfg(c->ctx, addr, value);
    }
}

bool ksim_orch_host_pulsed(const ksim_orch *o, uint8_t lo, uint8_t hi)
{
    return o->host_pulse_cycle == o->cycle && o->host_pulse_addr >= lo && o->host_pulse_addr <= hi;
}

void ksim_orch_hold_host_pulses(ksim_orch *o, uint8_t lo, uint8_t hi)
{
    o->hold = true;
    o->hold_lo = lo;
    o->hold_hi = hi;
}

bool ksim_orch_drop_host_pulse(ksim_orch *o, uint8_t lo, uint8_t hi)
{
    if (!o->aux_pulse || !ksim_orch_host_pulsed(o, lo, hi))
        return false;
    o->aux_pulse = false;
    return true;
}

uint64_t ksim_orch_aux_statw(const ksim_orch *o, unsigned index)
{
    for (unsigned i = 0; i < o->n_aux; i++)
        if (o->aux[i].statw)
            return o->aux[i].statw(o->aux[i].ctx, index);
    return 0;
}

uint64_t ksim_orch_aux_stat(const ksim_orch *o)
{
    uint64_t client = 0;
    for (unsigned i = 0; i < o->n_aux; i++)
        if (o->aux[i].stat)
            client |= o->aux[i].stat(o->aux[i].ctx);
    return client;
}

bool ksim_orch_beat_stores(const ksim_orch *o, uint32_t off, uint8_t strb)
{
    off &= KT_WINDOW_BYTES - 1;
    return (o->gen->honours_strobes && strb == 0) || in_stage(o, off) || in_tx_flit(o, off);
}

bool ksim_orch_write_beat(ksim_orch *o, uint32_t off, uint64_t data, uint8_t strb)
{
    off &= KT_WINDOW_BYTES - 1; /* only addr[15:0] is decoded */
    bool strobed = o->gen->honours_strobes;
    if (strobed && strb == 0)
        return true; /* no strobes: no write and no arrival (nothing kicks, nothing clears) */
    /* Pre-strobe ignores the strobes everywhere except TX_FLIT: the beat is the whole word. */
    uint8_t eff = strobed ? strb : 0xFF;
    bool low16 = (eff & 0x03) != 0; /* the 16-bit PROG_* registers live in bytes 0-1 */

    /* Decode order as in the RTL: staging range, TX_FLIT, AUX_CFG, then the register case. */
    if (in_stage(o, off)) {
        unsigned i = (off - KT_STAGE) >> 3;
        o->stage[i] = merge(o->stage[i], data, eff);
        return true;
    }
    if (in_tx_flit(o, off)) {
        unsigned w = (off - KT_TX_FLIT) >> 3;
        o->tx_stage[w] = merge(o->tx_stage[w], data, strb); /* always byte-strobed */
        return true;
    }
    if (off >= KT_AUX_CFG && off < KT_AUX_CFG + KT_AUX_CFG_BYTES) {
        aux_beat(o, off - KT_AUX_CFG, data, eff, strobed);
        return false;
    }
    switch (off & ~7u) {
    case KT_CTRL: o->ctrl = merge(o->ctrl, data, eff); break;
    case KT_IRQ_STAT: o->irq_stat &= ~(data & strobe_mask(eff)); break;
    case KT_IRQ_EN: o->irq_en = merge(o->irq_en, data, eff); break;
    case KT_PROG_DST:
        if (low16)
            o->prog_dst = (uint8_t)data;
        break;
    case KT_PROG_LEN:
        if (low16)
            o->prog_len = (uint16_t)data;
        break;
    case KT_PROG_BASE:
        if (low16)
            o->prog_base = (uint16_t)data;
        break;
    case KT_PROG_CRED:
        if (low16) {
            o->cred_req = true;
            o->cred_value = (uint16_t)data;
        }
        break;
    case KT_SIG_DONE: o->done_clr_req = true; break;
    case KT_PROG_KICK: o->kick_req = true; break;
    case KT_TX_KICK:
        /* Evaluated at the beat: ignored while a program runs or the FIFO is full. */
        if (!ksim_fifo_full(&o->tx) && !o->run)
            o->tx_push_req = true;
        break;
    case KT_RX_POP:
        if (rx_visible(o))
            o->rx_pop_req = true;
        break;
    default: break; /* read-only and unlisted offsets ignore writes */
    }
    return false;
}

/* ---- read decode ---- */

uint64_t ksim_orch_read(ksim_orch *o, uint32_t off)
{
    off &= KT_WINDOW_BYTES - 1;
    off &= ~7u;
    if (off >= KT_NODE_STATUS && off < KT_STAGE)
        return o->node_status[(off >> 3) & 0xFF]; /* index addr[10:3]: 0x1800+ aliases 0x1000+ */
    if (in_rx_flit(o, off)) {
        /* The head slot of the FIFO RAM; when empty this is whatever the slot last held. */
        unsigned w = (off - KT_RX_FLIT) >> 3;
        const kt_flit *h = &o->rx.slot[o->rx.head];
        return w < KT_FLIT_WORDS ? (w == 4 ? h->w[4] & 0xFFFFFFFFull : h->w[w]) : 0;
    }
    if (off >= KT_AUX_STATW && off < KT_AUX_STATW + KT_AUX_STATW_WORDS * 8) {
        return ksim_orch_aux_statw(o, (off >> 3) & 0xF);
    }
    switch (off) {
    case KT_CTRL: return o->ctrl;
    case KT_STATUS: {
        kt_status_reg st = {!ksim_fifo_empty(&o->tx) || o->run, false,
                            true}; /* error tied 0, mesh_ready 1 */
        return kt_status_encode(&st);
    }
    case KT_CAPS: {
        kt_agent_caps c = {o->p.flit_width, o->p.pos_width, o->p.grid_lo, o->p.grid_hi};
        return kt_agent_caps_encode(&c);
    }
    case KT_IRQ_STAT: return o->irq_stat;
    case KT_IRQ_EN: return o->irq_en;
    case KT_PROG_DST: return o->prog_dst;
    case KT_PROG_LEN: return o->prog_len;
    case KT_PROG_STAT: {
        kt_prog_stat ps = {o->run, o->left, o->credit};
        return kt_prog_stat_encode(&ps);
    }
    case KT_PROG_CRED: return o->credit;
    case KT_PROG_BASE: return o->prog_base;
    case KT_SIG_DONE: return o->sig_done;
    case KT_AUX_STAT: {
        kt_mv_status st = kt_mv_status_decode(ksim_orch_aux_stat(o));
        st.reads = o->traffic_rd;
        st.writes = o->traffic_wr;
        return kt_mv_status_encode(&st);
    }
    case KT_TX_STATUS: {
        kt_tx_status tx = {ksim_fifo_full(&o->tx)};
        return kt_word_pack(&kt_word_tx_status, &tx);
    }
    case KT_RX_STATUS: {
        kt_rx_status rx = {!rx_visible(o), o->rx_overflow};
        return kt_word_pack(&kt_word_rx_status, &rx);
    }
    default: return 0; /* write-only registers, AUX_CFG, STAGE, TX_FLIT and unlisted offsets */
    }
}

/* ---- one cycle ---- */

static void build_dispatch_flit(ksim_orch *o, kt_flit *f)
{
    for (int w = 0; w < KT_FLIT_WORDS; w++)
        f->w[w] = w < (int)o->p.flit_words ? o->assembly[w] : 0;
    f->w[4] &= 0xFFFFFFFFull;
    /* Header rewrite: destination from PROG_DST (read live at the push), source = our own
     * coordinate. Type, txn, last, rsvd and the payload pass through. */
    kt_header h = kt_flit_header(f);
    h.dst = kt_coord_unpack(o->prog_dst);
    h.src = o->p.self;
    kt_header_put(f, &h);
}

static void tick_work(ksim_orch *o, uint64_t cycle);

void ksim_orch_tick_begin(ksim_orch *o, uint64_t cycle)
{
    o->cycle = cycle;
    o->pushed_this_cycle = o->inst_complete_this_cycle = o->signal_this_cycle = false;
    /* The commonest cycle: nothing registered, nothing streaming, nothing queued to hand out (or
     * the output register still full) — every step of tick_work would find nothing to do. */
    if (!(o->kick_req | o->push_pending | o->run | o->tx_push_req | o->rx_pop_req) &&
        (o->out_valid || ksim_fifo_empty(&o->tx)))
        return;
    tick_work(o, cycle);
}

/* The cycle's dispatcher, mailbox and output register steps. */
static KSIM_OUT_OF_LINE void tick_work(ksim_orch *o, uint64_t cycle)
{
    uint16_t credit_now = o->credit; /* the registered value this cycle sees */

    /* A kick registered last cycle: accepted only when idle and PROG_LEN is non-zero. */
    if (o->kick_req) {
        o->kick_req = false;
        if (!o->run && o->prog_len != 0) {
            o->run = true;
            o->left = o->prog_len;
            o->rd = (o->prog_base & 0x3FF) * o->p.flit_words; /* a 10-bit word pointer */
            o->word = 0;
        }
    }
    /* The flit assembled last cycle is pushed now. */
    if (o->push_pending && !ksim_fifo_full(&o->tx)) {
        kt_flit f;
        build_dispatch_flit(o, &f);
        ksim_fifo_push(&o->tx, &f, cycle);
        o->push_pending = false;
        o->pushed_this_cycle = true;
    }
    /* Read one staging word per cycle while running, with room and credit. */
    if (o->run && !o->push_pending && !ksim_fifo_full(&o->tx) && credit_now != 0) {
        uint64_t v = 0;
        if (o->rd < o->stage_words)
            v = o->stage[o->rd];
        else
            ksim_report(&o->fault,
                        "dispatch read staging word %u, beyond the %u words of STAGE_FLITS=%u "
                        "(PROG_BASE+PROG_LEN past the staging RAM is undefined in the RTL)",
                        o->rd, o->stage_words, o->p.stage_flits);
        o->assembly[o->word] = v;
        o->rd = (o->rd + 1) & 0x3FF;
        if (++o->word == o->p.flit_words) {
            o->word = 0;
            o->push_pending = true;
            if (o->left == 1)
                o->run = false; /* on the last flit's final word; flits_left keeps reading 1 */
            else
                o->left--;
        }
    }
    /* Mailbox push and pop registered by a beat. */
    if (o->tx_push_req) {
        o->tx_push_req = false;
        kt_flit f;
        memset(&f, 0, sizeof f);
        for (unsigned w = 0; w < o->p.flit_words && w < KT_FLIT_WORDS; w++)
            f.w[w] = o->tx_stage[w];
        f.w[4] &=
            0xFFFFFFFFull; /* the mailbox stamps nothing: the flit is exactly what was written */
        ksim_fifo_push(&o->tx, &f, cycle);
    }
    if (o->rx_pop_req) {
        o->rx_pop_req = false;
        ksim_fifo_pop(&o->rx);
    }
    /* Output register: hold until taken, refill from the FIFO. */
    if (!o->out_valid && ksim_fifo_ready_after(&o->tx, cycle, o->p.cdc_tx)) {
        o->out = *ksim_fifo_head(&o->tx);
        ksim_fifo_pop(&o->tx);
        o->out_valid = true;
        if (o->out_wake)
            *o->out_wake = 0; /* before the mesh's tick of this cycle, which peeks the port */
    }
}

void ksim_orch_tick_end(ksim_orch *o)
{
    /* Credit, one update per cycle: a host load wins; a push decrements unless a completion
     * arrived in the same cycle; a completion increments unless a flit was pushed. */
    if (o->cred_req) {
        o->cred_req = false;
        o->credit = o->cred_value;
    } else if (o->pushed_this_cycle && !o->inst_complete_this_cycle) {
        if (o->credit)
            o->credit--;
    } else if (o->inst_complete_this_cycle && !o->pushed_this_cycle) {
        o->credit++; /* 16-bit wrap, no saturation */
    }
    /* A clear wins over a same-cycle signal, which is then lost from the count. */
    if (o->done_clr_req) {
        o->done_clr_req = false;
        o->sig_done = 0;
    } else if (o->signal_this_cycle) {
        o->sig_done++;
    }
}

bool ksim_orch_accept(ksim_orch *o, const kt_flit *f)
{
    kt_header h = kt_flit_header(f);
    if (ksim_fifo_full(&o->rx))
        o->rx_overflow = true; /* "offered while full", even for a signal that is not blocked */
    if (h.type == KT_T_CU_SIGNAL) {
        /* Summarised, never queued: the mirror keeps the last code/arg and a 16-bit count. */
        kt_signal s = kt_signal_get(f);
        uint8_t idx = kt_coord_pack(h.src);
        /* field by field: every completion passes here */
        const kt_word_layout *L = &kt_word_node_status;
        uint64_t count = kt_word_get(L, KT_NODE_STATUS_F_COUNT, o->node_status[idx]) + 1;
        o->node_status[idx] = kt_word_bits(L, KT_NODE_STATUS_F_CODE, s.code) |
                              kt_word_bits(L, KT_NODE_STATUS_F_ARG, s.arg) |
                              kt_word_bits(L, KT_NODE_STATUS_F_COUNT, count) |
                              kt_word_bits(L, KT_NODE_STATUS_F_VALID, 1);
        o->signal_this_cycle = true;
        if (s.code == KT_SIG_INST_COMPLETE)
            o->inst_complete_this_cycle = true; /* only INST_COMPLETE refills credit */
        return true;
    }
    return ksim_fifo_push(&o->rx, f, o->cycle);
}

const kt_flit *ksim_orch_out_peek(ksim_orch *o) { return o->out_valid ? &o->out : NULL; }
void ksim_orch_out_pop(ksim_orch *o) { o->out_valid = false; }
void ksim_orch_set_out_wake(ksim_orch *o, uint64_t *wake) { o->out_wake = wake; }

npk_status ksim_orch_add_aux(ksim_orch *o, const ktsim_aux_client *c)
{
    if (o->n_aux >= MAX_AUX)
        return npk_fail(NPK_ELIMIT, "AUX_CFG client '%s': %u clients already plugged (limit %u)",
                        c->name ? c->name : "?", o->n_aux, MAX_AUX);
    if (c->lo > c->hi)
        return npk_fail(NPK_EINVAL, "AUX_CFG client '%s': range 0x%02x-0x%02x is empty",
                        c->name ? c->name : "?", c->lo, c->hi);
    for (unsigned i = 0; i < o->n_aux; i++)
        if (c->lo <= o->aux[i].hi && o->aux[i].lo <= c->hi)
            return npk_fail(
                NPK_EINVAL, "AUX_CFG client '%s' 0x%02x-0x%02x overlaps '%s' 0x%02x-0x%02x",
                c->name ? c->name : "?", c->lo, c->hi, o->aux[i].name, o->aux[i].lo, o->aux[i].hi);
    o->aux[o->n_aux++] = *c;
    return NPK_OK;
}

void ksim_orch_tick_aux(ksim_orch *o)
{
    release_host_pulse(o); /* a held host pulse no second writer took this cycle */
    if (o->n_aux == 1) { /* the commonest node: one client (the agent's mover), a tail call */
        if (o->aux[0].tick)
            o->aux[0].tick(o->aux[0].ctx);
        return;
    }
    for (unsigned i = 0; i < o->n_aux; i++)
        if (o->aux[i].tick)
            o->aux[i].tick(o->aux[i].ctx);
}

bool ksim_orch_quiet(const ksim_orch *o)
{
    /* Nothing registered, nothing to push or hand out, and a stream (if any) held by zero
     * credit: only an arriving signal or a host beat changes that (a held one is pending). */
    return !o->aux_pulse && !o->push_pending && ksim_fifo_empty(&o->tx) && !o->out_valid &&
           !o->kick_req && !o->tx_push_req && !o->cred_req && !o->done_clr_req && !o->rx_pop_req &&
           (!o->run || o->credit == 0);
}

void ksim_orch_skip(ksim_orch *o, uint64_t cycle)
{
    o->cycle = cycle; /* as the skipped tick_begin calls left it */
    o->pushed_this_cycle = o->inst_complete_this_cycle = o->signal_this_cycle = false;
}

uint64_t ksim_orch_aux_quiet(const ksim_orch *o)
{
    uint64_t q = UINT64_MAX;
    for (unsigned i = 0; i < o->n_aux && q; i++) {
        const ktsim_aux_client *c = &o->aux[i];
        const aux_quiet_hooks *h = &o->aux_quiet[i];
        uint64_t k = !c->tick ? UINT64_MAX : h->quiet ? h->quiet(c->ctx) : 0;
        q = k < q ? k : q;
    }
    return q;
}

void ksim_orch_aux_skip(ksim_orch *o, uint64_t cycles)
{
    for (unsigned i = 0; i < o->n_aux; i++)
        if (o->aux[i].tick && o->aux_quiet[i].skip)
            o->aux_quiet[i].skip(o->aux[i].ctx, cycles);
}

bool ksim_orch_set_aux_quiet(ksim_orch *o, const char *name, uint64_t (*quiet)(void *ctx),
                             void (*skip)(void *ctx, uint64_t cycles))
{
    for (unsigned i = 0; i < o->n_aux; i++)
        if (o->aux[i].name && !strcmp(o->aux[i].name, name)) {
            o->aux_quiet[i] = (aux_quiet_hooks){quiet, skip};
            return true;
        }
    return false;
}

bool ksim_orch_has_aux_ticks(const ksim_orch *o)
{
    for (unsigned i = 0; i < o->n_aux; i++)
        if (o->aux[i].tick)
            return true;
    return false;
}

void ksim_orch_set_traffic(ksim_orch *o, uint16_t reads, uint16_t writes)
{
    o->traffic_rd = reads;
    o->traffic_wr = writes;
}

void ksim_orch_poke_node_status(ksim_orch *o, uint8_t index, uint64_t value)
{
    o->node_status[index] = value;
}
uint64_t ksim_orch_node_status(const ksim_orch *o, uint8_t index) { return o->node_status[index]; }

bool ksim_orch_idle(const ksim_orch *o)
{
    /* A request a beat registered for the next cycle is work too: skipping that cycle would leave
     * a CRED load, a SIG_DONE clear or an RX pop waiting for unrelated traffic. */
    return !o->run && !o->push_pending && ksim_fifo_empty(&o->tx) && !o->out_valid &&
           !o->kick_req && !o->tx_push_req && !o->cred_req && !o->done_clr_req && !o->rx_pop_req;
}

void ksim_orch_prog(const ksim_orch *o, bool *run, unsigned *left, unsigned *credit)
{
    *run = o->run;
    *left = o->left;
    *credit = o->credit;
}
