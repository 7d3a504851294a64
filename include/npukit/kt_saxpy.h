/* SPDX-License-Identifier: MIT */
/* The saxpy unit ('SX' 0x5358, facts §3.3) as hardware: y[0:n] = a*x + y over float32, n 1..64
 * per instruction. Its type code, instruction layout, fault codes and encoder; the encoder lives
 * in src/kt/hw/units/saxpy.c, the simulator's datapath in src/ktsim/unit_saxpy.c. */
#ifndef NPUKIT_KT_SAXPY_H
#define NPUKIT_KT_SAXPY_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/kt_flit.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

NPUKIT_API extern const kt_field kt_layout_saxpy[]; /* op, n, a, x_addr, y_addr */
enum { KT_SAXPY_TYPE = 0x5358, KT_SAXPY_OP = 0x01, KT_SAXPY_INST_MAX_N = 64 };
/* The codes it faults with (the SIG_FAULT arg, the RTL's). */
#define KT_SAXPY_FAULT_OPCODE 0xBAD00001u
#define KT_SAXPY_FAULT_LENGTH 0xBAD00002u
/* Build one: n 1..64, addresses 32-byte aligned; dst/src are set at dispatch. */
NPUKIT_API npk_status kt_saxpy_inst(kt_flit *f, uint32_t n, float a, uint64_t x_addr,
                                    uint64_t y_addr, uint8_t txn, bool last);

#ifdef __cplusplus
}
#endif
#endif
