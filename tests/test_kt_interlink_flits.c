/* SPDX-License-Identifier: MIT */
/* Compute-unit flits across the interlink (spec §4, §4.1; mag_ilink): a flit marked for another
 * mesh leaves by the sending mesh's memory-agent port, crosses, and enters the far mesh at the
 * unit its txn names, src kept. Checked on a two-mesh card:
 *   - a CU_CTRL read of a unit in mesh 1 sent from mesh 0's mailbox: the reply, addressed to the
 *     src coordinate, lands in mesh 1's mailbox with the unit's CU_CAPS, and mesh 0's stays empty;
 *   - a saxpy program dispatched from mesh 0's orchestrator to the unit in mesh 1: y in mesh 1's
 *     DRAM against a*x + y computed here, the completions counted by mesh 1's NODE_STATUS and
 *     returning credit to mesh 1's PROG_CRED (n - 1 of them), none in mesh 0;
 *   - the faults: a remote CU_DATA descriptor with ack {0,0} raises ACK0 on the sending node (and
 *     one that names its ack node does not); a remote flit reaching a disabled interlink is
 *     dropped and raises INJ, and nothing arrives;
 *   - the driver's refusals: a program longer than the far unit's inst_depth, a mesh beyond 3, a
 *     coordinate beyond the txn's nibbles;
 *   - the far mesh's entry: by the memory port on the destination's row (mag's inj_port), port 0
 *     when none is, seen in the round trip of a remote CU_CTRL read on two mesh shapes. */
#include <string.h>

#include "check.h"
#include "kt/kt_interlink.h"
#include "ktsim/ktsim_card.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_saxpy.h"

typedef struct rig {
    ktsim_card *c;
    kt_transport *t;
    kt_dev d0, d1;
    kt_coord port; /* mesh 0's memory-agent port 0: where the orchestrator answers */
    kt_unit unit;  /* the saxpy unit of mesh 1 */
} rig;

static bool open_rig(rig *r)
{
    memset(r, 0, sizeof *r);
    ktsim_card_opts o = {2, true, false, 0, 0, 0};
    if (ktsim_card_open_preset("default", false, &o, &r->c) != NPK_OK) {
        fprintf(stderr, "%s\n", npk_last_error());
        CHECK(false);
        return false;
    }
    r->t = ktsim_card_transport(r->c);
    CHECK_EQ(kt_open(&r->d0, r->t, ktsim_card_ctrl_base(r->c, 0), NULL), NPK_OK);
    CHECK_EQ(kt_open(&r->d1, r->t, ktsim_card_ctrl_base(r->c, 1), NULL), NPK_OK);
    r->port = ktsim_get_config(ktsim_card_mesh(r->c, 0))->mem_port[0];
    kt_unit units[16];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&r->d1, units, 16, &n), NPK_OK);
    const kt_unit *sx = kt_find_unit(units, n, KT_SAXPY_TYPE);
    CHECK(sx != NULL);
    if (sx)
        r->unit = *sx;
    return sx != NULL;
}

/* Read mesh m's mailbox until a flit arrives (stepping the card between reads). */
static bool recv_within(rig *r, kt_dev *d, kt_flit *f, unsigned reads)
{
    bool got = false;
    for (unsigned i = 0; i < reads && !got; i++) {
        CHECK_EQ(kt_mailbox_recv(d, f, &got), NPK_OK);
        if (!got)
            ktsim_card_step(r->c, 20);
    }
    return got;
}

static uint8_t faults(rig *r, unsigned mesh)
{
    uint8_t f = 0xFF;
    CHECK_EQ(kt_il_read_faults(r->t, ktsim_card_ctrl_base(r->c, mesh), &f), NPK_OK);
    return f;
}

