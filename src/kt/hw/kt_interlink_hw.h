/* SPDX-License-Identifier: MIT */
/* KohakuTPU interlink as hardware (mag_ilink, spec §4, §7.4, facts §1.9, §1.11): its registers
 * at AUX_CFG client offsets 0x80+, the sixteen AUX_STATW words, the sticky fault bits, and the
 * inside-the-machine address that names a mesh. The driver (kt_interlink.h) and the simulator's
 * model both stand on this description.
 */
#ifndef NPUKIT_KT_INTERLINK_HW_H
#define NPUKIT_KT_INTERLINK_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_words.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Client offsets (inside AUX_CFG). */
enum kt_il_reg {
    KT_IL_CONTROL =
        0x80, /* [0] enable (reset 1), [1] clear inbound doorbell counts, [2] clear faults */
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
    KT_IL_W_CREDITS = 13, /* [31:0] link 0, [63:32] link 1 */
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

/* Inside-the-machine addresses: the layout kt_word_mesh_addr (kt_words.h). */
static inline uint64_t kt_il_dram_addr(unsigned mesh, uint64_t local)
{
    return kt_mesh_addr_make(false, mesh, local);
}
static inline uint64_t kt_il_stage_addr(unsigned mesh, uint64_t off)
{
    return kt_mesh_addr_make(true, mesh, off);
}
static inline unsigned kt_il_addr_mesh(uint64_t addr) { return kt_mesh_addr_split(addr).mesh; }

#ifdef __cplusplus
}
#endif
#endif
