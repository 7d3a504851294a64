/* SPDX-License-Identifier: MIT */
/* The orchestrator's dispatcher and counters cycle by cycle (spec §2.3-§2.5, facts §2.1.4): one
 * flit per FLIT_WORDS cycles from staging, PROG_DST read live at every push, a kick while running
 * ignored, TX_KICK ignored while a program runs, the credit rules when a push and a completion
 * (or a host load) meet in one cycle, 16-bit wraps of credit and SIG_DONE, SIG_DONE's clear
 * winning over a same-cycle signal, which codes refill credit, and NODE_STATUS slots for every
 * coordinate including the edge ring. */
#include "check.h"
#include "ktsim/orch.h"
#include "npukit/kt_regs.h"

static uint64_t cyc;

static ksim_orch *make(void)
{
    ksim_orch_params p = {288, 4, 1, 2, 5, 128, 16, 16, {0, 1}, KTSIM_GEN_CURRENT, 0, 0};
    return ksim_orch_create(&p, NULL, NULL);
}

static void tick(ksim_orch *o)
{
    ksim_orch_tick_begin(o, ++cyc);
    ksim_orch_tick_end(o);
}

static void w(ksim_orch *o, uint32_t off, uint64_t v)
{
    ksim_orch_write_beat(o, off, v, 0xFF);
    tick(o);
}

static void stage(ksim_orch *o, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        kt_flit f = {{0x100 + i, 0, 0, 0, 0}};
        kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, 1, i + 1 == n, 0};
        kt_header_put(&f, &h);
        for (int k = 0; k < 5; k++)
            ksim_orch_write_beat(o, kt_stage_slot_offset(i, 5) + 8 * k, f.w[k], 0xFF);
    }
}

static int refused;
static void signal_now(ksim_orch *o, kt_coord from, uint8_t code)
{
    kt_flit f;
    kt_flit_signal(&f, (kt_coord){0, 1}, from, 0, code, 0);
    refused += !ksim_orch_accept(o, &f); /* a CU_SIGNAL is never refused */
}

/* Kick a program of n flits at slot 0 to (1,1) with `credit`; returns the kick cycle. */
static uint64_t kick(ksim_orch *o, unsigned n, uint16_t credit)
{
    w(o, KT_PROG_BASE, 0);
    w(o, KT_PROG_LEN, n);
    w(o, KT_PROG_DST, 0x11);
    w(o, KT_PROG_CRED, credit);
    ksim_orch_write_beat(o, KT_PROG_KICK, 1, 0xFF);
    return cyc;
}

/* The cycle (tick number) at which each flit becomes visible in the output register. */
static void test_rate_and_live_dst(void)
{
    ksim_orch *o = make();
    stage(o, 4);
    kick(o, 4, 8);
    uint64_t seen[4];
    kt_coord dst[4];
    int n = 0;
    for (int c = 0; c < 60 && n < 4; c++) {
        tick(o);
        const kt_flit *f = ksim_orch_out_peek(o);
        if (f) {
            seen[n] = cyc;
            dst[n++] = kt_header_get(f).dst;
            ksim_orch_out_pop(o);
            if (n == 2) {
                ksim_orch_write_beat(o, KT_PROG_DST, 0x12, 0xFF); /* read live at every push */
                ksim_orch_write_beat(o, KT_PROG_KICK, 1, 0xFF);   /* ignored while running */
            }
        }
    }
    CHECK_EQ(n, 4);
    for (int i = 1; i < n; i++)
        CHECK_EQ(seen[i] - seen[i - 1], 5); /* one flit per FLIT_WORDS = 5 cycles */
    CHECK(kt_coord_eq(dst[1], ((kt_coord){1, 1})));
    CHECK(kt_coord_eq(dst[3], ((kt_coord){2, 1})));
    kt_prog_stat ps = kt_prog_stat_decode(ksim_orch_read(o, KT_PROG_STAT));
    CHECK(!ps.run);
    CHECK_EQ(ps.credit, 8 - 4);
    tick(o);
    CHECK(ksim_orch_out_peek(o) == NULL); /* the second kick launched nothing */
    ksim_orch_destroy(o);
}

/* Mailbox and dispatcher share one FIFO: TX_KICK is ignored while prog_run is set. STATUS.busy
 * is !tx_empty | prog_run. */
static void test_tx_kick_while_running(void)
{
    ksim_orch *o = make();
    stage(o, 2);
    kick(o, 2, 0); /* zero credit: runs, starved, nothing moves */
    tick(o);
    tick(o);
    kt_prog_stat ps = kt_prog_stat_decode(ksim_orch_read(o, KT_PROG_STAT));
    CHECK(ps.run);
    CHECK_EQ(ps.flits_left, 2);
    CHECK_EQ(ps.credit, 0);
    CHECK_EQ(ksim_orch_read(o, KT_STATUS), 0x5); /* busy from prog_run alone */
    w(o, KT_TX_KICK, 1);
    for (int i = 0; i < 5; i++)
        tick(o);
    CHECK(ksim_orch_out_peek(o) == NULL);
    w(o, KT_PROG_CRED, 2); /* release it */
    for (int i = 0; i < 30; i++) {
        tick(o);
        if (ksim_orch_out_peek(o))
            ksim_orch_out_pop(o);
    }
    CHECK_EQ(ksim_orch_read(o, KT_STATUS), 0x4);
    w(o, KT_TX_KICK, 1); /* now it pushes: busy until the flit leaves the FIFO */
    CHECK_EQ(ksim_orch_read(o, KT_STATUS) & 1, 1);
    ksim_orch_destroy(o);
}

