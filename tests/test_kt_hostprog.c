/* SPDX-License-Identifier: MIT */
/* Host control programs: the data form, running on the host (poll budgets that name the
 * register and the last value), the engine model on its own (WR, POLL with mask and interval,
 * DONE, err, GO while busy, no abort), and a whole stage + dispatch + wait on the simulated
 * machine in both forms, with the engine form's host traffic counted. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ktsim/engine.h"
#include "npukit/kt_hostprog.h"
#include "ktsim/ktsim_card.h"
#include "npukit/kt_saxpy.h"
#include "npukit/kt_test_unit.h"

static void test_program_data(void)
{
    kt_hostprog p;
    kt_hp_init(&p);
    uint64_t words[2] = {1, 2};
    CHECK_EQ(kt_hp_setup(&p, 0x2000, words, 16), NPK_OK);
    CHECK_EQ(kt_hp_setup(&p, 0x2004, words, 16), NPK_EINVAL);
    CHECK_EQ(kt_hp_wr(&p, 0x68, 3, "PROG_BASE"), NPK_OK);
    CHECK_EQ(kt_hp_poll(&p, 0x58, 0, 1, "PROG_STAT.run"), NPK_OK);
    CHECK_EQ(kt_hp_poll(&p, 0x58, 2, 1, "PROG_STAT.run"), NPK_EINVAL); /* could never match */
    CHECK_EQ(kt_hp_wr(&p, 0x6C, 3, NULL), NPK_EINVAL);
    CHECK_EQ(kt_hp_done(&p, 0x77), NPK_OK);
    CHECK_EQ(p.n_cmds, 3);
    char buf[512];
    kt_hp_format(&p, buf, sizeof buf);
    CHECK_STR_HAS(buf, "SETUP 0x2000 <- 16 bytes");
    CHECK_STR_HAS(buf, "WR   0x68 <- 0x3  PROG_BASE");
    CHECK_STR_HAS(buf, "POLL 0x58 & 0x1 == 0x0  PROG_STAT.run");
    CHECK_STR_HAS(buf, "DONE 119");
    kt_hp_free(&p);
}

/* PROG_STAT reads busy three times, then idle. */
static bool slow_idle(void *user, uint64_t addr, uint64_t nth, uint64_t *v)
{
    (void)user;
    if (addr != 0x58)
        return false;
    *v = nth < 3 ? 1 : 0;
    return true;
}

static unsigned idles;
static void count_idle(void *user)
{
    (void)user;
    idles++;
}

static void test_run_on_host(void)
{
    kt_transport t;
    kt_memt *m;
    CHECK_EQ(kt_memt_create(&m, true, &t), NPK_OK);
    kt_memt_set_hook(m, slow_idle, NULL);
    kt_hostprog p;
    kt_hp_init(&p);
    uint64_t stage[5] = {1, 2, 3, 4, 5};
    kt_hp_setup(&p, 0x2000, stage, sizeof stage);
    kt_hp_poll(&p, 0x58, 0, 1, "PROG_STAT.run");
    kt_hp_wr(&p, 0x68, 7, "PROG_BASE");
    kt_hp_done(&p, 5);
    kt_hp_opts o = {0, count_idle, NULL};
    kt_hp_result r;
    CHECK_EQ(kt_hp_run_host(&t, &p, &o, &r), NPK_OK);
    CHECK_EQ(r.code, 5);
    CHECK_EQ(r.polls, 4);
    CHECK_EQ(idles, 3);
    const uint64_t *a, *v;
    size_t n = kt_memt_writes(m, &a, &v);
    CHECK(n >= 6);
    CHECK_EQ(a[n - 1], 0x68);
    CHECK_EQ(v[n - 1], 7);
    CHECK_EQ(t.count.block_writes, 1);

    /* A poll that never matches names the register, what it wanted and the last value. */
    kt_hostprog q;
    kt_hp_init(&q);
    kt_hp_poll(&q, 0x1088, 0x0501, 0xFFFF01, "NODE_STATUS(1,1).count");
    kt_hp_done(&q, 0);
    kt_hp_opts tight = {10, NULL, NULL};
    CHECK_EQ(kt_hp_run_host(&t, &q, &tight, &r), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "NODE_STATUS(1,1).count");
    CHECK_STR_HAS(npk_last_error(), "last read 0x0000000000000000");
    CHECK_STR_HAS(npk_last_error(), "after 10 reads");
    /* A program must end in DONE. */
    kt_hostprog nod;
    kt_hp_init(&nod);
    kt_hp_wr(&nod, 0x68, 1, NULL);
    CHECK_EQ(kt_hp_run_host(&t, &nod, NULL, &r), NPK_EINVAL);
    kt_hp_free(&p);
    kt_hp_free(&q);
    kt_hp_free(&nod);
    kt_transport_close(&t);
}

