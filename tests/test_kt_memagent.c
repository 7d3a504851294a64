/* SPDX-License-Identifier: MIT */
/* The memory agent (facts §1.8) on a small mesh of probe endpoints: plain reads, streaming reads
 * with peers (entry by entry, destination 0 first, txn = tag + entry with 8-bit wrap, the word in
 * rsvd[1:0], last per entry), entry_words and count defaults, writes with one open write per
 * source matched by source coordinate, len <= 7, acknowledgements; and the host memory window
 * (a write shorter than a 32-byte granule zero-fills the rest of it; reading never-written DRAM
 * is an error, as on the card) through the simulator's transport. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "ktsim/dram.h"
#include "ktsim/memport.h"
#include "ktsim/mesh.h"
#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_saxpy.h"

enum { MAX_LOG = 64 };

/* A probe endpoint: injects queued flits, logs every flit it receives with its arrival cycle. */
typedef struct probe {
    kt_flit out[8];
    unsigned n_out, next_out;
    kt_flit in[MAX_LOG];
    unsigned n_in;
    uint64_t cycle;
} probe;

static bool p_offer(void *ep, const kt_flit *f)
{
    probe *p = ep;
    if (p->n_in < MAX_LOG)
        p->in[p->n_in++] = *f;
    return true;
}
static const kt_flit *p_peek(void *ep)
{
    probe *p = ep;
    return p->next_out < p->n_out ? &p->out[p->next_out] : NULL;
}
static void p_pop(void *ep) { ((probe *)ep)->next_out++; }
static void p_tick(void *ep, uint64_t cycle) { ((probe *)ep)->cycle = cycle; }
static const ksim_endpoint_ops probe_ops = {p_offer, p_peek, p_pop, p_tick};

static char fault_msg[512];
static int faults;
static void on_fault(void *user, const char *msg)
{
    (void)user;
    if (!faults++)
        snprintf(fault_msg, sizeof fault_msg, "%s", msg);
}

static const kt_coord PORT = {0, 1}, A = {1, 1}, B = {2, 1}, C = {1, 2};

typedef struct rig {
    ksim_mesh *mesh;
    ksim_dram *dram;
    ksim_memport *port;
    probe a, b, c;
    uint64_t cycle;
} rig;

static void rig_init(rig *r)
{
    memset(r, 0, sizeof *r);
    faults = 0;
    fault_msg[0] = '\0';
    r->mesh = ksim_mesh_create(1, 2, 8);
    r->dram = ksim_dram_create(1 << 20);
    r->port = ksim_memport_create(PORT, 64, r->dram, NULL, on_fault, NULL);
    CHECK_EQ(ksim_mesh_attach(r->mesh, PORT, &ksim_memport_endpoint, r->port), NPK_OK);
    CHECK_EQ(ksim_mesh_attach(r->mesh, A, &probe_ops, &r->a), NPK_OK);
    CHECK_EQ(ksim_mesh_attach(r->mesh, B, &probe_ops, &r->b), NPK_OK);
    CHECK_EQ(ksim_mesh_attach(r->mesh, C, &probe_ops, &r->c), NPK_OK);
}

static void rig_run(rig *r, int cycles)
{
    while (cycles--)
        ksim_mesh_tick(r->mesh, ++r->cycle);
}

static void rig_free(rig *r)
{
    ksim_mesh_destroy(r->mesh);
    ksim_memport_destroy(r->port);
    ksim_dram_destroy(r->dram);
}

/* DRAM word at `addr` holds a marker naming it, so a response says where it came from. */
static void fill(rig *r, uint64_t addr, unsigned words)
{
    for (unsigned i = 0; i < words; i++) {
        uint8_t beat[32] = {0};
        kt_put_le64(beat, 0xD0000000u + addr + i * 32);
        kt_put_le64(beat + 24, ~(addr + i * 32));
        ksim_dram_write(r->dram, addr + i * 32, beat, 32);
    }
}

static void queue_req(probe *p, kt_coord from, uint8_t type, uint8_t txn, const kt_mem_req *q, bool last)
{
    kt_flit *f = &p->out[p->n_out++];
    memset(f, 0, sizeof *f);
    if (q)
        kt_mem_req_put(f, q);
    kt_header h = {PORT, from, type, txn, last, 0};
    kt_header_put(f, &h);
}

static void check_resp(const kt_flit *f, kt_coord to, uint8_t txn, unsigned word, bool last, uint64_t addr)
{
    kt_header h = kt_header_get(f);
    CHECK_EQ(h.type, KT_T_MEM_RD_RESP);
    CHECK(kt_coord_eq(h.dst, to));
    CHECK(kt_coord_eq(h.src, PORT));
    CHECK_EQ(h.txn, txn);
    CHECK_EQ(h.rsvd, word);
    CHECK_EQ(h.last, last);
    CHECK_EQ(f->w[0], 0xD0000000u + addr);
    CHECK_EQ(f->w[3], ~addr);
}

