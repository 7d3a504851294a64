/* SPDX-License-Identifier: MIT */
/* The interlink fabric of one card: per-mesh nodes with three outbound class queues and a
 * rotating-priority arbiter, chain links with latency, pacing and credit, doorbell counters and
 * sticky faults. See interlink.h. */
#include "interlink.h"

#include <stdlib.h>
#include <string.h>

enum { CLASS_WRITE, CLASS_FLIT, CLASS_FORWARD, CLASS_DOORBELL, N_CLASSES };
enum { KIND_WRITE, KIND_DOORBELL, KIND_FLIT };
enum { MAX_PACKET_BEATS = 32 }; /* MAX_BEATS: a packet closes on the flit marked last or here */
enum { LINK_DOWN = 0, LINK_UP = 1 }; /* link 0: one position down the chain; link 1: one up */
enum { MAX_QUEUE = 64, MAX_FLIGHT = 256 };

typedef struct beat {
    uint8_t kind, src_mesh, dst_mesh, tag;
    uint64_t addr;
    uint8_t data[KT_MV_WORD];
    kt_flit flit; /* KIND_FLIT: the flit, verbatim */
    uint64_t arrive; /* on a link: the receiver's cycle at which it may be taken */
} beat;

typedef struct queue {
    beat b[MAX_QUEUE];
    unsigned head, n, cap;
} queue;

/* One direction of one link: a FIFO of beats in flight, credits held by the sender. */
typedef struct wire {
    beat b[MAX_FLIGHT];
    unsigned head, n;
    unsigned credits;
    uint64_t next_free; /* sender's cycle at which the next beat may start */
} wire;

typedef struct node {
    bool enable;
    uint8_t mesh_param, mesh_id;
    uint8_t faults;
    uint16_t db_received[KT_IL_MAX_MESHES], db_sent[KT_IL_MAX_MESHES];
    uint64_t link_tx[2], link_rx[2], stalls[2], forwarded, doorbells_sent, egress_blocks;
    queue q[N_CLASSES];
    unsigned rr;
    unsigned packet_beats; /* flits of the open outbound packet (0: none open) */
    uint64_t cycle;
} node;

struct ksim_ilink {
    ksim_ilink_params p;
    node nodes[KSIM_ILINK_MAX_MESHES];
    /* wires[i][0]: from position i to i+1 (i's link 1, i+1's link 0); wires[i][1]: i+1 to i. */
    wire wires[KSIM_ILINK_MAX_MESHES][2];
    ksim_ilink_land_fn land;
    ksim_ilink_inject_fn inject;
    void *user;
};

void ksim_ilink_params_default(ksim_ilink_params *p, unsigned meshes)
{
    p->meshes = meshes;
    p->latency = 24;
    p->beat_cycles = 4;
    p->rx_beats = 64; /* RX_BEATS */
    p->queue_depth = 8;
}

static bool q_push(queue *q, const beat *b)
{
    if (q->n >= q->cap)
        return false;
    q->b[(q->head + q->n++) % MAX_QUEUE] = *b;
    return true;
}
static beat *q_head(queue *q) { return q->n ? &q->b[q->head] : NULL; }
static void q_pop(queue *q)
{
    q->head = (q->head + 1) % MAX_QUEUE;
    q->n--;
}

void ksim_ilink_reset(ksim_ilink *f, unsigned pos)
{
    node *n = &f->nodes[pos];
    uint8_t param = n->mesh_param;
    uint64_t cycle = n->cycle;
    memset(n, 0, sizeof *n);
    n->enable = true; /* control [0] resets to 1 */
    n->mesh_param = n->mesh_id = param;
    n->cycle = cycle;
    for (unsigned c = 0; c < N_CLASSES; c++)
        n->q[c].cap = f->p.queue_depth < MAX_QUEUE ? f->p.queue_depth : MAX_QUEUE;
}