/* ---- the engine model on its own ---- */

static uint64_t bus_mem[64];
static unsigned bus_reads;
static npk_status b_read(void *ctx, uint64_t addr, uint64_t *v)
{
    (void)ctx;
    bus_reads++;
    *v = bus_mem[(addr / 8) % 64];
    if (addr == 0x100 && bus_reads >= 5)
        *v = 0xAB; /* becomes ready on the fifth read */
    return NPK_OK;
}
static npk_status b_write(void *ctx, uint64_t addr, uint64_t v)
{
    (void)ctx;
    bus_mem[(addr / 8) % 64] = v;
    return NPK_OK;
}

static void cmd(ksim_engine *e, unsigned n, uint64_t op, uint64_t addr, uint64_t data, uint64_t mask)
{
    ksim_engine_write(e, 0x1000 + n * 32 + 0, op);
    ksim_engine_write(e, 0x1000 + n * 32 + 8, addr);
    ksim_engine_write(e, 0x1000 + n * 32 + 16, data);
    ksim_engine_write(e, 0x1000 + n * 32 + 24, mask);
}

static void test_engine_model(void)
{
    ksim_engine_bus bus = {b_read, b_write, NULL};
    ksim_engine *e = ksim_engine_create(&bus, 31, 32);
    CHECK_EQ(ksim_engine_read(e, 0x00), 0);
    cmd(e, 0, KT_HP_WR, 0x8, 0x1234, 0);
    cmd(e, 1, KT_HP_POLL, 0x100, 0xA0, 0xF0);
    cmd(e, 2, KT_HP_WR, 0x10, 0x5678, 0);
    cmd(e, 3, KT_HP_DONE, 0, 42, 0);
    CHECK_EQ(ksim_engine_read(e, 0x1000), 0); /* the command RAM is write-only */
    ksim_engine_write(e, 0x00, 1);
    CHECK_EQ(ksim_engine_read(e, 0x00) & 1, 1);
    unsigned cycles = 0;
    while (ksim_engine_busy(e) && cycles < 10000) {
        ksim_engine_tick(e);
        cycles++;
    }
    CHECK_EQ(ksim_engine_read(e, 0x00), 2); /* done, no err */
    CHECK_EQ(ksim_engine_read(e, 0x10), 42);
    CHECK_EQ(ksim_engine_read(e, 0x18), 5); /* polls executed */
    CHECK_EQ(ksim_engine_read(e, 0x08), 3);
    CHECK_EQ(bus_mem[1], 0x1234);
    CHECK_EQ(bus_mem[2], 0x5678);
    CHECK(cycles >= 4 * 32); /* four misses, each followed by POLL_IVL + 1 cycles */

    /* GO: pc, busy, done, err and polls restart; the code is not cleared. GO while busy is lost. */
    bus_reads = 0;
    memset(bus_mem, 0, sizeof bus_mem);
    cmd(e, 1, KT_HP_POLL, 0x100, 0xFF, 0xFF); /* never matches: no timeout, no abort */
    ksim_engine_write(e, 0x00, 1);
    CHECK_EQ(ksim_engine_read(e, 0x10), 42);
    for (int i = 0; i < 500; i++)
        ksim_engine_tick(e);
    CHECK_EQ(ksim_engine_read(e, 0x00), 1);
    CHECK_EQ(ksim_engine_read(e, 0x08), 1);
    ksim_engine_write(e, 0x00, 1); /* lost */
    CHECK_EQ(ksim_engine_read(e, 0x08), 1);
    ksim_engine_write(e, 0x00, 0); /* and there is no abort */
    CHECK_EQ(ksim_engine_read(e, 0x00) & 1, 1);
    ksim_engine_reset(e); /* only reset stops it */
    CHECK_EQ(ksim_engine_read(e, 0x00), 0);

    /* After reset every opcode is 0: GO runs into err at command 0. */
    ksim_engine_write(e, 0x00, 1);
    for (int i = 0; i < 5; i++)
        ksim_engine_tick(e);
    CHECK_EQ(ksim_engine_read(e, 0x00), 6); /* done + err */
    CHECK_EQ(ksim_engine_read(e, 0x08), 0);
    /* Addresses are ADDR_W bits. */
    cmd(e, 0, KT_HP_WR, 0x1200000008ull, 9, 0);
    cmd(e, 1, KT_HP_DONE, 0, 0, 0);
    ksim_engine_write(e, 0x00, 1);
    for (int i = 0; i < 10; i++)
        ksim_engine_tick(e);
    CHECK_EQ(bus_mem[1], 9);
    ksim_engine_destroy(e);
}

