/* SPDX-License-Identifier: MIT */
/* The memory port's engine: an intake queue served in order, plain and streaming reads (one
 * response beat per cycle, peers served entry by entry), quantising reads (FP16 entries through
 * the MXFP7 quantiser, src/kt/hw/mxfp.c), writes with one open write per source
 * and len <= 7, an acknowledgement after the data has landed. Faults are not reported on the
 * mesh (as in the RTL); what the model cannot represent is reported as a model error. */
#include "memport.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"
#include "kt/hw/flit_header.h"
#include "kt/hw/mxfp.h"
#include "npukit/kt_words.h"
#include "out_of_line.h"

enum { OUT_DEPTH = 4, MAX_WRITERS = 256, INJECT_DEPTH = 2 };

typedef struct write_slot {
    bool open;
    uint64_t addr;
    unsigned beats, got;
    uint8_t txn;
} write_slot;

typedef struct read_op {
    bool active;
    kt_coord dst[4];
    unsigned n_dst;
    uint64_t addr;
    unsigned entries, words; /* entries x words per entry */
    bool stream;
    bool quant, b_layout; /* a quantising fetch: 8 FP16 beats in, 4 MXFP7 words out per entry */
    uint8_t tag;
    unsigned entry, dest, word;
    unsigned hold;                  /* cycles before the entry's first word may leave */
    uint8_t qout[KT_MX_ENTRY_OUT]; /* the current entry, quantised */
} read_op;

/* The quantiser in the read path (mx_quant) takes one entry at a time: its eight source beats,
 * then seven cycles of scale and packing (drain, renormalise, scale, four pack passes) and one to
 * hand over, before the four words leave. Inferred from mx_quant.v's state sequence; not
 * measured. */
enum { QUANT_ENTRY_CYCLES = 8 + 8 };

struct ksim_memport {
    kt_coord at;
    ksim_dram *dram;
    ksim_orch *orch;     /* port 0: the agent answers here, inbound and outbound */
    ksim_orch *agent_in; /* other ports: their control traffic still reaches the agent */
    ksim_fault_sink fault;
    uint64_t cycle;
    ksim_fifo intake, out;
    read_op rd;
    write_slot slot[MAX_WRITERS]; /* by source {y,x} */
    enum { OUT_AGENT, OUT_PROCESSOR, OUT_INJECT, OUT_ENGINE } out_from;
    const ksim_hub_client *pe; /* the node's processor at (0,0), or NULL */
    unsigned index;            /* this port's number in the node */
    ksim_fifo inject; /* flits from another mesh for this port's row (port 0: any other row) */
    ksim_remote_take_fn remote_take;
    void *remote_user;
    uint16_t reads, writes;
    uint16_t *total_reads, *total_writes; /* ksim_memport_count_into, or NULL */
    /* Event-driven (ksim_memport_sleep_on): with the machine's clock the port sleeps while it
     * has nothing to do, wake UINT64_MAX, and the mesh neither ticks nor peeks it; whatever
     * hands it work sets wake back to 0 (awake). Without a clock it never sleeps. */
    const uint64_t *clock;
    uint64_t wake;
};

ksim_memport *ksim_memport_create(kt_coord at, unsigned queue_depth, ksim_dram *dram,
                                  ksim_orch *orch, ksim_fault_fn fault, void *fault_user)
{
    ksim_memport *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->at = at;
    p->dram = dram;
    p->orch = orch;
    p->fault = (ksim_fault_sink){fault, fault_user};
    if (!ksim_fifo_init(&p->intake, queue_depth) || !ksim_fifo_init(&p->out, OUT_DEPTH) ||
        !ksim_fifo_init(&p->inject, INJECT_DEPTH)) {
        ksim_memport_destroy(p);
        return NULL;
    }
    return p;
}

void ksim_memport_share_agent(ksim_memport *p, ksim_orch *orch) { p->agent_in = orch; }

void ksim_memport_destroy(ksim_memport *p)
{
    if (!p)
        return;
    ksim_fifo_free(&p->intake);
    ksim_fifo_free(&p->out);
    ksim_fifo_free(&p->inject);
    free(p);
}

void ksim_memport_reset(ksim_memport *p)
{
    p->wake = 0;
    ksim_fifo_clear(&p->intake);
    ksim_fifo_clear(&p->out);
    ksim_fifo_clear(&p->inject);
    memset(&p->rd, 0, sizeof p->rd);
    memset(p->slot, 0, sizeof p->slot);
}

