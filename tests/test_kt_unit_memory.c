/* SPDX-License-Identifier: MIT */
/* A unit type written outside the library that really moves data over the mesh: a "scale" unit
 * ('SC') reads n 32-bit words from DRAM with one MEM_RD_REQ, multiplies each by its preset
 * setting `factor`, writes them back with one MEM_WR_REQ burst, and retires only when the memory
 * agent's MEM_WR_ACK has come back (a write fence, which saxpy does not have). Only public
 * headers: npukit/ktsim_unit.h is everything a unit type needs (docs/kt-units.md walks through
 * this file).
 *
 * The tests run it through the driver (stage, dispatch, wait) and check DRAM against a CPU
 * reference for n = 1, 13, 64 (a whole last beat, a partial one, the most one burst carries),
 * that words past n and past the burst are left alone, that n = 0 retires without touching
 * memory, that bad instructions fault with the unit's codes, that its timing key moves
 * busy_cycles by exactly n per cycle, and that CU_DBG counts the words scaled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"
#include "npukit/ktsim_unit.h"

/* ---- the unit type ---- */

/* Instruction: [255:252] op (1 = SCALE), [239:224] n words, [223:184] source, [183:144]
 * destination (40-bit inside addresses, 32-byte aligned). */
static const kt_field sc_layout[] = {
    {"op", 252, 4}, {"n", 224, 16}, {"src", 184, 40}, {"dst", 144, 40}, {NULL, 0, 0}};
enum {
    SC_OP_SCALE = 1,
    SC_TYPE = 0x5343,                       /* 'SC' */
    SC_MAX_N = (KT_MEM_WR_MAX_LEN + 1) * 8, /* one write burst: 8 beats of 8 words */
    SC_FAULT_OP = 0x5C01,
    SC_FAULT_N = 0x5C02,
    SC_TXN_RD = 0x41,
    SC_TXN_WR = 0x42,
};
enum { SC_S_FACTOR };   /* its settings, by position in sc_settings */
enum { SC_T_PER_WORD }; /* its timing keys, by position in sc_timing */

typedef enum {
    SC_IDLE,
    SC_READ,      /* send the read request */
    SC_WAIT_DATA, /* collect the read response beats */
    SC_COMPUTE,   /* per_word cycles a word, then scale */
    SC_WRITE,     /* send the write request */
    SC_DATA,      /* send the write data beats */
    SC_WAIT_ACK,  /* until MEM_WR_ACK */
    SC_RETIRE,    /* exec_done */
} sc_state;

typedef struct scale_unit {
    kt_coord mem; /* the memory agent the unit's requests go to */
    uint32_t factor, per_word;
    sc_state state;
    uint32_t wait, n, beats, got, sent, fault;
    uint64_t src, dst, scaled;
    uint8_t data[SC_MAX_N * 4]; /* the beats as read: lanes past n go back unchanged */
} scale_unit;

static void *sc_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    scale_unit *u = calloc(1, sizeof *u);
    if (u) {
        u->mem = mem;
        u->factor = cfg->setting[SC_S_FACTOR];
        u->per_word = cfg->timing.value[SC_T_PER_WORD];
    }
    return u;
}
static void sc_destroy(void *u) { free(u); }
static void sc_reset(void *p) { ((scale_unit *)p)->state = SC_IDLE; }
static bool sc_ready(void *p) { return ((scale_unit *)p)->state == SC_IDLE; }

static void sc_issue(void *p, const kt_flit *inst)
{
    scale_unit *u = p;
    u->n = (uint32_t)kt_field_get(inst, &sc_layout[1]);
    u->src = kt_field_get(inst, &sc_layout[2]);
    u->dst = kt_field_get(inst, &sc_layout[3]);
    u->fault = kt_field_get(inst, &sc_layout[0]) != SC_OP_SCALE ? SC_FAULT_OP
               : u->n > SC_MAX_N                                ? SC_FAULT_N
                                                                : 0;
    u->beats = (u->n + 7) / 8;
    u->got = u->sent = 0;
    u->wait = 0;
    /* a fault or n = 0 retires on the next tick without touching memory */
    u->state = u->fault || !u->n ? SC_RETIRE : SC_READ;
}

