/* SPDX-License-Identifier: MIT */
/* The vector core ('VC' 0x5643) as hardware, the part only the library reads: the CU_INST
 * word's decode and the kernel word's decode (raw fields, as the core slices them: every field
 * of every form, the opcode deciding which mean anything). The public part is npukit/kt_vec.h. */
#ifndef NPUKIT_KT_HW_UNITS_VEC_H
#define NPUKIT_KT_HW_UNITS_VEC_H

#include <stdint.h>

#include "npukit/kt_vec.h"

typedef struct kt_vec_cu_fields {
    unsigned op;   /* 1 IMEM, 2 DESC, 3 RUN */
    unsigned addr; /* IMEM address, RUN pc */
    unsigned ad, fld;
    uint64_t value; /* DESC: 40 bits for a base, the low 34 for a dim */
    uint32_t word;  /* IMEM */
} kt_vec_cu_fields;
void kt_vec_cu_decode(const kt_flit *f, kt_vec_cu_fields *out);

/* Every field of a kernel word, sliced as the core does (off sign-extended from 14 bits). */
void kt_vec_decode(uint32_t word, kt_vec_insn *out);

/* The VDRAIN-to-a-node overlay: ir[24] (the sink is a node, not memory). */
static inline bool kt_vec_drain_to_node(uint32_t word) { return word >> 24 & 1; }

#endif
