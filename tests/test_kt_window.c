/* SPDX-License-Identifier: MIT */
/* The orchestrator window through the simulator's station bus (spec §2.2, §2.7): what each write
 * of the dispatch sequence also does on a pre-strobe bitstream (and does not do on a current
 * one), IRQ_STAT zeroing CTRL, the four AUX_CFG pulses of one pre-strobe 64-bit write against the
 * one merged pulse of a current bitstream, the "stale bytes" variant of unstrobed beats, and
 * unlisted offsets reading zero and ignoring writes. */
#include <string.h>

#include "check.h"
#include "ktsim/orch.h"
#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_test_unit.h"

static const kt_coord TU = {1, 2};

static ktsim *sim(ktsim_gen gen, bool stale)
{
    ktsim_config c;
    ktsim_preset_load("default", &c);
    c.gen = gen;
    c.stale_lanes = stale;
    c.mover = false; /* these tests plug their own AUX_CFG clients where the agent's mover sits */
    ktsim *s = NULL;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    return s;
}

static uint64_t rd(ktsim *s, uint32_t off)
{
    uint64_t v = ~0ull;
    CHECK_EQ(kt_read64(ktsim_transport(s), 0x10000000 + off, &v), NPK_OK);
    return v;
}

static void wr(ktsim *s, uint32_t off, uint64_t v)
{
    CHECK_EQ(kt_write64(ktsim_transport(s), 0x10000000 + off, v), NPK_OK);
}

static void retire_flit(kt_flit *f, uint32_t result, uint8_t txn, bool last)
{
    CHECK_EQ(kt_test_inst(f, KT_TU_RETIRE, 0, result, txn, last), NPK_OK);
}

static uint16_t count(ktsim *s, kt_coord at)
{
    return kt_node_status_decode(rd(s, kt_node_status_offset(at))).count;
}

/* Spec §2.7.1, row by row: BASE zeroes CRED and clears SIG_DONE; LEN zeroes DST and fires the
 * dispatch; DST zeroes LEN; CRED zeroes BASE and releases the held dispatcher; KICK zeroes DST
 * and launches nothing. On a current bitstream none of that happens and KICK kicks. */