static void test_ctrl_read_across(rig *r)
{
    uint64_t caps = 0;
    bool present = false;
    CHECK_EQ(kt_ctrl_read(&r->d1, r->unit.at, KT_CU_CAPS, &caps, &present), NPK_OK);
    CHECK(present);
    kt_flit req;
    CHECK_EQ(kt_flit_ctrl_request(&req, r->unit.at, r->port, KT_CU_CAPS, 0x5A), NPK_OK);
    CHECK_EQ(kt_il_mark_remote(&req, 1, r->unit.at, r->port), NPK_OK);
    CHECK_EQ(kt_mailbox_send(&r->d0, &req), NPK_OK);
    kt_flit rep;
    CHECK(recv_within(r, &r->d1, &rep, 200));
    kt_header h = kt_header_get(&rep);
    kt_ctrl c = kt_ctrl_get(&rep);
    CHECK_EQ(h.type, KT_T_CU_CTRL);
    CHECK(kt_coord_eq(h.src, r->unit.at));
    CHECK(kt_coord_eq(h.dst, r->port)); /* the src it was sent with, in mesh 1 */
    CHECK_EQ(h.txn, 0);                 /* the far side clears the txn that carried the coordinate */
    CHECK_EQ(c.op, KT_CTRL_OP_REPLY);
    CHECK_EQ(c.value, caps);
    CHECK(!recv_within(r, &r->d0, &rep, 5));
    CHECK_EQ(faults(r, 0), 0);
    CHECK_EQ(faults(r, 1), 0);
}

static void test_dispatch_across(rig *r)
{
    enum { N = 4, PER = 64, X = 0x10000, Y = 0x20000 };
    float x[N * PER], y[N * PER], want[N * PER], got[N * PER];
    /* Whole numbers: the unit computes in integers, as the RTL does (test_kt_units.c). */
    const float a = 3.0f;
    for (unsigned i = 0; i < N * PER; i++) {
        x[i] = (float)i - 100.0f;
        y[i] = (float)(i % 13) - 5.0f;
        want[i] = a * x[i] + y[i];
    }
    uint64_t mem1 = ktsim_card_mem_base(r->c, 1);
    CHECK_EQ(kt_write_block(r->t, mem1 + X, x, sizeof x), NPK_OK);
    CHECK_EQ(kt_write_block(r->t, mem1 + Y, y, sizeof y), NPK_OK);
    kt_flit prog[N];
    for (unsigned i = 0; i < N; i++)
        CHECK_EQ(kt_saxpy_inst(&prog[i], PER, a, X + i * PER * 4, Y + i * PER * 4, 1, i == N - 1),
                 NPK_OK);
    uint64_t ns0 = 0;
    CHECK_EQ(kt_reg_read(&r->d0, kt_node_status_offset(r->unit.at), &ns0), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_il_dispatch(&r->d0, &r->d1, 1, r->port, &r->unit, 0, prog, N, &tk), NPK_OK);
    kt_wait_result res;
    CHECK_EQ(kt_wait(&r->d1, &tk, &res), NPK_OK);
    /* A completion does not order against the unit's write: read until it has landed. */
    for (int i = 0; i < 50; i++) {
        CHECK_EQ(kt_read_block(r->t, mem1 + Y, got, sizeof got), NPK_OK);
        if (!memcmp(got, want, sizeof got))
            break;
        ktsim_card_step(r->c, 50);
    }
    unsigned bad = 0;
    for (unsigned i = 0; i < N * PER; i++)
        if (got[i] != want[i] && bad++ < 3)
            fprintf(stderr, "  y[%u] = %g, want %g (x %g, y %g)\n", i, got[i], want[i], x[i], y[i]);
    CHECK_EQ(bad, 0);
    uint64_t v;
    CHECK_EQ(kt_reg_read(&r->d1, KT_PROG_STAT, &v), NPK_OK);
    CHECK_EQ(kt_prog_stat_decode(v).credit, N - 1); /* returned to mesh 1, never seeded there */
    CHECK_EQ(kt_reg_read(&r->d0, kt_node_status_offset(r->unit.at), &v), NPK_OK);
    CHECK_EQ(v, ns0); /* mesh 0 heard nothing */
    CHECK_EQ(faults(r, 0), 0);

    /* Refusals: more than the far FIFO holds (credit never comes back), a fifth mesh, a
     * coordinate beyond a nibble. */
    kt_flit many[40];
    for (unsigned i = 0; i < 40; i++)
        many[i] = prog[0];
    kt_unit shallow = r->unit;
    shallow.caps.inst_depth = 8;
    CHECK_EQ(kt_il_dispatch(&r->d0, &r->d1, 1, r->port, &shallow, 0, many, 9, &tk), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "1..8 (its inst_depth");
    kt_flit f = prog[0];
    CHECK_EQ(kt_il_mark_remote(&f, 4, r->unit.at, r->port), NPK_EINVAL);
    CHECK_EQ(kt_il_mark_remote(&f, 1, (kt_coord){16, 1}, r->port), NPK_ELIMIT);
}