/* A beat's 32 data bytes and the flit's four little-endian payload words. */
static void beat_get(const kt_flit *f, uint8_t *out)
{
    for (int i = 0; i < 32; i++)
        out[i] = (uint8_t)(f->w[i / 8] >> (8 * (i % 8)));
}
static void beat_put(kt_flit *f, const uint8_t *in)
{
    for (int i = 0; i < 32; i++)
        f->w[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
}

/* A memory request (MEM_RD_REQ or MEM_WR_REQ) for the unit's beats at addr. */
static bool request(scale_unit *u, ksim_shell *sh, kt_flit_type type, uint8_t txn, uint64_t addr)
{
    kt_flit f = {{0}};
    kt_mem_req r = {.addr = addr, .len = (uint8_t)(u->beats - 1)};
    kt_mem_req_put(&f, &r);
    kt_header h = {u->mem, ksim_shell_coord(sh), type, txn, true, 0};
    kt_header_put(&f, &h);
    return ksim_shell_send(sh, &f);
}

static void sc_tick(void *p, ksim_shell *sh)
{
    scale_unit *u = p;
    if (u->wait) {
        u->wait--;
        return;
    }
    switch (u->state) {
    case SC_IDLE: break;
    case SC_READ:
        if (request(u, sh, KT_T_MEM_RD_REQ, SC_TXN_RD, u->src))
            u->state = SC_WAIT_DATA;
        break;
    case SC_WAIT_DATA:
        if (u->got == u->beats) {
            u->state = SC_COMPUTE;
            u->wait = u->n * u->per_word;
        }
        break;
    case SC_COMPUTE:
        for (uint32_t i = 0; i < u->n; i++) {
            uint8_t *b = u->data + 4 * i; /* DRAM is little-endian */
            uint32_t w =
                (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            w *= u->factor; /* 32-bit wrap-around */
            for (int k = 0; k < 4; k++)
                b[k] = (uint8_t)(w >> (8 * k));
        }
        u->state = SC_WRITE;
        break;
    case SC_WRITE:
        if (request(u, sh, KT_T_MEM_WR_REQ, SC_TXN_WR, u->dst))
            u->state = SC_DATA;
        break;
    case SC_DATA: {
        kt_flit f = {{0}};
        beat_put(&f, u->data + 32 * u->sent);
        kt_header h = {u->mem,    ksim_shell_coord(sh),    KT_T_MEM_WR_DATA,
                       SC_TXN_WR, u->sent + 1 == u->beats, 0};
        kt_header_put(&f, &h);
        if (ksim_shell_send(sh, &f) && ++u->sent == u->beats)
            u->state = SC_WAIT_ACK;
        break;
    }
    case SC_WAIT_ACK: break; /* recv() moves on */
    case SC_RETIRE:
        if (!u->fault)
            u->scaled += u->n;
        u->state = SC_IDLE;
        ksim_shell_done(sh, u->fault ? u->fault : u->n, u->fault != 0);
        break;
    }
}

static bool sc_recv(void *p, const kt_flit *f)
{
    scale_unit *u = p;
    kt_header h = kt_header_get(f);
    if (h.type == KT_T_MEM_RD_RESP && h.txn == SC_TXN_RD && u->state == SC_WAIT_DATA &&
        u->got < u->beats)
        beat_get(f, u->data + 32 * u->got++);
    else if (h.type == KT_T_MEM_WR_ACK && h.txn == SC_TXN_WR && u->state == SC_WAIT_ACK)
        u->state = SC_RETIRE; /* the write has landed */
    return true;              /* anything else is dropped */
}

static uint64_t sc_dbg(void *p) { return ((scale_unit *)p)->scaled; }
static bool sc_idle(void *p) { return ((scale_unit *)p)->state == SC_IDLE; }

static const ktsim_unit_key sc_settings[] = {[SC_S_FACTOR] = {"factor", 2, 0, 1000},
                                             {NULL, 0, 0, 0}};
static const ktsim_unit_key sc_timing[] = {[SC_T_PER_WORD] = {"per_word", 1, 0, 100},
                                           {NULL, 0, 0, 0}};

static const ksim_unit_ops scale_type = {
    .kind = "scale",
    .default_type = SC_TYPE,
    .create = sc_create,
    .destroy = sc_destroy,
    .reset = sc_reset,
    .ready = sc_ready,
    .issue = sc_issue,
    .tick = sc_tick,
    .recv = sc_recv,
    .dbg = sc_dbg,
    .idle = sc_idle,
    .layout = sc_layout,
    .settings = sc_settings,
    .timing = sc_timing,
    .timing_source = "inferred: an example type, one cycle a word",
};

/* ---- the tests ---- */

enum { SRC = 0x1000, DST = 0x4000, SPAN = 0x400 };

typedef struct run {
    ktsim *s;
    kt_dev d;
    kt_unit unit;
    ktsim_config c;
} run;

/* A one-router mesh with the memory agent at (0,1) and a scale unit at (1,1). */
static bool start(run *r, const char *extra)
{
    char text[512];
    snprintf(text, sizeof text,
             "name scale_mesh\ngrid 1 1\nmem_port 0 1\nunit 1 1 scale version=4 inst_depth=8 "
             "factor=3\n%s",
             extra);
    CHECK_EQ(ktsim_preset_parse(text, "scale", &r->c), NPK_OK);
    r->s = NULL;
    if (ktsim_create(&r->c, &r->s) != NPK_OK) {
        CHECK(!"the scale mesh builds");
        return false;
    }
    CHECK_EQ(kt_open(&r->d, ktsim_transport(r->s), r->c.ctrl_base, NULL), NPK_OK);
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&r->d, &r->unit, 1, &n), NPK_OK);
    CHECK(n == 1 && !strcmp(r->unit.type_text, "SC"));
    /* every word the unit may touch is written first: the model refuses never-written DRAM */
    uint32_t fill[SPAN / 4];
    for (unsigned i = 0; i < SPAN / 4; i++)
        fill[i] = 0x01000000u + i * 0x10001u;
    CHECK_EQ(ktsim_dram_write(r->s, SRC, fill, sizeof fill), NPK_OK);
    for (unsigned i = 0; i < SPAN / 4; i++)
        fill[i] = 0xD5D5D5D5u;
    CHECK_EQ(ktsim_dram_write(r->s, DST, fill, sizeof fill), NPK_OK);
    return true;
}