ksim_ilink *ksim_ilink_create(const ksim_ilink_params *p, ksim_ilink_land_fn land, void *user)
{
    if (p->meshes < 1 || p->meshes > KSIM_ILINK_MAX_MESHES || !p->beat_cycles)
        return NULL;
    ksim_ilink *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->p = *p;
    f->land = land;
    f->user = user;
    for (unsigned i = 0; i < p->meshes; i++) {
        f->nodes[i].mesh_param = (uint8_t)i; /* MESH_ID parameter = the position */
        ksim_ilink_reset(f, i);
        f->wires[i][0].credits = f->wires[i][1].credits = p->rx_beats;
    }
    return f;
}

void ksim_ilink_destroy(ksim_ilink *f) { free(f); }

/* The wire leaving `pos` on `link`, or NULL at the end of the chain. */
static wire *out_wire(ksim_ilink *f, unsigned pos, unsigned link)
{
    if (link == LINK_UP)
        return pos + 1 < f->p.meshes ? &f->wires[pos][0] : NULL;
    return pos > 0 ? &f->wires[pos - 1][1] : NULL;
}
static wire *in_wire(ksim_ilink *f, unsigned pos, unsigned link)
{
    if (link == LINK_UP)
        return pos + 1 < f->p.meshes ? &f->wires[pos][1] : NULL;
    return pos > 0 ? &f->wires[pos - 1][0] : NULL;
}

/* ---- registers ---- */

static void ring(ksim_ilink *f, unsigned pos, uint64_t v)
{
    node *n = &f->nodes[pos];
    beat b;
    memset(&b, 0, sizeof b);
    b.kind = KIND_DOORBELL;
    b.src_mesh = n->mesh_id;
    b.dst_mesh = v & 3;
    b.tag = (uint8_t)(v >> 8);
    (void)q_push(&n->q[CLASS_DOORBELL], &b); /* a ring into a full doorbell queue is lost */
}

void ksim_ilink_cfg(ksim_ilink *f, unsigned pos, uint8_t offset, uint64_t v)
{
    node *n = &f->nodes[pos];
    switch (offset & ~7u) {
    case KT_IL_CONTROL:
        n->enable = v & KT_IL_CTRL_ENABLE;
        if (v & KT_IL_CTRL_CLEAR_DOORBELLS)
            memset(n->db_received, 0, sizeof n->db_received);
        if (v & KT_IL_CTRL_CLEAR_FAULTS)
            n->faults = 0;
        break;
    case KT_IL_MESH_ID: n->mesh_id = v & 3; break;
    case KT_IL_RING: ring(f, pos, v); break;
    default: break; /* 0x98-0xF8 decode to registers that do not exist */
    }
}

uint64_t ksim_ilink_statw(ksim_ilink *f, unsigned pos, unsigned index)
{
    node *n = &f->nodes[pos];
    switch (index) {
    case KT_IL_W_CAPS:
        /* 'IL', then three constant nibbles the source leaves unnamed, and the live mesh id. */
        return n->enable ? (uint64_t)KT_IL_CAP_MAGIC | 2u << 16 | (uint64_t)n->mesh_id << 20 |
                               4u << 24 | 1u << 28
                         : 0;
    case KT_IL_W_FAULTS: return n->faults;
    case 2:
    case 3:
    case 4:
    case 5: return (uint64_t)n->db_sent[index - 2] << 16 | n->db_received[index - 2];
    case KT_IL_W_LINK0_TX: return n->link_tx[0];
    case KT_IL_W_LINK0_RX: return n->link_rx[0];
    case KT_IL_W_LINK1_TX: return n->link_tx[1];
    case KT_IL_W_LINK1_RX: return n->link_rx[1];
    case KT_IL_W_LINK0_STALL: return n->stalls[0];
    case KT_IL_W_LINK1_STALL: return n->stalls[1];
    case KT_IL_W_FORWARDED: return n->forwarded;
    case KT_IL_W_CREDITS: {
        wire *w0 = out_wire(f, pos, LINK_DOWN), *w1 = out_wire(f, pos, LINK_UP);
        return (uint64_t)(w1 ? w1->credits : 0) << 32 | (w0 ? w0->credits : 0);
    }
    case KT_IL_W_DOORBELLS_SENT: return n->doorbells_sent;
    case KT_IL_W_EGRESS_BLOCKS: return n->egress_blocks;
    default: return 0;
    }
}