uint16_t ksim_memport_reads(const ksim_memport *p) { return p->reads; }
uint16_t ksim_memport_writes(const ksim_memport *p) { return p->writes; }

void ksim_memport_count_into(ksim_memport *p, uint16_t *reads, uint16_t *writes)
{
    p->total_reads = reads;
    p->total_writes = writes;
}

bool ksim_memport_idle(const ksim_memport *p)
{
    return !p->rd.active && ksim_fifo_empty(&p->intake) && ksim_fifo_empty(&p->out) &&
           ksim_fifo_empty(&p->inject);
}

/* A holding read's ticks do nothing but count its hold down (step_read): the intake waits for
 * the read to finish, and nothing else in the port moves. */
static bool holding(const ksim_memport *p)
{
    return p->rd.active && p->rd.hold && ksim_fifo_empty(&p->out) && ksim_fifo_empty(&p->inject) &&
           !p->pe;
}

uint64_t ksim_memport_quiet(const ksim_memport *p)
{
    if (ksim_memport_idle(p))
        return UINT64_MAX;
    return holding(p) ? p->rd.hold : 0;
}

void ksim_memport_skip(ksim_memport *p, uint64_t cycles, uint64_t now)
{
    /* An idle port is left alone: its clock record is read only in cycles that tick it, or made
     * current by what wakes it (wake_now). */
    if (!holding(p))
        return;
    p->rd.hold -= (unsigned)cycles;
    p->cycle = now;
}

uint64_t *ksim_memport_sleep_on(ksim_memport *p, const uint64_t *clock)
{
    p->clock = clock;
    p->wake = 0;
    return &p->wake;
}

/* Work arrives: awake from now on, and (asleep, it missed its ticks) the clock record made
 * current, since what it queues is stamped with it. */
static void wake_now(ksim_memport *p)
{
    if (p->wake) {
        p->wake = 0;
        p->cycle = *p->clock;
    }
}

/* Nothing for a tick to do and nothing to hand the mesh: the engine idle, nothing injected,
 * the agent's output register empty (filling it wakes port 0: ksim_orch_set_out_wake), and no
 * processor behind the port (it ticks and sends on its own, unseen here). */
static bool can_sleep(const ksim_memport *p)
{
    return ksim_memport_idle(p) && p->clock && !p->pe && !(p->orch && ksim_orch_out_peek(p->orch));
}

void ksim_memport_set_remote(ksim_memport *p, ksim_remote_take_fn take, void *user)
{
    p->remote_take = take;
    p->remote_user = user;
}

void ksim_memport_set_processor(ksim_memport *p, const ksim_hub_client *pe, unsigned index)
{
    p->pe = pe;
    p->index = index;
    p->wake = 0; /* it never sleeps with one (can_sleep) */
}

unsigned ksim_port_for_row(const kt_coord *ports, unsigned n_ports, uint8_t row)
{
    unsigned port = 0;
    for (unsigned i = 0; i < n_ports; i++)
        if (ports[i].y == row)
            port = i;
    return port;
}

static bool for_processor(const ksim_memport *p, const kt_header *h)
{
    return p->pe && h->dst.x == 0 && h->dst.y == 0;
}

bool ksim_memport_inject(ksim_memport *p, const kt_flit *f)
{
    wake_now(p);
    return ksim_fifo_push(&p->inject, f, p->cycle);
}

/* Decode a 40-bit address to a local DRAM offset; false for what the model does not serve. */
static bool local_offset(ksim_memport *p, uint64_t addr, uint64_t *off)
{
    kt_mesh_addr a = kt_mesh_addr_split(addr);
    if (a.aperture) {
        ksim_report(&p->fault,
                    "memory request to aperture address 0x%010" PRIx64 " (staging) is not modelled",
                    addr);
        return false;
    }
    /* The mesh field is not checked by the port: another mesh's address aliases here. */
    *off = a.local;
    return true;
}

static bool port_offer(void *ep, const kt_flit *f)
{
    ksim_memport *p = ep;
    /* Offered after its tick of this cycle, run or slept through: awake for the next one. */
    wake_now(p);
    kt_header h = kt_flit_header(f);
    /* rsvd[2] marks a flit for another mesh: with an interlink built it goes to the
     * encapsulator, which may hold the port while its queue is full. */
    if (p->remote_take && h.rsvd & KT_RSVD_REMOTE)
        return p->remote_take(p->remote_user, f);
    /* The processor next, so a CU_DATA burst for it is not taken for the agent's traffic. */
    if (for_processor(p, &h))
        return p->pe->ops->offer(p->pe->ep, f);
    if (kt_type_is_mem(h.type) && h.type != KT_T_MEM_RD_RESP && h.type != KT_T_MEM_WR_ACK)
        return ksim_fifo_push(&p->intake, f, p->cycle); /* full: the port backpressures */
    /* Everything else goes to the control agent, from whichever port it arrived at. The agent
     * never blocks a memory port: what it cannot take is accepted here and dropped. */
    ksim_orch *agent = p->orch ? p->orch : p->agent_in;
    if (agent)
        ksim_orch_accept(agent, f);
    return true;
}

