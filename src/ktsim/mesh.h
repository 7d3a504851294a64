/* SPDX-License-Identifier: MIT */
/* The mesh: routers on GRID_LO..GRID_HI in both axes, endpoints on router local ports or on the
 * edge ring just outside the grid, XY routing with the clamp, and hop-by-hop flow control in
 * which a flit is held until the next hop takes it (so a full endpoint stalls the link). */
#ifndef NPUKIT_KTSIM_MESH_H
#define NPUKIT_KTSIM_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_flit.h"
#include "npukit/status.h"

/* What the mesh needs from an endpoint. */
typedef struct ksim_endpoint_ops {
    bool (*offer)(void *ep, const kt_flit *f); /* inbound: true = taken this cycle */
    const kt_flit *(*out_peek)(void *ep);      /* outbound register, NULL when empty */
    void (*out_pop)(void *ep);
    void (*tick)(void *ep, uint64_t cycle); /* the endpoint's own cycle */
} ksim_endpoint_ops;

typedef enum ksim_port { KSIM_L = 0, KSIM_W, KSIM_E, KSIM_N, KSIM_S, KSIM_PORTS } ksim_port;

typedef struct ksim_mesh ksim_mesh;

ksim_mesh *ksim_mesh_create(uint8_t grid_lo, uint8_t grid_hi, unsigned fifo_depth);
void ksim_mesh_destroy(ksim_mesh *m);
void ksim_mesh_reset(ksim_mesh *m);

/* Attach an endpoint at a coordinate: a router position (local port) or an edge position. */
npk_status ksim_mesh_attach(ksim_mesh *m, kt_coord at, const ksim_endpoint_ops *ops, void *ep);
/* Event-driven endpoints: the one at `at` publishes in *wake the first cycle it needs a tick
 * (0 or less than the cycle: every cycle); before it the endpoint has no output, and the mesh
 * neither ticks nor peeks it. A flit offered to it wakes it (its offer resets *wake). */
void ksim_mesh_set_wake(ksim_mesh *m, kt_coord at, const uint64_t *wake);
/* Whether `at` can hold an endpoint (inside the grid or on the edge ring, never a corner). */
bool ksim_mesh_position_ok(const ksim_mesh *m, kt_coord at);

/* The output port a router at (rx, ry) picks for a flit to `dst`: clamp the destination into
 * the grid, X first, then Y, then at most one outward hop; West > East > North > South > Local. */
ksim_port ksim_route(uint8_t grid_lo, uint8_t grid_hi, uint8_t rx, uint8_t ry, kt_coord dst);

/* One cycle: endpoint ticks, then links and routers move flits. True when a flit moved. */
bool ksim_mesh_tick(ksim_mesh *m, uint64_t cycle);

/* The count of flits inside routers, kept current by the mesh: a caller that asks every cycle
 * (the machine's step) reads it through this pointer. */
const unsigned *ksim_mesh_in_flight_count(const ksim_mesh *m);
uint64_t ksim_mesh_dropped(const ksim_mesh *m);

#endif
