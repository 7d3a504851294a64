/* SPDX-License-Identifier: MIT */
/* The driver against the simulator: window checks, enumeration (also with slow replies),
 * dispatch and waits on both generations, a program larger than one staging page, faults,
 * NODE_STATUS wrap, and the counters' 32-bit wrap. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_test_unit.h"

static ktsim *make(const char *preset, ktsim_gen gen) { return kt_test_sim(preset, (int)gen, NULL); }

static npk_status open_dev(kt_dev *d, ktsim *s)
{
    return kt_open(d, ktsim_transport(s), ktsim_get_config(s)->ctrl_base, NULL);
}

static void test_open_and_enumerate(ktsim_gen gen)
{
    ktsim *s = make("default", gen);
    CHECK(s != NULL);
    if (!s)
        return;
    kt_dev d;
    CHECK_EQ(open_dev(&d, s), NPK_OK);
    CHECK_EQ(d.caps.grid_lo, 1);
    CHECK_EQ(d.caps.grid_hi, 1);
    CHECK_EQ(d.flit_words, 5);
    kt_unit u[16];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 16, &n), NPK_OK);
    CHECK_EQ(n, 3);
    if (n == 3) {
        /* Row-major over the span 0..2: (1,1), (2,1), (1,2). */
        CHECK_EQ(u[0].at.x, 1);
        CHECK_EQ(u[0].at.y, 1);
        CHECK_STR_HAS(u[0].type_text, "SX");
        CHECK_EQ(u[0].caps.inst_depth, 8);
        CHECK_EQ(u[0].caps.version, 4);
        CHECK_EQ(u[1].at.x, 2);
        CHECK_STR_HAS(u[2].type_text, "TU");
        CHECK_EQ(u[2].caps.inst_depth, 4);
        CHECK_EQ(u[2].caps.n_buffers, 1);
    }
    /* Index 4 and above read zero; CU_STATUS shows a free FIFO. */
    uint64_t v;
    bool present;
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){1, 1}, 9, &v, &present), NPK_OK);
    CHECK(present);
    CHECK_EQ(v, 0);
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){1, 1}, KT_CU_STATUS, &v, &present), NPK_OK);
    CHECK_EQ(kt_cu_status_decode(v).inst_space, 8);
    CHECK(!kt_cu_status_decode(v).busy);
    /* The memory port at (0,1) loops a request back: not a unit. */
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){0, 1}, 0, &v, &present), NPK_OK);
    CHECK(!present);
    ktsim_destroy(s);
}

static void test_window_errors(void)
{
    ktsim *s = make("default", KTSIM_GEN_CURRENT);
    kt_dev d;
    /* Nothing answers 64 KB above the window: a decode error names the address. */
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x20000000, NULL), NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "0x20000010");
    /* The memory window is not an orchestrator: reading unwritten DRAM is refused. */
    CHECK_EQ(kt_open(&d, ktsim_transport(s), ktsim_get_config(s)->mem_base, NULL), NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "never-written");
    ktsim_destroy(s);
}

static void test_slow_replies(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    for (unsigned i = 0; i < c.n_units; i++)
        c.units[i].reply_delay = 1500; /* far longer than one host access */
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    CHECK_EQ(open_dev(&d, s), NPK_OK);
    /* The naive exchange — kick, then read RX_STATUS once — sees an empty mailbox. */
    kt_flit req;
    kt_flit_ctrl_request(&req, (kt_coord){1, 1}, (kt_coord){0, 0}, 0, 0x77);
    CHECK_EQ(kt_mailbox_send(&d, &req), NPK_OK);
    uint64_t st;
    CHECK_EQ(kt_reg_read(&d, KT_RX_STATUS, &st), NPK_OK);
    CHECK_EQ(st >> 16 & 1, 1);
    CHECK_EQ(kt_mailbox_drain(&d, 8, NULL), NPK_OK);
    /* The driver polls, matches txn/index/source (the stale reply above is dropped), and finds
     * every unit. */
    kt_unit u[8];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_OK);
    CHECK_EQ(n, 3);
    /* With a budget too small for the delay, the unit reads as absent rather than hanging. */
    d.opt.reply_budget = 4;
    bool present = true;
    uint64_t v;
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){2, 1}, 0, &v, &present), NPK_OK);
    CHECK(!present);
    ktsim_destroy(s);
}

