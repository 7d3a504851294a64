/* SPDX-License-Identifier: MIT */
/* Driver behaviours against the simulator that the older tests leave open: XY routing with the
 * clamp and the neighbour it makes answer for an edge coordinate (rejected by source), stale
 * mailbox traffic drained at open, CU_CAPS confirmed only by two agreeing reads, the dispatch
 * writes never elided, and a starved stream diagnosed from PROG_STAT with the mailbox refusing
 * to kick while the program runs. */
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "ktsim/mesh.h"
#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_test_unit.h"

static ktsim *make(ktsim_config *c)
{
    ktsim *s = NULL;
    CHECK_EQ(ktsim_create(c, &s), NPK_OK);
    return s;
}

static ktsim *preset(const char *name) { return kt_test_sim(name, KT_GEN_PRESET, NULL); }

/* Facts §1.2: clamp into the grid, X first, then Y, then at most one outward hop; West > East >
 * North > South > Local; north is the smaller y. */
static void test_routing(void)
{
    /* grid 1..2 */
    CHECK_EQ(ksim_route(1, 2, 1, 1, (kt_coord){2, 2}), KSIM_E);
    CHECK_EQ(ksim_route(1, 2, 2, 1, (kt_coord){2, 2}), KSIM_S);
    CHECK_EQ(ksim_route(1, 2, 2, 2, (kt_coord){1, 1}), KSIM_W); /* X before Y */
    CHECK_EQ(ksim_route(1, 2, 1, 2, (kt_coord){1, 1}), KSIM_N);
    CHECK_EQ(ksim_route(1, 2, 2, 2, (kt_coord){2, 2}), KSIM_L);
    /* (0,0) clamps to (1,1) and leaves by its West port: the endpoint at (0, GRID_LO). */
    CHECK_EQ(ksim_route(1, 2, 2, 2, (kt_coord){0, 0}), KSIM_W);
    CHECK_EQ(ksim_route(1, 2, 1, 2, (kt_coord){0, 0}), KSIM_N);
    CHECK_EQ(ksim_route(1, 2, 1, 1, (kt_coord){0, 0}), KSIM_W);
    /* Edge endpoints: one outward hop from the clamped router. */
    CHECK_EQ(ksim_route(1, 2, 2, 2, (kt_coord){3, 2}), KSIM_E);
    CHECK_EQ(ksim_route(1, 2, 2, 2, (kt_coord){2, 3}), KSIM_S);
    CHECK_EQ(ksim_route(1, 2, 1, 1, (kt_coord){1, 0}), KSIM_N);
    /* A coordinate beyond the ring clamps too: (5,1) is reached as (3,1). */
    CHECK_EQ(ksim_route(1, 2, 2, 1, (kt_coord){5, 1}), KSIM_E);
    ksim_mesh *m = ksim_mesh_create(1, 2, 4);
    CHECK(ksim_mesh_position_ok(m, (kt_coord){0, 1}));
    CHECK(ksim_mesh_position_ok(m, (kt_coord){3, 2}));
    CHECK(!ksim_mesh_position_ok(m, (kt_coord){0, 0})); /* corners hold no endpoint */
    CHECK(!ksim_mesh_position_ok(m, (kt_coord){3, 3}));
    CHECK(!ksim_mesh_position_ok(m, (kt_coord){4, 1}));
    ksim_mesh_destroy(m);
}

/* Asking (3,1) on a one-router mesh reaches the unit at (2,1) through the clamp; it answers with
 * its own source, and the driver does not take that for a unit at (3,1). */
static void test_clamp_neighbour(void)
{
    ktsim *s = preset("default");
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    kt_flit req, rep;
    kt_flit_ctrl_request(&req, (kt_coord){3, 1}, (kt_coord){0, 0}, KT_CU_CAPS, 0x3C);
    CHECK_EQ(kt_mailbox_send(&d, &req), NPK_OK);
    ktsim_step(s, 500);
    bool got = false;
    CHECK_EQ(kt_mailbox_recv(&d, &rep, &got), NPK_OK);
    CHECK(got);
    kt_header h = kt_header_get(&rep);
    CHECK_EQ(h.src.x, 2); /* the neighbour answered */
    CHECK_EQ(h.src.y, 1);
    CHECK_EQ(h.txn, 0x3C);
    uint64_t v;
    bool present = true;
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){3, 1}, KT_CU_CAPS, &v, &present), NPK_OK);
    CHECK(!present);
    CHECK_EQ(kt_ctrl_read(&d, (kt_coord){2, 1}, KT_CU_CAPS, &v, &present), NPK_OK);
    CHECK(present);
    ktsim_destroy(s);
}

