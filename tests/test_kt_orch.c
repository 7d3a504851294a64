/* SPDX-License-Identifier: MIT */
/* The orchestrator model on its own, beat by beat and cycle by cycle: reset and read values,
 * W1C, field widths, unlisted offsets, the dispatcher's header rewrite and credit rules, the
 * status mirror, SIG_DONE, and AUX_CFG forwarding — against the spec's own numbers. */
#include "check.h"
#include "ktsim/orch.h"
#include "npukit/kt_regs.h"

static ksim_orch_params params(ktsim_gen gen)
{
    ksim_orch_params p = {288, 4, 1, 2, 5, 128, 16, 16, {0, 1}, gen, 0, 0};
    return p;
}

static uint64_t cyc;
static void tick(ksim_orch *o, int n)
{
    while (n--) {
        ksim_orch_tick_begin(o, ++cyc);
        ksim_orch_tick_end(o);
    }
}

static void w(ksim_orch *o, uint32_t off, uint64_t v)
{
    ksim_orch_write_beat(o, off, v, 0xFF);
    tick(o, 1);
}

static void test_reset_and_read_values(void)
{
    ksim_orch_params p = params(KTSIM_GEN_CURRENT);
    ksim_orch *o = ksim_orch_create(&p, NULL, NULL);
    CHECK(o != NULL);
    CHECK_EQ(ksim_orch_read(o, KT_STATUS), 0x4);                 /* mesh_ready tied 1, idle */
    CHECK_EQ(ksim_orch_read(o, KT_CAPS), 0x0000000201040120ull); /* 288, 4, LO 1, HI 2 */
    CHECK_EQ(ksim_orch_read(o, KT_PROG_STAT), 0);
    CHECK_EQ(ksim_orch_read(o, KT_RX_STATUS), 1u << 16); /* empty, no overflow */
    CHECK_EQ(ksim_orch_read(o, KT_TX_STATUS), 0);
    for (const kt_reg_desc *r = kt_orch_regs; r->name; r++)
        if (r->access == KT_ACC_RW)
            CHECK_EQ(ksim_orch_read(o, r->offset), r->reset);
    /* CTRL and IRQ_EN store 64 bits; IRQ_STAT is W1C and nothing sets it. */
    w(o, KT_CTRL, 0x0123456789ABCDEFull);
    CHECK_EQ(ksim_orch_read(o, KT_CTRL), 0x0123456789ABCDEFull);
    w(o, KT_IRQ_EN, ~0ull);
    CHECK_EQ(ksim_orch_read(o, KT_IRQ_EN), ~0ull);
    w(o, KT_IRQ_STAT, ~0ull);
    CHECK_EQ(ksim_orch_read(o, KT_IRQ_STAT), 0);
    /* The PROG_* registers keep only their widths: DST 8 bits, LEN and BASE 16. */
    w(o, KT_PROG_DST, 0x1234);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_DST), 0x34);
    w(o, KT_PROG_LEN, 0x12345);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_LEN), 0x2345);
    w(o, KT_PROG_BASE, 0xABCDE);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_BASE), 0xBCDE);
    /* A current bitstream needs a strobe in bytes 0-1 for a 16-bit register. */
    ksim_orch_write_beat(o, KT_PROG_LEN, 0x7, 0xFC);
    tick(o, 1);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_LEN), 0x2345);
    /* Write-only and unlisted offsets read zero; writes to them are ignored. */
    w(o, KT_TX_FLIT, 0x55);
    CHECK_EQ(ksim_orch_read(o, KT_TX_FLIT), 0);
    w(o, KT_STAGE, 0x55);
    CHECK_EQ(ksim_orch_read(o, KT_STAGE), 0);
    w(o, 0x0028, 0x99);
    CHECK_EQ(ksim_orch_read(o, 0x0028), 0);
    CHECK_EQ(ksim_orch_read(o, 0x0400), 0);
    CHECK_EQ(ksim_orch_read(o, KT_AUX_CFG), 0);
    /* The window aliases every 64 KB (only addr[15:0] is decoded). */
    CHECK_EQ(ksim_orch_read(o, 0x10000 + KT_CTRL), 0x0123456789ABCDEFull);
    /* A reset clears the registers but not NODE_STATUS. */
    ksim_orch_poke_node_status(o, 0x11, 0x0000000000000301ull);
    ksim_orch_reset(o);
    CHECK_EQ(ksim_orch_read(o, KT_CTRL), 0);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_LEN), 0);
    CHECK_EQ(ksim_orch_read(o, KT_NODE_STATUS + 0x11 * 8), 0x301);
    /* 0x1800-0x1FFF alias 0x1000-0x17FF. */
    CHECK_EQ(ksim_orch_read(o, 0x1800 + 0x11 * 8), 0x301);
    ksim_orch_destroy(o);
}

