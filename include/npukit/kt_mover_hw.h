/* SPDX-License-Identifier: MIT */
/* KohakuTPU memory mover as hardware (mm_mover, spec §3, facts §1.10): its registers inside
 * AUX_CFG, modes, element widths, fault codes, the walker (an odometer over up to six dimensions
 * with two bound-axis windows), AUX_STAT, and the FILL and GENERATE patterns. The driver's moves
 * (kt_mover.h) and the simulator's model both stand on this description.
 */
#ifndef NPUKIT_KT_MOVER_HW_H
#define NPUKIT_KT_MOVER_HW_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_words.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mover register offsets inside AUX_CFG (client offsets; the window forwards them verbatim). */
/* The fields of each register are the field tables below (kt_mv_regs). */
enum kt_mv_reg {
    KT_MV_CTRL = 0x00,   /* GO starts a move */
    KT_MV_HDR = 0x10,    /* commits into walker `sel` immediately */
    KT_MV_DIM = 0x18,    /* stages one dimension */
    KT_MV_AXIS = 0x20,   /* commits the staged dimension into the walker last selected */
    KT_MV_WINDOW = 0x28, /* commits a bound-axis window immediately */
    KT_MV_INDEX = 0x30,
    KT_MV_SEED = 0x38,
    KT_MV_IMM = 0x40, /* fill value and padding */
    KT_MV_GATHER = 0x50,
    KT_MV_AUX_LIMIT = 0x80, /* the mover owns client offsets 0x00-0x7F */
};

typedef enum kt_mv_mode {
    KT_MV_COPY = 0,
    KT_MV_TRANSPOSE = 1, /* declared, not implemented: faults F_MODE */
    KT_MV_GATHER_MODE = 2,
    KT_MV_GENERATE = 3,
    KT_MV_FILL = 4,
    KT_MV_XFORM = 5,
} kt_mv_mode;

typedef enum kt_mv_width {
    KT_MV_W8 = 0,
    KT_MV_W16 = 1,
    KT_MV_W32 = 2,
    KT_MV_W_INVALID = 3
} kt_mv_width;

typedef enum kt_mv_fault {
    KT_MV_F_NONE = 0,
    KT_MV_F_IDXLEN = 1,     /* more indices than the index RAM holds */
    KT_MV_F_RANGE = 2,      /* an address outside the 40-bit space */
    KT_MV_F_AXI = 3,        /* an AXI error response on a read or write */
    KT_MV_F_MODE = 4,       /* transpose, or an undefined mode */
    KT_MV_F_EWIDTH = 5,     /* element width 3 */
    KT_MV_F_ALIGN = 6,      /* a destination word not 32-byte aligned */
    KT_MV_F_XFORM_AXIS = 7, /* a bound axis in a transform move */
} kt_mv_fault;

/* Flags byte (CTRL [15:8]). The mover reads two fields: [3] write coalescing (consecutive
 * writes of one kind fold into one burst; off, every write is one beat) and [7:5] the burst cap
 * (0: 128 words, the 4 KB page; k: 2^(k-1) words), which bounds read and coalesced write bursts.
 * Bits [2:0] and [4] are read by nothing. Neither field changes the bytes a move writes, only
 * the bursts that carry them. */
enum {
    KT_MV_FLAG_WCOAL = 1u << 3, /* write coalescing */
    KT_MV_FLAG_BURST_SHIFT = 5, /* [7:5] log2 of the burst cap; 0 = 128 words */
    KT_MV_FLAG_BURST_MASK = 7u << 5,
    KT_MV_FLAGS_DEFINED = KT_MV_FLAG_WCOAL | KT_MV_FLAG_BURST_MASK,
    KT_MV_BURST_MAX = 128, /* BURST_MAX: 4 KB of 32-byte words, the AXI4 boundary rule */
};
/* The burst cap in words a flags byte names: 128 for field 0, else 2^(field - 1). */
NPUKIT_API unsigned kt_mv_burst_cap(uint8_t flags);
/* The flags field that caps bursts at `words` (a power of two, 1..128), or -1 for any other. */
NPUKIT_API int kt_mv_burst_field(unsigned words);

enum {
    KT_MV_MAX_DIMS = 6,       /* NDIM of the walker */
    KT_MV_WORD = 32,          /* bytes per transfer */
    KT_MV_MAX_INDICES = 2048, /* IDX_WORDS (256) x 8 indices per word */
    KT_MV_ADDR_BITS = 40,
    KT_MV_MAX_WRITES = 64, /* enough for any move kt_mv_build emits */
};