static void send_cu_data(rig *r, kt_coord ack)
{
    kt_flit desc = {{0}}, data = {{0}};
    kt_cu_data cd = {0, 0, 0, 0, ack};
    CHECK_EQ(kt_cu_data_put(&desc, &cd), NPK_OK);
    kt_header h = {r->unit.at, r->port, KT_T_CU_DATA, 0, false, 0};
    CHECK_EQ(kt_header_put(&desc, &h), NPK_OK);
    h.last = true;
    CHECK_EQ(kt_header_put(&data, &h), NPK_OK);
    CHECK_EQ(kt_il_mark_remote(&desc, 1, r->unit.at, r->port), NPK_OK);
    CHECK_EQ(kt_il_mark_remote(&data, 1, r->unit.at, r->port), NPK_OK);
    CHECK_EQ(kt_mailbox_send(&r->d0, &desc), NPK_OK);
    CHECK_EQ(kt_mailbox_send(&r->d0, &data), NPK_OK);
    ktsim_card_step(r->c, 300);
}

static void test_faults(rig *r)
{
    uint64_t b0 = ktsim_card_ctrl_base(r->c, 0);
    /* A remote burst naming its ack node: no fault. */
    send_cu_data(r, r->port);
    CHECK_EQ(faults(r, 0), 0);
    /* ack {0,0} would answer "the sender" — a node in the wrong mesh: ACK0 at the sender. */
    send_cu_data(r, (kt_coord){0, 0});
    CHECK_EQ(faults(r, 0), 1u << KT_IL_F_ACK0);
    CHECK_EQ(faults(r, 1), 0);
    CHECK_EQ(kt_il_clear(r->t, b0, false, true), NPK_OK);
    kt_flit drain;
    while (recv_within(r, &r->d1, &drain, 3)) /* whatever the unit answered */
        ;
    /* A disabled interlink takes the flit and drops it: INJ, and nothing arrives. */
    CHECK_EQ(kt_il_enable(r->t, b0, false), NPK_OK);
    kt_flit req;
    CHECK_EQ(kt_flit_ctrl_request(&req, r->unit.at, r->port, KT_CU_CAPS, 1), NPK_OK);
    CHECK_EQ(kt_il_mark_remote(&req, 1, r->unit.at, r->port), NPK_OK);
    CHECK_EQ(kt_mailbox_send(&r->d0, &req), NPK_OK);
    kt_flit rep;
    CHECK(!recv_within(r, &r->d1, &rep, 20));
    CHECK(!recv_within(r, &r->d0, &rep, 5));
    CHECK_EQ(kt_il_enable(r->t, b0, true), NPK_OK);
    CHECK_EQ(faults(r, 0), 1u << KT_IL_F_INJ);
    /* Enabled again, the same flit crosses. */
    CHECK_EQ(kt_mailbox_send(&r->d0, &req), NPK_OK);
    CHECK(recv_within(r, &r->d1, &rep, 200));
}

/* Cycles from a remote CU_CTRL read of `unit` in mesh 1, sent from mesh 0's mailbox, to its
 * reply in mesh 1's receive FIFO (read without bus time, one cycle at a time). */