/* Replies a previous session left in the mailbox are drained at open, and counted. */
static void test_stale_drain(void)
{
    ktsim *s = preset("default");
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    CHECK_EQ(d.stale_drained, 0);
    const kt_coord at[3] = {{1, 1}, {2, 1}, {1, 2}};
    for (int i = 0; i < 3; i++) {
        kt_flit req;
        kt_flit_ctrl_request(&req, at[i], (kt_coord){0, 0}, KT_CU_CAPS, (uint8_t)(0x50 + i));
        CHECK_EQ(kt_mailbox_send(&d, &req), NPK_OK);
    }
    ktsim_step(s, 2000);
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    CHECK_EQ(d.stale_drained, 3);
    uint64_t st;
    CHECK_EQ(kt_reg_read(&d, KT_RX_STATUS, &st), NPK_OK);
    CHECK_EQ(st, 1u << 16);
    ktsim_destroy(s);
}

/* A transport in front of the simulator that flips one bit of the CU_CTRL value in chosen
 * replies (a wrong value with the right source has been seen on hardware). */
typedef struct corrupt {
    kt_transport *inner;
    unsigned replies;
    unsigned mask; /* bit i: corrupt reply i */
} corrupt;

static npk_status c_read64(void *ctx, uint64_t a, uint64_t *v) { return kt_read64(((corrupt *)ctx)->inner, a, v); }
static npk_status c_write64(void *ctx, uint64_t a, uint64_t v) { return kt_write64(((corrupt *)ctx)->inner, a, v); }
static npk_status c_write_block(void *ctx, uint64_t a, const void *b, size_t n)
{
    return kt_write_block(((corrupt *)ctx)->inner, a, b, n);
}
static npk_status c_read_block(void *ctx, uint64_t a, void *b, size_t n)
{
    corrupt *c = ctx;
    npk_status s = kt_read_block(c->inner, a, b, n);
    if (!s && a == 0x10000000 + KT_RX_FLIT && n == 40) {
        if (c->mask >> c->replies & 1)
            ((uint8_t *)b)[24 + 2] ^= 0x01; /* value bit 16 (word 3, bit 0 of [239:192]) */
        c->replies++;
    }
    return s;
}
static const kt_transport_ops corrupt_ops = {c_read64, c_write64, c_read_block, c_write_block, NULL};

static void test_two_agreeing_reads(void)
{
    ktsim *s = preset("default");
    corrupt c = {ktsim_transport(s), 0, 0x1};
    kt_transport t;
    kt_transport_init(&t, "corrupt", &corrupt_ops, &c);
    t.bulk = true;
    kt_dev d;
    CHECK_EQ(kt_open(&d, &t, 0x10000000, NULL), NPK_OK);
    kt_cu_caps caps;
    bool present;
    /* First reply wrong, then two right ones agree. */
    CHECK_EQ(kt_unit_caps(&d, (kt_coord){1, 2}, &caps, &present), NPK_OK);
    CHECK(present);
    CHECK_EQ(c.replies, 3);
    CHECK_EQ(caps.type, 0x5455);
    CHECK_EQ(caps.inst_depth, 4);
    /* Every other reply wrong: no two consecutive reads agree within four. */
    c.replies = 0;
    c.mask = 0x5;
    CHECK_EQ(kt_unit_caps(&d, (kt_coord){1, 2}, &caps, &present), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "no two of 4 reads agreed");
    CHECK_EQ(c.replies, 4);
    ktsim_destroy(s);
}

typedef struct prog_log {
    uint32_t off[64];
    int n;
} prog_log;

static void on_trace(void *user, bool write, uint64_t addr, size_t len, uint64_t first)
{
    (void)first;
    prog_log *l = user;
    uint32_t off = (uint32_t)(addr - 0x10000000);
    if (write && len == 8 && off >= KT_PROG_DST && off <= KT_PROG_BASE && l->n < 64)
        l->off[l->n++] = off;
}

/* Spec §2.3: BASE, LEN, DST, CRED, KICK — each write present on every dispatch, even when a
 * second dispatch repeats LEN and DST unchanged (an elided LEN launches nothing pre-strobe). */