static void stage_flit(ksim_orch *o, unsigned slot, uint8_t txn, bool last, uint64_t payload0)
{
    kt_flit f = {{payload0, 0, 0, 0, 0}};
    /* Staged dst/src are don't-care: put junk there to see the rewrite. */
    kt_header h = {{7, 7}, {9, 9}, KT_T_CU_INST, txn, last, 0};
    kt_header_put(&f, &h);
    for (int i = 0; i < 5; i++)
        ksim_orch_write_beat(o, kt_stage_slot_offset(slot, 5) + 8 * i, f.w[i], 0xFF);
}

static void signal_in(ksim_orch *o, kt_coord from, uint8_t code, uint32_t arg)
{
    kt_flit f;
    kt_flit_signal(&f, (kt_coord){0, 1}, from, 0, code, arg);
    ksim_orch_tick_begin(o, ++cyc);
    CHECK(ksim_orch_accept(o, &f));
    ksim_orch_tick_end(o);
}

static void test_dispatcher_and_credit(void)
{
    ksim_orch_params p = params(KTSIM_GEN_CURRENT);
    ksim_orch *o = ksim_orch_create(&p, NULL, NULL);
    for (unsigned i = 0; i < 3; i++)
        stage_flit(o, 10 + i, 0x40, i == 2, 0x1000 + i);
    w(o, KT_PROG_BASE, 10);
    w(o, KT_PROG_LEN, 3);
    w(o, KT_PROG_DST, 0x21); /* {y=2, x=1} */
    w(o, KT_PROG_CRED, 2);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_CRED), 2);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_STAT) & 1, 0); /* nothing runs before the kick */
    w(o, KT_PROG_KICK, 1);
    kt_prog_stat ps = kt_prog_stat_decode(ksim_orch_read(o, KT_PROG_STAT));
    CHECK(ps.run);
    CHECK_EQ(ps.flits_left, 3);
    CHECK_EQ(ksim_orch_read(o, KT_STATUS) & 1, 1); /* busy while running */
    /* Collect outbound flits for a while: two leave (credit 2), then the dispatcher stalls. */
    int got = 0;
    kt_flit out[4];
    for (int c = 0; c < 60; c++) {
        tick(o, 1);
        const kt_flit *f = ksim_orch_out_peek(o);
        if (f && got < 4) {
            out[got++] = *f;
            ksim_orch_out_pop(o);
        }
    }
    CHECK_EQ(got, 2);
    ps = kt_prog_stat_decode(ksim_orch_read(o, KT_PROG_STAT));
    CHECK(ps.run);
    CHECK_EQ(ps.credit, 0); /* the starved-stream signature: run, flits left, zero credit */
    CHECK(ps.flits_left > 0);
    kt_header h = kt_header_get(&out[0]);
    CHECK_EQ(h.dst.x, 1);
    CHECK_EQ(h.dst.y, 2);
    CHECK_EQ(h.src.x, 0); /* the orchestrator's own coordinate, memory-agent port 0 */
    CHECK_EQ(h.src.y, 1);
    CHECK_EQ(h.txn, 0x40); /* type, txn, last and payload pass through */
    CHECK_EQ(h.type, KT_T_CU_INST);
    CHECK_EQ(out[0].w[0], 0x1000);
    CHECK_EQ(out[1].w[0], 0x1001);
    /* A BATCH_COMPLETE returns no credit; an INST_COMPLETE returns one. */
    signal_in(o, (kt_coord){1, 2}, KT_SIG_BATCH_COMPLETE, 0x40);
    tick(o, 10);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_CRED), 0);
    signal_in(o, (kt_coord){1, 2}, KT_SIG_INST_COMPLETE, 0x77);
    for (int c = 0; c < 30; c++) {
        tick(o, 1);
        const kt_flit *f = ksim_orch_out_peek(o);
        if (f && got < 4) {
            out[got++] = *f;
            ksim_orch_out_pop(o);
        }
    }
    CHECK_EQ(got, 3);
    CHECK(kt_header_get(&out[2]).last);
    ps = kt_prog_stat_decode(ksim_orch_read(o, KT_PROG_STAT));
    CHECK(!ps.run);
    CHECK_EQ(ps.flits_left, 1); /* after a completed program flits_left reads 1, not 0 */
    CHECK_EQ(ps.credit, 0);
    /* The mirror counts every signal from (1,2) and keeps the last code and arg. */
    kt_node_status ns =
        kt_node_status_decode(ksim_orch_read(o, kt_node_status_offset((kt_coord){1, 2})));
    CHECK(ns.valid);
    CHECK_EQ(ns.count, 2);
    CHECK_EQ(ns.code, KT_SIG_INST_COMPLETE);
    CHECK_EQ(ns.arg, 0x77);
    CHECK_EQ(ksim_orch_read(o, KT_SIG_DONE), 2);
    w(o, KT_SIG_DONE, 0); /* any write clears */
    CHECK_EQ(ksim_orch_read(o, KT_SIG_DONE), 0);
    /* A kick with PROG_LEN 0 is ignored. */
    w(o, KT_PROG_LEN, 0);
    w(o, KT_PROG_KICK, 1);
    CHECK_EQ(ksim_orch_read(o, KT_PROG_STAT) & 1, 0);
    ksim_orch_destroy(o);
}

