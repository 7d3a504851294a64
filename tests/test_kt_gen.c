/* SPDX-License-Identifier: MIT */
/* The two bitstream generations behind the same registers, and the credit deadlock: naive
 * sequences fail on the pre-strobe bitstream exactly as spec §2.7 says (and work on the current
 * one), the driver's sequence works on both, and over-seeding credit wedges the mesh while the
 * driver's seeding does not. */
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_saxpy.h"
#include "npukit/kt_test_unit.h"

static ktsim *sim_for(ktsim_gen gen) { return kt_test_sim("default", (int)gen, NULL); }

static void retire_flit(kt_flit *f, uint32_t result, uint8_t txn, bool last)
{
    CHECK_EQ(kt_test_inst(f, KT_TU_RETIRE, 0, result, txn, last), NPK_OK);
}

static uint16_t count_at(kt_dev *d, kt_coord at)
{
    uint64_t v = 0;
    kt_reg_read(d, kt_node_status_offset(at), &v);
    return kt_node_status_decode(v).count;
}

static const kt_coord TU = {1, 2};
static const kt_coord SX = {1, 1};

/* The identical registers: nothing tells the generations apart before anything is written. */
static void test_no_leak(void)
{
    ktsim *a = sim_for(KTSIM_GEN_CURRENT), *b = sim_for(KTSIM_GEN_PRESTROBE);
    for (uint32_t off = 0; off < 0x3800; off += 8) {
        uint64_t va, vb;
        kt_read64(ktsim_transport(a), 0x10000000 + off, &va);
        kt_read64(ktsim_transport(b), 0x10000000 + off, &vb);
        if (va != vb) {
            CHECK_EQ(off, ~0u);
            break;
        }
    }
    CHECK_EQ(kt_read64(ktsim_transport(a), 0x10000000 + KT_CAPS, &(uint64_t){0}), NPK_OK);
    ktsim_destroy(a);
    ktsim_destroy(b);
}

/* Word-by-word staging keeps one word in four on pre-strobe. */
static void test_word_staging(ktsim_gen gen)
{
    ktsim *s = sim_for(gen);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    kt_flit f;
    retire_flit(&f, 0x1234, 3, false);
    for (int w = 0; w < 5; w++) /* the naive way: one write64 per word */
        kt_reg_write(&d, KT_STAGE + 8 * w, f.w[w]);
    kt_unit u = {TU, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &u, 0, 1, 0, &tk), NPK_OK);
    kt_wait_result r;
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
    /* Word 3 (opcode) and word 4 (header) survive either way; words 0-2 (the result) only when
     * strobes are honoured. */
    CHECK_EQ(r.last.arg, gen == KTSIM_GEN_CURRENT ? 0x1234u : 0u);
    ktsim_destroy(s);
}

static void raw(kt_dev *d, const uint32_t *regs, const uint64_t *vals, int n)
{
    for (int i = 0; i < n; i++)
        kt_reg_write(d, regs[i], vals[i]);
}

/* Wrong order, elided LEN, SIG_DONE across kicks. */
static void test_naive_sequences(ktsim_gen gen)
{
    ktsim *s = sim_for(gen);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    kt_flit prog[4];
    for (int i = 0; i < 4; i++)
        retire_flit(&prog[i], 0x10 + i, 5, i == 1 || i == 3); /* two programs of two */
    CHECK_EQ(kt_stage(&d, 0, prog, 4), NPK_OK);
    bool pre = gen == KTSIM_GEN_PRESTROBE;

    /* 1. DST, LEN, BASE, CRED, KICK: the dispatch leaves with PROG_DST = 0. */
    uint16_t before = count_at(&d, TU);
    uint32_t wrong[] = {KT_PROG_DST, KT_PROG_LEN, KT_PROG_BASE, KT_PROG_CRED, KT_PROG_KICK};
    uint64_t wv[] = {kt_coord_pack(TU), 2, 0, 4, 1};
    raw(&d, wrong, wv, 5);
    ktsim_step(s, 5000);
    CHECK_EQ(count_at(&d, TU), pre ? before : before + 2);
    if (pre) {
        /* "Launches nothing, silently": no error, mesh_ready, and the flits went to {0,0} —
         * which here routes west of router (1,1) into the memory agent's own mailbox. */
        uint64_t st;
        kt_reg_read(&d, KT_STATUS, &st);
        CHECK_EQ(st, 0x4);
        kt_flit f;
        bool got;
        CHECK_EQ(kt_mailbox_recv(&d, &f, &got), NPK_OK);
        CHECK(got);
        CHECK_EQ(kt_header_get(&f).type, KT_T_CU_INST);
        CHECK_EQ(kt_header_get(&f).dst.x, 0);
        kt_mailbox_drain(&d, 16, NULL);
    }

    /* 2. Round of two kicks with a write shadow: kick 2 carries a new BASE and the same LEN,
     * so LEN is elided — on pre-strobe the kick launches zero flits. */
    uint16_t sx_before = count_at(&d, SX), tu_before = count_at(&d, TU);
    uint32_t k1[] = {KT_PROG_BASE, KT_PROG_LEN, KT_PROG_DST, KT_PROG_CRED, KT_PROG_KICK};
    uint64_t v1[] = {0, 2, kt_coord_pack(TU), 4, 1};
    raw(&d, k1, v1, 5);
    ktsim_step(s, 3000);
    uint32_t k2[] = {KT_PROG_BASE, KT_PROG_DST, KT_PROG_CRED, KT_PROG_KICK}; /* LEN elided */
    uint64_t v2[] = {2, kt_coord_pack(SX), 4, 1};
    raw(&d, k2, v2, 4);
    ktsim_step(s, 3000);
    CHECK_EQ(count_at(&d, TU), tu_before + 2);              /* one node takes every completion */
    CHECK_EQ(count_at(&d, SX), pre ? sx_before : sx_before + 2); /* the other signals nothing */
    /* (the SX unit faults on this test opcode, which still counts: a signal is a signal) */

    /* 3. SIG_DONE: each pre-strobe kick clears the completions the previous ones counted. */
    kt_reg_write(&d, KT_SIG_DONE, 0);
    kt_unit tu = {TU, {0x5455, 4, 1, 4}, "TU"}, tu2 = tu;
    kt_ticket a, b;
    CHECK_EQ(kt_dispatch(&d, &tu, 0, 2, 0, &a), NPK_OK);
    CHECK_EQ(kt_wait(&d, &a, NULL), NPK_OK);
    CHECK_EQ(kt_dispatch(&d, &tu2, 2, 2, 0, &b), NPK_OK);
    CHECK_EQ(kt_wait(&d, &b, NULL), NPK_OK); /* NODE_STATUS waits work on both */
    uint64_t done;
    kt_reg_read(&d, KT_SIG_DONE, &done);
    CHECK_EQ(done, pre ? 2u : 4u);
    /* The driver refuses the SIG_DONE wait unless told the bitstream is current. */
    CHECK_EQ(kt_wait_sig_done(&d, 4), NPK_EUNSUPPORTED);
    d.opt.bitstream_current = true;
    if (!pre)
        CHECK_EQ(kt_wait_sig_done(&d, 4), NPK_OK);
    ktsim_destroy(s);
}

