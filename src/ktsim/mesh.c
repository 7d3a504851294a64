/* SPDX-License-Identifier: MIT */
/* Routers with an input FIFO per port and an output register per port (round-robin over the
 * inputs), XY routing with the clamp, endpoints on local ports and on the edge ring. */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "fifo.h"

typedef struct ksim_router {
    ksim_fifo in[KSIM_PORTS];
    unsigned out_valid; /* bit p: output register p holds a flit */
    kt_flit out[KSIM_PORTS];
    unsigned rr[KSIM_PORTS]; /* next input to favour, per output */
    unsigned held;           /* flits in its input FIFOs and output registers */
    unsigned occupied;       /* bit i: input FIFO i holds a flit (arbitration visits only those) */
} ksim_router;

typedef struct ksim_attach {
    const ksim_endpoint_ops *ops;
    void *ep;
} ksim_attach;

/* An attached endpoint in attach order, with the router input it injects into worked out once
 * (the per-cycle loops then touch neither the position grid nor the routing clamp), and its
 * hooks copied out of its ops (two loads a cycle fewer each). */
typedef struct ksim_endpoint {
    void *ep;
    void (*tick)(void *ep, uint64_t cycle); /* a no-op for an endpoint without one */
    const kt_flit *(*out_peek)(void *ep);
    void (*out_pop)(void *ep);
    /* ksim_mesh_set_wake: before this cycle it needs no tick and has no output (`awake`, 0,
     * until then: it is ticked and peeked every cycle) */
    const uint64_t *wake;
    ksim_router *r;
    ksim_fifo *in;   /* r's input facing the endpoint */
    unsigned in_bit; /* its bit in r->occupied */
} ksim_endpoint;

static const uint64_t awake = 0;
static void no_tick(void *ep, uint64_t cycle)
{
    (void)ep;
    (void)cycle;
}

/* Where a router's output port leads: a neighbour's input FIFO, an endpoint, or nowhere (the
 * flit leaves the mesh). Rebuilt on attach, so delivering decodes no coordinates. */
typedef struct ksim_link {
    ksim_router *next;
    ksim_fifo *in;      /* next's input, when next */
    unsigned in_bit;    /* its bit in next->occupied */
    ksim_attach *at;    /* the endpoint, when no next; NULL: nobody there */
} ksim_link;

/* A destination as the route table indexes it: {dst_x, dst_y}, four bits each. */
enum { DST_BITS = KT_POS_WIDTH, DSTS = 1 << (2 * DST_BITS) };
_Static_assert(DSTS == 16 * 16, "the route table covers the endpoint grid");

struct ksim_mesh {
    uint8_t lo, hi, n; /* routers per axis: hi - lo + 1 */
    ksim_router *routers;
    ksim_link *links;       /* [router index][port] */
    uint8_t *route;         /* [router index][destination]: ksim_route's answer, worked out once */
    ksim_attach at[16][16]; /* endpoints by [y][x] */
    ksim_endpoint list[256]; /* attached endpoints, in attach order */
    unsigned n_list;
    uint64_t dropped;
    unsigned in_flight; /* the routers' held flits, summed */
    bool moved;
    /* Where a header keeps its destination (kt_layout_header's dst_x and dst_y), read once: the
     * route of every head is decoded every cycle it waits. */
    unsigned dst_x_word, dst_x_shift, dst_y_word, dst_y_shift;
    uint64_t dst_x_mask, dst_y_mask;
};

/* A flit enters or leaves router r (its input FIFOs and output registers together). */
static void held_add(ksim_mesh *m, ksim_router *r)
{
    r->held++;
    m->in_flight++;
}
static void held_sub(ksim_mesh *m, ksim_router *r)
{
    r->held--;
    m->in_flight--;
}

static ksim_router *router(ksim_mesh *m, int x, int y)
{
    return &m->routers[(y - m->lo) * m->n + (x - m->lo)];
}
static bool in_grid(const ksim_mesh *m, int x, int y)
{
    return x >= m->lo && x <= m->hi && y >= m->lo && y <= m->hi;
}

static void link_all(ksim_mesh *m);

