/* SPDX-License-Identifier: MIT */
/* The compute-unit shell (spec §1, facts §1.3 and §2.2) driven cycle by cycle with a scripted
 * unit behind it: one instruction in flight, completion addressed to the CU_INST's source with
 * its txn, completion priority fault > batch > instruction, an exec_done with nothing in flight
 * counted but not signalled, the instruction FIFO refusing input when full, CU_CTRL answered
 * inside the shell (indices above 3 read zero, the value snapshotted at acceptance, a second
 * request discarded while one is pending), output priority signal > reply > unit traffic, the
 * counters' 32-bit wrap and their reset, and the test unit's latency. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ktsim/shell.h"
#include "npukit/kt_regs.h"

/* ---- a scripted unit ---- */
typedef struct script {
    bool ready;
    unsigned issued;
    kt_flit last_inst;
    bool done_now, fault;
    uint32_t result;
    bool send_now;
    kt_flit send;
} script;

static script S;

static void *sc_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    (void)cfg;
    (void)mem;
    return &S;
}
static void sc_destroy(void *u) { (void)u; }
static bool sc_ready(void *u) { return ((script *)u)->ready; }
static void sc_issue(void *u, const kt_flit *inst)
{
    script *s = u;
    s->issued++;
    s->last_inst = *inst;
}
static void sc_tick(void *u, ksim_shell *sh)
{
    script *s = u;
    if (s->done_now) {
        s->done_now = false;
        ksim_shell_done(sh, s->result, s->fault);
    }
    if (s->send_now && ksim_shell_send(sh, &s->send))
        s->send_now = false;
}
static bool sc_recv(void *u, const kt_flit *f)
{
    (void)u;
    (void)f;
    return true;
}
static uint64_t sc_dbg(void *u)
{
    (void)u;
    return 0xDB6DB6DB6DB6DB6Dull;
}
static const ksim_unit_ops script_ops = {.kind = "script",
                                         .default_type = 0x5343,
                                         .create = sc_create,
                                         .destroy = sc_destroy,
                                         .ready = sc_ready,
                                         .issue = sc_issue,
                                         .tick = sc_tick,
                                         .recv = sc_recv,
                                         .dbg = sc_dbg};

/* ---- harness ---- */
static const kt_coord AT = {2, 1}, ORC = {0, 1}, HOST = {0, 0};
static uint64_t cyc;

static ksim_shell *make(uint16_t depth, uint32_t reply_delay, const ksim_unit_ops *ops)
{
    memset(&S, 0, sizeof S);
    S.ready = true;
    ktsim_unit_cfg c = {0};
    c.at = AT;
    c.version = 4;
    c.n_buffers = 2;
    c.inst_depth = depth;
    c.reply_delay = reply_delay;
    snprintf(c.kind, sizeof c.kind, "%s", ops->kind);
    if (!strcmp(ops->kind, "test"))
        CHECK_EQ(ktsim_unit_set(&c, "latency", 16), NPK_OK); /* the test unit's own setting */
    ksim_shell *sh = ksim_shell_create(&c, ops, ORC, 16, 0); /* FIFOs of exactly DEPTH */
    /* A shell learns the cycle from its tick, as it does in the mesh (endpoints tick first). */
    ksim_shell_endpoint.tick(sh, ++cyc);
    return sh;
}

static void tick(ksim_shell *sh, int n)
{
    while (n--)
        ksim_shell_endpoint.tick(sh, ++cyc);
}

static bool offer_inst(ksim_shell *sh, uint8_t txn, bool last, uint32_t payload)
{
    kt_flit f = {{payload, 0, 0, 0, 0}};
    kt_header h = {AT, ORC, KT_T_CU_INST, txn, last, 0};
    kt_header_put(&f, &h);
    return ksim_shell_endpoint.offer(sh, &f);
}

static bool offer_ctrl(ksim_shell *sh, uint8_t index, uint8_t txn)
{
    kt_flit f;
    kt_flit_ctrl_request(&f, AT, HOST, index, txn);
    return ksim_shell_endpoint.offer(sh, &f);
}

