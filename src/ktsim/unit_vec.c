/* SPDX-License-Identifier: MIT */
/* The vector core ('VC' 0x5643, upstream's vec_cu; facts §3.2) as a unit type: the CU_INST words
 * IMEM, DESC (each retires two cycles after it is taken, result 0) and RUN (retires when the
 * kernel reaches VHALT, its cycle count the result, or as SIG_FAULT with the fault code; any
 * other op retires as a no-op), the one send path the core shares — a DATA_RECEIVED signal
 * first, then a fill's MEM_RD_REQ, then a drain's words (to a node, one CU_DATA descriptor and a
 * flit a word; to memory, a MEM_WR_REQ and its MEM_WR_DATA a word) — and the receive path: fill
 * responses land in L1 at the slot their txn names (the 9th bit remembered per tag), CU_DATA
 * bursts from a peer or the host land in L1 (buffer 0, offset + len < 512, one sender at a
 * time, else F_CUDATA at the next instruction boundary), with DATA_RECEIVED to the
 * descriptor's ack coordinate (or the sender) when asked. The sequencer is vec_core.c.
 * CU_DBG = {0, kernel_cycles}: the last kernel's cycles, cleared at each RUN (per run: never
 * difference it). Write acknowledgements are dropped.
 *
 * Timing (the `timing vec` row), measured on the RTL: upstream's vec_cu (KohakuTPU 7703ee8,
 * MODEL = 1, L1 block RAM, one clock) under Verilator 5.006, driven port to port by a bench
 * that plays the agent and memory (responses 4 cycles after each request). The states' own
 * cycles are the sequencer's; the keys are the latencies the RTL's lanes and ports add:
 *   - wb_lat, wb_lat_d2, wb_lat_d4: a beat's issue to its write-back, in FLAT, D2 and D4, when
 *     its register's pending count falls (a dependent VADD at VL 128 repeats every 25 cycles: 8
 *     beats, 5 of fetch, 12 waiting; a dependent D2 chain at VL 128 every 48, a D4 chain at VL
 *     64 every 78). The count is five bits, as the RTL's: a D4 chain at VL 128 puts 32 beats in
 *     flight, reads as none pending, and the next chain does not wait (measured);
 *   - alu_lat, stage_read: a stage's latency, and a beat's issue to its first stage reading the
 *     chain registers; stage k reads them stage_read + k alu_lat after issue, live, so the next
 *     chain's gather rewrites the later stages of an earlier chain's last beats (measured: of a
 *     D2 chain's 16 beats at VL 128, the first 8 ran its own second stage, the rest the next
 *     chain's);
 *   - tree_tail: a reduction's final combination of its sixteen accumulators, from its issue
 *     (after the lanes drain) to the scalar written;
 *   - pipe_lat: the last beat's issue to the lanes reading empty, which VLD, VST, VCVT, VSHUF,
 *     VBCAST, VSETMODE and VHALT wait for;
 *   - resp_lat: a fill response's arrival at the unit to the outstanding count falling;
 *   - run_tail: cycles from the kernel's halt to the RUN's completion.
 * tests/test_kt_vec_timing.c holds the model to the RTL's figures over kernels and sizes. */
#include <stdlib.h>
#include <string.h>

#include "kt/hw/flit_header.h"
#include "kt/hw/units/vec.h"
#include "npukit/kt_transport.h"
#include "shell.h"
#include "vec_core.h"

enum {
    VC_T_WB_LAT,
    VC_T_WB_LAT_D2,
    VC_T_WB_LAT_D4,
    VC_T_PIPE_LAT,
    VC_T_RESP_LAT,
    VC_T_RUN_TAIL,
    VC_T_ALU_LAT,
    VC_T_STAGE_READ,
    VC_T_TREE_TAIL,
    VC_T_COUNT
};
enum { TAGS = 256, WR_TXN = 0x01, L1_MASK = KT_VEC_L1_WORDS - 1 };

typedef enum cu_state { CU_IDLE, CU_RET, CU_RUN } cu_state;

typedef struct vec_unit {
    kt_coord mem;
    uint32_t t[VC_T_COUNT];
    vc_core c;
    cu_state cst;
    uint32_t tail; /* cycles left before a finished RUN retires */
    bool halt_seen;
    /* the send path */
    bool w_data;     /* a write request went out: its data word next */
    bool nd_hdr;     /* a drain to a node: its descriptor went out */
    unsigned nd_cnt; /* words of it sent */
    kt_flit data;
    uint8_t fill_bank[TAGS];
    uint64_t land_at[TAGS]; /* fill responses in flight to the outstanding count */
    unsigned nland;
    /* inbound CU_DATA */
    bool cd_open, cd_drop, cd_sig;
    unsigned cd_left, cd_ptr;
    kt_coord cd_src;
    bool sg_pend;
    kt_coord sg_to;
    uint8_t sg_buf;
    bool reported;
} vec_unit;

