/* SPDX-License-Identifier: MIT */
/* The matmul cluster ('MG' 0x4D47, upstream's mx_cluster_cu) as hardware: the public part (type,
 * layout, the FILL/GEMM/DRAIN encoders) is in npukit/kt_mat.h; here, what only the library reads
 * — its opcodes and the decode the simulator reads an instruction through (src/ktsim/unit_mat.c).
 * (facts §3.1) */
#ifndef NPUKIT_KT_HW_UNITS_MAT_H
#define NPUKIT_KT_HW_UNITS_MAT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_mat.h"

enum {
    KT_MAT_OP_FILL = 1,
    KT_MAT_OP_GEMM = 2,
    KT_MAT_OP_DRAIN = 3,
    KT_MAT_TXN = 0x40,        /* the reference encoder's header txn */
    KT_MAT_SUBTILE = 4,       /* a sub-tile is 4 x 4 outputs, one 32-byte FP16 word drained */
};

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

#endif
