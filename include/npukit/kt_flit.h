/* SPDX-License-Identifier: MIT */
/* KohakuTPU 288-bit flit codec.
 *
 * A flit is one indivisible beat on a mesh link: a 32-bit routing header over a 256-bit
 * payload (reference build: FLIT_WIDTH 288, POS_WIDTH 4, the only geometry ever validated).
 * On the host it is five little-endian 64-bit words, word w holding bits [64w+63:64w]; word 4
 * carries bits 287:256 in its low 32 bits and its upper 32 bits are zero. That is also how the
 * flit is laid out in TX_FLIT, RX_FLIT and every staging slot.
 *
 * Sources: the flit format, its type codes, CU_SIGNAL codes and payload layouts are facts §1.1
 * (the upstream flit-format spec, confirmed in the RTL's noc_cu_base.v HDR_* macros); the
 * coordinate packing facts §1.2; the memory protocol facts §1.8; CU_CTRL spec §1.1-1.3.
 *
 * Every field position lives in a layout table (kt_layout_*), so the codec, the simulator and
 * the pretty-printer read the same description. Encoders check each value against its field
 * width and name the field, the value and the limit when it does not fit.
 */
#ifndef NPUKIT_KT_FLIT_H
#define NPUKIT_KT_FLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KT_FLIT_WIDTH = 288, /* bits in a flit at the reference build */
    KT_POS_WIDTH = 4,    /* bits per coordinate */
    KT_FLIT_WORDS = 5,   /* 64-bit words per flit on the host side */
    KT_PAYLOAD_BITS = 256,
    KT_COORD_MAX = (1 << KT_POS_WIDTH) - 1,
};

typedef struct kt_flit {
    uint64_t w[KT_FLIT_WORDS];
} kt_flit;

/* A mesh coordinate. Packed as {y, x} (y in the high nibble) wherever the hardware packs it. */
typedef struct kt_coord {
    uint8_t x, y;
} kt_coord;

static inline uint8_t kt_coord_pack(kt_coord c) { return (uint8_t)((c.y << KT_POS_WIDTH) | c.x); }
static inline kt_coord kt_coord_unpack(uint8_t v)
{
    return (kt_coord){(uint8_t)(v & KT_COORD_MAX), (uint8_t)(v >> KT_POS_WIDTH)};
}
static inline bool kt_coord_eq(kt_coord a, kt_coord b) { return a.x == b.x && a.y == b.y; }

/* Flit types (header [271:268]; facts §1.1.1: noc_cu_base.v, vec_cu.v, mag.v, registers.py). */
typedef enum kt_flit_type {
    KT_T_MEM_RD_REQ = 0x0,
    KT_T_MEM_WR_REQ = 0x1,
    KT_T_MEM_RD_RESP = 0x2,
    KT_T_MEM_WR_ACK = 0x3,
    KT_T_MEM_WR_DATA = 0x4,
    KT_T_CU_INST = 0x5,
    KT_T_CU_SIGNAL = 0x6,
    KT_T_CU_CTRL = 0x7,
    KT_T_CU_DATA = 0x8,
    KT_T_ERROR = 0xF,
} kt_flit_type;

/* Memory types are the ones a memory port's engine consumes or produces (type <= 4). */
static inline bool kt_type_is_mem(unsigned t) { return t <= KT_T_MEM_WR_DATA; }
NPUKIT_API const char *kt_type_name(unsigned type);

/* CU_SIGNAL codes (facts §1.1.4, the code allocation). */
typedef enum kt_signal_code {
    KT_SIG_INST_COMPLETE = 0x00,
    KT_SIG_BATCH_COMPLETE = 0x01,
    KT_SIG_BARRIER_REACHED = 0x02,
    KT_SIG_DATA_RECEIVED = 0x03,
    KT_SIG_FAULT = 0x04,
} kt_signal_code;
NPUKIT_API const char *kt_signal_name(unsigned code);

/* One field of a layout: `width` bits starting at bit `lo` of the 288-bit flit. */
typedef struct kt_field {
    const char *name;
    uint16_t lo;
    uint8_t width;
} kt_field;

