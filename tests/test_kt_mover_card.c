/* SPDX-License-Identifier: MIT */
/* The mover through the whole machine: the AUX_CFG window forwarding the driver's writes,
 * AUX_STAT (completed count, fault, busy, traffic), fault names through kt_mv_run, and the
 * pre-strobe bitstream's flit sharing reproduced by the station bus itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/kt_mover.h"
#include "npukit/kt_regs.h"
#include "ktsim/ktsim_card.h"

static ktsim_card *card(bool prestrobe)
{
    ktsim_card *c = NULL;
    ktsim_card_opts o = {0};
    if (ktsim_card_open_preset("default", prestrobe, &o, &c) != NPK_OK)
        fprintf(stderr, "%s\n", npk_last_error());
    return c;
}

static void fill_src(kt_transport *t, uint64_t mem, uint64_t off, uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 13 + 5);
    CHECK_EQ(kt_write_block(t, mem + off, buf, len), NPK_OK);
}

static void test_modes_through_the_window(void)
{
    ktsim_card *c = card(false);
    CHECK(c != NULL);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t ctrl = ktsim_card_ctrl_base(c, 0), mem = ktsim_card_mem_base(c, 0);
    uint8_t src[512], got[512];
    fill_src(t, mem, 0x10000, src, sizeof src);

    kt_mv_result r;
    kt_mv_move m = kt_mv_copy(0x20000, 0x10000, 16);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(r.after.moves_done, 1);
    CHECK(r.polls >= 1);
    /* The memory agent's traffic counters count the memory ports only; the mover has its own AXI
     * master, so a copy leaves them where they were (RTL: 0/0 after a mover copy). */
    CHECK_EQ((uint16_t)(r.after.reads - r.before.reads), 0);
    CHECK_EQ((uint16_t)(r.after.writes - r.before.writes), 0);
    CHECK_EQ(kt_read_block(t, mem + 0x20000, got, 512), NPK_OK);
    CHECK(!memcmp(got, src, 512));

    m = kt_mv_fill(0x30000, 4, KT_MV_W16, 0xBEEF);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x30000, got, 128), NPK_OK);
    CHECK_EQ(got[0], 0xEF);
    CHECK_EQ(got[127], 0xBE);

    m = kt_mv_generate(0x40000, 4, 42);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x40000, got, 128), NPK_OK);
    uint8_t want[32];
    kt_mv_generate_word(42, 0x40000 + 96, want);
    CHECK(!memcmp(got + 96, want, 32));

    uint32_t idx[8] = {3, 1, 4, 1, 5, 0, 2, 6};
    CHECK_EQ(kt_write_block(t, mem + 0x500, idx, sizeof idx), NPK_OK);
    m = kt_mv_gather(0x50000, 0x10000, idx, 8, 0x500, 64, 1);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x50000, got, 256), NPK_OK);
    for (unsigned i = 0; i < 8; i++)
        CHECK(!memcmp(got + 32 * i, src + 64 * idx[i], 32));
    CHECK_EQ(r.after.moves_done, 4);

    /* Staging aperture as a destination: the inside address with bit 39. */
    m = kt_mv_copy(1ull << 39 | 0x100, 0x10000, 2);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(ktsim_card_stage_read(c, 0, 0x100, got, 64), NPK_OK);
    CHECK(!memcmp(got, src, 64));
    CHECK_EQ(kt_read_block(t, ktsim_card_stage_base(c, 0) + 0x100, got, 64), NPK_OK);
    CHECK(!memcmp(got, src, 64));
    CHECK(ktsim_card_fault(c) == NULL);
    ktsim_card_destroy(c);
}

