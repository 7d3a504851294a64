/* SPDX-License-Identifier: MIT */
/* The RTL's synchronous FIFOs (xpm_fifo_sync) hold DEPTH + 2 entries: measured under Verilator, a
 * 16-deep RX FIFO keeps 18 looped-back flits before RX_STATUS.overflow rises. The default preset
 * reproduces that, `sync_fifo_extra 0` gives FIFOs of exactly DEPTH, and CU_CAPS still publishes
 * the DEPTH the driver seeds credit from. */
#include <string.h>

#include "check.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"

/* Send `n` CU_CTRL requests to the memory agent's own coordinate: each comes back into RX. */
static kt_rx_status loop_back(kt_dev *d, ktsim *s, kt_coord self, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        kt_flit f;
        CHECK_EQ(kt_flit_ctrl_request(&f, self, (kt_coord){0, 0}, 0, (uint8_t)i), NPK_OK);
        CHECK_EQ(kt_mailbox_send(d, &f), NPK_OK);
    }
    ktsim_step(s, 500); /* every flit has arrived or been refused */
    uint64_t v;
    CHECK_EQ(kt_reg_read(d, KT_RX_STATUS, &v), NPK_OK);
    kt_rx_status st;
    kt_word_decode(&kt_word_rx_status, v, &st);
    return st;
}

/* The RX FIFO's capacity: `keeps` flits leave overflow clear, one more sets it. */
static void rx_capacity(unsigned extra, unsigned keeps)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    CHECK_EQ(c.rx_depth, 16);
    c.sync_fifo_extra = extra;
    for (int more = 0; more < 2; more++) {
        ktsim *s;
        CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
        kt_dev d;
        CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
        kt_rx_status st = loop_back(&d, s, c.mem_port[0], keeps + (unsigned)more);
        CHECK(!st.empty);
        CHECK_EQ(st.overflow, more);
        /* What it kept can be read out: exactly `keeps` flits. */
        unsigned got = 0;
        for (bool have = true; have && got < 64;) {
            kt_flit f;
            CHECK_EQ(kt_mailbox_recv(&d, &f, &have), NPK_OK);
            got += have;
        }
        CHECK_EQ(got, keeps);
        ktsim_destroy(s);
    }
}

/* CU_CAPS and CU_STATUS publish DEPTH, not the slack. */
static void test_published_depth(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    CHECK_EQ(c.sync_fifo_extra, 2);
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    uint64_t v;
    bool present;
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){1, 1}, KT_CU_CAPS, &v, &present), NPK_OK);
    CHECK_EQ(kt_cu_caps_decode(v).inst_depth, 8);
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){1, 1}, KT_CU_STATUS, &v, &present), NPK_OK);
    CHECK_EQ(kt_cu_status_decode(v).inst_space, 8);
    ktsim_destroy(s);
}

static void test_preset_key(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_parse("sync_fifo_extra 0\n", "p", &c), NPK_OK);
    CHECK_EQ(c.sync_fifo_extra, 0);
    CHECK(ktsim_preset_parse("sync_fifo_extra 65\n", "p", &c) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "p:1: sync_fifo_extra=65 exceeds 64");
}

int main(void)
{
    rx_capacity(2, 18); /* the RTL's figure */
    rx_capacity(0, 16);
    test_published_depth();
    test_preset_key();
    return check_done();
}
