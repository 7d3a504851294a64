/* SPDX-License-Identifier: MIT */
/* A memory-agent port: a mesh endpoint that serves MEM_RD_REQ / MEM_WR_REQ / MEM_WR_DATA from
 * DRAM and, at port 0, hands every other flit to the orchestrator (which answers at this
 * coordinate; it has no endpoint of its own). */
#ifndef NPUKIT_KTSIM_MEMPORT_H
#define NPUKIT_KTSIM_MEMPORT_H

#include "dram.h"
#include "mesh.h"
#include "npukit/ktsim.h"
#include "orch.h"

typedef struct ksim_memport ksim_memport;

/* `orch` is non-NULL at port 0 only. */
ksim_memport *ksim_memport_create(kt_coord at, unsigned queue_depth, ksim_dram *dram,
                                  ksim_orch *orch, ksim_fault_fn fault, void *fault_user);
/* A port other than 0 hands its non-memory traffic to the agent too (the agent arbitrates over
 * every port's inbound); only port 0 carries the agent's outbound. */
void ksim_memport_share_agent(ksim_memport *p, ksim_orch *orch);
void ksim_memport_destroy(ksim_memport *p);
void ksim_memport_reset(ksim_memport *p);
extern const ksim_endpoint_ops ksim_memport_endpoint;
/* AXI transactions issued (16-bit, free-running). */
uint16_t ksim_memport_reads(const ksim_memport *p);
uint16_t ksim_memport_writes(const ksim_memport *p);
/* Also add each transaction to *reads / *writes (the agent's totals across its ports), so the
 * totals are kept as they happen rather than summed every cycle. */
void ksim_memport_count_into(ksim_memport *p, uint16_t *reads, uint16_t *writes);
bool ksim_memport_idle(const ksim_memport *p);
/* Ticks ahead in which the port only counts down (UINT64_MAX when idle, 0 when the next tick
 * acts): a quantising read holding its entry while the quantiser works, nothing queued to leave
 * and no processor behind the port. ksim_memport_skip applies `cycles` of them, the machine's
 * clock then at `now` (the port's own record of it, as its ticks would leave it). */
uint64_t ksim_memport_quiet(const ksim_memport *p);
void ksim_memport_skip(ksim_memport *p, uint64_t cycles, uint64_t now);

/* Event-driven on the machine's clock `clock` (the quiet skip on): the port sleeps while it
 * has nothing to do and nothing to send, and the pointer returned is its wake cycle for
 * ksim_mesh_set_wake (UINT64_MAX asleep, 0 awake). A flit offered or injected wakes it; port 0
 * also needs the agent to wake it when its output register fills (ksim_orch_set_out_wake).
 * A port with a processor behind it never sleeps. */
uint64_t *ksim_memport_sleep_on(ksim_memport *p, const uint64_t *clock);

/* The interlink's reach (spec §4): a flit arriving with rsvd[2] set is handed to `take` (false:
 * not this cycle, the port holds it), and a flit from another mesh enters the mesh through this
 * port's outbound, after the agent's and before the engine's (false: the queue is full). */
typedef bool (*ksim_remote_take_fn)(void *user, const kt_flit *f);
void ksim_memport_set_remote(ksim_memport *p, ksim_remote_take_fn take, void *user);
bool ksim_memport_inject(ksim_memport *p, const kt_flit *f);

/* The system node's hub (upstream sn_hub): the node's control complex answers at (0,0) — the
 * RV32 processor with CPU_RV64 = 0, the RV64 complex's mailbox with CPU_RV64 = 1 — a corner no
 * router touches, so no mesh map can hold anything there and the coordinate is free in every
 * mesh. The complex is not a mesh endpoint but a client of the node's ports: a flit for (0,0)
 * arriving at any port goes to it (the port holds while the RV32 processor is busy, since a
 * dropped CU_DATA beat would corrupt a program image; the RV64 mailbox takes every flit at once),
 * and its own flits leave by the port whose mesh row is their destination's, port 0 otherwise,
 * after the agent's and before the interlink's and the engine's. X-then-Y routing on clamped
 * coordinates delivers a flit for (0,0) westward onto a port's row, so nothing else changes. */
typedef struct ksim_hub_client {
    const ksim_endpoint_ops *ops;
    void *ep;
    const kt_coord *ports; /* the node's memory ports, by number */
    unsigned n_ports;
} ksim_hub_client;
/* Port `index` of the node serves `pe` (every port of the node gets the same client); port 0
 * also ticks it. */
void ksim_memport_set_processor(ksim_memport *p, const ksim_hub_client *pe, unsigned index);
/* The port a flit for mesh row `row` leaves by: the last of `ports` on that row, else port 0 —
 * upstream mag's rule for every outbound source but a port's own engine (the agent, the control
 * complex, the interlink's injected flits). */
unsigned ksim_port_for_row(const kt_coord *ports, unsigned n_ports, uint8_t row);

#endif