static void test_faults_by_name(void)
{
    ktsim_card *c = card(false);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t ctrl = ktsim_card_ctrl_base(c, 0), mem = ktsim_card_mem_base(c, 0);
    uint8_t src[64];
    fill_src(t, mem, 0x1000, src, sizeof src);

    /* The driver refuses what would fault... */
    kt_mv_move m = kt_mv_copy(0x2010, 0x1000, 2);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, NULL), NPK_EINVAL);
    /* ...but an AXI error needs the hardware: a source nobody wrote. */
    m = kt_mv_copy(0x2000, 0x7000, 2);
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, NULL), NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "mover fault 3 (AXI)");

    /* Raw writes, as a careless driver would issue them: each fault code through AUX_STAT. */
    struct {
        kt_mv_write w[4];
        size_t n;
        unsigned code;
    } cases[] = {
        {{{KT_MV_INDEX, 0x1000 | 4000ull << 40}, {KT_MV_CTRL, 2 | 1 << 3 | 1 << 16}},
         2,
         KT_MV_F_IDXLEN},
        {{{KT_MV_HDR, 1 | 0x20ull << 4 | 1ull << 44},
          {KT_MV_DIM, 1 | 3ull << 4 | (uint64_t)(uint32_t)-32 << 20},
          {KT_MV_AXIS, 0},
          {KT_MV_CTRL, KT_MV_FILL | 1 << 16}},
         4,
         KT_MV_F_RANGE}, /* 0x20, 0x0, then below zero */
        {{{KT_MV_HDR, 1 | 0x3000ull << 4 | 1ull << 44},
          {KT_MV_DIM, 1 | 1ull << 4 | 32ull << 20},
          {KT_MV_AXIS, 0},
          {KT_MV_CTRL, KT_MV_FILL | 1 << 16}},
         4,
         KT_MV_F_AXI}, /* destination replaced below */
        {{{KT_MV_CTRL, KT_MV_TRANSPOSE | 1 << 3 | 1 << 16}}, 1, KT_MV_F_MODE},
        {{{KT_MV_CTRL, 3 << 3 | 1 << 16}}, 1, KT_MV_F_EWIDTH},
        {{{KT_MV_HDR, 1 | 0x3000ull << 4 | 1ull << 44},
          {KT_MV_DIM, 1 | 2ull << 4 | 48ull << 20},
          {KT_MV_AXIS, 0},
          {KT_MV_CTRL, KT_MV_FILL | 1 << 16}},
         4,
         KT_MV_F_ALIGN},
        {{{KT_MV_WINDOW, 0 | 1 << 1 | 2ull << 18}, {KT_MV_CTRL, KT_MV_XFORM | 1 << 3 | 1 << 16}},
         2,
         KT_MV_F_XFORM_AXIS},
    };
    /* The AXI case: a fill into DRAM beyond its end (a decode error). */
    cases[2].w[0].value = 1 | (0x10000000ull + 0x100) << 4 | 1ull << 44;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_EQ(kt_mv_issue(t, ctrl, cases[i].w, cases[i].n), NPK_OK);
        uint64_t v = 1;
        for (int k = 0; k < 100 && (v & 1); k++)
            kt_read64(t, ctrl + KT_AUX_STAT, &v);
        kt_mv_status s = kt_mv_status_decode(v);
        CHECK(!s.busy);
        CHECK_EQ(s.fault, cases[i].code);
        /* Restore a sane destination window for the next case. */
        kt_mv_write clean[] = {{KT_MV_WINDOW, 0 | 0 << 1}, {KT_MV_WINDOW, 0 | 1 << 1}};
        kt_mv_issue(t, ctrl, clean, 2);
    }
    CHECK(!strcmp(kt_mv_fault_name(KT_MV_F_ALIGN), "alignment"));
    ktsim_card_destroy(c);
}

static void test_prestrobe_window(void)
{
    ktsim_card *c = card(true);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t ctrl = ktsim_card_ctrl_base(c, 0), mem = ktsim_card_mem_base(c, 0);
    uint8_t src[256], got[256];
    fill_src(t, mem, 0x10000, src, sizeof src);
    uint8_t zeros[256] = {0};
    CHECK_EQ(kt_write_block(t, mem, zeros, sizeof zeros), NPK_OK);
    /* The same correct sequence. On this bitstream every write64 into AUX_CFG arrives as four
     * beats over a 32-byte flit: HDR's writes also write CTRL and DIM with zero, and every DIM
     * write rewrites the source header with base 0 and no dimensions. The move still completes,
     * and reports no fault: the bytes are simply wrong. */
    kt_mv_move m = kt_mv_copy(0x20000, 0x10000, 8);
    kt_mv_result r;
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(r.after.fault, 0);
    CHECK_EQ(kt_read_block(t, mem + 0x20000, got, 256), NPK_OK);
    CHECK(memcmp(got, src, 256) != 0);
    CHECK(!memcmp(got, zeros, 256)); /* DRAM word 0, eight times */
    ktsim_card_destroy(c);
}

int main(void)
{
    test_modes_through_the_window();
    test_faults_by_name();
    test_prestrobe_window();
    return check_done();
}