static void saxpy_program(kt_flit *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        kt_saxpy_inst(&p[i], 64, 2.0f, 0x10000 + i * 256, 0x40000 + i * 256, 7, i + 1 == n);
}

/* Over-seeding credit deadlocks the mesh; seeding from CU_CAPS does not. N is more flits than
 * the path from the TX FIFO to the unit holds (every sync FIFO keeps DEPTH + 2), so the stream is
 * still running when the link stalls. */
static void test_credit_deadlock(void)
{
    enum { N = 64 };
    for (int seeded_by_driver = 0; seeded_by_driver < 2; seeded_by_driver++) {
        ktsim *s = sim_for(KTSIM_GEN_CURRENT);
        kt_dev d;
        kt_options o = {0};
        o.poll_budget = 3000;
        CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, &o), NPK_OK);
        static uint8_t zeros[N * 256];
        kt_write_block(d.t, ktsim_get_config(s)->mem_base + 0x10000, zeros, sizeof zeros);
        kt_write_block(d.t, ktsim_get_config(s)->mem_base + 0x40000, zeros, sizeof zeros);
        kt_flit prog[N];
        saxpy_program(prog, N);
        CHECK_EQ(kt_stage(&d, 0, prog, N), NPK_OK);
        kt_unit u[8];
        size_t n;
        CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_OK);
        const kt_unit *sx = kt_find_unit(u, n, 0x5358);
        kt_ticket tk;
        if (seeded_by_driver) {
            CHECK_EQ(kt_dispatch(&d, sx, 0, N, 0, &tk), NPK_OK);
            CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
            CHECK(ktsim_stalled_cycles(s) < 100);
        } else {
            /* A constant credit (the old driver's 512), far beyond the unit's inst_depth 8. */
            tk.dst = sx->at;
            tk.baseline = count_at(&d, sx->at);
            tk.n = N;
            uint32_t seq[] = {KT_PROG_BASE, KT_PROG_LEN, KT_PROG_DST, KT_PROG_CRED, KT_PROG_KICK};
            uint64_t val[] = {0, N, kt_coord_pack(sx->at), 512, 1};
            raw(&d, seq, val, 5);
            CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_ETIMEDOUT);
            CHECK_STR_HAS(npk_last_error(), "PROG_STAT run=1");
            /* The node's FIFO is full, the link is stalled, completions have stopped. */
            CHECK(count_at(&d, sx->at) - tk.baseline < N);
            CHECK(ktsim_stalled_cycles(s) > 10000);
            uint64_t ps;
            kt_reg_read(&d, KT_PROG_STAT, &ps);
            CHECK(kt_prog_stat_decode(ps).credit > 0); /* not starved: stalled on the network */
        }
        ktsim_destroy(s);
    }
}

int main(void)
{
    test_no_leak();
    test_word_staging(KTSIM_GEN_CURRENT);
    test_word_staging(KTSIM_GEN_PRESTROBE);
    test_naive_sequences(KTSIM_GEN_CURRENT);
    test_naive_sequences(KTSIM_GEN_PRESTROBE);
    test_credit_deadlock();
    return check_done();
}