/* Find the cycle in which the first flit is pushed: it reaches the output register one cycle
 * later. The model is deterministic, so a second run can meet that cycle exactly. */
static uint64_t first_push_offset(void)
{
    ksim_orch *o = make();
    stage(o, 2);
    uint64_t k = kick(o, 2, 4);
    uint64_t at = 0;
    for (int c = 0; c < 40 && !at; c++) {
        tick(o);
        if (ksim_orch_out_peek(o))
            at = cyc - 1;
    }
    ksim_orch_destroy(o);
    return at - k;
}

static void test_credit_same_cycle(void)
{
    uint64_t off = first_push_offset();
    CHECK(off > 1);
    for (int variant = 0; variant < 3; variant++) {
        ksim_orch *o = make();
        stage(o, 2);
        uint64_t k = kick(o, 2, 4);
        while (cyc < k + off - 1)
            tick(o);
        if (variant == 2)
            ksim_orch_write_beat(o, KT_PROG_CRED, 9, 0xFF); /* its load lands in the push cycle */
        ksim_orch_tick_begin(o, ++cyc);                     /* the push cycle */
        if (variant >= 1)
            signal_now(o, (kt_coord){1, 1}, KT_SIG_INST_COMPLETE);
        ksim_orch_tick_end(o);
        CHECK(ksim_orch_read(o, KT_PROG_STAT) >> 17 != 0);
        /* 0: the push decrements; 1: push and completion cancel; 2: the host load wins. */
        const uint16_t want[3] = {3, 4, 9};
        CHECK_EQ(ksim_orch_read(o, KT_PROG_CRED), want[variant]);
        ksim_orch_destroy(o);
    }
}

static void test_counts_and_wraps(void)
{
    ksim_orch *o = make();
    /* Only INST_COMPLETE refills credit; every code counts in SIG_DONE and NODE_STATUS. */
    w(o, KT_PROG_CRED, 0xFFFF);
    const uint8_t codes[] = {KT_SIG_BATCH_COMPLETE, 0x03, KT_SIG_FAULT, 0x40, KT_SIG_INST_COMPLETE};
    for (size_t i = 0; i < sizeof codes; i++) {
        ksim_orch_tick_begin(o, ++cyc);
        signal_now(o, (kt_coord){3, 2}, codes[i]); /* an east-edge endpoint */
        ksim_orch_tick_end(o);
    }
    CHECK_EQ(ksim_orch_read(o, KT_PROG_CRED), 0); /* 0xFFFF + 1 wraps, no saturation */
    CHECK_EQ(ksim_orch_read(o, KT_SIG_DONE), 5);
    kt_node_status ns = kt_node_status_decode(ksim_orch_read(o, KT_NODE_STATUS + 0x23 * 8));
    CHECK(ns.valid);
    CHECK_EQ(ns.count, 5);
    CHECK_EQ(ns.code, KT_SIG_INST_COMPLETE);
    CHECK_EQ(ksim_orch_read(o, KT_NODE_STATUS + 0x32 * 8), 0); /* (2,3) is a different slot */
    /* A SIG_DONE clear wins over a signal in the same cycle: that signal is lost from the total,
     * while the node's own count keeps it. */
    ksim_orch_write_beat(o, KT_SIG_DONE, 0, 0xFF);
    ksim_orch_tick_begin(o, ++cyc);
    signal_now(o, (kt_coord){2, 3}, KT_SIG_INST_COMPLETE); /* a south-edge endpoint */
    ksim_orch_tick_end(o);
    CHECK_EQ(ksim_orch_read(o, KT_SIG_DONE), 0);
    CHECK_EQ(kt_node_status_decode(ksim_orch_read(o, KT_NODE_STATUS + 0x32 * 8)).count, 1);
    /* SIG_DONE is 16 bits: 65537 signals read 1. */
    for (unsigned i = 0; i < 65537; i++) {
        ksim_orch_tick_begin(o, ++cyc);
        signal_now(o, (kt_coord){1, 1}, KT_SIG_BATCH_COMPLETE);
        ksim_orch_tick_end(o);
    }
    CHECK_EQ(ksim_orch_read(o, KT_SIG_DONE), 1);
    CHECK_EQ(kt_node_status_decode(ksim_orch_read(o, KT_NODE_STATUS + 0x11 * 8)).count, 1);
    ksim_orch_destroy(o);
}

int main(void)
{
    test_rate_and_live_dst();
    test_tx_kick_while_running();
    test_credit_same_cycle();
    test_counts_and_wraps();
    CHECK_EQ(refused, 0);
    return check_done();
}