static void test_mailbox_fifos(void)
{
    ksim_orch_params p = params(KTSIM_GEN_CURRENT);
    ksim_orch *o = ksim_orch_create(&p, NULL, NULL);
    /* TX: the mailbox stamps nothing. Fill the FIFO (16) without draining: tx_full rises. */
    kt_flit f;
    kt_flit_ctrl_request(&f, (kt_coord){3, 3}, (kt_coord){0, 0}, 0, 5);
    for (int i = 0; i < 5; i++)
        w(o, KT_TX_FLIT + 8 * i, f.w[i]);
    for (int i = 0; i < 18; i++)
        w(o, KT_TX_KICK, 1);
    /* one is held in the output register, sixteen in the FIFO, the last kick was ignored */
    CHECK_EQ(ksim_orch_read(o, KT_TX_STATUS), 1u << 16);
    const kt_flit *out = ksim_orch_out_peek(o);
    CHECK(out != NULL);
    CHECK(out && out->w[4] == f.w[4] && out->w[3] == f.w[3]);
    /* RX: sixteen non-signal flits fill it, the seventeenth is refused and overflow sticks. */
    kt_flit r;
    kt_flit_ctrl_reply(&r, (kt_coord){0, 0}, (kt_coord){1, 1}, 0, 5, 0xAB);
    for (int i = 0; i < 16; i++)
        CHECK(ksim_orch_accept(o, &r));
    CHECK(!ksim_orch_accept(o, &r));
    CHECK_EQ(ksim_orch_read(o, KT_RX_STATUS), 1u << 17);
    /* A signal is never refused, even with RX full. */
    kt_flit s;
    kt_flit_signal(&s, (kt_coord){0, 1}, (kt_coord){1, 1}, 0, 0, 0);
    CHECK(ksim_orch_accept(o, &s));
    CHECK_EQ(kt_ctrl_get(&r).value, 0xAB);
    CHECK_EQ(ksim_orch_read(o, KT_RX_FLIT + 8 * 4), r.w[4]);
    for (int i = 0; i < 16; i++)
        w(o, KT_RX_POP, 1);
    CHECK_EQ(ksim_orch_read(o, KT_RX_STATUS), (1u << 16) | (1u << 17)); /* empty, overflow sticky */
    ksim_orch_destroy(o);
}

typedef struct pulses {
    int n;
    uint8_t off[16];
    uint64_t val[16];
} pulses;

static void aux_cfg(void *ctx, uint8_t off, uint64_t value)
{
    pulses *p = ctx;
    if (p->n < 16) {
        p->off[p->n] = off;
        p->val[p->n++] = value;
    }
}

static uint64_t aux_stat(void *ctx)
{
    (void)ctx;
    return 0xABCDEF00000000F1ull | 0x00000012345600ull; /* traffic bits are the agent's */
}

static void test_aux_cfg(void)
{
    ksim_orch_params p = params(KTSIM_GEN_CURRENT);
    ksim_orch *o = ksim_orch_create(&p, NULL, NULL);
    pulses mover = {0};
    ktsim_aux_client c = {"mover", 0x00, 0x7F, aux_cfg, aux_stat, NULL, NULL, &mover};
    CHECK_EQ(ksim_orch_add_aux(o, &c), NPK_OK);
    ktsim_aux_client clash = {"other", 0x70, 0x90, aux_cfg, NULL, NULL, NULL, &mover};
    CHECK_EQ(ksim_orch_add_aux(o, &clash), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "overlaps 'mover'");
    /* A 32-bit pair at +0/+4 is two pulses, the second carrying the merged 64 bits. */
    ksim_orch_write_beat(o, KT_AUX_CFG + 0x10, 0x11111111, 0x0F);
    ksim_orch_write_beat(o, KT_AUX_CFG + 0x10, 0x2222222200000000ull, 0xF0);
    CHECK_EQ(mover.n, 2);
    CHECK_EQ(mover.off[1], 0x10);
    CHECK_EQ(mover.val[0], 0x11111111);
    CHECK_EQ(mover.val[1], 0x2222222211111111ull);
    /* Offsets 0x80+ belong to another client; with none there the pulse goes nowhere. */
    ksim_orch_write_beat(o, KT_AUX_CFG + 0x88, 1, 0xFF);
    CHECK_EQ(mover.n, 2);
    ksim_orch_set_traffic(o, 0x1234, 0x5678);
    CHECK_EQ(ksim_orch_read(o, KT_AUX_STAT), 0xABCDEF12345678F1ull);
    ksim_orch_destroy(o);
}

int main(void)
{
    test_reset_and_read_values();
    test_dispatcher_and_credit();
    test_mailbox_fifos();
    test_aux_cfg();
    return check_done();
}
