/* SPDX-License-Identifier: MIT */
/* The interlink on a simulated card: detection, mesh ids, doorbells and their counters, faults,
 * cross-mesh writes landing by the top address bit, reads never crossing, forwarding through a
 * middle mesh, and the doorbell that overtakes its data unless the driver orders it. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt/kt_interlink.h"
#include "npukit/kt_regs.h"
#include "ktsim/ktsim_card.h"

static ktsim_card *card(unsigned meshes, bool interlink)
{
    ktsim_card *c = NULL;
    ktsim_card_opts o = {meshes, interlink, false, 0, 0, 0};
    if (ktsim_card_open_preset("default", false, &o, &c) != NPK_OK)
        fprintf(stderr, "%s\n", npk_last_error());
    return c;
}

static void fill(kt_transport *t, uint64_t addr, size_t len, uint8_t seed)
{
    uint8_t *b = malloc(len);
    for (size_t i = 0; i < len; i++)
        b[i] = (uint8_t)(seed + i * 11);
    CHECK_EQ(kt_write_block(t, addr, b, len), NPK_OK);
    free(b);
}

/* How many of `words` 32-byte words at DRAM offset `off` of mesh m hold the expected pattern. */
static unsigned landed(ktsim_card *c, unsigned m, uint64_t off, unsigned words, uint8_t seed)
{
    unsigned ok = 0;
    for (unsigned w = 0; w < words; w++) {
        uint8_t got[32];
        if (ktsim_dram_read(ktsim_card_mesh(c, m), off + 32 * w, got, 32) != NPK_OK)
            continue; /* never written yet */
        bool same = true;
        for (unsigned i = 0; i < 32; i++)
            same &= got[i] == (uint8_t)(seed + (32 * w + i) * 11);
        ok += same;
    }
    return ok;
}

static void test_detect(void)
{
    ktsim_card *c = card(1, false);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    kt_il_caps caps;
    CHECK_EQ(kt_il_detect(t, ktsim_card_ctrl_base(c, 0), &caps), NPK_OK);
    CHECK(!caps.present);
    CHECK_EQ(kt_il_ring(t, ktsim_card_ctrl_base(c, 0), 1, 0),
             NPK_OK); /* harmless: the mover ignores 0x90 */
    CHECK_EQ(kt_il_set_mesh_id(t, ktsim_card_ctrl_base(c, 0), 1), NPK_ENODEV);
    ktsim_card_destroy(c);

    c = card(2, true);
    if (!c)
        return;
    t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0), b1 = ktsim_card_ctrl_base(c, 1);
    CHECK_EQ(kt_il_detect(t, b1, &caps), NPK_OK);
    CHECK(caps.present);
    CHECK_EQ(caps.mesh_id, 1);
    CHECK_EQ(caps.raw, 0x1402494Cull | 1u << 20);
    /* Disabled reads zero, exactly like absent. */
    CHECK_EQ(kt_il_enable(t, b0, false), NPK_OK);
    CHECK_EQ(kt_il_detect(t, b0, &caps), NPK_OK);
    CHECK(!caps.present);
    CHECK_EQ(kt_il_enable(t, b0, true), NPK_OK);
    CHECK_EQ(kt_il_detect(t, b0, &caps), NPK_OK);
    CHECK(caps.present && caps.mesh_id == 0);
    /* The id is a runtime register. */
    CHECK_EQ(kt_il_set_mesh_id(t, b0, 2), NPK_OK);
    CHECK_EQ(kt_il_detect(t, b0, &caps), NPK_OK);
    CHECK_EQ(caps.mesh_id, 2);
    CHECK_EQ(kt_il_set_mesh_id(t, b0, 0), NPK_OK);
    CHECK_EQ(kt_il_set_mesh_id(t, b0, 4), NPK_ELIMIT);
    ktsim_card_destroy(c);
}