/* The lanes' latencies from the timing row. */
static void set_latencies(vec_unit *u)
{
    vc_lanes *l = &u->c.lanes;
    l->wb_lat[0] = u->t[VC_T_WB_LAT];
    l->wb_lat[1] = u->t[VC_T_WB_LAT_D2];
    l->wb_lat[2] = u->t[VC_T_WB_LAT_D4];
    l->pipe_lat = u->t[VC_T_PIPE_LAT];
    l->alu_lat = u->t[VC_T_ALU_LAT];
    l->stage_read = u->t[VC_T_STAGE_READ];
    u->c.tree_tail = u->t[VC_T_TREE_TAIL];
}

static void *vu_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    vec_unit *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->mem = mem;
    memcpy(u->t, cfg->timing.value, sizeof u->t);
    set_latencies(u);
    vc_core_reset(&u->c);
    return u;
}

static void vu_destroy(void *p) { free(p); }

static void vu_reset(void *p)
{
    vec_unit *u = p;
    kt_coord mem = u->mem;
    uint32_t t[VC_T_COUNT];
    memcpy(t, u->t, sizeof t);
    memset(u, 0, sizeof *u);
    u->mem = mem;
    memcpy(u->t, t, sizeof t);
    set_latencies(u);
    vc_core_reset(&u->c);
}

static bool vu_ready(void *p) { return ((vec_unit *)p)->cst == CU_IDLE; }

static void vu_issue(void *p, const kt_flit *inst)
{
    vec_unit *u = p;
    kt_vec_cu_fields f;
    kt_vec_cu_decode(inst, &f);
    u->cst = CU_RET;
    switch (f.op) {
    case KT_VEC_CU_IMEM: vc_core_imem(&u->c, f.addr, f.word); break;
    case KT_VEC_CU_DESC: vc_core_desc(&u->c, f.ad, f.fld, f.value); break;
    case KT_VEC_CU_RUN:
        vc_core_start(&u->c, f.addr);
        u->cst = CU_RUN;
        u->halt_seen = false;
        break;
    default: break; /* not an instruction: retires as a no-op */
    }
}

/* An L1 word as a flit's payload (its low 256 bits, little-endian) and back. */
static void word_to_flit(kt_flit *f, const uint8_t w[VC_WORD])
{
    for (int i = 0; i < VC_WORD / 8; i++)
        f->w[i] = kt_le64(w + 8 * i);
}

static void flit_to_word(const kt_flit *f, uint8_t w[VC_WORD])
{
    for (int i = 0; i < VC_WORD / 8; i++)
        kt_put_le64(w + 8 * i, f->w[i]);
}

/* A drain to a node: one CU_DATA descriptor for the burst (a cycle of its own), then a word a
 * flit, `last` on the final one. */
static void send_to_node(vec_unit *u, ksim_shell *sh)
{
    vc_core *c = &u->c;
    kt_flit f = {{0}};
    kt_header h = {{c->nd_x, c->nd_y}, ksim_shell_coord(sh), KT_T_CU_DATA, 0, false, 0};
    if (!u->nd_hdr) {
        kt_cu_data d = {c->nd_buf,
                        c->nd_off,
                        c->nd_len,
                        c->nd_sig,
                        {(uint8_t)(c->nd_ack & 15), (uint8_t)(c->nd_ack >> 4)}};
        kt_cu_data_put(&f, &d);
        kt_header_put(&f, &h);
        if (ksim_shell_send(sh, &f)) {
            u->nd_hdr = true;
            u->nd_cnt = 0;
        }
        return;
    }
    word_to_flit(&f, c->wr_data);
    h.last = u->nd_cnt == c->nd_len;
    kt_header_put(&f, &h);
    if (!ksim_shell_send(sh, &f))
        return;
    c->wr_taken = true;
    if (u->nd_cnt++ == c->nd_len)
        u->nd_hdr = false;
}