/* Bound axes: a dimension may add its index times `astep` to axis 1 or 2 (0 = none). */
typedef struct kt_mv_dim {
    uint16_t count; /* words (0 is treated as 1 by the hardware; refused here) */
    int32_t stride; /* bytes, signed, multiple of 32 */
    uint8_t axis;   /* 0 none, 1 bound axis 0, 2 bound axis 1 */
    int16_t astep;
} kt_mv_dim;

/* A bound axis window: an element is valid iff base + sum(idx * astep) is in [0, extent).
 * extent 0 disables the axis. */
typedef struct kt_mv_window {
    int16_t base;
    uint16_t extent;
} kt_mv_window;

typedef struct kt_mv_walker {
    uint64_t base;                  /* 40-bit byte address: [39] aperture, [37:36] mesh */
    unsigned ndim;                  /* 1..6 */
    kt_mv_dim dims[KT_MV_MAX_DIMS]; /* outermost first: dims[ndim-1] is innermost */
    kt_mv_window window[2];
    uint8_t xform_id, xform_mode; /* source walker of a transform move only */
} kt_mv_walker;

/* The transform slots a KohakuTPU mover carries (spec §3.2): XFORM_ID on the source walker's
 * header names one. An entry is `in_beats` source words in and `out_words` destination words out,
 * both declared by the occupant (out_words at most 4: the bank presents four word outputs); the
 * source walker counts source words, the destination walker counts entries. XFORM_MODE is the
 * occupant's own: the MXFP7 quantiser reads bit 0 as its B packing select. */
typedef struct kt_mv_slot {
    uint8_t id;
    const char *name;
    uint8_t in_beats, out_words;
} kt_mv_slot;
enum { KT_MV_SLOT_BYPASS = 0, KT_MV_SLOT_MXFP7 = 1, KT_MV_XMODE_B_LAYOUT = 1 };
/* The slot `id` holds, NULL for a slot the card leaves empty. */
NPUKIT_API const kt_mv_slot *kt_mv_slot_find(unsigned id);

/* Names: "copy", "fill", ...; "index length", "alignment", ... ("?" beyond the tables). */
NPUKIT_API const char *kt_mv_mode_name(unsigned mode);
NPUKIT_API const char *kt_mv_fault_name(unsigned code);
NPUKIT_API const char *kt_mv_reg_name(unsigned offset);
/* Parse a mode name (copy|transpose|gather|generate|fill|transform). */
NPUKIT_API npk_status kt_mv_mode_parse(const char *text, kt_mv_mode *mode);

/* ---- register words (kt_words.h field tables) ----
 * One struct per register; the same table packs the driver's writes and decodes the model's cfg
 * pulses. Bound-axis selectors: axis 0 none, 1 bound axis 0, 2 bound axis 1. */
typedef struct kt_mv_ctrl_word {
    uint8_t mode, width, flags;
    bool go;
} kt_mv_ctrl_word;
enum { KT_MV_CTRL_F_MODE, KT_MV_CTRL_F_WIDTH, KT_MV_CTRL_F_FLAGS, KT_MV_CTRL_F_GO };

typedef struct kt_mv_hdr_word {
    uint8_t sel; /* 0 source, 1 destination */
    uint64_t base;
    uint8_t ndim;
    uint8_t xform_id, xform_mode; /* read from the source walker's header only */
} kt_mv_hdr_word;
enum {
    KT_MV_HDR_F_SEL,
    KT_MV_HDR_F_BASE,
    KT_MV_HDR_F_NDIM,
    KT_MV_HDR_F_XFORM_ID,
    KT_MV_HDR_F_XFORM_MODE
};

typedef struct kt_mv_dim_word {
    uint8_t sel, dim;
    uint16_t count;
    int32_t stride;
} kt_mv_dim_word;
enum { KT_MV_DIM_F_SEL, KT_MV_DIM_F_DIM, KT_MV_DIM_F_COUNT, KT_MV_DIM_F_STRIDE };

typedef struct kt_mv_axis_word {
    uint8_t axis;
    int16_t astep;
} kt_mv_axis_word;
enum { KT_MV_AXIS_F_AXIS, KT_MV_AXIS_F_ASTEP };

typedef struct kt_mv_window_word {
    uint8_t sel, axis; /* axis: which bound axis, 0 or 1 */
    int16_t base;
    uint16_t extent;
} kt_mv_window_word;
enum { KT_MV_WINDOW_F_SEL, KT_MV_WINDOW_F_AXIS, KT_MV_WINDOW_F_BASE, KT_MV_WINDOW_F_EXTENT };

typedef struct kt_mv_index_word {
    uint64_t base;
    uint16_t count;
} kt_mv_index_word;
enum { KT_MV_INDEX_F_BASE, KT_MV_INDEX_F_COUNT };

