/* SPDX-License-Identifier: MIT */
/* KohakuTPU register surfaces as data: the orchestrator's control window (AXI, §2 of the
 * control-register specification) and the per-unit CU_CTRL block (over the mesh, §1).
 *
 * Sources: every offset, field and access kind is the control-register specification
 * (shared/spec/kohaku-control-registers.md): CU_CTRL §1.2 (index map) and §1.3 (layouts); the
 * orchestrator map §2.2, its access rules §2.1, dispatch §2.3, credit §2.4, NODE_STATUS §2.5, the
 * mailbox and staging RAM §2.6, the 32-byte write window §2.7. Parameters (STAGE_FLITS, depths)
 * are facts §1.5.
 *
 * The driver uses the offsets and decoders; the simulator uses the same table for reset values,
 * access kinds and names, so a register is described once. Every register word with fields is a
 * field table (kt_words.h): decoders, encoders and the listing text all come from it.
 */
#ifndef NPUKIT_KT_REGS_H
#define NPUKIT_KT_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/kt_flit.h"
#include "npukit/kt_words.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed-decode registers of the orchestrator window (byte offsets; spec §2.2). */
enum kt_orch_reg {
    KT_CTRL = 0x0000,
    KT_STATUS = 0x0008,
    KT_CAPS = 0x0010,
    KT_IRQ_STAT = 0x0018,
    KT_IRQ_EN = 0x0020,
    KT_PROG_DST = 0x0040,
    KT_PROG_LEN = 0x0048,
    KT_PROG_KICK = 0x0050,
    KT_PROG_STAT = 0x0058,
    KT_PROG_CRED = 0x0060,
    KT_PROG_BASE = 0x0068,
    KT_SIG_DONE = 0x0070,
    KT_AUX_STAT = 0x0078,
    KT_AUX_STATW = 0x0080, /* 16 words from the attached client */
    KT_TX_FLIT = 0x0100,   /* FLIT_WORDS words */
    KT_TX_KICK = 0x0140,
    KT_TX_STATUS = 0x0148,
    KT_RX_FLIT = 0x0180, /* FLIT_WORDS words */
    KT_RX_POP = 0x01C0,
    KT_RX_STATUS = 0x01C8,
    KT_AUX_CFG = 0x0800,     /* 0x800-0x8FF, forwarded verbatim */
    KT_NODE_STATUS = 0x1000, /* 0x1000 + {y,x}*8 */
    KT_STAGE = 0x2000,       /* STAGE_FLITS * FLIT_WORDS * 8 bytes */
};

enum {
    KT_AUX_STATW_WORDS = 16,      /* spec §2.2 */
    KT_AUX_CFG_BYTES = 0x100,     /* spec §2.2: 0x800-0x8FF */
    KT_NODE_SLOTS = 256,          /* spec §2.5: one slot per {y,x} byte */
    KT_WINDOW_BYTES = 0x10000,    /* spec §2.1: only addr[15:0] is decoded, the window aliases */
    KT_STAGE_FLITS_DEFAULT = 128, /* facts §1.5 (parameters.md: STAGE_FLITS) */
    KT_BUS_FLIT_BYTES =
        32, /* spec §2.7: the station bus packs every host write into 32-byte flits */
};

/* How the host sees a register. */
typedef enum kt_access {
    KT_ACC_RW,    /* stored and read back */
    KT_ACC_RO,    /* read-only, derived from live state */
    KT_ACC_W1C,   /* write-1-to-clear */
    KT_ACC_W,     /* write-only: a pulse or a write into a RAM; reads zero */
    KT_ACC_RLIVE, /* write seeds, read returns a live counter (PROG_CRED) */
    KT_ACC_RCLR,  /* read a count; any write clears (SIG_DONE) */
} kt_access;

typedef struct kt_reg_desc {
    uint32_t offset;
    uint32_t words; /* 1 for a register, more for an array or window */
    const char *name;
    kt_access access;
    uint8_t width; /* stored bits of a word without a layout (64 for full words) */
    uint64_t reset;
    const kt_word_layout *layout; /* the word's fields, or NULL */
    const char *note;             /* what the fields do not say (may be NULL) */
} kt_reg_desc;

/* The orchestrator map at the reference build (FLIT_WORDS 5, STAGE_FLITS 128); rows in offset
 * order, terminated by name == NULL. */