/* Take the output register if it holds a flit. */
static bool take(ksim_shell *sh, kt_flit *f)
{
    const kt_flit *o = ksim_shell_endpoint.out_peek(sh);
    if (!o)
        return false;
    *f = *o;
    ksim_shell_endpoint.out_pop(sh);
    return true;
}

/* A CU_CTRL read answered within `budget` cycles (the output drained meanwhile). */
static uint64_t ctrl(ksim_shell *sh, uint8_t index, int budget)
{
    CHECK(offer_ctrl(sh, index, 0x99));
    kt_flit f;
    for (int i = 0; i < budget; i++) {
        tick(sh, 1);
        if (take(sh, &f) && kt_header_get(&f).type == KT_T_CU_CTRL) {
            CHECK_EQ(kt_ctrl_get(&f).index, index);
            return kt_ctrl_get(&f).value;
        }
    }
    CHECK(!"no CU_CTRL reply");
    return ~0ull;
}

static void expect_signal(ksim_shell *sh, uint8_t code, uint32_t arg, uint8_t txn)
{
    kt_flit f;
    tick(sh, 1);
    CHECK(take(sh, &f));
    kt_header h = kt_header_get(&f);
    CHECK_EQ(h.type, KT_T_CU_SIGNAL);
    CHECK(kt_coord_eq(h.dst, ORC)); /* addressed to the CU_INST's source */
    CHECK(kt_coord_eq(h.src, AT));
    CHECK_EQ(h.txn, txn); /* the program's txn in every completion's header */
    kt_signal s = kt_signal_get(&f);
    CHECK_EQ(s.code, code);
    CHECK_EQ(s.arg, arg);
}

static void test_in_flight_and_priority(void)
{
    ksim_shell *sh = make(8, 0, &script_ops);
    CHECK(offer_inst(sh, 7, false, 0xA));
    CHECK(offer_inst(sh, 7, false, 0xB));
    CHECK(offer_inst(sh, 7, true, 0xC));
    CHECK(offer_inst(sh, 7, true, 0xD));
    tick(sh, 20);
    CHECK_EQ(S.issued, 1); /* one instruction in flight, however ready the unit says it is */
    CHECK_EQ(S.last_inst.w[0], 0xA);
    kt_cu_status st = kt_cu_status_decode(ctrl(sh, KT_CU_STATUS, 4));
    CHECK(st.busy);
    CHECK(!st.error); /* tied to zero */
    CHECK_EQ(st.inst_space, 8 - 3);
    /* Plain completion: INST_COMPLETE with exec_result. */
    S.result = 0x55;
    S.done_now = true;
    expect_signal(sh, KT_SIG_INST_COMPLETE, 0x55, 7);
    tick(sh, 2);
    CHECK_EQ(S.issued, 2);
    /* A fault wins over an ordinary completion: FAULT with exec_result. */
    S.result = 0x66;
    S.fault = true;
    S.done_now = true;
    expect_signal(sh, KT_SIG_FAULT, 0x66, 7);
    tick(sh, 2);
    /* The last instruction: BATCH_COMPLETE carries the txn; exec_result is discarded. */
    S.result = 0x77;
    S.fault = false;
    S.done_now = true;
    expect_signal(sh, KT_SIG_BATCH_COMPLETE, 7, 7);
    tick(sh, 2);
    /* A fault on a last instruction: fault > batch. */
    S.result = 0x88;
    S.fault = true;
    S.done_now = true;
    expect_signal(sh, KT_SIG_FAULT, 0x88, 7);
    tick(sh, 5);
    CHECK_EQ(S.issued, 4);
    st = kt_cu_status_decode(ctrl(sh, KT_CU_STATUS, 4));
    CHECK(!st.busy);
    CHECK_EQ(st.inst_space, 8);
    /* An exec_done with nothing in flight: counted as retired, no completion, no signal. */
    kt_cu_counters c0 = kt_cu_counters_decode(ctrl(sh, KT_CU_COUNTERS, 4));
    CHECK_EQ(c0.retired, 4);
    S.fault = false;
    S.done_now = true;
    tick(sh, 10);
    kt_flit f;
    CHECK(!take(sh, &f));
    CHECK_EQ(kt_cu_counters_decode(ctrl(sh, KT_CU_COUNTERS, 4)).retired, 5);
    ksim_shell_destroy(sh);
}