static void test_never_elided(void)
{
    ktsim *s = preset("default");
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), 0x10000000, NULL), NPK_OK);
    kt_flit prog[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(kt_test_inst(&prog[i], KT_TU_RETIRE, 0, 0, 2, i % 2 == 1), NPK_OK);
    CHECK_EQ(kt_stage(&d, 0, prog, 4), NPK_OK);
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 4}, "TU"};
    prog_log log = {{0}, 0};
    d.t->trace = on_trace;
    d.t->trace_user = &log;
    kt_ticket tk;
    for (unsigned base = 0; base < 4; base += 2) {
        CHECK_EQ(kt_dispatch(&d, &tu, base, 2, 0, &tk), NPK_OK);
        CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
    }
    const uint32_t want[] = {KT_PROG_BASE, KT_PROG_LEN, KT_PROG_DST, KT_PROG_CRED, KT_PROG_KICK};
    CHECK_EQ(log.n, 10);
    for (int i = 0; i < log.n && i < 10; i++)
        CHECK_EQ(log.off[i], want[i % 5]);
    d.t->trace = NULL;
    ktsim_destroy(s);
}

/* A unit that holds its instruction: credit 1 for a program of 3 leaves the stream starved —
 * PROG_STAT run=1, flits left, credit 0 — which the wait names; the mailbox refuses to kick
 * while the program runs, since TX_KICK would be silently ignored. */
static void test_starved(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    CHECK_EQ(ktsim_unit_set(&c.units[2], "latency", 1u << 24), NPK_OK);
    ktsim *s = make(&c);
    kt_options o = {0};
    o.poll_budget = 200;
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    kt_flit prog[3];
    for (int i = 0; i < 3; i++) /* latency 0 in the payload: the preset's */
        CHECK_EQ(kt_test_inst(&prog[i], KT_TU_RETIRE, 0, 0, 4, i == 2), NPK_OK);
    CHECK_EQ(kt_stage(&d, 0, prog, 3), NPK_OK);
    kt_unit tu = {{1, 2}, {0x5455, 4, 1, 4}, "TU"};
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &tu, 0, 3, 1, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_ETIMEDOUT);
    const char *e = npk_last_error();
    CHECK_STR_HAS(e, "0 of 3 completions");
    CHECK_STR_HAS(e, "run=1 flits_left=2 credit=0 (a starved stream");
    CHECK(strstr(e, "never addressed") == NULL); /* it was: one flit went out */
    kt_flit req;
    kt_flit_ctrl_request(&req, (kt_coord){1, 1}, (kt_coord){0, 0}, 0, 1);
    CHECK_EQ(kt_mailbox_send(&d, &req), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "PROG_STAT.run=1");
    /* Nothing dispatched at all: the count never moved and nothing is running. */
    kt_unit sx = {{2, 1}, {0x5358, 4, 0, 8}, "SX"};
    kt_ticket none = {sx.at, 0, 1, 1, 0, 0};
    CHECK_EQ(kt_wait(&d, &none, NULL), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "never addressed");
    ktsim_destroy(s);
}

/* Pre-strobe, two programs back to back on different nodes: a late INST_COMPLETE from the first,
 * arriving between the second's BASE write (credit zeroed) and its DST write, would release the
 * dispatch PROG_LEN fired while PROG_DST read 0 — the second program's first flit lost. The
 * driver settles earlier programs' credit returns first; swept over the first program's pace. */
static void test_back_to_back(void)
{
    unsigned bad = 0;
    for (unsigned lat = 1; lat < 200; lat += 3) {
        ktsim_config c;
        CHECK_EQ(ktsim_preset_load("mesh2x2", &c), NPK_OK);
        c.gen = KTSIM_GEN_PRESTROBE;
        ktsim *s = make(&c);
        kt_options o = {0};
        o.poll_budget = 3000;
        kt_dev d;
        CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
        kt_flit p[8];
        for (int i = 0; i < 8; i++)
            CHECK_EQ(kt_test_inst(&p[i], KT_TU_RETIRE, (uint16_t)(i < 4 ? lat : 1), 0, 3, i == 3 || i == 7), NPK_OK);
        CHECK_EQ(kt_stage(&d, 0, p, 8), NPK_OK);
        kt_unit a = {{1, 2}, {0x5455, 4, 1, 4}, "TU"}, b = {{2, 2}, {0x5455, 4, 1, 16}, "TU"};
        kt_ticket ta, tb;
        bad += kt_dispatch(&d, &a, 0, 4, 0, &ta) || kt_dispatch(&d, &b, 4, 4, 0, &tb) || kt_wait(&d, &ta, NULL) ||
               kt_wait(&d, &tb, NULL);
        ktsim_destroy(s);
    }
    CHECK_EQ(bad, 0);
}

int main(void)
{
    test_back_to_back();
    test_routing();
    test_clamp_neighbour();
    test_stale_drain();
    test_two_agreeing_reads();
    test_never_elided();
    test_starved();
    return check_done();
}