static void test_version_mismatch(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.units[2].version = 5;
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    CHECK_EQ(open_dev(&d, s), NPK_OK);
    kt_unit u[8];
    size_t n;
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_EMISMATCH);
    CHECK_STR_HAS(npk_last_error(), "cu_version 5");
    ktsim_destroy(s);
}

/* Build n test-unit instructions: RETIRE with result i, or FAULT at index `fault_at`. */
static void test_program(kt_flit *f, unsigned n, int fault_at, uint8_t txn)
{
    for (unsigned i = 0; i < n; i++)
        CHECK_EQ(kt_test_inst(&f[i], (int)i == fault_at ? KT_TU_FAULT : KT_TU_RETIRE, 0, 0x100 + i, txn, i + 1 == n),
                 NPK_OK);
}

static void test_dispatch_and_wait(ktsim_gen gen)
{
    ktsim *s = make("default", gen);
    kt_dev d;
    CHECK_EQ(open_dev(&d, s), NPK_OK);
    kt_unit u[8];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_OK);
    const kt_unit *tu = kt_find_unit(u, n, 0x5455);
    CHECK(tu != NULL);
    if (!tu) {
        ktsim_destroy(s);
        return;
    }
    /* A program larger than one 4 KB page of staging: 120 flits run to 0x32BF. */
    enum { N = 120 };
    kt_flit prog[N];
    test_program(prog, N, -1, 0x42);
    CHECK_EQ(kt_stage(&d, 0, prog, N), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, tu, 0, N, 0, &tk), NPK_OK);
    kt_wait_result r;
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
    CHECK_EQ(r.last.count, N);
    CHECK_EQ(r.last.code, KT_SIG_BATCH_COMPLETE);
    CHECK_EQ(r.last.arg, 0x42); /* a batch completion carries the program's txn */
    /* n-1 credits come back for a program of n: seeded 4, 119 returned, 120 spent. */
    uint64_t v;
    CHECK_EQ(kt_reg_read(&d, KT_PROG_STAT, &v), NPK_OK);
    kt_prog_stat ps = kt_prog_stat_decode(v);
    CHECK(!ps.run);
    CHECK_EQ(ps.credit, 4 - 1);
    CHECK_EQ(ps.flits_left, 1);
    /* The unit's counters: 120 retired. */
    bool present;
    CHECK_EQ(kt_ctrl_read(&d, tu->at, KT_CU_COUNTERS, &v, &present), NPK_OK);
    CHECK_EQ(kt_cu_counters_decode(v).retired, N);
    CHECK(kt_cu_counters_decode(v).busy_cycles > 0);
    /* A fault in the middle is detected; the count still completes. */
    test_program(prog, 6, 2, 0x43);
    CHECK_EQ(kt_stage(&d, 0, prog, 6), NPK_OK);
    CHECK_EQ(kt_dispatch(&d, tu, 0, 6, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "FAULT");
    /* A fault on the last instruction replaces BATCH_COMPLETE (priority fault > batch). */
    test_program(prog, 2, 1, 0x44);
    CHECK_EQ(kt_stage(&d, 0, prog, 2), NPK_OK);
    CHECK_EQ(kt_dispatch(&d, tu, 0, 2, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_EFAULT);
    CHECK_EQ(r.last.code, KT_SIG_FAULT);
    CHECK_EQ(r.last.arg, 0x101);
    /* Refusals: over-seeding, past STAGE_FLITS, no bulk path. */
    CHECK_EQ(kt_dispatch(&d, tu, 0, 2, 5, &tk), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "inst_depth 4");
    CHECK_EQ(kt_dispatch(&d, tu, 100, 29, 0, &tk), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "STAGE_FLITS=128");
    CHECK_EQ(kt_stage(&d, 127, prog, 2), NPK_ELIMIT);
    d.t->bulk = false;
    CHECK_EQ(kt_stage(&d, 0, prog, 2), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "bulk");
    d.t->bulk = true;
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

static void test_node_status_wrap(void)
{
    ktsim *s = make("default", KTSIM_GEN_PRESTROBE);
    kt_dev d;
    CHECK_EQ(open_dev(&d, s), NPK_OK);
    kt_unit u[8];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_OK);
    const kt_unit *tu = kt_find_unit(u, n, 0x5455);
    if (!tu) {
        CHECK(tu != NULL);
        ktsim_destroy(s);
        return;
    }
    /* The mirror's count sits at 0xFFFE: five more signals wrap it to 3. */
    kt_node_status ns = {KT_SIG_INST_COMPLETE, 0, 0xFFFE, true};
    ktsim_poke_node_status(s, tu->at, kt_node_status_encode(&ns));
    kt_flit prog[5];
    test_program(prog, 5, -1, 9);
    CHECK_EQ(kt_stage(&d, 0, prog, 5), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, tu, 0, 5, 0, &tk), NPK_OK);
    CHECK_EQ(tk.baseline, 0xFFFE);
    kt_wait_result r;
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
    CHECK_EQ(r.last.count, 3);
    /* NODE_STATUS is not cleared by reset; it is a count, not a sticky flag. */
    ktsim_reset(s);
    uint64_t v;
    CHECK_EQ(kt_reg_read(&d, kt_node_status_offset(tu->at), &v), NPK_OK);
    CHECK_EQ(kt_node_status_decode(v).count, 3);
    CHECK_EQ(kt_reg_read(&d, KT_PROG_STAT, &v), NPK_OK);
    CHECK_EQ(v, 0);
    ktsim_destroy(s);
}

