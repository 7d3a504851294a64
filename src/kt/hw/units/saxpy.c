/* SPDX-License-Identifier: MIT */
/* The saxpy example unit ('SX' 0x5358) as hardware (facts §3.3): its CU_CAPS type code, its
 * instruction layout, its opcode and length limit, the fault codes it signals, and the encoder
 * the driver and the tools build its instructions with. What the unit does with an instruction
 * (the datapath, its timing row) is the simulator's, in src/ktsim/unit_saxpy.c; the two halves
 * live apart because the driver may not reach into a simulator (tests/test_layers.sh), yet both
 * must read one description of the instruction word, and this file is it.
 *
 * Instruction: [255:248] op (0x01; an 8-bit opcode, not the 4-bit KohakuTPU convention),
 * [247:224] n, [223:192] a (float32 bits), [191:128] x_addr, [127:64] y_addr. A burst write
 * carries at most 8 beats (MEM_WR_REQ len <= 7), so n is 1..64 per instruction. */
#include <inttypes.h>
#include <string.h>

#include "npukit/kt_flit.h"
#include "saxpy.h"

const kt_field kt_layout_saxpy[] = {
    {"op", 248, 8},      {"n", 224, 24},     {"a", 192, 32},
    {"x_addr", 128, 64}, {"y_addr", 64, 64}, {NULL, 0, 0},
};

/* Field positions in kt_layout_saxpy, in table order. */
enum { F_OP, F_N, F_A, F_X, F_Y };

uint32_t kt_saxpy_decode(const kt_flit *f, kt_saxpy_fields *out)
{
    const kt_field *L = kt_layout_saxpy;
    uint32_t abits = (uint32_t)kt_field_get(f, &L[F_A]);
    out->n = (uint32_t)kt_field_get(f, &L[F_N]);
    memcpy(&out->a, &abits, sizeof out->a);
    out->x_addr = kt_field_get(f, &L[F_X]);
    out->y_addr = kt_field_get(f, &L[F_Y]);
    /* the RTL checks the opcode first, then the length; n = 0 is no fault */
    if (kt_field_get(f, &L[F_OP]) != KT_SAXPY_OP)
        return KT_SAXPY_FAULT_OPCODE;
    return out->n > KT_SAXPY_INST_MAX_N ? KT_SAXPY_FAULT_LENGTH : 0;
}

npk_status kt_saxpy_inst(kt_flit *f, uint32_t n, float a, uint64_t x_addr, uint64_t y_addr,
                         uint8_t txn, bool last)
{
    /* stricter than the unit: n = 0 retires doing nothing, so a driver never sends it */
    if (n == 0 || n > KT_SAXPY_INST_MAX_N)
        return npk_fail(NPK_ELIMIT, "saxpy n=%u outside 1..%u (one burst write of at most 8 beats)",
                        n, (unsigned)KT_SAXPY_INST_MAX_N);
    /* the unit never checks alignment; its reads and write are whole 32-byte beats */
    if ((x_addr | y_addr) & 31)
        return npk_fail(NPK_EINVAL,
                        "saxpy addresses x=0x%" PRIx64 " y=0x%" PRIx64 " must be 32-byte aligned",
                        x_addr, y_addr);
    memset(f, 0, sizeof *f);
    uint32_t abits;
    memcpy(&abits, &a, sizeof abits);
    const uint64_t v[] = {KT_SAXPY_OP, n, abits, x_addr, y_addr};
    for (int i = F_OP; i <= F_Y; i++) {
        npk_status s = kt_field_put(f, &kt_layout_saxpy[i], v[i]);
        if (s)
            return s;
    }
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST,
                   txn,    last,   0}; /* dst/src are rewritten at dispatch */
    return kt_header_put(f, &h);
}
