/* KohakuTPU memory mover as hardware (mm_mover, spec §3, facts §1.10): its registers inside
 * AUX_CFG, modes, element widths, fault codes, the walker (an odometer over up to six dimensions
 * with two bound-axis windows), AUX_STAT, and the FILL and GENERATE patterns. The driver's moves
 * (kt_mover.h) and the simulator's model both stand on this description.
 */
#ifndef NPUKIT_KT_MOVER_HW_H
#define NPUKIT_KT_MOVER_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mover register offsets inside AUX_CFG (client offsets; the window forwards them verbatim). */
enum kt_mv_reg {
    KT_MV_CTRL = 0x00,   /* [2:0] mode, [4:3] element width, [15:8] flags, [16] GO */
    KT_MV_HDR = 0x10,    /* [0] walker, [43:4] base, [46:44] ndim, src: [50:47] XFORM_ID, [58:55] XFORM_MODE */
    KT_MV_DIM = 0x18,    /* [0] walker, [3:1] dim, [19:4] count, [51:20] signed stride (staged) */
    KT_MV_AXIS = 0x20,   /* [1:0] axis, [17:2] signed axis step (commits the staged dimension) */
    KT_MV_WINDOW = 0x28, /* [0] walker, [1] bound axis, [17:2] signed base, [33:18] extent */
    KT_MV_INDEX = 0x30,  /* [39:0] index-buffer base, [55:40] index count */
    KT_MV_SEED = 0x38,   /* [63:0] PRNG key */
    KT_MV_IMM = 0x40,    /* [31:0] fill value and padding */
    KT_MV_GATHER = 0x50, /* [31:0] pitch, [47:32] words per index */
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

typedef enum kt_mv_width { KT_MV_W8 = 0, KT_MV_W16 = 1, KT_MV_W32 = 2, KT_MV_W_INVALID = 3 } kt_mv_width;

typedef enum kt_mv_fault {
    KT_MV_F_NONE = 0,
    KT_MV_F_IDXLEN = 1,  /* more indices than the index RAM holds */
    KT_MV_F_RANGE = 2,   /* an address outside the 40-bit space */
    KT_MV_F_AXI = 3,     /* an AXI error response on a read or write */
    KT_MV_F_MODE = 4,    /* transpose, or an undefined mode */
    KT_MV_F_EWIDTH = 5,  /* element width 3 */
    KT_MV_F_ALIGN = 6,   /* a destination word not 32-byte aligned */
    KT_MV_F_XFORM_AXIS = 7, /* a bound axis in a transform move */
} kt_mv_fault;

/* Flags byte (CTRL [15:8]). */
enum {
    KT_MV_FLAG_WCOAL = 1u << 3,       /* write coalescing */
    KT_MV_FLAG_BURST_SHIFT = 5,       /* [7:5] log2 of the burst cap; 0 = 128 words */
};

enum {
    KT_MV_MAX_DIMS = 6,          /* NDIM of the walker */
    KT_MV_WORD = 32,             /* bytes per transfer */
    KT_MV_MAX_INDICES = 2048,    /* IDX_WORDS (256) x 8 indices per word */
    KT_MV_ADDR_BITS = 40,
    KT_MV_MAX_WRITES = 64,       /* enough for any move kt_mv_build emits */
};

/* Bound axes: a dimension may add its index times `astep` to axis 1 or 2 (0 = none). */
typedef struct kt_mv_dim {
    uint16_t count;   /* words (0 is treated as 1 by the hardware; refused here) */
    int32_t stride;   /* bytes, signed, multiple of 32 */
    uint8_t axis;     /* 0 none, 1 bound axis 0, 2 bound axis 1 */
    int16_t astep;
} kt_mv_dim;

/* A bound axis window: an element is valid iff base + sum(idx * astep) is in [0, extent).
 * extent 0 disables the axis. */
typedef struct kt_mv_window {
    int16_t base;
    uint16_t extent;
} kt_mv_window;

typedef struct kt_mv_walker {
    uint64_t base;                 /* 40-bit byte address: [39] aperture, [37:36] mesh */
    unsigned ndim;                 /* 1..6 */
    kt_mv_dim dims[KT_MV_MAX_DIMS]; /* outermost first: dims[ndim-1] is innermost */
    kt_mv_window window[2];
    uint8_t xform_id, xform_mode;  /* source walker of a transform move only */
} kt_mv_walker;

/* Names: "copy", "fill", ...; "index length", "alignment", ... ("?" beyond the tables). */
const char *kt_mv_mode_name(unsigned mode);
const char *kt_mv_fault_name(unsigned code);
const char *kt_mv_reg_name(unsigned offset);
/* Parse a mode name (copy|transpose|gather|generate|fill|transform). */
npk_status kt_mv_mode_parse(const char *text, kt_mv_mode *mode);

/* AUX_STAT (orchestrator offset 0x78) decoded. */
typedef struct kt_mv_status {
    uint32_t moves_done; /* 24 bits */
    uint16_t reads, writes; /* memory-agent traffic, 16-bit free-running */
    uint8_t fault;
    bool busy;
} kt_mv_status;
kt_mv_status kt_mv_status_decode(uint64_t aux_stat);
uint64_t kt_mv_status_encode(const kt_mv_status *s);

/* The GENERATE pattern: Philox-4x32-10 keyed by `seed`, two 128-bit draws per 32-byte word with
 * counter {wordaddr[34:32], half, wordaddr[31:0]} where wordaddr = destination address >> 5.
 * So the bytes are a pure function of (seed, absolute destination word). */
void kt_mv_generate_word(uint64_t seed, uint64_t dst_addr, uint8_t out[KT_MV_WORD]);
/* Philox-4x32-10 itself (exposed for its known-answer test). */
void kt_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* The FILL pattern of one word: imm[7:0] x32, imm[15:0] x16 or imm[31:0] x8 by width. */
void kt_mv_fill_word(kt_mv_width width, uint32_t imm, uint8_t out[KT_MV_WORD]);

/* ---- walking (shared by validation and the simulator's model) ----
 * A walker is an odometer over its dimensions, the innermost (dims[ndim-1]) fastest. */
typedef struct kt_mv_point {
    int64_t addr;  /* base + sum(idx * stride): may leave the 40-bit space (then out of range) */
    bool valid;    /* every enabled bound axis inside its window */
} kt_mv_point;

/* Elements the walker visits: the product of its counts (a count of 0 counts as 1). */
uint64_t kt_mv_walker_elements(const kt_mv_walker *w);
/* The element at odometer position idx[0..ndim-1]. */
kt_mv_point kt_mv_walker_point(const kt_mv_walker *w, const uint32_t idx[KT_MV_MAX_DIMS]);
/* Advance the odometer; returns false when it wrapped back to the start. */
bool kt_mv_walker_next(const kt_mv_walker *w, uint32_t idx[KT_MV_MAX_DIMS]);
static inline bool kt_mv_addr_in_range(int64_t a) { return a >= 0 && a < ((int64_t)1 << KT_MV_ADDR_BITS); }

#ifdef __cplusplus
}
#endif
#endif