static const kt_flit *port_out_peek(void *ep)
{
    ksim_memport *p = ep;
    /* Outbound priority: the agent, the processor, the interlink's injected flits, the engine. */
    const kt_flit *f;
    if (p->orch && (f = ksim_orch_out_peek(p->orch))) {
        p->out_from = OUT_AGENT;
        return f;
    }
    if (p->pe && (f = p->pe->ops->out_peek(p->pe->ep)) &&
        ksim_port_for_row(p->pe->ports, p->pe->n_ports, kt_header_get(f).dst.y) == p->index) {
        p->out_from = OUT_PROCESSOR;
        return f;
    }
    if (!ksim_fifo_empty(&p->inject)) {
        p->out_from = OUT_INJECT;
        return ksim_fifo_head(&p->inject);
    }
    p->out_from = OUT_ENGINE;
    return ksim_fifo_empty(&p->out) ? NULL : ksim_fifo_head(&p->out);
}

static void port_out_pop(void *ep)
{
    ksim_memport *p = ep;
    switch (p->out_from) {
    case OUT_AGENT: ksim_orch_out_pop(p->orch); break;
    case OUT_PROCESSOR: p->pe->ops->out_pop(p->pe->ep); break;
    case OUT_INJECT: ksim_fifo_pop(&p->inject); break;
    case OUT_ENGINE: ksim_fifo_pop(&p->out); break;
    }
}

static void start_read(ksim_memport *p, const kt_flit *f)
{
    kt_header h = kt_flit_header(f);
    kt_mem_req r = kt_mem_req_get(f);
    read_op *op = &p->rd;
    memset(op, 0, sizeof *op);
    if (!local_offset(p, r.addr, &op->addr))
        return;
    op->dst[0] = h.src;
    op->n_dst = 1;
    for (unsigned i = 0; i < r.n_peer && i < 3; i++)
        op->dst[op->n_dst++] = r.peer[i];
    op->stream = (r.flags & KT_MEM_FLAG_STREAM) != 0;
    op->quant = (r.flags & KT_MEM_FLAG_QUANT) != 0;
    op->b_layout = (r.flags & KT_MEM_FLAG_BLAYOUT) != 0;
    op->tag = h.txn;
    if (op->quant) {
        /* entry_words is ignored: an entry is always 8 beats in and 4 words out */
        op->entries = op->stream ? (r.count ? r.count : 1u) : 1u;
        op->words = KT_MX_ENTRY_OUT / 32;
        op->hold = QUANT_ENTRY_CYCLES;
    } else if (op->stream) {
        op->entries = r.count ? r.count : 1;
        op->words = (r.entry_words == 0 || r.entry_words > 4) ? 4 : r.entry_words;
    } else {
        op->entries = 1;
        op->words = r.len + 1u;
    }
    op->active = true;
    p->reads++;
    if (p->total_reads)
        (*p->total_reads)++;
}

/* Emit one response beat of the running read. Out of line, as serve_intake: the port's tick
 * stays small for the cycles that find nothing to do. */
