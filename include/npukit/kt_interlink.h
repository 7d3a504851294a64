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

#include "npukit/kt_mover.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Client offsets (inside AUX_CFG). */
enum kt_il_reg {
    KT_IL_CONTROL = 0x80, /* [0] enable (reset 1), [1] clear inbound doorbell counts, [2] clear faults */
    KT_IL_MESH_ID = 0x88, /* [1:0] this mesh's id: a runtime value */
    KT_IL_RING = 0x90,    /* [1:0] destination mesh, [15:8] tag; the write rings */
};
enum {
    KT_IL_CTRL_ENABLE = 1u << 0,
    KT_IL_CTRL_CLEAR_DOORBELLS = 1u << 1,
    KT_IL_CTRL_CLEAR_FAULTS = 1u << 2,
    KT_IL_MAX_MESHES = 4,
    KT_IL_CAP_MAGIC = 0x494C, /* 'IL' */
};

/* AUX_STATW indices. */
enum kt_il_statw {
    KT_IL_W_CAPS = 0,
    KT_IL_W_FAULTS = 1,
    KT_IL_W_DOORBELL0 = 2, /* 2..5: per mesh, [15:0] received, [31:16] sent */
    KT_IL_W_LINK0_TX = 6,
    KT_IL_W_LINK0_RX = 7,
    KT_IL_W_LINK1_TX = 8,
    KT_IL_W_LINK1_RX = 9,
    KT_IL_W_LINK0_STALL = 10,
    KT_IL_W_LINK1_STALL = 11,
    KT_IL_W_FORWARDED = 12,
    KT_IL_W_CREDITS = 13,  /* [31:0] link 0, [63:32] link 1 */
    KT_IL_W_DOORBELLS_SENT = 14,
    KT_IL_W_EGRESS_BLOCKS = 15,
};

/* Sticky fault bits (AUX_STATW[1]). */
enum kt_il_fault {
    KT_IL_F_RD_REMOTE = 0, /* a memory read named another mesh: it aliased to local memory */
    KT_IL_F_ACK0 = 1,      /* a remote CU_DATA burst with no ack destination */
    KT_IL_F_SWITCH = 2,    /* a packet asked for a turn the routing model forbids */
    KT_IL_F_AXI = 3,       /* an AXI error on the mover's or the inbound write path */
    KT_IL_F_INJ = 4,       /* an inbound flit could not be injected and was dropped */
};
const char *kt_il_fault_name(unsigned bit);
/* "RD_REMOTE|AXI" (or "none"). */
size_t kt_il_faults_text(uint8_t faults, char *buf, size_t len);

/* Inside-the-machine addresses (facts §1.9): [39] aperture, [37:36] mesh, [35:0] local. */
static inline uint64_t kt_il_dram_addr(unsigned mesh, uint64_t local) { return (uint64_t)(mesh & 3) << 36 | local; }
static inline uint64_t kt_il_stage_addr(unsigned mesh, uint64_t off)
{
    return 1ull << 39 | (uint64_t)(mesh & 3) << 36 | off;
}
static inline unsigned kt_il_addr_mesh(uint64_t addr) { return (unsigned)(addr >> 36) & 3; }

typedef struct kt_il_caps {
    bool present;     /* capability word non-zero */
    uint8_t mesh_id;  /* the live id */
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
npk_status kt_il_write_and_ring(kt_transport *t, uint64_t ctrl_base, const kt_mv_move *m, unsigned dst_mesh,
                                uint8_t tag, uint32_t poll_budget);

#ifdef __cplusplus
}
#endif
#endif