static void test_counter_wrap(void)
{
    ktsim *s = make("default", KTSIM_GEN_CURRENT);
    kt_dev d;
    CHECK_EQ(open_dev(&d, s), NPK_OK);
    kt_coord at = {1, 2};
    CHECK_EQ(ktsim_poke_unit_counters(s, at, 0xFFFFFFFF, 0xFFFFFFF0u), NPK_OK);
    kt_unit unit = {at, {0x5455, 4, 1, 4}, "TU"};
    kt_flit prog[2];
    test_program(prog, 2, -1, 1);
    CHECK_EQ(kt_stage(&d, 0, prog, 2), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &unit, 0, 2, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
    uint64_t v;
    bool present;
    CHECK_EQ(kt_ctrl_read(&d, at, KT_CU_COUNTERS, &v, &present), NPK_OK);
    kt_cu_counters c = kt_cu_counters_decode(v);
    CHECK_EQ(c.retired, 1); /* 0xFFFFFFFF + 2 wraps to 1 */
    CHECK(c.busy_cycles < 0x1000);
    CHECK(kt_counter_delta32(0xFFFFFFF0u, c.busy_cycles) >= 40); /* two instructions of 24 cycles, wrapped */
    CHECK_EQ(ktsim_poke_unit_counters(s, (kt_coord){5, 5}, 0, 0), NPK_ENODEV);
    ktsim_destroy(s);
}

int main(void)
{
    test_open_and_enumerate(KTSIM_GEN_CURRENT);
    test_open_and_enumerate(KTSIM_GEN_PRESTROBE);
    test_window_errors();
    test_slow_replies();
    test_version_mismatch();
    test_dispatch_and_wait(KTSIM_GEN_CURRENT);
    test_dispatch_and_wait(KTSIM_GEN_PRESTROBE);
    test_node_status_wrap();
    test_counter_wrap();
    return check_done();
}
