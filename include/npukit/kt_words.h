/* SPDX-License-Identifier: MIT */
/* KohakuTPU register words as field tables.
 *
 * A 64-bit register word is described the way a flit is (kt_flit.h): rows of {name, lo, width}.
 * Each row is also bound to a member of the C struct the word decodes into, so one generic loop
 * decodes any word, one encodes it, and one writes its description ("[0] run [16:1] flits_left
 * [32:17] credit"): the driver's decoders, the simulator's register models and the listings
 * read the same table, and the text cannot disagree with the code.
 */
#ifndef NPUKIT_KT_WORDS_H
#define NPUKIT_KT_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/kt_flit.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One field of a word, bound to the member of the decoded struct that holds it. */
typedef struct kt_wfield {
    kt_field f;      /* name, lowest bit, width (1..64) */
    uint16_t member; /* offsetof the member */
    uint8_t size;    /* sizeof the member: 1 (also bool), 2, 4 or 8 */
    bool is_signed;  /* two's complement in the word, sign-extended into the member */
} kt_wfield;

/* A word: its name (for messages) and its fields, indexed by the word's field enum. */
typedef struct kt_word_layout {
    const char *name;
    const kt_wfield *fields;
    unsigned n;
} kt_word_layout;

/* Rows of a layout table: KT_WF(struct type, member, "name", lo, width); KT_WFS for a signed one.
 */
#define KT_WF(type, member, name, lo, width)                                                       \
    {                                                                                              \
        {name, lo, width}, (uint16_t)offsetof(type, member), (uint8_t)sizeof(((type *)0)->member), \
            false                                                                                  \
    }
#define KT_WFS(type, member, name, lo, width)                                                      \
    {                                                                                              \
        {name, lo, width}, (uint16_t)offsetof(type, member), (uint8_t)sizeof(((type *)0)->member), \
            true                                                                                   \
    }
#define KT_WORD_LAYOUT(name, rows)                                                                 \
    {                                                                                              \
        name, rows, (unsigned)(sizeof rows / sizeof rows[0])                                       \
    }

/* ---- one field at a time (field i of layout L) ---- */
/* The field's bits, unsigned. */
NPUKIT_API uint64_t kt_word_get(const kt_word_layout *L, unsigned i, uint64_t word);
/* The field's bits in place, with the other bits zero (values wider than the field are cut). */
NPUKIT_API uint64_t kt_word_bits(const kt_word_layout *L, unsigned i, uint64_t value);
/* The field's bits set, the others clear. */
NPUKIT_API uint64_t kt_word_mask(const kt_word_layout *L, unsigned i);
/* Set the field in *word, refusing a value that does not fit (names word, field, value, limit). */
NPUKIT_API npk_status kt_word_put(const kt_word_layout *L, unsigned i, uint64_t *word,
                                  uint64_t value);

/* ---- whole words ---- */
/* Every field of `word` into the struct at `out` (members not in the layout are left alone). */
NPUKIT_API void kt_word_decode(const kt_word_layout *L, uint64_t word, void *out);
/* The struct at `in` as a word, refusing a member that does not fit its field. */
NPUKIT_API npk_status kt_word_encode(const kt_word_layout *L, const void *in, uint64_t *word);
/* The struct at `in` as the hardware's wires would carry it: each member cut to its field. */
NPUKIT_API uint64_t kt_word_pack(const kt_word_layout *L, const void *in);
/* Bits above the highest field: the register's decoded width. */
NPUKIT_API unsigned kt_word_width(const kt_word_layout *L);
/* "[0] run [16:1] flits_left [32:17] credit", fields in ascending bit order (always terminated). */
NPUKIT_API size_t kt_word_describe(const kt_word_layout *L, char *buf, size_t len);
/* "run=1 flits_left=3 credit=0" (signed fields in decimal with their sign). */
NPUKIT_API size_t kt_word_format(const kt_word_layout *L, uint64_t word, char *buf, size_t len);

/* ---- the address inside a machine (facts §1.9) ----
 * 40 bits: [39] aperture (staging and other on-chip apertures; clear: DRAM), [38] zero,
 * [37:36] mesh, [35:0] offset inside that mesh (64 GB). An aperture address further splits its
 * offset into [35:32] aperture index (0: staging) and [31:0] offset inside the aperture. */
typedef struct kt_mesh_addr {
    bool aperture;
    uint8_t mesh;
    uint64_t local;
} kt_mesh_addr;
enum kt_mesh_addr_field { KT_MADDR_LOCAL, KT_MADDR_MESH, KT_MADDR_APERTURE };
NPUKIT_API extern const kt_word_layout kt_word_mesh_addr;

typedef struct kt_aperture_addr {
    uint8_t index; /* 0: the staging aperture */
    uint32_t offset;
} kt_aperture_addr;
enum kt_aperture_addr_field { KT_AADDR_OFFSET, KT_AADDR_INDEX };
NPUKIT_API extern const kt_word_layout
    kt_word_aperture_offset; /* the local offset of an aperture address */

enum { KT_MESH_ADDR_BITS = 40, KT_MESH_LOCAL_BITS = 36 };
/* The largest offset inside one mesh. */
static inline uint64_t kt_mesh_local_max(void) { return (1ull << KT_MESH_LOCAL_BITS) - 1; }
/* Compose (the mesh is cut to its two bits, the offset to 36) and split an inside address. */
NPUKIT_API uint64_t kt_mesh_addr_make(bool aperture, unsigned mesh, uint64_t local);
NPUKIT_API kt_mesh_addr kt_mesh_addr_split(uint64_t addr);

#ifdef __cplusplus
}
#endif
#endif