static void test_dispatch_rows(ktsim_gen gen)
{
    bool pre = gen == KTSIM_GEN_PRESTROBE;
    ktsim *s = sim(gen, false);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    kt_flit prog[4];
    for (int i = 0; i < 4; i++)
        retire_flit(&prog[i], 0x20 + i, 6, i == 0 || i == 3);
    CHECK_EQ(kt_stage(&d, 0, prog, 4), NPK_OK);
    /* Warm up: one program of one, so SIG_DONE = 1, credit = 4 - 1, LEN = 1. */
    kt_unit tu = {TU, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &tu, 0, 1, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
    CHECK_EQ(rd(s, KT_SIG_DONE), 1);
    CHECK_EQ(rd(s, KT_PROG_CRED), 3);
    uint16_t before = count(s, TU);
    uint8_t dst = kt_coord_pack(TU);

    wr(s, KT_PROG_BASE, 1);
    CHECK_EQ(rd(s, KT_PROG_BASE), 1);
    CHECK_EQ(rd(s, KT_PROG_CRED), pre ? 0 : 3);
    CHECK_EQ(rd(s, KT_SIG_DONE), pre ? 0 : 1);

    wr(s, KT_PROG_DST, dst);
    CHECK_EQ(rd(s, KT_PROG_LEN), pre ? 0 : 1);
    CHECK_EQ(rd(s, KT_PROG_STAT) & 1, 0); /* its kick beat found LEN 0 */

    wr(s, KT_PROG_LEN, 3);
    CHECK_EQ(rd(s, KT_PROG_DST), pre ? 0 : dst);
    kt_prog_stat ps = kt_prog_stat_decode(rd(s, KT_PROG_STAT));
    CHECK_EQ(ps.run, pre); /* PROG_LEN launches the dispatch... */
    CHECK_EQ(ps.flits_left, pre ? 3 : 1);
    CHECK_EQ(ps.credit, pre ? 0 : 3); /* ...held by the credit BASE zeroed */

    wr(s, KT_PROG_DST, dst);
    CHECK_EQ(rd(s, KT_PROG_LEN), pre ? 0 : 3);
    CHECK_EQ(rd(s, KT_PROG_DST), dst);

    wr(s, KT_PROG_CRED, 4);
    CHECK_EQ(rd(s, KT_PROG_BASE), pre ? 0 : 1);
    ktsim_step(s, 3000);
    CHECK_EQ(count(s, TU), pre ? before + 3 : before); /* released: all three to (1,2) */

    wr(s, KT_PROG_KICK, 1);
    CHECK_EQ(rd(s, KT_PROG_DST), pre ? 0 : dst);
    CHECK_EQ(rd(s, KT_PROG_LEN), pre ? 0 : 3);
    ktsim_step(s, 3000);
    CHECK_EQ(count(s, TU), before + 3); /* the same three, launched once, either way */
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* Flit 0x000: writing IRQ_STAT zeroes CTRL — or, with stale lanes, hands it the lane's last word.
 */
static void test_irq_stat_flit(void)
{
    const struct {
        ktsim_gen gen;
        bool stale;
        uint64_t ctrl;
    } rows[] = {
        {KTSIM_GEN_CURRENT, false, 0x1111},
        {KTSIM_GEN_PRESTROBE, false, 0},
        {KTSIM_GEN_PRESTROBE, true, 0x2222}, /* lane 0 last carried IRQ_EN's word */
        {KTSIM_GEN_CURRENT, true, 0x1111},   /* unstrobed beats do nothing, stale or not */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ktsim *s = sim(rows[i].gen, rows[i].stale);
        wr(s, KT_CTRL, 0x1111);
        wr(s, KT_IRQ_EN, 0x2222);
        wr(s, KT_IRQ_STAT, 0);
        CHECK_EQ(rd(s, KT_CTRL), rows[i].ctrl);
        CHECK_EQ(rd(s, KT_IRQ_EN), 0x2222); /* flit 0x020 holds nothing else: safe */
        CHECK_EQ(rd(s, KT_IRQ_STAT), 0);
        ktsim_destroy(s);
    }
}

typedef struct pulses {
    int n;
    uint8_t off[16];
    uint64_t val[16];
} pulses;

static void on_cfg(void *ctx, uint8_t off, uint64_t value)
{
    pulses *p = ctx;
    if (p->n < 16) {
        p->off[p->n] = off;
        p->val[p->n++] = value;
    }
}

/* AUX_CFG (spec §2.7): a current bitstream pulses the merged word once at its offset; a
 * pre-strobe one pulses all four offsets of the 32-byte flit, three of them with zero (or stale)
 * data — the mover sees CTRL, HDR and DIM written where the host wrote only HDR. */
static void test_aux_cfg_pulses(void)
{
    for (int row = 0; row < 3; row++) {
        ktsim_gen gen = row ? KTSIM_GEN_PRESTROBE : KTSIM_GEN_CURRENT;
        bool stale = row == 2;
        ktsim *s = sim(gen, stale);
        pulses mover = {0}, ilink = {0};
        ktsim_aux_client m = {"mover", 0x00, 0x7F, on_cfg, NULL, NULL, NULL, &mover};
        ktsim_aux_client l = {"interlink", 0x80, 0xFF, on_cfg, NULL, NULL, NULL, &ilink};
        CHECK_EQ(ktsim_add_aux_client(s, &m), NPK_OK);
        CHECK_EQ(ktsim_add_aux_client(s, &l), NPK_OK);
        wr(s, KT_AUX_CFG + 0x08, 0xAAAA); /* lane 1 now holds 0xAAAA */
        mover.n = 0;
        wr(s, KT_AUX_CFG + 0x10, 0x123456789ull);
        if (gen == KTSIM_GEN_CURRENT) {
            CHECK_EQ(mover.n, 1);
            CHECK_EQ(mover.off[0], 0x10);
            CHECK_EQ(mover.val[0], 0x123456789ull);
        } else {
            CHECK_EQ(mover.n, 4);
            const uint64_t want[4] = {0, stale ? 0xAAAA : 0, 0x123456789ull, 0};
            for (int i = 0; i < 4 && i < mover.n; i++) {
                CHECK_EQ(mover.off[i], 8 * i); /* in address order, one pulse per beat */
                CHECK_EQ(mover.val[i], want[i]);
            }
        }
        /* The split at 0x80: a write in the interlink's half never reaches the mover. */
        mover.n = 0;
        wr(s, KT_AUX_CFG + 0x90, 0x0102);
        CHECK_EQ(mover.n, 0);
        CHECK_EQ(ilink.n, gen == KTSIM_GEN_CURRENT ? 1 : 4);
        if (gen == KTSIM_GEN_PRESTROBE && ilink.n == 4) {
            CHECK_EQ(ilink.off[0], 0x80);
            CHECK_EQ(ilink.off[2], 0x90);
            CHECK_EQ(ilink.val[2], 0x0102);
            CHECK_EQ(ilink.off[3], 0x98);
        }
        CHECK_EQ(rd(s, KT_AUX_CFG + 0x10), 0); /* write-only */
        ktsim_destroy(s);
    }
}

/* Word-by-word staging: zero lanes keep one word in four; stale lanes happen to carry the
 * earlier words of the same 32-byte flit along, so a lone slot arrives whole. */
static void test_stale_staging(void)
{
    for (int stale = 0; stale < 2; stale++) {
        ktsim *s = sim(KTSIM_GEN_PRESTROBE, stale);
        kt_dev d;
        CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
        kt_flit f;
        retire_flit(&f, 0x1234, 3, false);
        for (int w = 0; w < 5; w++)
            wr(s, KT_STAGE + 8 * w, f.w[w]);
        kt_unit tu = {TU, {0x5455, 4, 1, 4}, "TU"};
        kt_ticket tk;
        CHECK_EQ(kt_dispatch(&d, &tu, 0, 1, 0, &tk), NPK_OK);
        kt_wait_result r;
        CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
        /* Words 3 (opcode) and 4 (header) survive either way; the result in word 0 only when
         * the unstrobed beats carry the lane's last word rather than zero. */
        CHECK_EQ(r.last.code, KT_SIG_INST_COMPLETE);
        CHECK_EQ(r.last.arg, stale ? 0x1234u : 0u);
        ktsim_destroy(s);
    }
}

/* Is `off` in the spec §2.2 map (at the reference build: FLIT_WORDS 5, STAGE_FLITS 128)? */
static bool listed(uint32_t off)
{
    return off <= 0x20 || (off >= 0x40 && off < 0x128) || off == 0x140 || off == 0x148 ||
           (off >= 0x180 && off < 0x1A8) || off == 0x1C0 || off == 0x1C8 ||
           (off >= 0x800 && off < 0x900) || (off >= 0x1000 && off < 0x3400);
}

/* "Unlisted offsets read zero and ignore writes": every unlisted word of the 64 KB window, written
 * with all ones on a current bitstream, changes nothing and reads zero. Host writes to
 * NODE_STATUS are ignored too (only arriving CU_SIGNALs write it). */
static void test_unlisted(void)
{
    ksim_orch_params p = {288, 4, 1, 2, 5, 128, 16, 16, {0, 1}, KTSIM_GEN_CURRENT, 0, 0};
    ksim_orch *o = ksim_orch_create(&p, NULL, NULL);
    uint64_t cyc = 0;
    const struct {
        uint32_t off;
        uint64_t v;
    } set[] = {{KT_CTRL, 0xC0C0}, {KT_IRQ_EN, 0x1E}, {KT_PROG_DST, 0x21},
               {KT_PROG_LEN, 7},  {KT_PROG_BASE, 9}, {KT_PROG_CRED, 5}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        ksim_orch_write_beat(o, set[i].off, set[i].v, 0xFF);
        ksim_orch_tick_begin(o, ++cyc);
        ksim_orch_tick_end(o);
    }
    ksim_orch_poke_node_status(o, 0x21, 0xAB00000000000301ull);
    unsigned unlisted = 0, nonzero = 0;
    for (uint32_t off = 0; off < 0x10000; off += 8) {
        bool node = off >= 0x1000 && off < 0x2000;
        if (listed(off) && !node)
            continue;
        ksim_orch_write_beat(o, off, ~0ull, 0xFF);
        ksim_orch_tick_begin(o, ++cyc);
        ksim_orch_tick_end(o);
        if (!listed(off)) {
            unlisted++;
            nonzero += ksim_orch_read(o, off) != 0;
        }
    }
    /* 0x28-0x3F, 0x128-0x13F, 0x150-0x17F, 0x1A8-0x1BF, 0x1D0-0x7FF, 0x900-0xFFF, 0x3400-0xFFFF */
    CHECK_EQ(unlisted, 3 + 3 + 6 + 3 + 198 + 224 + 6528);
    CHECK_EQ(nonzero, 0);
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        CHECK_EQ(ksim_orch_read(o, set[i].off), set[i].v);
    CHECK_EQ(ksim_orch_read(o, KT_NODE_STATUS + 0x21 * 8), 0xAB00000000000301ull);
    CHECK_EQ(ksim_orch_read(o, KT_NODE_STATUS + 0x22 * 8), 0); /* never signalled: valid 0 */
    CHECK_EQ(ksim_orch_read(o, KT_PROG_STAT) & 1, 0);          /* nothing kicked */
    CHECK_EQ(ksim_orch_read(o, KT_SIG_DONE), 0);
    CHECK_EQ(ksim_orch_read(o, KT_STATUS), 0x4); /* nothing queued for TX */
    CHECK_EQ(ksim_orch_read(o, KT_RX_STATUS), 1u << 16);
    ksim_orch_destroy(o);
}

/* A write that registers a request for the next cycle (PROG_CRED's load, SIG_DONE's clear,
 * RX_POP) takes effect on an idle machine too: the next read sees it. */
static void test_idle_requests(ktsim_gen gen)
{
    ktsim *s = sim(gen, false);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    kt_flit f;
    retire_flit(&f, 1, 1, true);
    CHECK_EQ(kt_stage(&d, 0, &f, 1), NPK_OK);
    kt_unit tu = {TU, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &tu, 0, 1, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
    kt_flit req;
    kt_flit_ctrl_request(&req, TU, (kt_coord){0, 0}, KT_CU_CAPS, 0x31);
    CHECK_EQ(kt_mailbox_send(&d, &req), NPK_OK);
    ktsim_step(s, 2000); /* the reply is in, and nothing moves any more */
    CHECK_EQ(rd(s, KT_SIG_DONE), 1);
    CHECK_EQ(rd(s, KT_RX_STATUS), 0);
    wr(s, KT_PROG_CRED, 2);
    CHECK_EQ(rd(s, KT_PROG_CRED), 2);
    wr(s, KT_SIG_DONE, 0);
    CHECK_EQ(rd(s, KT_SIG_DONE), 0);
    wr(s, KT_RX_POP, 1);
    CHECK_EQ(rd(s, KT_RX_STATUS), 1u << 16);
    ktsim_destroy(s);
}

/* Nothing in the registers tells the generations apart — nor the stale-lane variant — after
 * the same driver session of open and enumeration (mailbox traffic only, safe on every
 * bitstream): every word of the window reads the same. */
static void test_no_leak_after_enumeration(void)
{
    ktsim *a = sim(KTSIM_GEN_CURRENT, false), *b = sim(KTSIM_GEN_PRESTROBE, true);
    ktsim *both[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        kt_dev d;
        CHECK_EQ(kt_open(&d, ktsim_transport(both[i]), 0x10000000, NULL), NPK_OK);
        kt_unit u[8];
        size_t n = 0;
        CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_OK);
        CHECK_EQ(n, 3);
    }
    unsigned differ = 0;
    for (uint32_t off = 0; off < 0x3800; off += 8)
        differ += rd(a, off) != rd(b, off);
    CHECK_EQ(differ, 0);
    ktsim_destroy(a);
    ktsim_destroy(b);
}

int main(void)
{
    test_no_leak_after_enumeration();
    test_idle_requests(KTSIM_GEN_CURRENT);
    test_idle_requests(KTSIM_GEN_PRESTROBE);
    test_dispatch_rows(KTSIM_GEN_CURRENT);
    test_dispatch_rows(KTSIM_GEN_PRESTROBE);
    test_irq_stat_flit();
    test_aux_cfg_pulses();
    test_stale_staging();
    test_unlisted();
    return check_done();
}
