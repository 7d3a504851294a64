/* SPDX-License-Identifier: MIT */
/* The interlink model (mag_ilink / mag_switch / mag_link, spec §4, §7.4, facts §1.11): one node
 * per mesh of a card, joined in a chain — link 0 to the mesh one position down, link 1 to the one
 * up. A node carries remote writes from its mover and doorbells (and forwards what passes
 * through); reads never cross. Its outbound arbiter picks among remote writes, forwarded beats
 * and doorbells by rotating priority, so a doorbell is not ordered against data.
 *
 * Registers at client offsets 0x80 (control), 0x88 (mesh id), 0x90 (ring); status through the
 * sixteen AUX_STATW words. */
#ifndef NPUKIT_KTSIM_INTERLINK_H
#define NPUKIT_KTSIM_INTERLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_flit.h"
#include "npukit/kt_mover_hw.h"

enum { KSIM_ILINK_MAX_MESHES = 4 };

typedef struct ksim_ilink_params {
    unsigned meshes;      /* 1..4, positions 0..meshes-1 along the chain */
    unsigned latency;     /* cycles a beat spends on a link */
    unsigned beat_cycles; /* cycles between two beats on one link (serial links are slower than the
                             mover) */
    unsigned rx_beats;    /* credits per link direction (RX_BEATS) */
    unsigned queue_depth; /* each outbound class queue */
} ksim_ilink_params;
void ksim_ilink_params_default(ksim_ilink_params *p, unsigned meshes);

typedef struct ksim_ilink ksim_ilink; /* the fabric: every node and link of one card */

/* Where an arriving write lands in the destination mesh: bit 39 set -> its staging at the full
 * 40-bit address; otherwise its DRAM by the low 32 bits. false = an AXI error. */
typedef bool (*ksim_ilink_land_fn)(void *user, unsigned position, uint64_t addr,
                                   const uint8_t data[KT_MV_WORD]);

ksim_ilink *ksim_ilink_create(const ksim_ilink_params *p, ksim_ilink_land_fn land, void *user);
void ksim_ilink_destroy(ksim_ilink *f);
void ksim_ilink_reset(ksim_ilink *f, unsigned position);

/* Register side of the node at `position`. */
void ksim_ilink_cfg(ksim_ilink *f, unsigned position, uint8_t offset, uint64_t value);
uint64_t ksim_ilink_statw(ksim_ilink *f, unsigned position, unsigned index);
/* One cycle of the node at `position`, whose mesh clock reads `cycle`. */
void ksim_ilink_tick(ksim_ilink *f, unsigned position, uint64_t cycle);

/* Mover side. */
uint8_t ksim_ilink_mesh_id(const ksim_ilink *f, unsigned position);
/* Queue a remote write; false = the queue is full this cycle (counted as a local-egress block). */
bool ksim_ilink_remote_write(ksim_ilink *f, unsigned position, uint64_t addr,
                             const uint8_t data[KT_MV_WORD]);
/* A flit from the mesh marked for another one (rsvd[2], the mesh in rsvd[1:0], the final
 * coordinate in txn): queued for the link as it is; at a disabled node taken and dropped (fault
 * INJ); a CU_DATA descriptor opening a packet with ack {0,0} raises ACK0. false = the queue is
 * full this cycle (the port holds the flit). */
bool ksim_ilink_remote_flit(ksim_ilink *f, unsigned position, const kt_flit *flit);
/* Where an arriving flit enters its mesh, already readdressed (dst from txn, txn and rsvd zero);
 * false = not this cycle (the beat waits on the link). */
typedef bool (*ksim_ilink_inject_fn)(void *user, unsigned position, const kt_flit *flit);
void ksim_ilink_set_inject(ksim_ilink *f, ksim_ilink_inject_fn inject);
/* Every remote write queued at this node has left over its link. */
bool ksim_ilink_writes_drained(const ksim_ilink *f, unsigned position);
/* Raise a sticky fault bit (e.g. RD_REMOTE when the mover reads another mesh). */
void ksim_ilink_raise(ksim_ilink *f, unsigned position, unsigned bit);
/* The inbound doorbell counts as db_status packs them: mesh 0 in [15:0] ... mesh 3 in [63:48]. */
uint64_t ksim_ilink_db_status(const ksim_ilink *f, unsigned position);

#endif