/* Plain read: one burst of len+1 beats, txn echoed on every beat, last on the final one only. */
static void test_plain_read(void)
{
    rig r;
    rig_init(&r);
    fill(&r, 0x1000, 3);
    kt_mem_req q = {.addr = 0x1000, .len = 2};
    queue_req(&r.a, A, KT_T_MEM_RD_REQ, 0x21, &q, true);
    rig_run(&r, 200);
    CHECK_EQ(r.a.n_in, 3);
    for (unsigned i = 0; i < r.a.n_in && i < 3; i++)
        check_resp(&r.a.in[i], A, 0x21, 0, i == 2, 0x1000 + i * 32);
    CHECK_EQ(ksim_memport_reads(r.port), 1); /* one AXI transaction */
    CHECK_EQ(faults, 0);
    rig_free(&r);
}

/* Streaming read with peers: count entries of entry_words words from addr + i * entry_bytes, to
 * the requester and every listed peer, entry by entry. */
static void test_streaming_peers(void)
{
    rig r;
    rig_init(&r);
    fill(&r, 0x4000, 9);
    /* Requester A; peer0 B, peer1 A again — so A's own log shows the order across entries. */
    kt_mem_req q = {.addr = 0x4000, .flags = KT_MEM_FLAG_STREAM, .count = 3, .entry_words = 3,
                    .peer = {B, A}, .n_peer = 2};
    queue_req(&r.a, A, KT_T_MEM_RD_REQ, 0xFE, &q, true);
    rig_run(&r, 400);
    CHECK_EQ(r.a.n_in, 18); /* 3 entries x 3 words, twice */
    CHECK_EQ(r.b.n_in, 9);
    CHECK_EQ(r.c.n_in, 0);  /* not listed, not served */
    /* At A: entry 0 (as destination 0), entry 0 (as peer 1), then entry 1 twice, ... — every
     * destination receives an entry before any receives the next. txn = 0xFE + entry wraps. */
    const uint8_t tag[3] = {0xFE, 0xFF, 0x00};
    for (unsigned e = 0; e < 3; e++)
        for (unsigned copy = 0; copy < 2; copy++)
            for (unsigned w = 0; w < 3; w++) {
                unsigned i = e * 6 + copy * 3 + w;
                if (i < r.a.n_in)
                    check_resp(&r.a.in[i], A, tag[e], w, w == 2, 0x4000 + (e * 3 + w) * 32);
            }
    for (unsigned e = 0; e < 3; e++)
        for (unsigned w = 0; w < 3; w++)
            if (e * 3 + w < r.b.n_in)
                check_resp(&r.b.in[e * 3 + w], B, tag[e], w, w == 2, 0x4000 + (e * 3 + w) * 32);
    CHECK_EQ(ksim_memport_reads(r.port), 1);
    CHECK_EQ(faults, 0);
    rig_free(&r);
}

/* count 0 reads as 1 entry; entry_words 0 or above 4 reads as 4. */
static void test_stream_defaults(void)
{
    for (int ew = 0; ew < 2; ew++) {
        rig r;
        rig_init(&r);
        fill(&r, 0x8000, 8);
        kt_mem_req q = {.addr = 0x8000, .flags = KT_MEM_FLAG_STREAM, .count = 0,
                        .entry_words = (uint8_t)(ew ? 7 : 0)};
        queue_req(&r.c, C, KT_T_MEM_RD_REQ, 0x10, &q, true);
        rig_run(&r, 200);
        CHECK_EQ(r.c.n_in, 4);
        for (unsigned w = 0; w < 4 && w < r.c.n_in; w++)
            check_resp(&r.c.in[w], C, 0x10, w, w == 3, 0x8000 + w * 32);
        rig_free(&r);
    }
}

/* Writes: MEM_WR_REQ then exactly len+1 MEM_WR_DATA from the same source, slots matched by
 * source, so two writers may interleave their data; the ACK echoes the tag, after the data. */