/* The send path's one flit this cycle, in the RTL's priority. */
static void send(vec_unit *u, ksim_shell *sh)
{
    vc_core *c = &u->c;
    if (u->w_data) {
        if (ksim_shell_send(sh, &u->data))
            u->w_data = false;
        return;
    }
    /* the commonest cycle: nothing to send (a flit is built only when there is one) */
    bool req = (c->rd_valid && !c->rd_taken) || (c->wr_valid && !c->wr_taken);
    if (!u->sg_pend && !(req && c->req_at < c->now))
        return;
    kt_coord me = ksim_shell_coord(sh);
    kt_flit f = {{0}};
    if (u->sg_pend) {
        kt_flit_signal(&f, u->sg_to, me, 0, KT_SIG_DATA_RECEIVED, u->sg_buf);
        if (ksim_shell_send(sh, &f))
            u->sg_pend = false;
        return;
    }
    kt_mem_req r = {0};
    if (c->rd_valid && !c->rd_taken && c->req_at < c->now) {
        r.addr = c->rd_addr;
        kt_mem_req_put(&f, &r);
        kt_header h = {u->mem, me, KT_T_MEM_RD_REQ, (uint8_t)c->rd_tag, true, 0};
        kt_header_put(&f, &h);
        if (ksim_shell_send(sh, &f)) {
            c->rd_taken = true;
            u->fill_bank[c->rd_tag & (TAGS - 1)] = (uint8_t)(c->rd_tag >> 8);
        }
        return;
    }
    if (c->wr_valid && !c->wr_taken && c->req_at < c->now && c->nd_valid) {
        send_to_node(u, sh);
        return;
    }
    if (c->wr_valid && !c->wr_taken && c->req_at < c->now) {
        r.addr = c->wr_addr;
        kt_mem_req_put(&f, &r);
        kt_header h = {u->mem, me, KT_T_MEM_WR_REQ, WR_TXN, false, 0};
        kt_header_put(&f, &h);
        if (!ksim_shell_send(sh, &f))
            return;
        c->wr_taken = true;
        memset(&u->data, 0, sizeof u->data);
        word_to_flit(&u->data, c->wr_data);
        kt_header d = {u->mem, me, KT_T_MEM_WR_DATA, WR_TXN, true, 0};
        kt_header_put(&u->data, &d);
        u->w_data = true;
    }
}

static void vu_tick(void *p, ksim_shell *sh)
{
    vec_unit *u = p;
    vc_core *c = &u->c;
    /* fill responses reaching the outstanding count */
    unsigned keep = 0;
    for (unsigned i = 0; i < u->nland; i++) {
        if (u->land_at[i] <= c->now + 1)
            vc_core_fill_retired(c);
        else
            u->land_at[keep++] = u->land_at[i];
    }
    u->nland = keep;
    vc_core_step(c);
    if (c->model_error[0] && !u->reported) {
        ksim_shell_report(sh, "%s", c->model_error);
        u->reported = true;
    }
    send(u, sh);
    switch (u->cst) {
    case CU_IDLE: break;
    case CU_RET:
        u->cst = CU_IDLE;
        ksim_shell_done(sh, 0, false);
        break;
    case CU_RUN:
        if (!u->halt_seen) {
            if (!vc_core_stopped(c))
                break;
            u->halt_seen = true;
            u->tail = u->t[VC_T_RUN_TAIL];
        }
        if (u->tail) {
            u->tail--;
            break;
        }
        u->cst = CU_IDLE;
        u->reported = false;
        c->model_error[0] = '\0';
        ksim_shell_done(sh, c->fault ? c->fault_code : c->cycles, c->fault);
        break;
    }
}

/* A CU_DATA flit: the first of a burst is its descriptor. */
static void cu_data(vec_unit *u, const kt_flit *f, kt_header h)
{
    vc_core *c = &u->c;
    if (!u->cd_open) {
        kt_cu_data d = kt_cu_data_get(f);
        bool bad = d.buf_id != 0 || (unsigned)d.offset + d.len >= KT_VEC_L1_WORDS;
        u->cd_open = true;
        u->cd_left = d.len;
        u->cd_ptr = d.offset & L1_MASK;
        u->cd_drop = bad;
        u->cd_sig = (d.flags & 1) && !bad;
        u->cd_src = h.src;
        u->sg_buf = d.buf_id;
        u->sg_to = (d.ack.x || d.ack.y) ? d.ack : h.src;
        if (bad)
            c->cd_err = true;
        return;
    }
    bool alien = !kt_coord_eq(h.src, u->cd_src);
    if (!u->cd_drop && !alien) {
        uint8_t w[VC_WORD];
        flit_to_word(f, w);
        vc_core_land(c, u->cd_ptr, w);
    }
    u->cd_ptr = (u->cd_ptr + 1) & L1_MASK;
    if (alien) {
        c->cd_err = true;
        u->cd_drop = true;
        u->cd_sig = false;
    }
    if (u->cd_left == 0) {
        u->cd_open = false;
        if (u->cd_sig)
            u->sg_pend = true;
    } else
        u->cd_left--;
}