NPUKIT_API extern const kt_reg_desc kt_orch_regs[];
/* The row covering `offset` (NULL for an unlisted offset, which reads zero). */
NPUKIT_API const kt_reg_desc *kt_orch_reg_find(uint32_t offset);
NPUKIT_API const char *kt_access_name(kt_access a);
/* Decoded bits of a register: its layout's width, or the row's width. */
NPUKIT_API unsigned kt_reg_width(const kt_reg_desc *r);
/* One line for listings: the layout's fields ("[0] run [16:1] flits_left [32:17] credit") then
 * the note. Always terminated. */
NPUKIT_API size_t kt_reg_describe(const kt_reg_desc *r, char *buf, size_t len);

/* Staging geometry: slots of FLIT_WORDS words from 0x2000. Derived, never assumed 40 bytes. */
static inline uint32_t kt_stage_slot_offset(unsigned slot, unsigned flit_words)
{
    return KT_STAGE + slot * flit_words * 8u;
}
static inline uint32_t kt_stage_end(unsigned stage_flits, unsigned flit_words)
{
    return KT_STAGE + stage_flits * flit_words * 8u;
}
static inline uint32_t kt_node_status_offset(kt_coord c)
{
    return KT_NODE_STATUS + kt_coord_pack(c) * 8u;
}

/* ---- decoded register values ----
 * Each struct has a field table (kt_word_*) whose rows are indexed by the enum beside it; the
 * decode/encode functions are loops over that table. */
typedef struct kt_agent_caps {
    uint16_t flit_width;
    uint8_t pos_width, grid_lo, grid_hi;
} kt_agent_caps;
enum { KT_CAPS_F_FLIT_WIDTH, KT_CAPS_F_POS_WIDTH, KT_CAPS_F_GRID_LO, KT_CAPS_F_GRID_HI };
NPUKIT_API extern const kt_word_layout kt_word_caps;
NPUKIT_API kt_agent_caps kt_agent_caps_decode(uint64_t v);
NPUKIT_API uint64_t kt_agent_caps_encode(const kt_agent_caps *c);

typedef struct kt_status_reg {
    bool busy, error, mesh_ready;
} kt_status_reg;
enum { KT_STATUS_F_BUSY, KT_STATUS_F_ERROR, KT_STATUS_F_MESH_READY };
NPUKIT_API extern const kt_word_layout kt_word_status;
NPUKIT_API kt_status_reg kt_status_decode(uint64_t v);
NPUKIT_API uint64_t kt_status_encode(const kt_status_reg *s);

typedef struct kt_prog_stat {
    bool run;
    uint16_t flits_left;
    uint16_t credit;
} kt_prog_stat;
enum { KT_PROG_STAT_F_RUN, KT_PROG_STAT_F_FLITS_LEFT, KT_PROG_STAT_F_CREDIT };
NPUKIT_API extern const kt_word_layout kt_word_prog_stat;
NPUKIT_API kt_prog_stat kt_prog_stat_decode(uint64_t v);
NPUKIT_API uint64_t kt_prog_stat_encode(const kt_prog_stat *p);

typedef struct kt_node_status {
    uint8_t code;
    uint32_t arg;
    uint16_t count;
    bool valid;
} kt_node_status;
enum {
    KT_NODE_STATUS_F_CODE,
    KT_NODE_STATUS_F_ARG,
    KT_NODE_STATUS_F_COUNT,
    KT_NODE_STATUS_F_VALID
};
NPUKIT_API extern const kt_word_layout kt_word_node_status;
NPUKIT_API kt_node_status kt_node_status_decode(uint64_t v);
NPUKIT_API uint64_t kt_node_status_encode(const kt_node_status *n);

/* PROG_DST: the {y,x} coordinate of the dispatch target. */
enum { KT_PROG_DST_F_X, KT_PROG_DST_F_Y };
NPUKIT_API extern const kt_word_layout kt_word_prog_dst;

/* The mailbox FIFOs' flags. */
typedef struct kt_tx_status {
    bool full;
} kt_tx_status;
enum { KT_TX_STATUS_F_FULL };
NPUKIT_API extern const kt_word_layout kt_word_tx_status;
typedef struct kt_rx_status {
    bool empty, overflow;
} kt_rx_status;
enum { KT_RX_STATUS_F_EMPTY, KT_RX_STATUS_F_OVERFLOW };
NPUKIT_API extern const kt_word_layout kt_word_rx_status;

