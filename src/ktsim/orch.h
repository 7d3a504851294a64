/* SPDX-License-Identifier: MIT */
/* The orchestrator: the memory agent's control plane, modelled per AXI beat and per cycle.
 *
 * The host (through the station-bus front end) hands it beats with byte strobes; the mesh hands
 * it inbound flits and takes its outbound ones. Both bitstream generations are the same model;
 * the only difference is one row of `ksim_generation` (whether beats honour their strobes). */
#ifndef NPUKIT_KTSIM_ORCH_H
#define NPUKIT_KTSIM_ORCH_H

#include <stdbool.h>
#include <stdint.h>

#include "fault.h"
#include "fifo.h"
#include "npukit/ktsim.h"

typedef struct ksim_generation {
    const char *name;
    bool honours_strobes; /* a beat with no strobes does nothing; registers byte-merge */
} ksim_generation;
const ksim_generation *ksim_generation_row(ktsim_gen gen);

typedef struct ksim_orch_params {
    uint16_t flit_width;
    uint8_t pos_width, grid_lo, grid_hi;
    unsigned flit_words; /* ceil(FLIT_WIDTH / DATA_WIDTH) */
    unsigned stage_flits;
    unsigned tx_depth, rx_depth;
    kt_coord self; /* ORC_X/ORC_Y: memory-agent port 0, stamped as src of every dispatch */
    ktsim_gen gen;
    unsigned cdc_tx, cdc_rx; /* cycles the mailbox crossings add: TX to the mesh, mesh to RX */
} ksim_orch_params;

typedef struct ksim_orch ksim_orch;

/* Model errors (something the model refuses to guess) are reported through this hook. */

ksim_orch *ksim_orch_create(const ksim_orch_params *p, ksim_fault_fn fault, void *fault_user);
void ksim_orch_destroy(ksim_orch *o);
/* resetn: registers, FIFOs and the dispatcher; NODE_STATUS and the RAMs keep their contents. */
void ksim_orch_reset(ksim_orch *o);

/* One AXI write beat at window offset `off` (8-aligned) with byte strobes `strb`. True when the
 * beat changed nothing a cycle acts on by itself: it wrote the staging RAM or the TX_FLIT words
 * (read only once a kick or a push is registered), or nothing at all (no strobes). */
bool ksim_orch_write_beat(ksim_orch *o, uint32_t off, uint64_t data, uint8_t strb);
/* Whether such a beat would only store (what ksim_orch_write_beat returns), asked before it. */
bool ksim_orch_beat_stores(const ksim_orch *o, uint32_t off, uint8_t strb);
/* One AXI read beat: reads have no side effects anywhere in the window. */
uint64_t ksim_orch_read(ksim_orch *o, uint32_t off);

/* One clock cycle. `cycle` is the simulator's cycle number. */
void ksim_orch_tick_begin(ksim_orch *o, uint64_t cycle);
void ksim_orch_tick_end(ksim_orch *o);

/* Mesh side. Inbound: the memory agent offers every non-memory flit; false = refused (the RX
 * FIFO is full; CU_SIGNAL is never refused). Outbound: the output register. */
bool ksim_orch_accept(ksim_orch *o, const kt_flit *f);
const kt_flit *ksim_orch_out_peek(ksim_orch *o);
void ksim_orch_out_pop(ksim_orch *o);
/* The output register filling sets *wake to 0: the wake cycle of the memory port that carries
 * it, which sleeps while it has nothing else to do (ksim_memport_sleep_on). NULL: none. */
void ksim_orch_set_out_wake(ksim_orch *o, uint64_t *wake);

/* Plug an AUX_CFG client (rows kept in order; later rows may not overlap earlier ones). */
npk_status ksim_orch_add_aux(ksim_orch *o, const ktsim_aux_client *c);
void ksim_orch_tick_aux(ksim_orch *o);
/* A second writer on the clients' cfg port (the RV64 complex's mover and interlink windows): one
 * pulse to the client that decodes `addr`, delivered as a host beat's is. */
void ksim_orch_aux_pulse(ksim_orch *o, uint8_t addr, uint64_t value);
/* Whether a host beat pulsed a client offset in lo..hi in the current cycle (the one the last
 * tick_begin opened): how a second writer learns it collided with the host. */
bool ksim_orch_host_pulsed(const ksim_orch *o, uint8_t lo, uint8_t hi);
/* For a second writer that wins a same-cycle collision on the clients at lo..hi: host pulses
 * there are held until the clients tick in their cycle (not delivered at the beat), and
 * drop_host_pulse discards the one held for the current cycle, true when there was one. */
void ksim_orch_hold_host_pulses(ksim_orch *o, uint8_t lo, uint8_t hi);
bool ksim_orch_drop_host_pulse(ksim_orch *o, uint8_t lo, uint8_t hi);
/* The clients' status as AUX_STAT carries it (without the traffic counters), and AUX_STATW[i]. */
uint64_t ksim_orch_aux_stat(const ksim_orch *o);
uint64_t ksim_orch_aux_statw(const ksim_orch *o, unsigned index);
bool ksim_orch_has_aux_ticks(const ksim_orch *o);
/* The memory agent's traffic counters, merged into AUX_STAT [39:24] and [23:8]. */
void ksim_orch_set_traffic(ksim_orch *o, uint16_t reads, uint16_t writes);

/* Backdoors for tests and tools (the bitstream-init contents of the mirror). */
void ksim_orch_poke_node_status(ksim_orch *o, uint8_t index, uint64_t value);
uint64_t ksim_orch_node_status(const ksim_orch *o, uint8_t index);
bool ksim_orch_idle(const ksim_orch *o);
/* A tick would change nothing (idle, or a stream held by zero credit), and the clock moved past
 * quiet cycles to `cycle`. */
bool ksim_orch_quiet(const ksim_orch *o);
void ksim_orch_skip(ksim_orch *o, uint64_t cycle);
/* The AUX_CFG clients' quiet cycles (the minimum; UINT64_MAX with none ticking), and n of them
 * applied. */
uint64_t ksim_orch_aux_quiet(const ksim_orch *o);
void ksim_orch_aux_skip(ksim_orch *o, uint64_t cycles);
/* The quiet hooks of the client named `name` (ktsim_set_quiet); false when there is none. */
bool ksim_orch_set_aux_quiet(ksim_orch *o, const char *name, uint64_t (*quiet)(void *ctx),
                             void (*skip)(void *ctx, uint64_t cycles));
/* Live dispatcher view for the stall diagnosis: run, left, credit. */
void ksim_orch_prog(const ksim_orch *o, bool *run, unsigned *left, unsigned *credit);

#endif