typedef struct kt_mv_gather_word {
    uint32_t pitch;
    uint16_t words;
} kt_mv_gather_word;
enum { KT_MV_GATHER_F_PITCH, KT_MV_GATHER_F_WORDS };

typedef struct kt_mv_seed_word {
    uint64_t seed;
} kt_mv_seed_word;
typedef struct kt_mv_imm_word {
    uint32_t imm;
} kt_mv_imm_word;

/* Any one register's word, decoded. */
typedef union kt_mv_word {
    kt_mv_ctrl_word ctrl;
    kt_mv_hdr_word hdr;
    kt_mv_dim_word dim;
    kt_mv_axis_word axis;
    kt_mv_window_word window;
    kt_mv_index_word index;
    kt_mv_gather_word gather;
    kt_mv_seed_word seed;
    kt_mv_imm_word imm;
} kt_mv_word;

/* The mover's registers: offset, name, fields. Terminated by name == NULL. */
typedef struct kt_mv_reg_row {
    uint8_t offset;
    const char *name;
    const kt_word_layout *layout;
} kt_mv_reg_row;
NPUKIT_API extern const kt_mv_reg_row kt_mv_regs[];
/* The register a cfg pulse at client `offset` lands in (offset & ~7), NULL where nothing decodes.
 */
NPUKIT_API const kt_mv_reg_row *kt_mv_reg_find(unsigned offset);
/* The word of the register at `offset` from its decoded struct, refusing a member that does not
 * fit its field (names register, field, value and limit). */
NPUKIT_API npk_status kt_mv_word_encode(unsigned offset, const kt_mv_word *w, uint64_t *value);
/* A cfg pulse's value decoded by its register's fields; false where nothing decodes. */
NPUKIT_API bool kt_mv_word_decode(unsigned offset, uint64_t value, kt_mv_word *w);

/* AUX_STAT (orchestrator offset 0x78) decoded: the mover's fields and the memory agent's
 * traffic counters, which the orchestrator fills in. */
typedef struct kt_mv_status {
    uint32_t moves_done;    /* 24 bits */
    uint16_t reads, writes; /* memory-agent traffic, 16-bit free-running */
    uint8_t fault;
    bool busy;
} kt_mv_status;
enum {
    KT_MV_STAT_F_MOVES_DONE,
    KT_MV_STAT_F_READS,
    KT_MV_STAT_F_WRITES,
    KT_MV_STAT_F_FAULT,
    KT_MV_STAT_F_BUSY
};
NPUKIT_API extern const kt_word_layout kt_word_aux_stat;
NPUKIT_API kt_mv_status kt_mv_status_decode(uint64_t aux_stat);
NPUKIT_API uint64_t kt_mv_status_encode(const kt_mv_status *s);

/* The GENERATE pattern: Philox-4x32-10 keyed by `seed`, two 128-bit draws per 32-byte word with
 * counter {wordaddr[34:32], half, wordaddr[31:0]} where wordaddr = destination address >> 5.
 * So the bytes are a pure function of (seed, absolute destination word). */
NPUKIT_API void kt_mv_generate_word(uint64_t seed, uint64_t dst_addr, uint8_t out[KT_MV_WORD]);
/* Philox-4x32-10 itself (exposed for its known-answer test). */
NPUKIT_API void kt_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* The FILL pattern of one word: imm[7:0] x32, imm[15:0] x16 or imm[31:0] x8 by width. */
NPUKIT_API void kt_mv_fill_word(kt_mv_width width, uint32_t imm, uint8_t out[KT_MV_WORD]);

/* ---- walking (shared by validation and the simulator's model) ----
 * A walker is an odometer over its dimensions, the innermost (dims[ndim-1]) fastest. */
typedef struct kt_mv_point {
    int64_t addr; /* base + sum(idx * stride): may leave the 40-bit space (then out of range) */
    bool valid;   /* every enabled bound axis inside its window */
} kt_mv_point;

/* Elements the walker visits: the product of its counts (a count of 0 counts as 1). */
NPUKIT_API uint64_t kt_mv_walker_elements(const kt_mv_walker *w);
/* The element at odometer position idx[0..ndim-1]. */
NPUKIT_API kt_mv_point kt_mv_walker_point(const kt_mv_walker *w, const uint32_t idx[KT_MV_MAX_DIMS]);
/* Advance the odometer; returns false when it wrapped back to the start. */
NPUKIT_API bool kt_mv_walker_next(const kt_mv_walker *w, uint32_t idx[KT_MV_MAX_DIMS]);
static inline bool kt_mv_addr_in_range(int64_t a)
{
    return a >= 0 && a < ((int64_t)1 << KT_MV_ADDR_BITS);
}

#ifdef __cplusplus
}
#endif
#endif
