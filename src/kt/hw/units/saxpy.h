/* SPDX-License-Identifier: MIT */
/* The saxpy unit as hardware: the public part (type, layout, fault codes, the encoder) is in
 * npukit/kt_saxpy.h; here, the decode the simulator reads an instruction through
 * (src/ktsim/unit_saxpy.c). */
#ifndef NPUKIT_KT_HW_UNITS_SAXPY_H
#define NPUKIT_KT_HW_UNITS_SAXPY_H

#include <stdint.h>

#include "npukit/kt_saxpy.h"

typedef struct kt_saxpy_fields {
    uint32_t n;
    float a;
    uint64_t x_addr, y_addr;
} kt_saxpy_fields;
/* An instruction's fields as the unit reads them; returns 0, or the fault code the unit
 * signals for it (a bad opcode first, then n above 64; n = 0 is no fault). */
uint32_t kt_saxpy_decode(const kt_flit *f, kt_saxpy_fields *out);

#endif