/* ---- both forms on the simulated machine ---- */

typedef struct fixture {
    ktsim_card *card;
    kt_transport *t;
    kt_dev dev;
    kt_unit sx, sx2;
    uint64_t mem;
} fixture;

static bool open_fixture(fixture *f, bool prestrobe)
{
    memset(f, 0, sizeof *f);
    ktsim_card_opts o = {1, false, true, 0, 0, 0};
    if (ktsim_card_open_preset("default", prestrobe, &o, &f->card) != NPK_OK)
        return false;
    f->t = ktsim_card_transport(f->card);
    if (kt_open(&f->dev, f->t, ktsim_card_ctrl_base(f->card, 0), NULL) != NPK_OK)
        return false;
    kt_unit u[8];
    size_t n;
    if (kt_enumerate(&f->dev, u, 8, &n) != NPK_OK || !n)
        return false;
    f->sx = u[0];
    f->sx2 = u[1];
    f->mem = ktsim_card_mem_base(f->card, 0);
    return true;
}

/* y = 2x + y over 64 * k elements on one unit, as one program; returns the mismatch count. */
static size_t saxpy(fixture *f, bool engine, unsigned k, kt_counters *spent)
{
    size_t n = 64u * k;
    float *x = calloc(n, 4), *y = calloc(n, 4), *got = calloc(n, 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    kt_write_block(f->t, f->mem + 0x10000, x, n * 4);
    kt_write_block(f->t, f->mem + 0x20000, y, n * 4);
    kt_flit prog[8];
    for (unsigned i = 0; i < k; i++)
        kt_saxpy_inst(&prog[i], 64, 2.0f, 0x10000 + i * 256, 0x20000 + i * 256, 9, i == k - 1);
    kt_counters_reset(f->t);
    kt_hostprog p;
    kt_hp_init(&p);
    kt_ticket tk;
    CHECK_EQ(kt_hp_stage(&p, &f->dev, 0, prog, k), NPK_OK);
    CHECK_EQ(kt_hp_dispatch(&p, &f->dev, &f->sx, 0, k, 0, &tk), NPK_OK);
    CHECK_EQ(kt_hp_await(&p, &f->dev, &tk), NPK_OK);
    CHECK_EQ(kt_hp_done(&p, 1), NPK_OK);
    kt_hp_result r;
    npk_status s = engine ? kt_hp_run_engine(f->t, ktsim_card_engine_base(f->card), &p, NULL, &r)
                          : kt_hp_run_host(f->t, &p, NULL, &r);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "%s\n", npk_last_error());
    CHECK_EQ(r.code, 1);
    CHECK_EQ(kt_hp_check_ticket(&f->dev, &tk), NPK_OK);
    *spent = f->t->count;
    size_t bad = 0;
    for (int tries = 0; tries < 8; tries++) {
        kt_read_block(f->t, f->mem + 0x20000, got, n * 4);
        bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += got[i] != 2.0f * (float)i + 1.0f;
        if (!bad)
            break;
    }
    kt_hp_free(&p);
    free(x);
    free(y);
    free(got);
    return bad;
}