/* Registers that hold one count (PROG_LEN, PROG_CRED, PROG_BASE, SIG_DONE). */
typedef struct kt_reg_count {
    uint16_t value;
} kt_reg_count;
NPUKIT_API extern const kt_word_layout kt_word_prog_len;
NPUKIT_API extern const kt_word_layout kt_word_prog_cred;
NPUKIT_API extern const kt_word_layout kt_word_prog_base;
NPUKIT_API extern const kt_word_layout kt_word_sig_done;

/* ---- CU_CTRL indices (§1.2) ---- */
enum kt_cu_index { KT_CU_CAPS = 0, KT_CU_STATUS = 1, KT_CU_COUNTERS = 2, KT_CU_DBG = 3 };

typedef struct kt_cu_caps {
    uint16_t type;       /* conventionally two ASCII letters, e.g. 'SX' 0x5358 */
    uint8_t version;     /* mesh-wide build number */
    uint8_t n_buffers;   /* 4 bits */
    uint16_t inst_depth; /* instruction FIFO depth: the credit a dispatcher may seed */
} kt_cu_caps;
enum { KT_CU_CAPS_F_TYPE, KT_CU_CAPS_F_VERSION, KT_CU_CAPS_F_N_BUFFERS, KT_CU_CAPS_F_INST_DEPTH };
NPUKIT_API extern const kt_word_layout kt_word_cu_caps;
NPUKIT_API kt_cu_caps kt_cu_caps_decode(uint64_t v);
NPUKIT_API uint64_t kt_cu_caps_encode(const kt_cu_caps *c);
/* The type as two printable letters ("SX"), or "??" style hex when not printable. */
NPUKIT_API void kt_cu_type_text(uint16_t type, char out[8]);

typedef struct kt_cu_status {
    bool busy, error;
    uint16_t inst_space;
} kt_cu_status;
enum { KT_CU_STATUS_F_BUSY, KT_CU_STATUS_F_ERROR, KT_CU_STATUS_F_INST_SPACE };
NPUKIT_API extern const kt_word_layout kt_word_cu_status;
NPUKIT_API kt_cu_status kt_cu_status_decode(uint64_t v);
NPUKIT_API uint64_t kt_cu_status_encode(const kt_cu_status *s);

typedef struct kt_cu_counters {
    uint32_t retired, busy_cycles;
} kt_cu_counters;
enum { KT_CU_COUNTERS_F_RETIRED, KT_CU_COUNTERS_F_BUSY_CYCLES };
NPUKIT_API extern const kt_word_layout kt_word_cu_counters;
NPUKIT_API kt_cu_counters kt_cu_counters_decode(uint64_t v);
NPUKIT_API uint64_t kt_cu_counters_encode(const kt_cu_counters *c);
/* A measurement is the difference of two reads modulo 2^32 (the counters wrap in seconds). */
static inline uint32_t kt_counter_delta32(uint32_t before, uint32_t after)
{
    return after - before;
}
static inline uint16_t kt_count_delta16(uint16_t before, uint16_t after)
{
    return (uint16_t)(after - before);
}

/* CU_DBG (index 3) is the unit's own: each unit type publishes what it means and whether it is
 * cumulative (difference two reads) or per run (cleared at each start: never difference it), and
 * the driver decodes it per CU_TYPE (§1.4). One row per documented type; a type with no row is
 * undocumented, its value shown raw. */
typedef struct kt_cu_dbg_field {
    const char *name;
    uint8_t lo, width;
} kt_cu_dbg_field;
typedef struct kt_cu_dbg_row {
    uint16_t type;
    const char *unit;     /* what the type is */
    bool per_run;         /* cleared at every start (else cumulative) */
    kt_cu_dbg_field f[2]; /* the fields, a NULL name ending the list early */
    const char *source;   /* where the meaning is published */
} kt_cu_dbg_row;
/* The row of a CU_TYPE, or NULL when the type publishes none the driver knows. */
NPUKIT_API const kt_cu_dbg_row *kt_cu_dbg_row_of(uint16_t type);
/* CU_DBG decoded by its type's row: "compute_cycles=5 memory_cycles=9 (cumulative)", or
 * "0x... (undocumented for type XX)". Returns the length written (as snprintf). */
NPUKIT_API size_t kt_cu_dbg_describe(uint16_t type, uint64_t dbg, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