/* ---- mover side ---- */

uint8_t ksim_ilink_mesh_id(const ksim_ilink *f, unsigned pos) { return f->nodes[pos].mesh_id; }

bool ksim_ilink_remote_write(ksim_ilink *f, unsigned pos, uint64_t addr,
                             const uint8_t data[KT_MV_WORD])
{
    node *n = &f->nodes[pos];
    beat b;
    memset(&b, 0, sizeof b);
    b.kind = KIND_WRITE;
    b.src_mesh = n->mesh_id;
    b.dst_mesh = kt_il_addr_mesh(addr);
    b.addr = addr;
    memcpy(b.data, data, KT_MV_WORD);
    if (q_push(&n->q[CLASS_WRITE], &b))
        return true;
    n->egress_blocks++;
    return false;
}

void ksim_ilink_set_inject(ksim_ilink *f, ksim_ilink_inject_fn inject) { f->inject = inject; }

bool ksim_ilink_remote_flit(ksim_ilink *f, unsigned pos, const kt_flit *flit)
{
    node *n = &f->nodes[pos];
    kt_header h = kt_header_get(flit);
    if (!n->enable) {
        /* Taken and dropped: holding the port would stop this mesh's own memory traffic behind
         * a link nobody turned on. */
        n->faults |= 1u << KT_IL_F_INJ;
        return true;
    }
    beat b;
    memset(&b, 0, sizeof b);
    b.kind = KIND_FLIT;
    b.src_mesh = n->mesh_id;
    b.dst_mesh = h.rsvd & KT_RSVD_MESH;
    b.flit = *flit;
    if (!q_push(&n->q[CLASS_FLIT], &b))
        return false; /* the port holds it */
    /* A remote CU_DATA burst names its ack node on its descriptor, the packet's first flit:
     * ack {0, 0} ("answer the sender") would answer a node in the wrong mesh. */
    if (!n->packet_beats && h.type == KT_T_CU_DATA) {
        kt_cu_data d = kt_cu_data_get(flit);
        if (!d.ack.x && !d.ack.y)
            n->faults |= 1u << KT_IL_F_ACK0;
    }
    n->packet_beats = h.last || n->packet_beats + 1 == MAX_PACKET_BEATS ? 0 : n->packet_beats + 1;
    return true;
}

bool ksim_ilink_writes_drained(const ksim_ilink *f, unsigned pos)
{
    return f->nodes[pos].q[CLASS_WRITE].n == 0;
}
void ksim_ilink_raise(ksim_ilink *f, unsigned pos, unsigned bit)
{
    f->nodes[pos].faults |= (uint8_t)(1u << bit);
}

uint64_t ksim_ilink_db_status(const ksim_ilink *f, unsigned pos)
{
    const node *n = &f->nodes[pos];
    uint64_t v = 0;
    for (unsigned m = 0; m < KT_IL_MAX_MESHES; m++)
        v |= (uint64_t)n->db_received[m] << (16 * m);
    return v;
}

/* ---- one cycle ---- */

/* A flit arriving for this mesh, as the far side injects it: dst from its txn, txn and rsvd
 * cleared, src kept. */
static bool inject(ksim_ilink *f, unsigned pos, const kt_flit *in)
{
    kt_flit out = *in;
    kt_header h = kt_header_get(in);
    h.dst = (kt_coord){(uint8_t)(h.txn & 0xF), (uint8_t)(h.txn >> 4)};
    h.txn = 0;
    h.rsvd = 0;
    kt_header_put(&out, &h);
    return f->inject && f->inject(f->user, pos, &out);
}

/* A beat addressed to this node: land the write, inject the flit or count the doorbell; false
 * when the mesh cannot take the flit this cycle (the beat waits on the link). */