static void test_writes(void)
{
    rig r;
    rig_init(&r);
    kt_mem_req wa = {.addr = 0x2000, .len = 1}, wb = {.addr = 0x3000, .len = 0};
    queue_req(&r.a, A, KT_T_MEM_WR_REQ, 0x33, &wa, true);
    queue_req(&r.b, B, KT_T_MEM_WR_REQ, 0x44, &wb, true);
    rig_run(&r, 40);
    CHECK_EQ(r.a.n_in + r.b.n_in, 0); /* no ack before the data */
    kt_flit *d;
    queue_req(&r.b, B, KT_T_MEM_WR_DATA, 0x44, NULL, true);
    d = &r.b.out[r.b.n_out - 1];
    d->w[0] = 0xBBBB0000;
    queue_req(&r.a, A, KT_T_MEM_WR_DATA, 0x33, NULL, false);
    d = &r.a.out[r.a.n_out - 1];
    d->w[0] = 0xAAAA0000;
    rig_run(&r, 40);
    CHECK_EQ(r.a.n_in, 0); /* A's write is still one beat short */
    CHECK_EQ(r.b.n_in, 1);
    queue_req(&r.a, A, KT_T_MEM_WR_DATA, 0x33, NULL, true);
    d = &r.a.out[r.a.n_out - 1];
    d->w[0] = 0xAAAA0001;
    d->w[3] = 0x5555;
    rig_run(&r, 40);
    CHECK_EQ(r.a.n_in, 1);
    for (int i = 0; i < 2; i++) {
        const kt_flit *ack = i ? &r.b.in[0] : &r.a.in[0];
        kt_header h = kt_header_get(ack);
        CHECK_EQ(h.type, KT_T_MEM_WR_ACK);
        CHECK(kt_coord_eq(h.src, PORT));
        CHECK_EQ(h.txn, i ? 0x44 : 0x33);
        CHECK(h.last);
        CHECK_EQ(ack->w[0] | ack->w[1] | ack->w[2] | ack->w[3], 0); /* no status: all-zero payload */
    }
    uint8_t got[64];
    CHECK_EQ(ksim_dram_read(r.dram, 0x2000, got, 64), NPK_OK);
    CHECK_EQ(kt_le64(got), 0xAAAA0000);
    CHECK_EQ(kt_le64(got + 32), 0xAAAA0001);
    CHECK_EQ(kt_le64(got + 56), 0x5555);
    CHECK_EQ(ksim_dram_read(r.dram, 0x3000, got, 32), NPK_OK);
    CHECK_EQ(kt_le64(got), 0xBBBB0000);
    CHECK_EQ(ksim_memport_writes(r.port), 2);
    CHECK_EQ(faults, 0);
    rig_free(&r);
}

/* What the protocol forbids is refused as a model error, not guessed at. */
static void test_write_refusals(void)
{
    rig r;
    rig_init(&r);
    kt_mem_req w8 = {.addr = 0x2000, .len = 8};
    queue_req(&r.a, A, KT_T_MEM_WR_REQ, 1, &w8, true);
    rig_run(&r, 40);
    CHECK_EQ(faults, 1);
    CHECK_STR_HAS(fault_msg, "len 8 exceeds 7");
    rig_free(&r);

    rig_init(&r);
    kt_mem_req w1 = {.addr = 0x2000, .len = 1};
    queue_req(&r.a, A, KT_T_MEM_WR_REQ, 1, &w1, true);
    queue_req(&r.a, A, KT_T_MEM_WR_REQ, 2, &w1, true);
    rig_run(&r, 40);
    CHECK_EQ(faults, 1);
    CHECK_STR_HAS(fault_msg, "second MEM_WR_REQ from (1,1) while its write is open");
    rig_free(&r);

    /* A mesh read of never-written DRAM: the card answers SLVERR; the model says so. */
    rig_init(&r);
    fill(&r, 0x6000, 1);
    kt_mem_req rd = {.addr = 0x6000, .len = 1};
    queue_req(&r.a, A, KT_T_MEM_RD_REQ, 3, &rd, true);
    rig_run(&r, 100);
    CHECK_EQ(faults, 1);
    CHECK_STR_HAS(fault_msg, "never-written DRAM granule 0x6020");
    rig_free(&r);
}

/* The host memory window ignores byte strobes: a write shorter than a 32-byte granule paints the
 * whole granule, zeros where the host sent nothing. Reading never-written DRAM is an error. */