static kt_flit scale_inst(unsigned op, uint32_t n, uint64_t src, uint64_t dst)
{
    kt_flit f;
    memset(&f, 0, sizeof f);
    CHECK_EQ(kt_field_put(&f, &sc_layout[0], op), NPK_OK);
    CHECK_EQ(kt_field_put(&f, &sc_layout[1], n), NPK_OK);
    CHECK_EQ(kt_field_put(&f, &sc_layout[2], src), NPK_OK);
    CHECK_EQ(kt_field_put(&f, &sc_layout[3], dst), NPK_OK);
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, 1, false, 0};
    CHECK_EQ(kt_header_put(&f, &h), NPK_OK);
    return f;
}

/* One instruction through the driver; its NODE_STATUS. */
static npk_status dispatch(run *r, kt_flit f, kt_node_status *st)
{
    CHECK_EQ(kt_stage(&r->d, 0, &f, 1), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&r->d, &r->unit, 0, 1, 0, &tk), NPK_OK);
    kt_wait_result w = {0};
    npk_status s = kt_wait(&r->d, &tk, &w);
    *st = w.last;
    return s;
}

static uint64_t ctrl(run *r, uint8_t index)
{
    uint64_t v = 0;
    bool present = false;
    CHECK_EQ(kt_ctrl_read(&r->d, r->unit.at, index, &v, &present), NPK_OK);
    CHECK(present);
    return v;
}

/* DRAM after one SCALE of n words against the CPU's reference: dst[i] = 3 * src[i] for i < n,
 * the rest of the burst's last beat copied from src as read, everything after it untouched. */
