/* SPDX-License-Identifier: MIT */
/* The configurable test unit ('TU' 0x5455) as hardware: its instruction layout and the encoder
 * the driver and the tests build its instructions with. Its behaviour is the simulator's
 * (src/ktsim/unit_test.c); the split is saxpy's (src/kt/hw/units/saxpy.c says why).
 *
 * Instruction (opcode in the top nibble, the KohakuTPU convention): [255:252] op (KT_TU_*),
 * [239:224] cycles to take (0: the preset's latency), [223:184] FETCH's 40-bit address of one
 * 32-byte word, [31:0] RETIRE / FAULT's result (exec_result, the signal's arg). */
#include <string.h>

#include "npukit/kt_flit.h"
#include "npukit/kt_test_unit.h"

const kt_field kt_layout_test_unit[] = {
    {"op", 252, 4}, {"cycles", 224, 16}, {"fetch_addr", 184, 40}, {"result", 0, 32}, {NULL, 0, 0},
};

npk_status kt_test_inst(kt_flit *f, unsigned op, uint16_t cycles, uint64_t arg, uint8_t txn,
                        bool last)
{
    memset(f, 0, sizeof *f);
    const kt_field *L = kt_layout_test_unit;
    npk_status s = kt_field_put(f, &L[0], op);
    if (!s)
        s = kt_field_put(f, &L[1], cycles);
    if (!s)
        s = kt_field_put(f, op == KT_TU_FETCH ? &L[2] : &L[3], arg);
    if (s)
        return s;
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST,
                   txn,    last,   0}; /* dst/src are rewritten at dispatch */
    return kt_header_put(f, &h);
}
