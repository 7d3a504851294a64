/* SPDX-License-Identifier: MIT */
/* The flit header's field positions at the reference geometry, named once: the layout table
 * (kt_layout_header, flit.c) is built from them, and kt_flit_header decodes with them inline, so
 * a caller that wants one or two fields of every flit (the simulator's endpoints) pays for those
 * alone rather than for the whole kt_header a call builds. Every field lies in host word 4
 * (bits [287:256]). */
#ifndef NPUKIT_KT_HW_FLIT_HEADER_H
#define NPUKIT_KT_HW_FLIT_HEADER_H

#include "npukit/kt_flit.h"

enum {
    KT_H_WORD = 4,
    KT_H_LO = 256, /* bit 0 of host word 4 */
    KT_H_DST_X = 284,
    KT_H_DST_Y = 280,
    KT_H_SRC_X = 276,
    KT_H_SRC_Y = 272,
    KT_H_TYPE = 268,
    KT_H_TXN = 260,
    KT_H_LAST = 259,
    KT_H_RSVD = 256,
    KT_H_POS_W = KT_POS_WIDTH,
    KT_H_TYPE_W = 4,
    KT_H_TXN_W = 8,
    KT_H_LAST_W = 1,
    KT_H_RSVD_W = 3,
};

/* kt_header_get, inline. */
static inline kt_header kt_flit_header(const kt_flit *f)
{
    uint64_t w = f->w[KT_H_WORD];
#define KT_HF(lo, width) ((unsigned)(w >> ((lo)-KT_H_LO)) & ((1u << (width)) - 1))
    kt_header h = {{(uint8_t)KT_HF(KT_H_DST_X, KT_H_POS_W), (uint8_t)KT_HF(KT_H_DST_Y, KT_H_POS_W)},
                   {(uint8_t)KT_HF(KT_H_SRC_X, KT_H_POS_W), (uint8_t)KT_HF(KT_H_SRC_Y, KT_H_POS_W)},
                   (uint8_t)KT_HF(KT_H_TYPE, KT_H_TYPE_W),
                   (uint8_t)KT_HF(KT_H_TXN, KT_H_TXN_W),
                   KT_HF(KT_H_LAST, KT_H_LAST_W) != 0,
                   (uint8_t)KT_HF(KT_H_RSVD, KT_H_RSVD_W)};
#undef KT_HF
    return h;
}

#endif