static void test_doorbells_and_counters(void)
{
    ktsim_card *c = card(2, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0), b1 = ktsim_card_ctrl_base(c, 1);
    CHECK_EQ(kt_il_ring(t, b0, 1, 0x5A), NPK_OK);
    CHECK_EQ(kt_il_ring(t, b0, 1, 0x5B), NPK_OK);
    CHECK_EQ(kt_il_ring(t, b1, 0, 0x01), NPK_OK);
    ktsim_card_step(c, 200);
    kt_il_doorbells d0, d1;
    CHECK_EQ(kt_il_read_doorbells(t, b0, &d0), NPK_OK);
    CHECK_EQ(kt_il_read_doorbells(t, b1, &d1), NPK_OK);
    CHECK_EQ(d0.sent[1], 2);
    CHECK_EQ(d1.received[0], 2);
    CHECK_EQ(d1.sent[0], 1);
    CHECK_EQ(d0.received[1], 1);
    CHECK_EQ(ktsim_card_db_status(c, 1), 2);          /* mesh 0's count in [15:0] */
    CHECK_EQ(ktsim_card_db_status(c, 0), 1ull << 16); /* mesh 1's in [31:16] */
    kt_il_counters k0, k1;
    CHECK_EQ(kt_il_read_counters(t, b0, &k0), NPK_OK);
    CHECK_EQ(kt_il_read_counters(t, b1, &k1), NPK_OK);
    CHECK_EQ(k0.link_tx[1], 2); /* mesh 0 reaches mesh 1 by link 1 (one up) */
    CHECK_EQ(k0.link_rx[1], 1);
    CHECK_EQ(k1.link_rx[0], 2);
    CHECK_EQ(k0.doorbells_sent, 2);
    CHECK_EQ(k0.credits[1], 64); /* every beat consumed: all credit back */
    CHECK_EQ(k0.credits[0], 0);  /* no link below mesh 0 */
    /* Clearing keeps the link enabled. */
    CHECK_EQ(kt_il_clear(t, b1, true, false), NPK_OK);
    CHECK_EQ(kt_il_read_doorbells(t, b1, &d1), NPK_OK);
    CHECK_EQ(d1.received[0], 0);
    CHECK_EQ(d1.sent[0], 1); /* only the inbound counts clear */
    kt_il_caps caps;
    CHECK_EQ(kt_il_detect(t, b1, &caps), NPK_OK);
    CHECK(caps.present);
    /* A ring to a mesh that is not there: the switch refuses the turn. */
    CHECK_EQ(kt_il_ring(t, b1, 3, 0), NPK_OK);
    ktsim_card_step(c, 50);
    uint8_t f;
    CHECK_EQ(kt_il_read_faults(t, b1, &f), NPK_OK);
    CHECK_EQ(f, 1u << KT_IL_F_SWITCH);
    char txt[64];
    kt_il_faults_text(f, txt, sizeof txt);
    CHECK_STR_HAS(txt, "SWITCH");
    CHECK_EQ(kt_il_clear(t, b1, false, true), NPK_OK);
    CHECK_EQ(kt_il_read_faults(t, b1, &f), NPK_OK);
    CHECK_EQ(f, 0);
    ktsim_card_destroy(c);
}

static void test_cross_mesh_landing(void)
{
    ktsim_card *c = card(2, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0);
    fill(t, ktsim_card_mem_base(c, 0) + 0x1000, 256, 3);
    /* DRAM: by the low 32 bits on the far side. */
    kt_mv_move m = kt_mv_copy(kt_il_dram_addr(1, 0x8000), 0x1000, 8);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 7, 0), NPK_OK);
    ktsim_card_step(c, 100);
    CHECK_EQ(landed(c, 1, 0x8000, 8, 3), 8);
    uint8_t host[64], back[64];
    CHECK_EQ(kt_read_block(t, ktsim_card_mem_base(c, 1) + 0x8000, host, 64), NPK_OK);
    CHECK_EQ(kt_read_block(t, ktsim_card_mem_base(c, 0) + 0x1000, back, 64), NPK_OK);
    CHECK(!memcmp(host, back, 64));
    /* DRAM keeps only the low 32 bits: bits [35:32] of the local offset are dropped. */
    m = kt_mv_copy(kt_il_dram_addr(1, 0x300010000ull), 0x1000, 2);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 9, 0), NPK_OK);
    ktsim_card_step(c, 100);
    CHECK_EQ(landed(c, 1, 0x10000, 2, 3), 2);
    /* Staging: at the full 40-bit address. */
    m = kt_mv_copy(kt_il_stage_addr(1, 0x200), 0x1000, 2);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 8, 0), NPK_OK);
    ktsim_card_step(c, 100);
    uint8_t st[64];
    CHECK_EQ(ktsim_card_stage_read(c, 1, 0x200, st, 64), NPK_OK);
    CHECK(!memcmp(st, back, 64));
    CHECK_EQ(ktsim_card_stage_read(c, 0, 0x200, st, 64), NPK_OK);
    CHECK(memcmp(st, back, 64) != 0); /* not in the sender's own staging */
    kt_il_doorbells d1;
    CHECK_EQ(kt_il_read_doorbells(t, ktsim_card_ctrl_base(c, 1), &d1), NPK_OK);
    CHECK_EQ(d1.received[0], 3);

    /* Reads never cross: a source naming mesh 1 reads mesh 0's memory and raises RD_REMOTE. */
    fill(t, ktsim_card_mem_base(c, 1) + 0x1000, 64, 99);
    m = kt_mv_copy(0x3000, kt_il_dram_addr(1, 0x1000), 2);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 0, 0), NPK_EINVAL); /* the helper refuses it */
    CHECK_EQ(kt_mv_run(t, b0, &m, 0, NULL), NPK_OK);                /* the hardware aliases it */
    uint8_t f;
    CHECK_EQ(kt_il_read_faults(t, b0, &f), NPK_OK);
    CHECK_EQ(f, 1u << KT_IL_F_RD_REMOTE);
    CHECK_EQ(landed(c, 0, 0x3000, 2, 3), 2); /* mesh 0's own bytes at 0x1000 */
    /* The helper refuses a destination in the local mesh. */
    m = kt_mv_copy(0x3000, 0x1000, 2);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 0, 0, 0), NPK_EINVAL);
    ktsim_card_destroy(c);
}