ksim_mesh *ksim_mesh_create(uint8_t grid_lo, uint8_t grid_hi, unsigned fifo_depth)
{
    if (grid_lo < 1 || grid_hi < grid_lo || grid_hi > 14)
        return NULL;
    ksim_mesh *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->lo = grid_lo;
    m->hi = grid_hi;
    m->n = (uint8_t)(grid_hi - grid_lo + 1);
    m->routers = calloc((size_t)m->n * m->n, sizeof *m->routers);
    m->links = calloc((size_t)m->n * m->n * KSIM_PORTS, sizeof *m->links);
    m->route = malloc((size_t)m->n * m->n * DSTS);
    if (!m->routers || !m->links || !m->route) {
        free(m->routers);
        free(m->links);
        free(m->route);
        free(m);
        return NULL;
    }
    for (int i = 0; i < m->n * m->n; i++)
        for (unsigned d = 0; d < DSTS; d++) {
            kt_coord dst = {(uint8_t)(d >> DST_BITS), (uint8_t)(d & ((1u << DST_BITS) - 1))};
            m->route[i * DSTS + d] = (uint8_t)ksim_route(grid_lo, grid_hi, (uint8_t)(grid_lo + i % m->n),
                                                         (uint8_t)(grid_lo + i / m->n), dst);
        }
    for (int i = 0; i < m->n * m->n; i++)
        for (int p = 0; p < KSIM_PORTS; p++)
            if (!ksim_fifo_init(&m->routers[i].in[p], fifo_depth)) {
                ksim_mesh_destroy(m);
                return NULL;
            }
    /* like every header field, each lies inside one host word */
    const kt_field *dx = &kt_layout_header[0], *dy = &kt_layout_header[1];
    m->dst_x_word = dx->lo / 64;
    m->dst_x_shift = dx->lo % 64;
    m->dst_x_mask = kt_width_mask(dx->width);
    m->dst_y_word = dy->lo / 64;
    m->dst_y_shift = dy->lo % 64;
    m->dst_y_mask = kt_width_mask(dy->width);
    link_all(m);
    return m;
}

void ksim_mesh_destroy(ksim_mesh *m)
{
    if (!m)
        return;
    if (m->routers)
        for (int i = 0; i < m->n * m->n; i++)
            for (int p = 0; p < KSIM_PORTS; p++)
                ksim_fifo_free(&m->routers[i].in[p]);
    free(m->routers);
    free(m->links);
    free(m->route);
    free(m);
}

void ksim_mesh_reset(ksim_mesh *m)
{
    for (int i = 0; i < m->n * m->n; i++) {
        for (int p = 0; p < KSIM_PORTS; p++) {
            ksim_fifo_clear(&m->routers[i].in[p]);
            m->routers[i].rr[p] = 0;
        }
        m->routers[i].out_valid = 0;
        m->routers[i].held = 0;
        m->routers[i].occupied = 0;
    }
    m->in_flight = 0;
}