static void test_both_forms(bool prestrobe)
{
    fixture f;
    CHECK(open_fixture(&f, prestrobe));
    if (!f.card)
        return;
    kt_counters host, eng;
    CHECK_EQ(saxpy(&f, false, 4, &host), 0);
    CHECK_EQ(saxpy(&f, true, 4, &eng), 0);
    /* The engine form: the staging block, the command words, GO, and the wait on CTRL. The
     * host form: the staging block, every WR, and every POLL read. */
    CHECK_EQ(eng.block_writes, 1);
    CHECK_EQ(host.block_writes, 1);
    CHECK(host.reads > 2);
    CHECK(ktsim_card_fault(f.card) == NULL);
    ktsim_card_destroy(f.card);
}

static void test_engine_diagnostics(void)
{
    fixture f;
    CHECK(open_fixture(&f, false));
    if (!f.card)
        return;
    uint64_t eng = ktsim_card_engine_base(f.card), ctrl = ktsim_card_ctrl_base(f.card, 0);
    /* A poll that can never finish: the host's budget runs out and the error names the
     * register at the engine's PC and what it reads now. */
    kt_hostprog p;
    kt_hp_init(&p);
    kt_hp_wr(&p, ctrl + 0x20, 0x5, "IRQ_EN");
    kt_hp_poll(&p, ctrl + 0x20, 0x4, 0xF, "IRQ_EN");
    kt_hp_done(&p, 0);
    kt_hp_opts o = {50, NULL, NULL};
    CHECK_EQ(kt_hp_run_engine(f.t, eng, &p, &o, NULL), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "command 1 POLL IRQ_EN");
    CHECK_STR_HAS(npk_last_error(), "reads 0x0000000000000005 now");
    /* ...and there is no abort: a second GO is refused while it spins. */
    CHECK_EQ(kt_hp_go(f.t, eng), NPK_EBUSY);
    /* Refusals before anything is written. */
    kt_hostprog big;
    kt_hp_init(&big);
    for (int i = 0; i < 129; i++)
        kt_hp_wr(&big, ctrl, 0, NULL);
    CHECK_EQ(kt_hp_load(f.t, eng, &big), NPK_ELIMIT);
    kt_hostprog far;
    kt_hp_init(&far);
    kt_hp_wr(&far, 1ull << 40, 0, "DRAM");
    kt_hp_done(&far, 0);
    CHECK_EQ(kt_hp_load(f.t, eng, &far), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "32-bit");
    kt_hp_free(&p);
    kt_hp_free(&big);
    kt_hp_free(&far);
    ktsim_card_destroy(f.card);
}