static void test_forwarding(void)
{
    ktsim_card *c = card(3, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    fill(t, ktsim_card_mem_base(c, 0) + 0x1000, 128, 17);
    kt_mv_move m = kt_mv_copy(kt_il_dram_addr(2, 0x4000), 0x1000, 4);
    CHECK_EQ(kt_il_write_and_ring(t, ktsim_card_ctrl_base(c, 0), &m, 2, 1, 0), NPK_OK);
    ktsim_card_step(c, 300);
    CHECK_EQ(landed(c, 2, 0x4000, 4, 17), 4);
    kt_il_counters k1;
    CHECK_EQ(kt_il_read_counters(t, ktsim_card_ctrl_base(c, 1), &k1), NPK_OK);
    CHECK_EQ(k1.forwarded, 5); /* four writes and the doorbell passed through mesh 1 */
    kt_il_doorbells d2;
    CHECK_EQ(kt_il_read_doorbells(t, ktsim_card_ctrl_base(c, 2), &d2), NPK_OK);
    CHECK_EQ(d2.received[0], 1);
    ktsim_card_destroy(c);
}

/* Poll mesh 1's inbound count from mesh 0 until it shows one doorbell; return how many of the
 * `words` data words had landed at that moment. */
static unsigned landed_when_rung(ktsim_card *c, unsigned words, uint8_t seed)
{
    kt_transport *t = ktsim_card_transport(c);
    for (int i = 0; i < 2000; i++) {
        kt_il_doorbells d;
        kt_il_read_doorbells(t, ktsim_card_ctrl_base(c, 1), &d);
        if (d.received[0])
            return landed(c, 1, 0x8000, words, seed);
    }
    return 9999;
}

static void test_doorbell_order(void)
{
    enum { WORDS = 64 };
    /* Wrong: ring while the mover is still sending. The rotating arbiter lets the doorbell out
     * ahead of writes still queued, so the far side hears the bell before its data is there. */
    ktsim_card *c = card(2, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0);
    fill(t, ktsim_card_mem_base(c, 0) + 0x1000, WORDS * 32, 41);
    kt_mv_move m = kt_mv_copy(kt_il_dram_addr(1, 0x8000), 0x1000, WORDS);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    CHECK_EQ(kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    CHECK_EQ(kt_mv_issue(t, b0, w, n), NPK_OK);
    CHECK_EQ(kt_il_ring(t, b0, 1, 1), NPK_OK);
    unsigned early = landed_when_rung(c, WORDS, 41);
    CHECK(early < WORDS);
    /* The data does arrive — later. */
    ktsim_card_step(c, 2000);
    CHECK_EQ(landed(c, 1, 0x8000, WORDS, 41), WORDS);
    /* A short copy runs at 3 cycles a word (the RTL's), ahead of the link's 4-cycle beat, so the
     * remote-write queue also fills and blocks the mover; the early bell is the arbiter's doing
     * all the same: the bell has its own queue and the rotation lets it out first. */
    kt_il_counters k;
    CHECK_EQ(kt_il_read_counters(t, b0, &k), NPK_OK);
    CHECK(k.egress_blocks > 0);
    ktsim_card_destroy(c);

    /* Right: writes, mover idle, then ring — every word is there when the bell is heard. */
    c = card(2, true);
    if (!c)
        return;
    t = ktsim_card_transport(c);
    b0 = ktsim_card_ctrl_base(c, 0);
    fill(t, ktsim_card_mem_base(c, 0) + 0x1000, WORDS * 32, 41);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 1, 0), NPK_OK);
    CHECK_EQ(landed_when_rung(c, WORDS, 41), WORDS);
    ktsim_card_destroy(c);
}

