/* SPDX-License-Identifier: MIT */
/* KohakuTPU interlink, driver side (spec §4, §7.4, facts §1.11).
 *
 * Present only when the interlink is built: writes go to AUX_CFG client offsets 0x80+ (window
 * 0x880+), reads come back through AUX_STATW (window 0x080 + index*8). A capability word of zero
 * means absent, or disabled. Up to four meshes share a card; a write whose address names
 * another mesh ([37:36]) leaves over the link and lands there by the top address bit — staging
 * at the full 40-bit address, DRAM by the low 32 bits. Reads never cross.
 *
 * A doorbell is not ordered against data (the outbound arbiter rotates priority among remote
 * writes, flits and doorbells): kt_il_write_and_ring issues the writes, waits for the mover to
 * be idle, and only then rings.
 */
#ifndef NPUKIT_KT_INTERLINK_H
#define NPUKIT_KT_INTERLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt.h"
#include "npukit/kt_flit.h"
#include "npukit/kt_mover.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kt_il_caps {
    bool present;    /* capability word non-zero */
    uint8_t mesh_id; /* the live id */
    uint64_t raw;
} kt_il_caps;

typedef struct kt_il_doorbells {
    uint16_t received[KT_IL_MAX_MESHES], sent[KT_IL_MAX_MESHES];
} kt_il_doorbells;

typedef struct kt_il_counters {
    uint64_t link_tx[2], link_rx[2], stalls[2];
    uint64_t forwarded, doorbells_sent, egress_blocks;
    uint32_t credits[2];
} kt_il_counters;

/* All through the orchestrator window at `ctrl_base`. */
npk_status kt_il_detect(kt_transport *t, uint64_t ctrl_base, kt_il_caps *caps);
/* Requires the interlink present. Enable stays set (a control write without bit 0 disables). */
npk_status kt_il_set_mesh_id(kt_transport *t, uint64_t ctrl_base, unsigned mesh);
npk_status kt_il_ring(kt_transport *t, uint64_t ctrl_base, unsigned dst_mesh, uint8_t tag);
npk_status kt_il_read_doorbells(kt_transport *t, uint64_t ctrl_base, kt_il_doorbells *db);
npk_status kt_il_read_faults(kt_transport *t, uint64_t ctrl_base, uint8_t *faults);
npk_status kt_il_read_counters(kt_transport *t, uint64_t ctrl_base, kt_il_counters *c);
/* Clear the inbound doorbell counts and/or the sticky faults, keeping the link enabled. A count
 * may survive a clear that races an arriving doorbell: the doorbell wins. */
npk_status kt_il_clear(kt_transport *t, uint64_t ctrl_base, bool doorbells, bool faults);
npk_status kt_il_enable(kt_transport *t, uint64_t ctrl_base, bool on);

/* The ordered cross-mesh write: run the move (its destination in mesh dst_mesh) to completion —
 * the mover idle means every remote write has left over the link — then ring dst_mesh with
 * `tag`. Refuses a source outside the local mesh (reads never cross) and a destination in the
 * local mesh (nothing to ring about). */
npk_status kt_il_write_and_ring(kt_transport *t, uint64_t ctrl_base, const kt_mv_move *m,
                                unsigned dst_mesh, uint8_t tag, uint32_t poll_budget);

/* ---- compute-unit flits across the link (spec §4, §4.1) ----
 * A flit for a unit in another mesh travels to the sending mesh's memory-agent port marked
 * remote; the interlink carries it and the far mesh injects it at the unit, txn cleared, src
 * kept. So the unit answers the src coordinate in its own mesh: a program the orchestrator sent
 * signals the far orchestrator (its NODE_STATUS, its PROG_CRED), and a CU_DATA burst must name
 * its ack node — ack {0,0} raises the ACK0 fault. A remote flit reaching a disabled interlink is
 * dropped (INJ). */

/* Mark f for the unit at `at` in mesh `mesh`: rsvd {1, mesh}, txn {at.y, at.x}, dst `port` (the
 * sending mesh's memory-agent port, where the interlink takes it). Refuses a mesh beyond 3 and a
 * coordinate that does not fit the txn's two nibbles. */
npk_status kt_il_mark_remote(kt_flit *f, unsigned mesh, kt_coord at, kt_coord port);

/* Dispatch n flits to `unit` in the mesh `to` opened (mesh id `mesh`) from the orchestrator
 * `from` opened: stage them marked remote at slot `base` of `from`, read the far NODE_STATUS
 * baseline, and kick with PROG_DST the memory-agent port `port` and credit n. The completions
 * return credit to the far orchestrator, never to `from`, so n is at most the unit's
 * inst_depth. Wait on the ticket with kt_wait(to, ...). */
npk_status kt_il_dispatch(kt_dev *from, kt_dev *to, unsigned mesh, kt_coord port,
                          const kt_unit *unit, unsigned base, const kt_flit *flits, size_t n,
                          kt_ticket *tk);

#ifdef __cplusplus
}
#endif
#endif
