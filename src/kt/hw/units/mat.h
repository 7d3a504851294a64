/* SPDX-License-Identifier: MIT */
/* The matmul cluster ('MG' 0x4D47, upstream's mx_cluster_cu) as hardware: its CU_CAPS type, its
 * instruction word, and the encoder the driver and the tools build FILL, GEMM and DRAIN with
 * (facts §3.1). What it does with them is the simulator's (src/ktsim/unit_mat.c). */
#ifndef NPUKIT_KT_HW_UNITS_MAT_H
#define NPUKIT_KT_HW_UNITS_MAT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_flit.h"

enum {
    KT_MAT_TYPE = 0x4D47, /* 'MG' */
    KT_MAT_OP_FILL = 1,
    KT_MAT_OP_GEMM = 2,
    KT_MAT_OP_DRAIN = 3,
    KT_MAT_ENTRY_BANK = 256,  /* L1 entries a bank offset (8 bits) reaches */
    KT_MAT_FILL_MAX_N = 255,  /* a FILL's read counts entries in 8 bits */
    KT_MAT_TXN = 0x40,        /* the reference encoder's header txn */
    KT_MAT_SUBTILE = 4,       /* a sub-tile is 4 x 4 outputs, one 32-byte FP16 word drained */
};

extern const kt_field kt_layout_mat[];

/* One instruction's fields, by name (the layout's). */
typedef struct kt_mat_fields {
    unsigned op;
    uint64_t addr; /* 40-bit byte address: {addr_hi, addr} */
    uint32_t n;    /* FILL entries, DRAIN sub-tiles (0 reads as 1) */
    bool sel, acc, preq, emit, fuse, abank, bbank, fbank, dnode;
    uint8_t gm, gn, nk, anchor, eoff, aoff, boff;
    uint32_t peers;
    uint8_t npeer;
    uint8_t dst_x, dst_y, dbuf, dflags, dack_x, dack_y, dmesh, dfin;
} kt_mat_fields;

void kt_mat_decode(const kt_flit *f, kt_mat_fields *out);

/* FILL: n entries (1..255) from addr into L1 A (sel 0) or B (sel 1) from entry {fbank, eoff};
 * FP16 in memory (the port quantises) unless preq (already MXFP7, 128 bytes an entry). */
npk_status kt_mat_fill(kt_flit *f, uint64_t addr, uint32_t n, bool sel, bool preq, bool fbank,
                       uint8_t eoff, uint8_t txn, bool last);
/* GEMM: gm x gn sub-tiles over nk K blocks of 32 from L1 A {abank, aoff + g * nk + kb} and B
 * {bbank, boff + h * nk + kb}; acc adds into the resident tile instead of loading it. */
npk_status kt_mat_gemm(kt_flit *f, uint8_t gm, uint8_t gn, uint8_t nk, bool acc, uint8_t aoff,
                       uint8_t boff, bool abank, bool bbank, uint8_t txn, bool last);
/* DRAIN: sub-tiles 0..n-1 of the resident tile as FP16 words to addr + 32 t. */
npk_status kt_mat_drain(kt_flit *f, uint64_t addr, uint32_t n, uint8_t txn, bool last);

#endif