static void test_move_program(void)
{
    fixture f;
    CHECK(open_fixture(&f, false));
    if (!f.card)
        return;
    uint8_t src[128];
    for (int i = 0; i < 128; i++)
        src[i] = (uint8_t)(i * 3);
    kt_write_block(f.t, f.mem + 0x1000, src, sizeof src);
    kt_mv_move m = kt_mv_copy(0x3000, 0x1000, 4);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    CHECK_EQ(kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    kt_hostprog p;
    kt_hp_init(&p);
    CHECK_EQ(kt_hp_move(&p, ktsim_card_ctrl_base(f.card, 0), w, n), NPK_OK);
    CHECK_EQ(kt_hp_done(&p, 0), NPK_OK);
    CHECK_EQ(kt_hp_run_engine(f.t, ktsim_card_engine_base(f.card), &p, NULL, NULL), NPK_OK);
    uint8_t got[128];
    kt_read_block(f.t, f.mem + 0x3000, got, sizeof got);
    CHECK(!memcmp(got, src, sizeof got));
    uint64_t v;
    kt_read64(f.t, ktsim_card_ctrl_base(f.card, 0) + 0x78, &v);
    CHECK_EQ(kt_mv_status_decode(v).moves_done, 1);
    kt_hp_free(&p);
    ktsim_card_destroy(f.card);
}


/* Two units, 48 instructions each, one engine program. PROG_CRED is one counter refilled by
 * completions from any node: seeding the second unit while the first still returns credit lets
 * the second overfill its FIFO and the mesh deadlocks. kt_hp_dispatch emits the core's wait for
 * the earlier program; a hand-made program without it shows why. */
static void test_shared_credit(bool with_wait)
{
    enum { K = 48 };
    fixture f;
    CHECK(open_fixture(&f, false));
    if (!f.card)
        return;
    static float zeros[2 * K * 64];
    kt_write_block(f.t, f.mem + 0x40000, zeros, sizeof zeros);
    kt_flit prog[2 * K];
    for (unsigned i = 0; i < 2 * K; i++)
        kt_saxpy_inst(&prog[i], 64, 1.0f, 0x40000 + i * 256, 0x40000 + i * 256, 3, i % K == K - 1);
    kt_hostprog p;
    kt_hp_init(&p);
    kt_ticket a, b;
    CHECK_EQ(kt_hp_stage(&p, &f.dev, 0, prog, 2 * K), NPK_OK);
    CHECK_EQ(kt_hp_dispatch(&p, &f.dev, &f.sx, 0, K, 0, &a), NPK_OK);
    size_t before_second = p.n_cmds;
    CHECK_EQ(kt_hp_dispatch(&p, &f.dev, &f.sx2, K, K, 0, &b), NPK_OK);
    CHECK_EQ(p.n_cmds - before_second, 8); /* the run-bit poll, one wait, five writes, the kick poll */
    if (!with_wait) { /* drop the wait for the first program's credit returns */
        memmove(&p.cmds[before_second + 1], &p.cmds[before_second + 2],
                (p.n_cmds - before_second - 2) * sizeof p.cmds[0]);
        p.n_cmds--;
    }
    kt_hp_await(&p, &f.dev, &a);
    kt_hp_await(&p, &f.dev, &b);
    kt_hp_done(&p, 0);
    kt_hp_opts o = {3000, NULL, NULL};
    npk_status s = kt_hp_run_engine(f.t, ktsim_card_engine_base(f.card), &p, &o, NULL);
    if (with_wait) {
        CHECK_EQ(s, NPK_OK);
        CHECK_EQ(kt_hp_check_ticket(&f.dev, &a), NPK_OK);
        CHECK_EQ(kt_hp_check_ticket(&f.dev, &b), NPK_OK);
    } else {
        CHECK_EQ(s, NPK_ETIMEDOUT);
        CHECK(ktsim_stalled_cycles(ktsim_card_mesh(f.card, 0)) > 1000); /* nothing moves any more */
    }
    kt_hp_free(&p);
    ktsim_card_destroy(f.card);
}


static void test_text_form(void)
{
    kt_hostprog p, q;
    kt_hp_init(&p);
    kt_hp_init(&q);
    uint8_t bytes[16];
    for (int i = 0; i < 16; i++)
        bytes[i] = (uint8_t)(0xA0 + i);
    kt_hp_setup(&p, 0x10002000, bytes, 16);
    kt_hp_wr(&p, 0x10000068, 3, "PROG_BASE");
    kt_hp_poll(&p, 0x10001088, 0x501, 0xFFFF01, "NODE_STATUS(1,1).count");
    kt_hp_done(&p, 7);
    char text[1024];
    size_t need = kt_hp_to_text(&p, text, sizeof text);
    CHECK(need < sizeof text);
    CHECK_STR_HAS(text, "SETUP 0x10002000 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\n");
    CHECK_STR_HAS(text, "POLL 0x10001088 0x501 0xffff01 NODE_STATUS(1,1).count\n");
    /* The length comes back whole for a NULL or short buffer, and a short one ends terminated. */
    CHECK_EQ(kt_hp_to_text(&p, NULL, 0), need);
    char small[20];
    CHECK_EQ(kt_hp_to_text(&p, small, sizeof small), need);
    CHECK_EQ(strlen(small), sizeof small - 1);
    char listing[1024];
    CHECK_EQ(kt_hp_format(&p, NULL, 0), kt_hp_format(&p, listing, sizeof listing));
    CHECK_EQ(kt_hp_parse(text, "t", &q), NPK_OK);
    CHECK_EQ(q.n_setup, 1);
    CHECK_EQ(q.n_cmds, 3);
    if (q.n_setup == 1 && q.n_cmds == 3) {
        CHECK(!memcmp(q.setup[0].bytes, bytes, 16));
        CHECK_EQ(q.cmds[1].mask, 0xFFFF01);
        CHECK(!strcmp(q.cmds[1].what, "NODE_STATUS(1,1).count"));
        CHECK_EQ(q.cmds[2].data, 7);
    }
    kt_hp_free(&q);
    kt_hp_init(&q);
    CHECK_EQ(kt_hp_parse("# nothing\n\nDONE 1 # end\n", "t", &q), NPK_OK);
    CHECK_EQ(q.n_cmds, 1);
    CHECK_EQ(kt_hp_parse("JUMP 4\n", "prog.txt", &q), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "prog.txt:1: unknown command 'JUMP'");
    CHECK_EQ(kt_hp_parse("DONE 1\nPOLL 0x58 0x2 0x1\n", "p", &q), NPK_EINVAL); /* want outside mask */
    CHECK_STR_HAS(npk_last_error(), "p:2: POLL"); /* the builder's refusal, at its line */
    CHECK_EQ(kt_hp_parse("WR 0x20 1 IRQ_EN extra\n", "p", &q), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "p:1: unexpected 'extra' after WR");
    CHECK_EQ(kt_hp_parse("DONE 0 1\n", "p", &q), NPK_EPARSE);
    CHECK_EQ(kt_hp_parse("SETUP 0x2001 0011223344556677\n", "p", &q), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "p:1: setup block 0x2001");
    CHECK_EQ(kt_hp_parse("SETUP 0x2000 abc\n", "p", &q), NPK_EPARSE);
    CHECK_EQ(kt_hp_parse("WR 0x20 -1\n", "p", &q), NPK_EPARSE);
    kt_hp_free(&p);
    kt_hp_free(&q);
}

/* A FAULT followed by faster completions is gone from NODE_STATUS by the time the engine's POLL
 * matches the count; the credit it never returned still shows it, in the engine form as in
 * kt_wait. */
static void test_engine_hidden_fault(void)
{
    fixture f;
    if (!open_fixture(&f, false)) {
        CHECK(false);
        ktsim_card_destroy(f.card);
        return;
    }
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 4}, "TU"};
    for (int fault_at = 0; fault_at >= -1; fault_at--) {
        kt_flit prog[8];
        for (int i = 0; i < 8; i++) /* one cycle each: faster than any poll */
            CHECK_EQ(kt_test_inst(&prog[i], i == fault_at ? KT_TU_FAULT : KT_TU_RETIRE, 1, 0, 3, i == 7), NPK_OK);
        kt_hostprog p;
        kt_hp_init(&p);
        kt_ticket tk;
        kt_hp_result r;
        CHECK_EQ(kt_hp_stage(&p, &f.dev, 0, prog, 8), NPK_OK);
        CHECK_EQ(kt_hp_dispatch(&p, &f.dev, &tu, 0, 8, 0, &tk), NPK_OK);
        CHECK_EQ(kt_hp_await(&p, &f.dev, &tk), NPK_OK);
        CHECK_EQ(kt_hp_done(&p, 0), NPK_OK);
        CHECK_EQ(kt_hp_run_engine(f.t, ktsim_card_engine_base(f.card), &p, NULL, &r), NPK_OK);
        uint64_t v;
        CHECK_EQ(kt_reg_read(&f.dev, kt_node_status_offset(tu.at), &v), NPK_OK);
        CHECK(kt_node_status_decode(v).code != KT_SIG_FAULT); /* the last code hides it */
        if (fault_at == 0) {
            CHECK_EQ(kt_hp_check_ticket(&f.dev, &tk), NPK_EFAULT);
            CHECK_STR_HAS(npk_last_error(), "1 instruction(s) returned no credit (PROG_CRED 2, seeded 4)");
        } else {
            CHECK_EQ(kt_hp_check_ticket(&f.dev, &tk), NPK_OK);
        }
        kt_hp_free(&p);
    }
    ktsim_card_destroy(f.card);
}