/* Layout tables, each terminated by a row with name == NULL. */
NPUKIT_API extern const kt_field kt_layout_header[];
NPUKIT_API extern const kt_field kt_layout_ctrl[];    /* CU_CTRL request and reply */
NPUKIT_API extern const kt_field kt_layout_signal[];  /* CU_SIGNAL */
NPUKIT_API extern const kt_field kt_layout_mem_req[]; /* MEM_RD_REQ / MEM_WR_REQ descriptor */
NPUKIT_API extern const kt_field kt_layout_cu_data[]; /* CU_DATA descriptor */
NPUKIT_API extern const kt_field kt_layout_wr_ack[];  /* MEM_WR_ACK */

/* The unit types' own vocabulary — type codes, instruction layouts, encoders — is in each
 * unit's header (kt_saxpy.h, kt_mat.h, kt_test_unit.h, kt_vec.h), not here: this header is the
 * flit, which every unit shares. */

/* The payload layout that describes a flit of this type (NULL for pure data beats). */
NPUKIT_API const kt_field *kt_layout_for_type(unsigned type);

/* Raw bit access, width 1..64; bits [lo+width-1 : lo] must lie inside the 288-bit flit (outside,
 * a read gives 0 and a write does nothing). Inline: the simulator decodes fields every cycle. */
static inline uint64_t kt_width_mask(unsigned width)
{
    return width >= 64 ? ~0ull : (1ull << width) - 1;
}
static inline uint64_t kt_flit_bits(const kt_flit *f, unsigned lo, unsigned width)
{
    if (width == 0 || width > 64 || lo + width > KT_FLIT_WIDTH)
        return 0;
    unsigned word = lo / 64, shift = lo % 64;
    uint64_t v = f->w[word] >> shift;
    if (shift && word + 1 < KT_FLIT_WORDS)
        v |= f->w[word + 1] << (64 - shift);
    return v & kt_width_mask(width);
}
static inline void kt_flit_set_bits(kt_flit *f, unsigned lo, unsigned width, uint64_t value)
{
    if (width == 0 || width > 64 || lo + width > KT_FLIT_WIDTH)
        return;
    uint64_t m = kt_width_mask(width);
    value &= m;
    unsigned word = lo / 64, shift = lo % 64;
    f->w[word] = (f->w[word] & ~(m << shift)) | (value << shift);
    if (shift && shift + width > 64) {
        uint64_t hm = kt_width_mask(shift + width - 64);
        f->w[word + 1] = (f->w[word + 1] & ~hm) | (value >> (64 - shift));
    }
}

/* Find a field by name in a layout (NULL when absent). */
NPUKIT_API const kt_field *kt_field_find(const kt_field *layout, const char *name);
/* Set a field, refusing a value wider than the field (names field, value, limit). */
NPUKIT_API npk_status kt_field_put(kt_flit *f, const kt_field *field, uint64_t value);
static inline uint64_t kt_field_get(const kt_flit *f, const kt_field *field)
{
    return kt_flit_bits(f, field->lo, field->width);
}

/* ---- header ---- */
typedef struct kt_header {
    kt_coord dst, src;
    uint8_t type; /* 4 bits */
    uint8_t txn;
    bool last;
    uint8_t rsvd; /* 3 bits: [2] remote-mesh marker, [1:0] mesh id or word index */
} kt_header;
/* A flit for a unit in another mesh (spec §4, mag_ilink): rsvd[2] set, rsvd[1:0] the mesh, dst
 * the memory agent's port (where the interlink takes it), txn the final {y[7:4], x[3:0]}. The
 * far side injects it with dst from txn, txn and rsvd zero, src kept (so a CU_DATA burst must
 * name its ack destination: ack {0,0} would answer a node in the wrong mesh). */
enum { KT_RSVD_REMOTE = 4, KT_RSVD_MESH = 3 };

NPUKIT_API npk_status kt_header_put(kt_flit *f, const kt_header *h);
NPUKIT_API kt_header kt_header_get(const kt_flit *f);

/* ---- payloads ---- */
typedef struct kt_ctrl {
    uint8_t op; /* request: 0 (read; not decoded by the shell). reply: 0x02 */
    uint8_t index;
    uint64_t value; /* reply: the register */
} kt_ctrl;
enum { KT_CTRL_OP_READ = 0x00, KT_CTRL_OP_REPLY = 0x02 }; /* spec §1.1 */

