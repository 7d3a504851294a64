/* SPDX-License-Identifier: MIT */
/* The saxpy unit behind the shell (facts §3.3: y = a*x + y through the memory protocol, CU_DBG
 * counting elements; the RTL's integer arithmetic and fault codes as measured under Verilator),
 * the staging extent at a non-default
 * STAGE_FLITS (spec §2.6), and the driver's window checks and mailbox refusal against an
 * in-memory transport (a wrong CAPS, mesh_ready low, a full TX FIFO). */
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "npukit/kt.h"
#include "npukit/kt_hostprog.h"
#include "npukit/ktsim.h"
#include "npukit/kt_saxpy.h"
#include "npukit/kt_test_unit.h"

static const kt_unit SX = {{1, 1}, {0x5358, 4, 0, 8}, "SX"};

static npk_status run_one(kt_dev *d, const kt_flit *f, kt_wait_result *r)
{
    kt_ticket tk;
    npk_status s = kt_stage(d, 0, f, 1);
    if (!s)
        s = kt_dispatch(d, &SX, 0, 1, 0, &tk);
    return s ? s : kt_wait(d, &tk, r);
}

static void test_saxpy(ktsim_gen gen)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.gen = gen;
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    /* The RTL converts every operand to an integer (toward zero), multiplies and adds integers
     * and converts back: with a = 2.5, x = 0.25, y = 2 gives 2 and x = 1, y = 5 gives 7 (the
     * measured pairs); the other lanes follow the same rule, worked by hand. Lanes past n come
     * back unchanged. */
    float x[8] = {0.25f, 1.0f, 2.0f, -3.0f, 7.9f, 5.0f, 6.0f, 7.0f};
    float y[8] = {2.0f, 5.0f, 100.0f, 100.0f, -1.5f, 11.0f, 12.0f, 13.0f};
    float want[8] = {2.0f, 7.0f, 104.0f, 94.0f, 13.0f, 11.0f, 12.0f, 13.0f};
    CHECK_EQ(kt_write_block(d.t, c.mem_base + 0x1000, x, 32), NPK_OK);
    CHECK_EQ(kt_write_block(d.t, c.mem_base + 0x2000, y, 32), NPK_OK);
    kt_flit f;
    CHECK_EQ(kt_saxpy_inst(&f, 5, 2.5f, 0x1000, 0x2000, 9, true), NPK_OK);
    kt_wait_result r;
    CHECK_EQ(run_one(&d, &f, &r), NPK_OK);
    CHECK_EQ(r.last.code, KT_SIG_BATCH_COMPLETE);
    CHECK_EQ(r.last.arg, 9);
    /* No write fence: the completion does not order against the write, so poll for it. */
    float got[8] = {0};
    for (int i = 0; i < 100 && memcmp(got, want, sizeof want); i++) {
        ktsim_step(s, 50);
        CHECK_EQ(kt_read_block(d.t, c.mem_base + 0x2000, got, 32), NPK_OK);
    }
    CHECK(memcmp(got, want, sizeof want) == 0);
    /* The RTL's faults: a bad opcode signals 0xBAD00001, n > 64 signals 0xBAD00002; neither
     * counts elements. */
    kt_flit bad = f;
    kt_flit_set_bits(&bad, 248, 8, 0x02);
    kt_flit_set_bits(&bad, 259, 1, 0); /* not last: the signal keeps exec_result */
    CHECK_EQ(run_one(&d, &bad, &r), NPK_EFAULT);
    CHECK_EQ(r.last.code, KT_SIG_FAULT);
    CHECK_EQ(r.last.arg, 0xBAD00001u);
    bad = f;
    kt_flit_set_bits(&bad, 224, 24, 65);
    kt_flit_set_bits(&bad, 259, 1, 0);
    CHECK_EQ(run_one(&d, &bad, &r), NPK_EFAULT);
    CHECK_EQ(r.last.arg, 0xBAD00002u);
    /* n = 0 retires normally and touches nothing. */
    bad = f;
    kt_flit_set_bits(&bad, 224, 24, 0);
    CHECK_EQ(run_one(&d, &bad, &r), NPK_OK);
    CHECK_EQ(r.last.code, KT_SIG_BATCH_COMPLETE);
    /* Alignment is never checked: an address off the 32-byte grid is not a fault (its read spans
     * the next granule too, so that one holds data). */
    CHECK_EQ(kt_write_block(d.t, c.mem_base + 0x1020, x, 32), NPK_OK);
    bad = f;
    kt_flit_set_bits(&bad, 128, 64, 0x1004);
    kt_flit_set_bits(&bad, 224, 24, 1);
    CHECK_EQ(run_one(&d, &bad, &r), NPK_OK);
    ktsim_step(s, 2000);
    /* CU_DBG: cumulative elements processed (5 + 0 + 1), published verbatim. */
    uint64_t v;
    bool present;
    CHECK_EQ(kt_ctrl_read(&d, SX.at, KT_CU_DBG, &v, &present), NPK_OK);
    CHECK(present);
    CHECK_EQ(v, 6);
    CHECK_EQ(kt_ctrl_read(&d, SX.at, KT_CU_COUNTERS, &v, &present), NPK_OK);
    CHECK_EQ(kt_cu_counters_decode(v).retired, 5); /* faults retire too */
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* STAGE spans STAGE_FLITS * FLIT_WORDS * 8 bytes from 0x2000: with 4 slots, 0x2000-0x209F. */
static void test_stage_extent(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.stage_flits = 4;
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_options o = {0};
    o.stage_flits = 4;
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    kt_flit f[2];
    for (int i = 0; i < 2; i++)
        CHECK_EQ(kt_test_inst(&f[i], KT_TU_RETIRE, 0, 0x70 + (unsigned)i, 1, false), NPK_OK);
    CHECK_EQ(kt_stage(&d, 3, f, 2), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "STAGE_FLITS=4");
    CHECK_EQ(kt_stage(&d, 3, f, 1), NPK_OK); /* the last slot, 0x2078-0x209F */
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    kt_wait_result r;
    CHECK_EQ(kt_dispatch(&d, &tu, 3, 1, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
    CHECK_EQ(r.last.arg, 0x70);
    CHECK_EQ(kt_dispatch(&d, &tu, 4, 1, 0, &tk), NPK_ELIMIT);
    /* A write past the extent falls through to the register decode (unlisted: ignored), and a
     * dispatch reading there is something the model refuses to guess. */
    uint8_t bytes[40];
    kt_flit_to_bytes(&f[1], bytes);
    CHECK_EQ(kt_write_block(d.t, c.ctrl_base + 0x20A0, bytes, 40), NPK_OK);
    CHECK_EQ(kt_reg_write(&d, KT_PROG_BASE, 4), NPK_OK);
    CHECK_EQ(kt_reg_write(&d, KT_PROG_LEN, 1), NPK_OK);
    CHECK_EQ(kt_reg_write(&d, KT_PROG_DST, 0x21), NPK_OK);
    CHECK_EQ(kt_reg_write(&d, KT_PROG_CRED, 1), NPK_OK);
    CHECK_EQ(kt_reg_write(&d, KT_PROG_KICK, 1), NPK_OK);
    ktsim_step(s, 200);
    CHECK_STR_HAS(ktsim_fault(s), "beyond the 20 words of STAGE_FLITS=4");
    ktsim_destroy(s);
}

static void test_window_refusals(void)
{
    kt_memt *m;
    kt_transport t;
    CHECK_EQ(kt_memt_create(&m, true, &t), NPK_OK);
    kt_dev d;
    /* Nothing (CAPS reads 0): not an orchestrator. */
    CHECK_EQ(kt_open(&d, &t, 0x4000, NULL), NPK_ENODEV);
    CHECK_STR_HAS(npk_last_error(), "flit width 0, want 288");
    /* The right CAPS but mesh_ready low. */
    kt_write64(&t, 0x4000 + KT_CAPS, 0x0000000201040120ull);
    kt_write64(&t, 0x4000 + KT_STATUS, 0x0);
    CHECK_EQ(kt_open(&d, &t, 0x4000, NULL), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "mesh_ready is 0");
    /* Ready, mailbox empty: opens. A full TX FIFO makes the mailbox refuse, naming it. */
    kt_write64(&t, 0x4000 + KT_STATUS, 0x4);
    kt_write64(&t, 0x4000 + KT_RX_STATUS, 1u << 16);
    kt_options o = {0};
    o.poll_budget = 50;
    CHECK_EQ(kt_open(&d, &t, 0x4000, &o), NPK_OK);
    kt_write64(&t, 0x4000 + KT_TX_STATUS, 1u << 16);
    kt_memt_clear_log(m);
    kt_flit f;
    kt_flit_ctrl_request(&f, (kt_coord){1, 1}, (kt_coord){0, 0}, 0, 1);
    CHECK_EQ(kt_mailbox_send(&d, &f), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "tx_full=1");
    CHECK_EQ(kt_memt_writes(m, NULL, NULL), 0); /* no TX_FLIT, no TX_KICK */
    kt_transport_close(&t);
}

/* The test unit's FETCH (op 3): one memory word through the mesh, its low 32 bits the result —
 * so the unit depends on the link the credit rule protects. */
static void test_fetch(void)
{
    ktsim_config c;
    ktsim *s = kt_test_sim("default", KT_GEN_PRESET, &c);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    uint64_t word[4] = {0x1122334455667788ull, 1, 2, 3};
    CHECK_EQ(kt_write_block(d.t, c.mem_base + 0x3000, word, 32), NPK_OK);
    kt_flit f;
    CHECK_EQ(kt_test_inst(&f, KT_TU_FETCH, 0, 0x3000, 1, false), NPK_OK);
    CHECK_EQ(kt_stage(&d, 0, &f, 1), NPK_OK);
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    kt_wait_result r;
    CHECK_EQ(kt_dispatch(&d, &tu, 0, 1, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
    CHECK_EQ(r.last.code, KT_SIG_INST_COMPLETE);
    CHECK_EQ(r.last.arg, 0x55667788);
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* NODE_STATUS keeps only the last code: a fault followed by more completions between two polls
 * is invisible there (the card's slow host accesses make that the normal case). Credit is
 * refilled only by INST_COMPLETE, so the driver still sees it: PROG_CRED ends short of seed - 1. */
static void run_prog(kt_dev *d, const kt_unit *u, int fault_at, kt_wait_result *r, npk_status *st)
{
    kt_flit p[8];
    for (int i = 0; i < 8; i++) /* one cycle each: faster than any poll */
        CHECK_EQ(kt_test_inst(&p[i], i == fault_at ? KT_TU_FAULT : KT_TU_RETIRE, 1, 0, 3, i == 7), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_stage(d, 0, p, 8), NPK_OK);
    CHECK_EQ(kt_dispatch(d, u, 0, 8, 0, &tk), NPK_OK);
    *st = kt_wait(d, &tk, r);
}

static void test_fault_between_polls(void)
{
    ktsim_config c;
    ktsim *s = kt_test_sim("card", KT_GEN_PRESET, &c);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 512}, "TU"};
    kt_wait_result r;
    npk_status st;
    run_prog(&d, &tu, 0, &r, &st);
    CHECK(!r.fault_seen);                       /* no poll saw the FAULT... */
    CHECK_EQ(r.last.code, KT_SIG_BATCH_COMPLETE); /* ...and the last code hides it */
    CHECK_EQ(st, NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "1 instruction(s) returned no credit (PROG_CRED 510, seeded 512)");
    run_prog(&d, &tu, -1, &r, &st);
    CHECK_EQ(st, NPK_OK);
    /* Once anything rewrote the credit, the driver concludes nothing from it. */
    run_prog(&d, &tu, 0, &r, &st);
    CHECK_EQ(st, NPK_EFAULT);
    kt_ticket tk = {tu.at, (uint16_t)(r.last.count - 8), 8, 3, 0, 0};
    CHECK_EQ(kt_reg_write(&d, KT_PROG_CRED, 509), NPK_OK); /* 2 short of 511, but not ours to judge */
    CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
    ktsim_destroy(s);
}

/* Spec §2.7.1: a staging block whose ends fall inside a 32-byte bus flit zeroes the flit's other
 * words on a pre-strobe bitstream — below the run as well as above it. Two programs staged as
 * separate ascending blocks (the PROG_BASE use) would lose the first one's last header; a lower
 * range staged under a live higher one would lose the higher one's first words. The driver pads
 * each block with the words it staged there before; words it never wrote are left alone. */
static void mk(kt_flit *f, uint32_t result, bool last)
{
    CHECK_EQ(kt_test_inst(f, KT_TU_RETIRE, 0, result, 3, last), NPK_OK);
}

static void expect_run(kt_dev *d, unsigned base, unsigned n, uint32_t last_result)
{
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    kt_wait_result r;
    CHECK_EQ(kt_dispatch(d, &tu, base, n, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(d, &tk, &r), NPK_OK);
    CHECK_EQ(r.last.arg, last_result);
}

/* Staging the way kt_stage does, and as a host program's setup block (kt_hp_stage) run on the
 * host: the same padded block either way. */
typedef npk_status (*stage_fn)(kt_dev *d, unsigned base, const kt_flit *f, size_t n);

static npk_status stage_as_program(kt_dev *d, unsigned base, const kt_flit *f, size_t n)
{
    kt_hostprog p;
    kt_hp_init(&p);
    kt_hp_result r;
    npk_status s = kt_hp_stage(&p, d, base, f, n);
    if (!s)
        s = kt_hp_done(&p, 0);
    if (!s)
        s = kt_hp_run_host(d->t, &p, NULL, &r);
    kt_hp_free(&p);
    return s;
}

static void test_staging_neighbours(ktsim_gen gen, stage_fn stage)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.gen = gen;
    kt_options o = {0};
    o.poll_budget = 2000;
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    kt_flit a[2], b[2];
    mk(&a[0], 0xA0, false);
    mk(&a[1], 0xA1, false);
    mk(&b[0], 0xB0, false);
    mk(&b[1], 0xB1, false);
    /* Ascending: A at slots 0-1 (words 0-9), then B at 2-3 (words 10-19, first flit 8-11). */
    CHECK_EQ(stage(&d, 0, a, 2), NPK_OK);
    CHECK_EQ(stage(&d, 2, b, 2), NPK_OK);
    expect_run(&d, 0, 2, 0xA1);
    expect_run(&d, 2, 2, 0xB1);
    /* Downwards: B at slot 6 (words 30-34), then A at 4-5 (words 20-29, last flit 28-31). */
    CHECK_EQ(stage(&d, 6, b, 1), NPK_OK);
    CHECK_EQ(stage(&d, 4, a, 2), NPK_OK);
    expect_run(&d, 6, 1, 0xB0); /* its result word survived */
    expect_run(&d, 4, 2, 0xA1);
    /* A new session does not know slots 8-9 and pads nothing into them: on a current bitstream
     * the earlier session's program there survives staging slots 10-11. */
    CHECK_EQ(stage(&d, 8, a, 2), NPK_OK);
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    CHECK_EQ(stage(&d, 10, b, 2), NPK_OK);
    if (gen == KTSIM_GEN_CURRENT)
        expect_run(&d, 8, 2, 0xA1);
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* A transport with a block limit (the card daemon's is 64 bytes) splits a staging block; the
 * pieces must meet on 32-byte boundaries, or the pre-strobe window zeroes the start of a bus flit
 * the previous piece already wrote — here slot 4's result word. */
static void test_split_blocks(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.gen = KTSIM_GEN_PRESTROBE;
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_transport *t = ktsim_transport(s);
    t->max_block = 64;
    kt_dev d;
    CHECK_EQ(kt_open(&d, t, c.ctrl_base, NULL), NPK_OK);
    kt_flit p[2];
    mk(&p[0], 0x30, false);
    mk(&p[1], 0x40, false);
    CHECK_EQ(kt_stage(&d, 3, p, 2), NPK_OK); /* 0x2078-0x20C7: three pieces at 0x2080, 0x20C0 */
    expect_run(&d, 3, 2, 0x40);
    ktsim_destroy(s);
}

int main(void)
{
    test_split_blocks();
    test_staging_neighbours(KTSIM_GEN_CURRENT, kt_stage);
    test_staging_neighbours(KTSIM_GEN_PRESTROBE, kt_stage);
    test_staging_neighbours(KTSIM_GEN_CURRENT, stage_as_program);
    test_staging_neighbours(KTSIM_GEN_PRESTROBE, stage_as_program);
    test_fault_between_polls();
    test_fetch();
    test_saxpy(KTSIM_GEN_CURRENT);
    test_saxpy(KTSIM_GEN_PRESTROBE);
    test_stage_extent();
    test_window_refusals();
    return check_done();
}