/* An empty program prints as an empty string: both printers terminate the buffer even when
 * they write nothing (a caller printing it must not see stale bytes). */
static void test_empty_program_text(void)
{
    kt_hostprog p;
    kt_hp_init(&p);
    char buf[32];
    memset(buf, 'x', sizeof buf);
    CHECK_EQ(kt_hp_to_text(&p, buf, sizeof buf), 0);
    CHECK_EQ(buf[0], 0);
    memset(buf, 'x', sizeof buf);
    CHECK_EQ(kt_hp_format(&p, buf, sizeof buf), 0);
    CHECK_EQ(buf[0], 0);
    CHECK_EQ(kt_hp_to_text(&p, NULL, 0), 0);
    kt_hp_free(&p);
}

/* ---- a loaded program run again ---- */

static void step_card(void *card, uint64_t cycles) { ktsim_card_step(card, cycles); }

/* Two dispatches (2 instructions on each saxpy unit) that wait on SIG_DONE from their own clear. */
static void build_rerunnable(fixture *f, kt_hostprog *p, kt_ticket tk[2], uint64_t code)
{
    kt_flit prog[4];
    for (unsigned i = 0; i < 4; i++)
        kt_saxpy_inst(&prog[i], 64, 2.0f, 0x10000 + i * 256, 0x20000 + i * 256, 9, i % 2 == 1);
    kt_hp_init(p);
    CHECK_EQ(kt_hp_stage(p, &f->dev, 0, prog, 4), NPK_OK);
    CHECK_EQ(kt_hp_signals_start(p, &f->dev), NPK_OK);
    CHECK_EQ(kt_hp_dispatch_signals(p, &f->dev, &f->sx, 0, 2, 0, 0, &tk[0]), NPK_OK);
    CHECK_EQ(kt_hp_dispatch_signals(p, &f->dev, &f->sx2, 2, 2, 0, 2, &tk[1]), NPK_OK);
    CHECK_EQ(kt_hp_await_signals(p, &f->dev, 4), NPK_OK);
    CHECK_EQ(kt_hp_done(p, code), NPK_OK);
}

