/* SPDX-License-Identifier: MIT */
/* The test unit ('TU' 0x5455) as hardware: it retires after N cycles with a result, faults, or
 * fetches one memory word. Its type code, instruction layout, opcodes and encoder
 * (src/kt/hw/units/test.c; the simulator's datapath is src/ktsim/unit_test.c). */
#ifndef NPUKIT_KT_TEST_UNIT_H
#define NPUKIT_KT_TEST_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/kt_flit.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

NPUKIT_API extern const kt_field kt_layout_test_unit[]; /* op, cycles, fetch_addr, result */
enum { KT_TEST_UNIT_TYPE = 0x5455 };
/* Its opcodes ([255:252], the KohakuTPU convention); any other retires with 0. */
enum { KT_TU_RETIRE = 1, KT_TU_FAULT = 2, KT_TU_FETCH = 3 };
/* Build one: op KT_TU_RETIRE / KT_TU_FAULT with `arg` as the result (the signal's arg), or
 * KT_TU_FETCH of the 32-byte word at `arg` (a 40-bit address); `cycles` to take, 0 for the
 * unit's configured latency. */
NPUKIT_API npk_status kt_test_inst(kt_flit *f, unsigned op, uint16_t cycles, uint64_t arg,
                                   uint8_t txn, bool last);

#ifdef __cplusplus
}
#endif
#endif
