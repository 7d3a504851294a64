/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's words as field tables (kt_words.h): the node word it reads at
 * MVGO, and the kick instruction (CU_INST) that starts its program. The node word has its own
 * table — the RV64 complex's mover status (kt_rv64.h, §7.2) puts its fields elsewhere and has no
 * occupant fault, and the spec forbids one decoder for both. */
#ifndef NPUKIT_KT_HW_RV32_REGS_H
#define NPUKIT_KT_HW_RV32_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_flit.h"
#include "npukit/kt_mover_hw.h"
#include "npukit/kt_words.h"

/* The node word (§3.1): [0] busy, [7:4] mover fault, [11:8] occupant fault. busy is the
 * descriptor executor active or the mover busy. */
typedef struct kt_rv32_node {
    bool busy;
    uint8_t mover_fault; /* the mover's fault code (spec §3: 0 none .. 7 a bound axis) */
    uint8_t occ_fault;   /* the transform occupant's */
} kt_rv32_node;
enum { KT_RV32_NODE_F_BUSY, KT_RV32_NODE_F_MOVER_FAULT, KT_RV32_NODE_F_OCC_FAULT };
extern const kt_word_layout kt_rv32_node_layout;
kt_rv32_node kt_rv32_node_decode(uint32_t word);

/* An occupant's geometry as its bank register 0x04 reads: [15:0] source bits an entry takes,
 * [23:16] destination words it gives (the mover sizes both walks from them before it runs). */
typedef struct kt_rv32_occ_geometry {
    uint16_t in_bits;
    uint8_t out_words;
} kt_rv32_occ_geometry;
enum { KT_RV32_GEO_F_IN_BITS, KT_RV32_GEO_F_OUT_WORDS };
extern const kt_word_layout kt_rv32_geometry_layout;
uint32_t kt_rv32_geometry_pack(const kt_mv_slot *slot); /* 0 for NULL: no occupant */

/* The kick: CU_INST payload [255:248] op (1 = run), [247:216] start pc, [215:184] argument. */
extern const kt_field kt_layout_rv32[]; /* op, pc, arg */
/* A kick to start at `pc` (word aligned, inside the instruction window's region) with `arg`
 * (the program reads it at CTL_ARG); dst/src are set at dispatch. */
npk_status kt_rv32_kick_inst(kt_flit *f, uint32_t pc, uint32_t arg, uint8_t txn);

#endif