static KSIM_OUT_OF_LINE void step_read(ksim_memport *p)
{
    read_op *op = &p->rd;
    if (ksim_fifo_full(&p->out))
        return;
    if (op->hold) {
        op->hold--;
        return;
    }
    kt_flit f = {{0}};
    uint8_t beat[32];
    if (op->quant) {
        if (op->word == 0 && op->dest == 0) {
            uint8_t src[KT_MX_ENTRY_IN];
            if (ksim_dram_read(p->dram, op->addr + (uint64_t)op->entry * KT_MX_ENTRY_IN, src,
                               sizeof src) != NPK_OK)
                ksim_report(&p->fault, "memory port (%u,%u): %s", p->at.x, p->at.y,
                            npk_last_error());
            kt_mx_quant_entry(src, op->b_layout, op->qout);
        }
        memcpy(beat, op->qout + op->word * 32, sizeof beat);
    } else {
        uint64_t addr = op->addr + ((uint64_t)op->entry * op->words + op->word) * 32;
        if (ksim_dram_read(p->dram, addr, beat, sizeof beat) != NPK_OK)
            ksim_report(&p->fault, "memory port (%u,%u): %s", p->at.x, p->at.y,
                        npk_last_error());
    }
    for (int w = 0; w < 4; w++)
        f.w[w] = kt_le64(beat + 8 * w);
    bool last = op->word + 1 == op->words;
    kt_header h = {op->dst[op->dest],
                   p->at,
                   KT_T_MEM_RD_RESP,
                   (uint8_t)(op->stream ? op->tag + op->entry : op->tag),
                   last,
                   (uint8_t)(op->stream ? op->word & 3 : 0)};
    kt_header_put(&f, &h);
    ksim_fifo_push(&p->out, &f, p->cycle);
    /* Word, then destination, then entry: every destination gets an entry before the next. */
    if (++op->word == op->words) {
        op->word = 0;
        if (++op->dest == op->n_dst) {
            op->dest = 0;
            if (++op->entry == op->entries)
                op->active = false;
            else if (op->quant)
                op->hold = QUANT_ENTRY_CYCLES;
        }
    }
}

static void handle_write(ksim_memport *p, const kt_flit *f, bool *consumed)
{
    kt_header h = kt_flit_header(f);
    write_slot *s = &p->slot[kt_coord_pack(h.src)];
    *consumed = true;
    if (h.type == KT_T_MEM_WR_REQ) {
        kt_mem_req r = kt_mem_req_get(f);
        if (s->open) {
            ksim_report(&p->fault,
                        "second MEM_WR_REQ from (%u,%u) while its write is open (one per source)",
                        h.src.x, h.src.y);
            return;
        }
        if (r.len > KT_MEM_WR_MAX_LEN) {
            ksim_report(&p->fault, "MEM_WR_REQ from (%u,%u) with len %u exceeds %u", h.src.x,
                        h.src.y, r.len, KT_MEM_WR_MAX_LEN);
            return;
        }
        uint64_t off;
        if (!local_offset(p, r.addr, &off))
            return;
        *s = (write_slot){true, off, r.len + 1u, 0, h.txn};
        return;
    }
    /* MEM_WR_DATA */
    if (!s->open) {
        ksim_report(&p->fault, "MEM_WR_DATA from (%u,%u) without an open write", h.src.x, h.src.y);
        return;
    }
    if (s->got + 1 == s->beats && ksim_fifo_full(&p->out)) {
        *consumed = false; /* the acknowledgement needs room: hold the final beat */
        return;
    }
    uint8_t beat[32];
    for (int w = 0; w < 4; w++)
        kt_put_le64(beat + 8 * w, f->w[w]);
    if (ksim_dram_write(p->dram, s->addr + s->got * 32ull, beat, 32) != NPK_OK)
        ksim_report(&p->fault, "memory port (%u,%u): %s", p->at.x, p->at.y, npk_last_error());
    if (++s->got == s->beats) {
        kt_flit ack = {{0}};
        kt_header ah = {h.src, p->at, KT_T_MEM_WR_ACK, s->txn, true, 0};
        kt_header_put(&ack, &ah);
        ksim_fifo_push(&p->out, &ack, p->cycle);
        s->open = false;
        p->writes++;
        if (p->total_writes)
            (*p->total_writes)++;
    }
}

/* The intake's head (ready), once no read is running. */
static KSIM_OUT_OF_LINE void serve_intake(ksim_memport *p)
{
    const kt_flit *f = ksim_fifo_head(&p->intake);
    kt_header h = kt_flit_header(f);
    bool consumed = true;
    if (h.type == KT_T_MEM_RD_REQ)
        start_read(p, f);
    else
        handle_write(p, f, &consumed);
    if (consumed)
        ksim_fifo_pop(&p->intake);
}

static void port_tick(void *ep, uint64_t cycle)
{
    ksim_memport *p = ep;
    p->cycle = cycle;
    if (p->pe && p->index == 0 && p->pe->ops->tick)
        p->pe->ops->tick(p->pe->ep, cycle);
    if (p->rd.active)
        step_read(p);
    if (!p->rd.active && ksim_fifo_ready(&p->intake, cycle))
        serve_intake(p); /* one request at a time, in order */
    if (can_sleep(p))
        p->wake = UINT64_MAX;
}

const ksim_endpoint_ops ksim_memport_endpoint = {port_offer, port_out_peek, port_out_pop,
                                                 port_tick};