/* The instruction FIFO of inst_depth entries; full, the shell refuses every inbound flit
 * (noc_in_busy = inst_full | recv_full), which is how over-dispatch stalls a link. */
static void test_fifo_full(void)
{
    ksim_shell *sh = make(3, 0, &script_ops);
    S.ready = false; /* the datapath takes nothing */
    CHECK(offer_inst(sh, 1, false, 1));
    CHECK(offer_inst(sh, 1, false, 2));
    tick(sh, 3);
    CHECK_EQ(kt_cu_status_decode(ctrl(sh, KT_CU_STATUS, 4)).inst_space, 1);
    CHECK(offer_inst(sh, 1, false, 3));
    CHECK(!offer_inst(sh, 1, false, 4));
    CHECK(!offer_ctrl(sh, 0, 1));
    kt_flit data = {{0}};
    kt_header h = {AT, ORC, KT_T_MEM_RD_RESP, 0, true, 0};
    kt_header_put(&data, &h);
    CHECK(!ksim_shell_endpoint.offer(sh, &data));
    /* One instruction issued frees one entry. */
    S.ready = true;
    tick(sh, 2);
    CHECK_EQ(S.issued, 1);
    CHECK(offer_inst(sh, 1, false, 4));
    CHECK(!offer_inst(sh, 1, false, 5));
    ksim_shell_destroy(sh);
}

static void test_ctrl_block(void)
{
    ksim_shell *sh = make(32, 0, &script_ops);
    /* CU_CAPS from the parameters; the spec's worked value at INST_DEPTH 32 is
     * 0x....0420_0200_0000 for version 4 and 2 buffers. */
    CHECK_EQ(ctrl(sh, KT_CU_CAPS, 4), 0x5343042002000000ull);
    CHECK_EQ(ctrl(sh, KT_CU_DBG, 4), 0xDB6DB6DB6DB6DB6Dull); /* the unit's dbg_ctr verbatim */
    const uint8_t reserved[] = {4, 5, 0x10, 0x80, 0xFF};
    for (size_t i = 0; i < sizeof reserved; i++)
        CHECK_EQ(ctrl(sh, reserved[i], 4), 0); /* 4-255 return 64'd0 */
    ksim_shell_destroy(sh);
}

/* One request in flight: a second arriving while a reply is pending is accepted and its index
 * discarded; the pending reply is unaffected. The value is snapshotted at acceptance. */
static void test_ctrl_one_in_flight(void)
{
    ksim_shell *sh = make(32, 40, &script_ops);
    CHECK(offer_ctrl(sh, KT_CU_COUNTERS, 0x11));
    tick(sh, 5);
    S.done_now = true; /* retires (nothing in flight) after the snapshot */
    tick(sh, 1);
    CHECK(offer_ctrl(sh, KT_CU_CAPS, 0x12)); /* accepted... */
    kt_flit f, replies[4];
    int n = 0;
    for (int i = 0; i < 200; i++) {
        tick(sh, 1);
        if (take(sh, &f) && n < 4)
            replies[n++] = f;
    }
    CHECK_EQ(n, 1); /* ...and discarded */
    if (n) {
        kt_header h = kt_header_get(&replies[0]);
        kt_ctrl c = kt_ctrl_get(&replies[0]);
        CHECK(kt_coord_eq(h.dst, HOST));
        CHECK(kt_coord_eq(h.src, AT));
        CHECK_EQ(h.txn, 0x11);
        CHECK(h.last);
        CHECK_EQ(c.op, KT_CTRL_OP_REPLY);
        CHECK_EQ(c.index, KT_CU_COUNTERS);
        CHECK_EQ(kt_cu_counters_decode(c.value).retired, 0); /* the value at acceptance */
    }
    /* Once answered, the next request is served. */
    CHECK_EQ(kt_cu_counters_decode(ctrl(sh, KT_CU_COUNTERS, 100)).retired, 1);
    ksim_shell_destroy(sh);
}