/* On a pre-strobe bitstream the interlink's three registers share one 32-byte flit: a ring at
 * 0x90 also writes control (0x80) and mesh id (0x88) with zero — the link disables itself and
 * the doorbell never leaves. */
static void test_prestrobe_ring(void)
{
    ktsim_card *c = NULL;
    ktsim_card_opts o = {2, true, false, 0, 0, 0};
    CHECK_EQ(ktsim_card_open_preset("default", true, &o, &c), NPK_OK);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b1 = ktsim_card_ctrl_base(c, 1);
    kt_il_caps caps;
    CHECK_EQ(kt_il_detect(t, b1, &caps), NPK_OK);
    CHECK(caps.present && caps.mesh_id == 1);
    CHECK_EQ(kt_il_ring(t, b1, 0, 9), NPK_OK);
    ktsim_card_step(c, 200);
    CHECK_EQ(kt_il_detect(t, b1, &caps), NPK_OK);
    CHECK(!caps.present); /* disabled by the zeroed control register */
    kt_il_doorbells d0;
    CHECK_EQ(kt_il_read_doorbells(t, ktsim_card_ctrl_base(c, 0), &d0), NPK_OK);
    CHECK_EQ(d0.received[1], 0);
    /* Re-enabling (0x80) zeroes the id (0x88) and rings nothing (0x90 gets zero too: a ring of
     * mesh 0, which is now this mesh itself). */
    CHECK_EQ(kt_il_enable(t, b1, true), NPK_OK);
    CHECK_EQ(kt_il_detect(t, b1, &caps), NPK_OK);
    CHECK(caps.present);
    CHECK_EQ(caps.mesh_id, 0);
    ktsim_card_step(c, 50);
    kt_il_doorbells d1;
    CHECK_EQ(kt_il_read_doorbells(t, b1, &d1), NPK_OK);
    /* Two rings from "mesh 0" to itself: the first one (its id had just been zeroed, so it names
     * this mesh), held while the link was disabled, and the spurious one. */
    CHECK_EQ(d1.received[0], 2);
    ktsim_card_destroy(c);
}

/* A write that cannot land on the far side (an offset past the populated DRAM: the memory's AXI
 * slave answers with an error) raises the receiving node's AXI fault bit, and only that bit and
 * only there; the bytes before it still land, and clearing the faults clears it. */
static void test_axi_fault(void)
{
    ktsim_card *c = card(2, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0), b1 = ktsim_card_ctrl_base(c, 1);
    uint64_t dram = ktsim_get_config(ktsim_card_mesh(c, 1))->dram_size;
    fill(t, ktsim_card_mem_base(c, 0) + 0x1000, 64, 5);
    /* two words: the first the last one of DRAM, the second one past it */
    kt_mv_move m = kt_mv_copy(kt_il_dram_addr(1, dram - 32), 0x1000, 2);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 4, 0), NPK_OK);
    ktsim_card_step(c, 200);
    uint8_t f0 = 0xFF, f1 = 0;
    CHECK_EQ(kt_il_read_faults(t, b0, &f0), NPK_OK);
    CHECK_EQ(kt_il_read_faults(t, b1, &f1), NPK_OK);
    CHECK_EQ(f0, 0);
    CHECK_EQ(f1, 1u << KT_IL_F_AXI);
    char txt[128];
    kt_il_faults_text(f1, txt, sizeof txt);
    CHECK_STR_HAS(txt, "AXI");
    CHECK_EQ(landed(c, 1, dram - 32, 1, 5), 1);
    CHECK_EQ(kt_il_clear(t, b1, false, true), NPK_OK);
    CHECK_EQ(kt_il_read_faults(t, b1, &f1), NPK_OK);
    CHECK_EQ(f1, 0);
    ktsim_card_destroy(c);
}

/* The AXI bit's other source (spec §4: "an AXI error on the mover's write path or the inbound
 * write path"): a local move whose last word lands past the populated DRAM faults the mover (3,
 * AXI) and raises the AXI bit of its own node, not of the mesh the link would have reached. */