static size_t y_mismatches(fixture *f, unsigned runs)
{
    float got[256];
    size_t bad = 0;
    for (int tries = 0; tries < 8; tries++) {
        kt_read_block(f->t, f->mem + 0x20000, got, sizeof got);
        bad = 0;
        for (size_t i = 0; i < 256; i++)
            bad += got[i] != 1.0f + (float)runs * 2.0f * (float)i;
        if (!bad)
            break;
    }
    return bad;
}

static void test_engine_rerun(void)
{
    fixture f;
    CHECK(open_fixture(&f, false));
    if (!f.card)
        return;
    f.dev.opt.bitstream_current = true;
    f.dev.opt.pause = step_card;
    f.dev.opt.pause_user = f.card;
    float x[256], y[256];
    for (size_t i = 0; i < 256; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    kt_write_block(f.t, f.mem + 0x10000, x, sizeof x);
    kt_write_block(f.t, f.mem + 0x20000, y, sizeof y);
    kt_hostprog p;
    kt_ticket tk[2];
    build_rerunnable(&f, &p, tk, 7);
    kt_engine e;
    kt_engine_init(&e, f.t, ktsim_card_engine_base(f.card), &f.dev);
    kt_hp_result r;
    const uint64_t expect = 4000; /* more than four 64-element instructions take */
    CHECK_EQ(kt_engine_run(&e, &p, expect, NULL, &r), NPK_OK);
    CHECK_EQ(r.code, 7);
    kt_hp_signals_ended(&f.dev);
    CHECK_EQ(kt_hp_check_ticket(&f.dev, &tk[0]), NPK_OK);
    CHECK_EQ(kt_hp_check_ticket(&f.dev, &tk[1]), NPK_OK);
    CHECK_EQ(y_mismatches(&f, 1), 0);
    /* Loading the same program again writes its setup block and no command word. */
    uint64_t words = e.cmd_writes;
    kt_counters_reset(f.t);
    CHECK_EQ(kt_engine_load(&e, &p), NPK_OK);
    CHECK_EQ(f.t->count.block_writes, 1);
    CHECK_EQ(f.t->count.writes, 0);
    CHECK_EQ(e.cmd_writes, words);
    /* Run again: one GO (the engine is known idle: no read first) and one CTRL read, since the
     * pause covers the work. Three runs cost six transactions. */
    for (int run = 2; run <= 4; run++) {
        kt_hp_ticket_again(&f.dev, &tk[0], false);
        kt_hp_ticket_again(&f.dev, &tk[1], true);
        kt_counters_reset(f.t);
        CHECK_EQ(kt_engine_go(&e), NPK_OK);
        CHECK_EQ(kt_engine_wait(&e, &p, expect, NULL, &r), NPK_OK);
        CHECK_EQ(f.t->count.writes, 1);
        CHECK_EQ(f.t->count.reads, 1);
        CHECK_EQ(r.code, 7);
        kt_hp_signals_ended(&f.dev);
    }
    /* The counts moved by every run's length and the last run's credit came back. */
    CHECK_EQ(kt_hp_check_ticket(&f.dev, &tk[0]), NPK_OK);
    CHECK_EQ(kt_hp_check_ticket(&f.dev, &tk[1]), NPK_OK);
    CHECK_EQ(y_mismatches(&f, 4), 0);
    /* A ticket moved past what ran fails the check, naming the completions seen. */
    kt_ticket wrong = tk[0];
    kt_hp_ticket_again(&f.dev, &wrong, false);
    CHECK_EQ(kt_hp_check_ticket(&f.dev, &wrong), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "completions after the program ended");
    /* Another DONE code: exactly one command word is rewritten. */
    kt_hostprog q;
    build_rerunnable(&f, &q, tk, 8);
    words = e.cmd_writes;
    kt_counters_reset(f.t);
    CHECK_EQ(kt_engine_load(&e, &q), NPK_OK);
    CHECK_EQ(e.cmd_writes, words + 1);
    CHECK_EQ(f.t->count.writes, 1);
    /* A busy engine refuses GO once its idleness is no longer known. */
    CHECK_EQ(kt_engine_go(&e), NPK_OK);
    CHECK_EQ(kt_engine_go(&e), NPK_EBUSY);
    CHECK_EQ(kt_engine_wait(&e, &q, expect, NULL, &r), NPK_OK);
    CHECK_EQ(r.code, 8);
    kt_hp_free(&p);
    kt_hp_free(&q);
    ktsim_card_destroy(f.card);
}

static void test_rerunnable_refusals(void)
{
    fixture f;
    CHECK(open_fixture(&f, true));
    if (!f.card)
        return;
    kt_hostprog p;
    kt_hp_init(&p);
    /* Pre-strobe: the dispatch writes clear SIG_DONE too. */
    CHECK_EQ(kt_hp_signals_start(&p, &f.dev), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "pre-strobe");
    /* Earlier programs still pending: their signals would count after the clear. */
    f.dev.opt.bitstream_current = true;
    f.dev.n_pending = 1;
    CHECK_EQ(kt_hp_signals_start(&p, &f.dev), NPK_EBUSY);
    CHECK_STR_HAS(npk_last_error(), "may still return credit");
    CHECK_EQ(p.n_cmds, 0);
    kt_hp_free(&p);
    ktsim_card_destroy(f.card);
}

int main(void)
{
    test_empty_program_text();
    test_engine_hidden_fault();
    test_program_data();
    test_text_form();
    test_run_on_host();
    test_engine_model();
    test_both_forms(false);
    test_both_forms(true);
    test_engine_diagnostics();
    test_move_program();
    test_shared_credit(true);
    test_shared_credit(false);
    test_engine_rerun();
    test_rerunnable_refusals();
    return check_done();
}