/* Output priority: CU_SIGNAL > CU_CTRL reply > the unit's own traffic. */
static void test_output_priority(void)
{
    ksim_shell *sh = make(8, 0, &script_ops);
    CHECK(offer_inst(sh, 3, false, 1));
    CHECK(offer_inst(sh, 3, false, 2));
    tick(sh, 2);
    S.done_now = true;
    tick(sh, 2); /* the first signal now holds the output register (not taken) */
    CHECK(offer_ctrl(sh, KT_CU_CAPS, 0x21));
    memset(&S.send, 0, sizeof S.send);
    kt_header uh = {ORC, AT, KT_T_MEM_RD_REQ, 0x5, true, 0};
    kt_header_put(&S.send, &uh);
    S.send_now = true;
    S.done_now = true; /* the second instruction retires: a second signal queues */
    tick(sh, 3);
    uint8_t order[4];
    int n = 0;
    kt_flit f;
    for (int i = 0; i < 20 && n < 4; i++) {
        if (take(sh, &f))
            order[n++] = kt_header_get(&f).type;
        tick(sh, 1);
    }
    CHECK_EQ(n, 4);
    CHECK_EQ(order[0], KT_T_CU_SIGNAL);
    CHECK_EQ(order[1], KT_T_CU_SIGNAL);
    CHECK_EQ(order[2], KT_T_CU_CTRL);
    CHECK_EQ(order[3], KT_T_MEM_RD_REQ);
    ksim_shell_destroy(sh);
}

/* Both counters are 32 bits and wrap; only resetn clears them. */
static void test_counters(void)
{
    ksim_shell *sh = make(8, 0, &script_ops);
    tick(sh, 10);
    CHECK_EQ(ctrl(sh, KT_CU_COUNTERS, 4), 0); /* idle cycles are not busy cycles */
    ksim_shell_poke_counters(sh, 0xFFFFFFFFu, 0xFFFFFFFFu);
    CHECK(offer_inst(sh, 1, false, 1));
    tick(sh, 1);
    S.done_now = true;
    tick(sh, 1);
    kt_flit f;
    CHECK(take(sh, &f));
    kt_cu_counters c = kt_cu_counters_decode(ctrl(sh, KT_CU_COUNTERS, 4));
    CHECK_EQ(c.retired, 0);     /* 0xFFFFFFFF + 1 */
    CHECK_EQ(c.busy_cycles, 0); /* 0xFFFFFFFF + one busy cycle */
    CHECK_EQ(kt_counter_delta32(0xFFFFFFFFu, c.retired), 1);
    ksim_shell_poke_counters(sh, 9, 9);
    ksim_shell_reset(sh);
    CHECK_EQ(ctrl(sh, KT_CU_COUNTERS, 4), 0);
    ksim_shell_destroy(sh);
}

/* The test unit retires each instruction after N cycles (its payload's [239:224], or the preset
 * latency) with the result in [31:0]; op 2 faults. */
static void test_unit_latency(void)
{
    for (int op = 1; op <= 2; op++) {
        ksim_shell *sh = make(8, 0, ksim_unit_find("test"));
        kt_flit inst = {{0}};
        kt_flit_set_bits(&inst, 252, 4, (uint64_t)op);
        kt_flit_set_bits(&inst, 224, 16, 10);
        kt_flit_set_bits(&inst, 0, 32, 0xC0FFEE);
        kt_header h = {AT, ORC, KT_T_CU_INST, 2, false, 0};
        kt_header_put(&inst, &h);
        CHECK(ksim_shell_endpoint.offer(sh, &inst));
        int cycles = 0;
        kt_flit f;
        while (cycles < 100) {
            tick(sh, 1);
            cycles++;
            if (take(sh, &f))
                break;
        }
        CHECK_EQ(cycles, 10);
        kt_signal s = kt_signal_get(&f);
        CHECK_EQ(s.code, op == 1 ? KT_SIG_INST_COMPLETE : KT_SIG_FAULT);
        CHECK_EQ(s.arg, 0xC0FFEE);
        ksim_shell_destroy(sh);
    }
}

int main(void)
{
    test_in_flight_and_priority();
    test_fifo_full();
    test_ctrl_block();
    test_ctrl_one_in_flight();
    test_output_priority();
    test_counters();
    test_unit_latency();
    return check_done();
}