static uint64_t remote_read_cycles(ktsim_card *c, kt_coord unit)
{
    kt_transport *t = ktsim_card_transport(c);
    kt_dev d0, d1;
    CHECK_EQ(kt_open(&d0, t, ktsim_card_ctrl_base(c, 0), NULL), NPK_OK);
    CHECK_EQ(kt_open(&d1, t, ktsim_card_ctrl_base(c, 1), NULL), NPK_OK);
    kt_coord agent = ktsim_get_config(ktsim_card_mesh(c, 0))->mem_port[0];
    kt_flit req;
    CHECK_EQ(kt_flit_ctrl_request(&req, unit, agent, KT_CU_CAPS, 0x33), NPK_OK);
    CHECK_EQ(kt_il_mark_remote(&req, 1, unit, agent), NPK_OK);
    CHECK_EQ(kt_mailbox_send(&d0, &req), NPK_OK);
    uint64_t sent = ktsim_card_cycle(c), rx = 1ull << 16;
    uint64_t at = ktsim_card_ctrl_base(c, 1) + KT_RX_STATUS;
    for (unsigned i = 0; i < 2000 && rx >> 16 & 1; i++) {
        ktsim_card_step(c, 1);
        CHECK_EQ(ktsim_bus_read64(ktsim_card_mesh(c, 1), at, &rx), NPK_OK);
    }
    CHECK(!(rx >> 16 & 1));
    kt_flit rep;
    bool got = false;
    CHECK_EQ(kt_mailbox_recv(&d1, &rep, &got), NPK_OK);
    CHECK(got && kt_coord_eq(kt_header_get(&rep).src, unit));
    return ktsim_card_cycle(c) - sent;
}

/* Units at (3,1) and (3,3) of a 3x3 router mesh; `two_ports` adds a memory port on row 3. Each
 * read's reply returns to mesh 1's agent at (0,1) by the same route on both shapes, so only the
 * way in differs: with the second port the read of (3,3) enters at (1,3), three routers from the
 * unit; without it at (1,1), five routers away. The read of (3,1) enters at (1,1) either way. */
static void far_entry_cycles(bool two_ports, uint64_t *row1, uint64_t *row3)
{
    ktsim_config cfg;
    CHECK_EQ(ktsim_preset_parse(two_ports ? "grid 1 3\nmem_port 0 1\nmem_port 0 3\n"
                                            "unit 3 1 test\nunit 3 3 test\n"
                                          : "grid 1 3\nmem_port 0 1\n"
                                            "unit 3 1 test\nunit 3 3 test\n",
                                "text", &cfg),
             NPK_OK);
    ktsim_card_opts o = {2, true, false, 0, 0, 0};
    ktsim_card *c = NULL;
    CHECK_EQ(ktsim_card_create(&cfg, &o, &c), NPK_OK);
    if (!c)
        return;
    *row1 = remote_read_cycles(c, (kt_coord){3, 1});
    *row3 = remote_read_cycles(c, (kt_coord){3, 3});
    ktsim_card_destroy(c);
}

static void test_far_entry_by_row(void)
{
    uint64_t one_row1 = 0, one_row3 = 0, two_row1 = 0, two_row3 = 0;
    far_entry_cycles(false, &one_row1, &one_row3);
    far_entry_cycles(true, &two_row1, &two_row3);
    printf("remote CU_CTRL round trip: (3,1) %llu / %llu cycles, (3,3) %llu / %llu cycles "
           "(port 0 only / a port on row 3 too)\n",
           (unsigned long long)one_row1, (unsigned long long)two_row1,
           (unsigned long long)one_row3, (unsigned long long)two_row3);
    CHECK_EQ(two_row1, one_row1);
    CHECK(two_row3 < one_row3);
    /* Two routers fewer on the way in: half of what the longer read costs over the shorter one
     * with port 0 alone (two routers more each way). */
    CHECK_EQ(one_row3 - two_row3, (one_row3 - one_row1) / 2);
}

int main(void)
{
    test_far_entry_by_row();
    rig r;
    if (open_rig(&r)) {
        test_ctrl_read_across(&r);
        test_dispatch_across(&r);
        test_faults(&r);
    }
    if (r.c)
        ktsim_card_destroy(r.c);
    return check_done();
}