static void test_host_window(void)
{
    ktsim_config c;
    ktsim *s = kt_test_sim("default", KT_GEN_PRESET, &c);
    kt_transport *t = ktsim_transport(s);
    uint64_t mem = c.mem_base;
    uint8_t ones[64], got[64];
    memset(ones, 0xFF, sizeof ones);
    CHECK_EQ(kt_write_block(t, mem + 0x100, ones, 32), NPK_OK);
    CHECK_EQ(kt_write64(t, mem + 0x108, 0x1122334455667788ull), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x100, got, 32), NPK_OK);
    CHECK_EQ(kt_le64(got), 0);                      /* was all ones: zero-filled */
    CHECK_EQ(kt_le64(got + 8), 0x1122334455667788ull);
    CHECK_EQ(kt_le64(got + 16), 0);
    CHECK_EQ(kt_le64(got + 24), 0);
    /* A 40-byte block: the first granule whole, the second painted from 8 bytes. */
    CHECK_EQ(kt_write_block(t, mem + 0x200, ones, 64), NPK_OK);
    CHECK_EQ(kt_write_block(t, mem + 0x200, ones, 40), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x200, got, 64), NPK_OK);
    CHECK_EQ(kt_le64(got + 32), ~0ull);
    CHECK_EQ(kt_le64(got + 40), 0);
    CHECK_EQ(kt_le64(got + 56), 0);
    /* Whole granules are untouched around the write: the neighbour keeps its bytes. */
    CHECK_EQ(kt_write_block(t, mem + 0x300, ones, 64), NPK_OK);
    CHECK_EQ(kt_write64(t, mem + 0x320, 7), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x300, got, 64), NPK_OK);
    CHECK_EQ(kt_le64(got + 24), ~0ull);
    CHECK_EQ(kt_le64(got + 32), 7);
    CHECK_EQ(kt_le64(got + 40), 0);
    /* An 8-byte write into never-written DRAM makes the whole granule readable. */
    CHECK_EQ(kt_write64(t, mem + 0x418, 9), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + 0x400, got, 32), NPK_OK);
    CHECK_EQ(kt_le64(got), 0);
    CHECK_EQ(kt_le64(got + 24), 9);
    /* Never written: refused, naming the first unwritten granule. */
    uint64_t v;
    CHECK_EQ(kt_read64(t, mem + 0x500, &v), NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "never-written DRAM granule 0x500");
    CHECK_EQ(kt_read_block(t, mem + 0x400, got, 64), NPK_EFAULT);
    CHECK_STR_HAS(npk_last_error(), "granule 0x420");
    ktsim_destroy(s);
}

/* A unit reading never-written DRAM through the mesh: the simulator reports it. */
static void test_unit_reads_unwritten(void)
{
    ktsim_config c;
    ktsim *s = kt_test_sim("default", KT_GEN_PRESET, &c);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    uint8_t y[32] = {0};
    CHECK_EQ(kt_write_block(d.t, c.mem_base + 0x20000, y, 32), NPK_OK); /* y written, x not */
    kt_flit f;
    CHECK_EQ(kt_saxpy_inst(&f, 8, 1.0f, 0x10000, 0x20000, 1, true), NPK_OK);
    CHECK_EQ(kt_stage(&d, 0, &f, 1), NPK_OK);
    kt_unit sx = {{1, 1}, {0x5358, 4, 0, 8}, "SX"};
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &sx, 0, 1, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tk, NULL), NPK_OK);
    CHECK(ktsim_fault(s) != NULL);
    CHECK_STR_HAS(ktsim_fault(s), "never-written DRAM granule 0x10000");
    ktsim_destroy(s);
}

/* Two memory ports (facts §1.8, §2.4): each serves the same DRAM, and non-memory traffic arriving
 * at either reaches the control agent — here CU_CTRL replies addressed to the second port. */
static void test_second_port(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.mem_port[1] = (kt_coord){1, 0}; /* the north edge of router (1,1) */
    c.n_mem_ports = 2;
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_options o = {0};
    o.reply_to = c.mem_port[1];
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    kt_unit u[8];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_OK);
    CHECK_EQ(n, 3);
    /* A read served by port 1, answered to (0,0): it comes back through port 0's agent. */
    uint8_t word[32] = {0x5A};
    CHECK_EQ(kt_write_block(d.t, c.mem_base + 0x7000, word, 32), NPK_OK);
    kt_flit req = {{0}};
    kt_mem_req q = {.addr = 0x7000};
    kt_mem_req_put(&req, &q);
    kt_header h = {c.mem_port[1], {0, 0}, KT_T_MEM_RD_REQ, 0x66, true, 0};
    kt_header_put(&req, &h);
    CHECK_EQ(kt_mailbox_send(&d, &req), NPK_OK);
    ktsim_step(s, 300);
    kt_flit rep;
    bool got = false;
    CHECK_EQ(kt_mailbox_recv(&d, &rep, &got), NPK_OK);
    CHECK(got);
    kt_header rh = kt_header_get(&rep);
    CHECK_EQ(rh.type, KT_T_MEM_RD_RESP);
    CHECK(kt_coord_eq(rh.src, c.mem_port[1]));
    CHECK_EQ(rh.txn, 0x66);
    CHECK_EQ(rep.w[0], 0x5A);
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

int main(void)
{
    test_second_port();
    test_plain_read();
    test_streaming_peers();
    test_stream_defaults();
    test_writes();
    test_write_refusals();
    test_host_window();
    test_unit_reads_unwritten();
    return check_done();
}