bool ksim_mesh_position_ok(const ksim_mesh *m, kt_coord at)
{
    int x = at.x, y = at.y;
    bool xin = x >= m->lo && x <= m->hi, yin = y >= m->lo && y <= m->hi;
    bool xedge = x == m->lo - 1 || x == m->hi + 1, yedge = y == m->lo - 1 || y == m->hi + 1;
    return (xin && yin) || (xin && yedge) || (xedge && yin);
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The router an endpoint at (x,y) talks to, and the router port facing it. */
static void attach_point(const ksim_mesh *m, int x, int y, int *rx, int *ry, ksim_port *port)
{
    *rx = clamp(x, m->lo, m->hi);
    *ry = clamp(y, m->lo, m->hi);
    if (x < m->lo)
        *port = KSIM_W;
    else if (x > m->hi)
        *port = KSIM_E;
    else if (y < m->lo)
        *port = KSIM_N;
    else if (y > m->hi)
        *port = KSIM_S;
    else
        *port = KSIM_L;
}

npk_status ksim_mesh_attach(ksim_mesh *m, kt_coord at, const ksim_endpoint_ops *ops, void *ep)
{
    if (!ksim_mesh_position_ok(m, at))
        return npk_fail(
            NPK_EINVAL,
            "endpoint at (%u,%u) is neither a router position nor on the edge ring of grid "
            "%u..%u (corners hold no endpoint)",
            at.x, at.y, m->lo, m->hi);
    if (m->at[at.y][at.x].ops)
        return npk_fail(NPK_EINVAL, "two endpoints at (%u,%u)", at.x, at.y);
    m->at[at.y][at.x] = (ksim_attach){ops, ep};
    int rx, ry;
    ksim_port port;
    attach_point(m, at.x, at.y, &rx, &ry, &port);
    ksim_router *r = router(m, rx, ry);
    m->list[m->n_list++] = (ksim_endpoint){ep,
                                           ops->tick ? ops->tick : no_tick,
                                           ops->out_peek,
                                           ops->out_pop,
                                           &awake,
                                           r,
                                           &r->in[port],
                                           1u << port};
    return NPK_OK;
}

void ksim_mesh_set_wake(ksim_mesh *m, kt_coord at, const uint64_t *wake)
{
    for (unsigned i = 0; i < m->n_list; i++)
        if (m->list[i].ep == m->at[at.y][at.x].ep)
            m->list[i].wake = wake ? wake : &awake;
}

ksim_port ksim_route(uint8_t grid_lo, uint8_t grid_hi, uint8_t rx, uint8_t ry, kt_coord dst)
{
    int cx = clamp(dst.x, grid_lo, grid_hi), cy = clamp(dst.y, grid_lo, grid_hi);
    if (cx < rx)
        return KSIM_W;
    if (cx > rx)
        return KSIM_E;
    if (cy < ry)
        return KSIM_N; /* north is the smaller y */
    if (cy > ry)
        return KSIM_S;
    /* At the clamped router: at most one outward hop toward an edge position. */
    if (dst.x < rx)
        return KSIM_W;
    if (dst.x > rx)
        return KSIM_E;
    if (dst.y < ry)
        return KSIM_N;
    if (dst.y > ry)
        return KSIM_S;
    return KSIM_L;
}

static void neighbour(int x, int y, ksim_port p, int *nx, int *ny)
{
    *nx = x + (p == KSIM_E) - (p == KSIM_W);
    *ny = y + (p == KSIM_S) - (p == KSIM_N);
}

static ksim_port opposite(ksim_port p)
{
    static const ksim_port o[KSIM_PORTS] = {KSIM_L, KSIM_E, KSIM_W, KSIM_S, KSIM_N};
    return o[p];
}

/* Every router port's next hop. An endpoint slot is linked whether or not anything is attached
 * yet: delivery looks at the slot when a flit leaves. */
static void link_all(ksim_mesh *m)
{
    for (int y = m->lo; y <= m->hi; y++)
        for (int x = m->lo; x <= m->hi; x++)
            for (int p = 0; p < KSIM_PORTS; p++) {
                ksim_link *l = &m->links[((y - m->lo) * m->n + (x - m->lo)) * KSIM_PORTS + p];
                int nx = x, ny = y;
                if (p != KSIM_L)
                    neighbour(x, y, (ksim_port)p, &nx, &ny);
                *l = (ksim_link){NULL, NULL, 0, NULL};
                if (p != KSIM_L && in_grid(m, nx, ny)) {
                    l->next = router(m, nx, ny);
                    l->in = &l->next->in[opposite((ksim_port)p)];
                    l->in_bit = 1u << opposite((ksim_port)p);
                } else if (nx >= 0 && ny >= 0 && nx < 16 && ny < 16) {
                    l->at = &m->at[ny][nx];
                }
            }
}

/* The lowest set bit of a 5-bit mask (the masks here are never 0 when asked). */
static const uint8_t lowest_bit[1u << KSIM_PORTS] = {
    0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0,
};

/* Deliver router r's output registers to their next hops, lowest port first; `links` are r's. */
static void deliver(ksim_mesh *m, ksim_router *r, const ksim_link *links, uint64_t cycle)
{
    for (unsigned v = r->out_valid; v; v &= v - 1) {
        int p = lowest_bit[v];
        const ksim_link *l = &links[p];
        bool taken;
        if (l->next) {
            taken = ksim_fifo_push(l->in, &r->out[p], cycle);
            if (taken) {
                held_add(m, l->next);
                l->next->occupied |= l->in_bit;
            }
        } else if (l->at && l->at->ops) {
            taken = l->at->ops->offer(l->at->ep, &r->out[p]);
        } else {
            m->dropped++; /* an edge with nobody there: the flit leaves the mesh */
            taken = true;
        }
        if (taken) {
            r->out_valid &= ~(1u << p);
            held_sub(m, r);
            m->moved = true;
        }
    }
}

/* The output port the head of input i asks for this cycle, or -1 (empty, or arrived this cycle);
 * `route` is the router's row of the route table. */
static int head_route(const ksim_mesh *m, const ksim_router *r, const uint8_t *route, int i,
                      uint64_t cycle)
{
    if (!ksim_fifo_ready(&r->in[i], cycle))
        return -1;
    /* Only the destination matters here: two fields, not the whole header. */
    const kt_flit *f = ksim_fifo_head(&r->in[i]);
    unsigned x = (unsigned)(f->w[m->dst_x_word] >> m->dst_x_shift & m->dst_x_mask);
    unsigned y = (unsigned)(f->w[m->dst_y_word] >> m->dst_y_shift & m->dst_y_mask);
    return route[x << DST_BITS | y];
}

/* Each free output takes the first input, round robin from its pointer, whose head routes to it.
 * The routes are decoded once per head (an input that was popped offers its next head to the
 * outputs after it, as before); `asks[p]` holds the inputs whose heads route to output p, so the
 * round robin is a rotate and a lookup, not a scan. */
/* Input i's head to output p, the round robin past it. */
static inline void grant(ksim_mesh *m, ksim_router *r, int i, int p)
{
    r->out[p] = *ksim_fifo_head(&r->in[i]);
    r->out_valid |= 1u << p;
    ksim_fifo_pop(&r->in[i]);
    if (ksim_fifo_empty(&r->in[i]))
        r->occupied &= ~(1u << i);
    r->rr[p] = (unsigned)(i + 1) % KSIM_PORTS;
    m->moved = true;
}

/* One occupied input, the commonest case: what the round robin below gives a lone asker — its
 * head moves when its output is free, and so does each next head that asks for a free output
 * after the one just granted. */
static void arbitrate_one(ksim_mesh *m, ksim_router *r, const uint8_t *route, int i,
                          uint64_t cycle)
{
    for (int p = head_route(m, r, route, i, cycle); p >= 0 && !(r->out_valid >> p & 1);) {
        grant(m, r, i, p);
        int next = head_route(m, r, route, i, cycle);
        if (next <= p)
            return;
        p = next;
    }
}

static void arbitrate(ksim_mesh *m, ksim_router *r, const uint8_t *route, uint64_t cycle)
{
    if (!r->occupied)
        return; /* its flits wait in output registers */
    if (!(r->occupied & (r->occupied - 1)))
        return arbitrate_one(m, r, route, lowest_bit[r->occupied], cycle);
    unsigned asks[KSIM_PORTS] = {0}, wanted = 0; /* wanted: outputs some head asks for */
    for (unsigned occ = r->occupied; occ; occ &= occ - 1) {
        int i = lowest_bit[occ];
        int p = head_route(m, r, route, i, cycle);
        if (p >= 0) {
            asks[p] |= 1u << i;
            wanted |= 1u << p;
        }
    }
    const unsigned all = (1u << KSIM_PORTS) - 1;
    /* the free outputs asked for, lowest first (a later one may join as a head moves up) */
    wanted &= ~r->out_valid;
    while (wanted) {
        int p = lowest_bit[wanted];
        wanted &= wanted - 1;
        unsigned rr = r->rr[p], rot = ((asks[p] >> rr) | (asks[p] << (KSIM_PORTS - rr))) & all;
        int i = (int)(rr + lowest_bit[rot]);
        if (i >= KSIM_PORTS)
            i -= KSIM_PORTS;
        grant(m, r, i, p);
        /* the next head of input i may ask for a later output this cycle */
        int next = head_route(m, r, route, i, cycle);
        if (next > p) {
            asks[next] |= 1u << i;
            wanted |= (1u << next) & ~r->out_valid;
        }
    }
}

bool ksim_mesh_tick(ksim_mesh *m, uint64_t cycle)
{
    m->moved = false;
    /* The endpoints ticked this cycle, in attach order: only they can have output to inject (one
     * that sleeps has none, and an offer that wakes it gives it none before its next tick). */
    ksim_endpoint *ticked[sizeof m->list / sizeof m->list[0]];
    unsigned n_ticked = 0;
    /* the list does not change during a tick: its end read once, not after every call */
    for (ksim_endpoint *e = m->list, *end = m->list + m->n_list; e < end; e++)
        if (cycle >= *e->wake) {
            e->tick(e->ep, cycle);
            ticked[n_ticked++] = e;
        }
    /* A router that holds nothing has nothing to deliver or arbitrate (and the mesh as a whole
     * skips both when it holds nothing). */
    if (m->in_flight) {
        unsigned routers = (unsigned)m->n * m->n;
        for (unsigned i = 0; i < routers; i++)
            if (m->routers[i].out_valid)
                deliver(m, &m->routers[i], &m->links[i * KSIM_PORTS], cycle);
        for (unsigned i = 0; i < routers; i++)
            if (m->routers[i].held)
                arbitrate(m, &m->routers[i], &m->route[i * DSTS], cycle);
    }
    /* Endpoints inject their output register into the router input facing them. */
    for (unsigned k = 0; k < n_ticked; k++) {
        ksim_endpoint *e = ticked[k];
        const kt_flit *f = e->out_peek(e->ep);
        if (f && ksim_fifo_push(e->in, f, cycle)) {
            held_add(m, e->r);
            e->r->occupied |= e->in_bit;
            e->out_pop(e->ep);
            m->moved = true;
        }
    }
    return m->moved;
}

const unsigned *ksim_mesh_in_flight_count(const ksim_mesh *m) { return &m->in_flight; }

uint64_t ksim_mesh_dropped(const ksim_mesh *m) { return m->dropped; }