static bool vu_recv(void *p, const kt_flit *f)
{
    vec_unit *u = p;
    kt_header h = kt_flit_header(f);
    if (u->sg_pend)
        return false; /* a DATA_RECEIVED waits for the link: take nothing meanwhile */
    if (h.type == KT_T_MEM_RD_RESP) {
        uint8_t w[VC_WORD];
        flit_to_word(f, w);
        vc_core_land(&u->c, (unsigned)u->fill_bank[h.txn] << 8 | h.txn, w);
        if (u->nland < TAGS)
            u->land_at[u->nland++] = u->c.now + u->t[VC_T_RESP_LAT];
    } else if (h.type == KT_T_CU_DATA) {
        cu_data(u, f, h);
    }
    return true; /* anything else (a write acknowledgement) is dropped */
}

static uint64_t vu_dbg(void *p) { return ((vec_unit *)p)->c.cycles; }

static bool vu_idle(void *p)
{
    const vec_unit *u = p;
    return u->cst == CU_IDLE && vc_core_idle(&u->c) && !u->nland && !u->w_data && !u->sg_pend &&
           !u->c.rd_valid && !u->c.wr_valid;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Ticks the core takes on its own (vc_core_quiet: it counts down, holds or fetches; its clock
 * and kernel cycles run while it waits and while it is idle), bounded by the next fill response
 * reaching the outstanding count and by the finished RUN's tail. */
static uint64_t vu_quiet(void *p)
{
    const vec_unit *u = p;
    const vc_core *c = &u->c;
    if (u->w_data || u->sg_pend || u->cst == CU_RET || (c->model_error[0] && !u->reported))
        return 0;
    uint64_t q = vc_core_quiet(c);
    if (!q)
        return 0; /* the commonest answer while a fill or drain streams its requests */
    if (u->cst == CU_RUN)
        q = min_u64(q, u->halt_seen ? u->tail : vc_core_stopped(c) ? 0 : UINT64_MAX);
    for (unsigned i = 0; i < u->nland; i++) /* a tick lands those due by the core's next step */
        q = min_u64(q, u->land_at[i] > c->now + 1 ? u->land_at[i] - c->now - 1 : 0);
    return q;
}

static void vu_skip(void *p, uint64_t n)
{
    vec_unit *u = p;
    vc_core_skip(&u->c, n);
    if (u->cst == CU_RUN && u->halt_seen)
        u->tail -= (uint32_t)min_u64(n, u->tail);
}

static const ktsim_unit_key vu_timing[] = {
    [VC_T_WB_LAT] = {"wb_lat", 18, 1, 1024},       [VC_T_WB_LAT_D2] = {"wb_lat_d2", 33, 1, 1024},
    [VC_T_WB_LAT_D4] = {"wb_lat_d4", 63, 1, 1024}, [VC_T_PIPE_LAT] = {"pipe_lat", 79, 1, 1024},
    [VC_T_RESP_LAT] = {"resp_lat", 4, 0, 1024},    [VC_T_RUN_TAIL] = {"run_tail", 2, 0, 1024},
    [VC_T_ALU_LAT] = {"alu_lat", 15, 1, 1024},     [VC_T_STAGE_READ] = {"stage_read", 2, 0, 1024},
    [VC_T_TREE_TAIL] = {"tree_tail", 61, 0, 1024}, {NULL, 0, 0, 0},
};

const ksim_unit_ops ksim_unit_vec = {
    .kind = "vec",
    .default_type = KT_VEC_TYPE,
    .create = vu_create,
    .destroy = vu_destroy,
    .reset = vu_reset,
    .ready = vu_ready,
    .issue = vu_issue,
    .tick = vu_tick,
    .recv = vu_recv,
    .dbg = vu_dbg,
    .idle = vu_idle,
    .quiet = vu_quiet,
    .skip = vu_skip,
    .layout = kt_layout_vec,
    .timing = vu_timing,
    .timing_source = "RTL vec_cu (KohakuTPU 7703ee8) under Verilator, port to port: kernels of "
                     "dependent and independent ALU loops, loads/stores, fills and drains of "
                     "1..256 words, FMA and every-op kernels at VL 16..128 (18..2688 cycles)",
};