static bool consume(ksim_ilink *f, unsigned pos, const beat *b)
{
    node *n = &f->nodes[pos];
    if (b->kind == KIND_DOORBELL) {
        n->db_received[b->src_mesh & 3]++;
        return true;
    }
    if (b->kind == KIND_FLIT)
        return inject(f, pos, &b->flit);
    /* Staging keeps the whole 40-bit address (the aperture is named by the high bits); DRAM
     * takes the low 32 (local DRAM starts at zero and the mesh field sits high). */
    uint64_t where = kt_mesh_addr_split(b->addr).aperture ? b->addr : (b->addr & 0xFFFFFFFFull);
    if (!f->land || !f->land(f->user, pos, where, b->data))
        n->faults |= 1u << KT_IL_F_AXI;
    return true;
}

static void receive(ksim_ilink *f, unsigned pos)
{
    node *n = &f->nodes[pos];
    for (unsigned link = 0; link < 2; link++) {
        wire *w = in_wire(f, pos, link);
        if (!w || !w->n)
            continue;
        beat *b = &w->b[w->head];
        if (b->arrive > n->cycle)
            continue;
        if (b->dst_mesh != n->mesh_id) {
            /* Passing through: it leaves again by this node's arbiter. */
            if (!q_push(&n->q[CLASS_FORWARD], b))
                continue; /* held on the wire, its credit still taken */
            n->forwarded++;
        } else if (!consume(f, pos, b)) {
            continue; /* the mesh is not taking flits: held on the wire */
        }
        n->link_rx[link]++;
        w->head = (w->head + 1) % MAX_FLIGHT;
        w->n--;
        w->credits++; /* the receive buffer slot is free again */
    }
}

/* Offer one class's head beat; true when it left (or was delivered locally, or dropped). */
static bool try_send(ksim_ilink *f, unsigned pos, unsigned cls)
{
    node *n = &f->nodes[pos];
    beat *b = q_head(&n->q[cls]);
    if (!b)
        return false;
    if (b->dst_mesh == n->mesh_id) { /* a ring (or a flit) to this very mesh */
        if (!consume(f, pos, b))
            return false;
        if (b->kind == KIND_DOORBELL) {
            n->db_sent[b->dst_mesh]++;
            n->doorbells_sent++;
        }
        q_pop(&n->q[cls]);
        return true;
    }
    unsigned link = b->dst_mesh < n->mesh_id ? LINK_DOWN : LINK_UP;
    wire *w = out_wire(f, pos, link);
    if (!w) {
        n->faults |= 1u << KT_IL_F_SWITCH; /* no mesh that way: a forbidden turn */
        q_pop(&n->q[cls]);
        return true;
    }
    if (w->next_free > n->cycle)
        return false; /* the link is still sending the previous beat */
    if (!w->credits || w->n >= MAX_FLIGHT) {
        n->stalls[link]++;
        return false;
    }
    if (b->kind == KIND_DOORBELL && cls == CLASS_DOORBELL) {
        n->db_sent[b->dst_mesh]++;
        n->doorbells_sent++;
    }
    beat sent = *b;
    sent.arrive = n->cycle + f->p.latency;
    w->b[(w->head + w->n++) % MAX_FLIGHT] = sent;
    w->credits--;
    w->next_free = n->cycle + f->p.beat_cycles;
    n->link_tx[link]++;
    q_pop(&n->q[cls]);
    return true;
}

void ksim_ilink_tick(ksim_ilink *f, unsigned pos, uint64_t cycle)
{
    node *n = &f->nodes[pos];
    n->cycle = cycle;
    receive(f, pos);
    if (!n->enable)
        return; /* a disabled node sends nothing */
    /* Rotating priority: start after the class granted last. One grant per cycle. */
    for (unsigned k = 0; k < N_CLASSES; k++) {
        unsigned cls = (n->rr + k) % N_CLASSES;
        if (try_send(f, pos, cls)) {
            n->rr = (cls + 1) % N_CLASSES;
            return;
        }
    }
}