typedef struct kt_signal {
    uint8_t code;
    uint32_t arg;
} kt_signal;

/* Memory request descriptor (MEM_RD_REQ; MEM_WR_REQ reads only addr and len). */
typedef struct kt_mem_req {
    uint64_t addr; /* 40 bits: [39] aperture, [38] 0, [37:36] mesh, [35:0] offset */
    uint8_t len;   /* beats - 1 */
    uint8_t flags; /* [6] STREAM, [5] BLAYOUT, [4] QUANT, [2:0] cache hints */
    uint8_t count; /* entries of a streaming read; 0 reads as 1 */
    kt_coord peer[3];
    uint8_t n_peer;      /* 0..3 */
    uint8_t entry_words; /* words per entry; 0 or > 4 reads as 4 */
} kt_mem_req;
enum { KT_MEM_FLAG_STREAM = 1u << 6, KT_MEM_FLAG_BLAYOUT = 1u << 5, KT_MEM_FLAG_QUANT = 1u << 4 };
/* facts §1.8 (memory protocol) and §1.9 (40-bit inside addresses) */
enum { KT_MEM_ADDR_BITS = 40, KT_MEM_WR_MAX_LEN = 7 };

typedef struct kt_cu_data {
    uint8_t buf_id;
    uint16_t offset; /* in 32-byte granules */
    uint8_t len;     /* data flits - 1 */
    uint8_t flags;   /* [0] signal on complete */
    kt_coord ack;    /* {0,0}: acknowledge to the descriptor's source */
} kt_cu_data;

/* Encoders write the payload only (the header is separate); the payload is cleared first. */
NPUKIT_API npk_status kt_ctrl_put(kt_flit *f, const kt_ctrl *c);
NPUKIT_API kt_ctrl kt_ctrl_get(const kt_flit *f);
NPUKIT_API npk_status kt_signal_put(kt_flit *f, const kt_signal *s);
NPUKIT_API kt_signal kt_signal_get(const kt_flit *f);
NPUKIT_API npk_status kt_mem_req_put(kt_flit *f, const kt_mem_req *r);
NPUKIT_API kt_mem_req kt_mem_req_get(const kt_flit *f);
NPUKIT_API npk_status kt_cu_data_put(kt_flit *f, const kt_cu_data *d);
NPUKIT_API kt_cu_data kt_cu_data_get(const kt_flit *f);
/* MEM_WR_ACK: payload[0] = the port dropped the write without an AXI transaction. */
static inline bool kt_wr_ack_dropped(const kt_flit *f) { return f->w[0] & 1; }

/* Whole flits with header and payload. */
NPUKIT_API npk_status kt_flit_ctrl_request(kt_flit *f, kt_coord dst, kt_coord src, uint8_t index,
                                           uint8_t txn);
NPUKIT_API npk_status kt_flit_ctrl_reply(kt_flit *f, kt_coord dst, kt_coord src, uint8_t index,
                                         uint8_t txn, uint64_t value);
NPUKIT_API npk_status kt_flit_signal(kt_flit *f, kt_coord dst, kt_coord src, uint8_t txn,
                                     uint8_t code, uint32_t arg);

/* The 256-bit payload as four little-endian 64-bit words (words 0..3 of the flit). */
static inline void kt_payload_clear(kt_flit *f) { f->w[0] = f->w[1] = f->w[2] = f->w[3] = 0; }

/* Host packing: five little-endian words; word 4's upper half must be zero. */
NPUKIT_API void kt_flit_to_words(const kt_flit *f, uint64_t out[KT_FLIT_WORDS]);
NPUKIT_API npk_status kt_flit_from_words(kt_flit *f, const uint64_t in[KT_FLIT_WORDS]);
NPUKIT_API void kt_flit_to_bytes(const kt_flit *f, uint8_t out[KT_FLIT_WORDS * 8]);

/* Print "TYPE dst=(x,y) src=(x,y) txn=.. last=.. field=value ..." into buf (always terminated). */
NPUKIT_API size_t kt_flit_describe(const kt_flit *f, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