static void test_axi_fault_mover_path(void)
{
    ktsim_card *c = card(2, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0), b1 = ktsim_card_ctrl_base(c, 1);
    uint64_t dram = ktsim_get_config(ktsim_card_mesh(c, 0))->dram_size;
    fill(t, ktsim_card_mem_base(c, 0) + 0x1000, 64, 7);
    kt_mv_move m = kt_mv_copy(dram - 32, 0x1000, 2);
    kt_mv_result r;
    CHECK_EQ(kt_mv_run(t, b0, &m, 0, &r), NPK_EFAULT);
    CHECK_EQ(r.after.fault, KT_MV_F_AXI);
    uint8_t f0 = 0, f1 = 0xFF;
    CHECK_EQ(kt_il_read_faults(t, b0, &f0), NPK_OK);
    CHECK_EQ(kt_il_read_faults(t, b1, &f1), NPK_OK);
    CHECK_EQ(f0, 1u << KT_IL_F_AXI);
    CHECK_EQ(f1, 0);
    CHECK_EQ(landed(c, 0, dram - 32, 1, 7), 1); /* the word before the fault landed */
    /* Sticky: the next, clean move leaves it set; only the clear bit drops it. */
    m = kt_mv_copy(0x4000, 0x1000, 2);
    CHECK_EQ(kt_mv_run(t, b0, &m, 0, &r), NPK_OK);
    CHECK_EQ(kt_il_read_faults(t, b0, &f0), NPK_OK);
    CHECK_EQ(f0, 1u << KT_IL_F_AXI);
    CHECK_EQ(kt_il_clear(t, b0, false, true), NPK_OK);
    CHECK_EQ(kt_il_read_faults(t, b0, &f0), NPK_OK);
    CHECK_EQ(f0, 0);
    ktsim_card_destroy(c);
}

/* A write into staging honours byte strobes (spec §4.1): a store narrower than the 32-byte word
 * leaves the other lanes alone — in the mesh's own staging and in a staging a remote write landed
 * in over the link — while the same store into DRAM paints its whole granule (the DRAM behind the
 * host window ignores strobes, zero-filling the unsent bytes). */
static void test_narrow_write_into_staging(void)
{
    ktsim_card *c = card(2, true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t b0 = ktsim_card_ctrl_base(c, 0);
    uint8_t word[32], got[32];
    for (unsigned i = 0; i < 32; i++)
        word[i] = (uint8_t)(0xA0 + i);
    /* Mesh 1's staging word at 0x400 arrives over the link, a whole word from mesh 0's mover. */
    CHECK_EQ(kt_write_block(t, ktsim_card_mem_base(c, 0) + 0x1000, word, 32), NPK_OK);
    kt_mv_move m = kt_mv_copy(kt_il_stage_addr(1, 0x400), 0x1000, 1);
    CHECK_EQ(kt_il_write_and_ring(t, b0, &m, 1, 1, 0), NPK_OK);
    ktsim_card_step(c, 100);
    CHECK_EQ(ktsim_card_stage_read(c, 1, 0x400, got, 32), NPK_OK);
    CHECK(!memcmp(got, word, 32));
    /* Mesh 0's own staging word at 0x400, written whole by the host. */
    CHECK_EQ(kt_write_block(t, ktsim_card_stage_base(c, 0) + 0x400, word, 32), NPK_OK);
    for (unsigned mesh = 0; mesh < 2; mesh++) {
        /* One 8-byte store into lane 2 of the word: bytes 16..23 change, nothing else. */
        CHECK_EQ(kt_write64(t, ktsim_card_stage_base(c, mesh) + 0x410, 0x1122334455667788ull),
                 NPK_OK);
        CHECK_EQ(ktsim_card_stage_read(c, mesh, 0x400, got, 32), NPK_OK);
        CHECK(!memcmp(got, word, 16));
        CHECK_EQ(got[16], 0x88);
        CHECK_EQ(got[23], 0x11);
        CHECK(!memcmp(got + 24, word + 24, 8));
    }
    /* The same store into DRAM: the granule is painted, the other lanes read zero. */
    uint64_t dram = ktsim_card_mem_base(c, 0) + 0x2000;
    CHECK_EQ(kt_write_block(t, dram, word, 32), NPK_OK);
    CHECK_EQ(kt_write64(t, dram + 0x10, 0x1122334455667788ull), NPK_OK);
    CHECK_EQ(kt_read_block(t, dram, got, 32), NPK_OK);
    for (unsigned i = 0; i < 32; i++)
        if (i < 16 || i >= 24)
            CHECK_EQ(got[i], 0);
    CHECK_EQ(got[16], 0x88);
    ktsim_card_destroy(c);
}

int main(void)
{
    test_detect();
    test_doorbells_and_counters();
    test_cross_mesh_landing();
    test_axi_fault();
    test_axi_fault_mover_path();
    test_narrow_write_into_staging();
    test_forwarding();
    test_doorbell_order();
    test_prestrobe_ring();
    return check_done();
}