static void test_scale(uint32_t n)
{
    run r;
    if (!start(&r, ""))
        return;
    kt_node_status st;
    CHECK_EQ(dispatch(&r, scale_inst(SC_OP_SCALE, n, SRC, DST), &st), NPK_OK);
    CHECK_EQ(st.code, KT_SIG_INST_COMPLETE);
    CHECK_EQ(st.arg, n);
    uint32_t src[SPAN / 4], dst[SPAN / 4];
    CHECK_EQ(ktsim_dram_read(r.s, SRC, src, sizeof src), NPK_OK);
    CHECK_EQ(ktsim_dram_read(r.s, DST, dst, sizeof dst), NPK_OK);
    uint32_t burst = (n + 7) / 8 * 8;
    for (uint32_t i = 0; i < SPAN / 4; i++) {
        uint32_t want = i < n ? src[i] * 3u : i < burst ? src[i] : 0xD5D5D5D5u;
        if (dst[i] != want) {
            fprintf(stderr, "  n=%u word %u: 0x%08x, want 0x%08x\n", n, i, dst[i], want);
            CHECK_EQ(dst[i], want);
            break;
        }
    }
    CHECK_EQ(ctrl(&r, KT_CU_DBG), n); /* words scaled */
    CHECK(ktsim_fault(r.s) == NULL);
    ktsim_destroy(r.s);
}

/* n = 0 retires at once, writing nothing; a bad opcode and n past one burst fault with the
 * unit's codes, and the unit takes the next instruction. */
static void test_edges_and_faults(void)
{
    run r;
    if (!start(&r, ""))
        return;
    kt_node_status st;
    CHECK_EQ(dispatch(&r, scale_inst(SC_OP_SCALE, 0, SRC, DST), &st), NPK_OK);
    CHECK_EQ(st.arg, 0);
    CHECK_EQ(dispatch(&r, scale_inst(7, 8, SRC, DST), &st), NPK_EFAULT);
    CHECK_EQ(st.code, KT_SIG_FAULT);
    CHECK_EQ(st.arg, SC_FAULT_OP);
    CHECK_EQ(dispatch(&r, scale_inst(SC_OP_SCALE, SC_MAX_N + 1, SRC, DST), &st), NPK_EFAULT);
    CHECK_EQ(st.arg, SC_FAULT_N);
    uint32_t dst[SPAN / 4];
    CHECK_EQ(ktsim_dram_read(r.s, DST, dst, sizeof dst), NPK_OK);
    for (unsigned i = 0; i < SPAN / 4; i++)
        CHECK_EQ(dst[i], 0xD5D5D5D5u);
    CHECK_EQ(ctrl(&r, KT_CU_DBG), 0);
    CHECK_EQ(dispatch(&r, scale_inst(SC_OP_SCALE, 8, SRC, DST), &st), NPK_OK);
    CHECK_EQ(st.arg, 8);
    ktsim_destroy(r.s);
}

/* The preset's `timing scale per_word=N` line: one more cycle a word is n more busy cycles. */
static uint32_t busy_cycles(const char *extra, uint32_t n)
{
    run r;
    if (!start(&r, extra))
        return 0;
    kt_node_status st;
    CHECK_EQ(dispatch(&r, scale_inst(SC_OP_SCALE, n, SRC, DST), &st), NPK_OK);
    uint32_t busy = kt_cu_counters_decode(ctrl(&r, KT_CU_COUNTERS)).busy_cycles;
    ktsim_destroy(r.s);
    return busy;
}

static void test_timing_row(void)
{
    uint32_t base = busy_cycles("", 40);
    CHECK_EQ(busy_cycles("timing scale per_word=3\n", 40), base + 2 * 40);
    CHECK_EQ(busy_cycles("timing scale per_word=0\n", 40), base - 40);
}

int main(void)
{
    CHECK_EQ(ksim_unit_register(&scale_type), NPK_OK);
    test_scale(1);
    test_scale(13);
    test_scale(SC_MAX_N);
    test_edges_and_faults();
    test_timing_row();
    return check_done();
}
