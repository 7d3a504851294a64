/* SPDX-License-Identifier: MIT */
/* The driver's operation table: rk_ops.def expanded over the rows each operation's own file
 * defines (rk_op_synth.h). */
#include "rk_op_synth.h"

static const npk_rk_op_synth *const rows[NPK_RK_OP_COUNT] = {
#define NPK_RK_OP(ENUM, name, ...) [NPK_RK_OP_##ENUM] = &npk_rk_op_synth_##name,
#include "rk/hw/rk_ops.def"
#undef NPK_RK_OP
};

const npk_rk_op_synth *npk_rk_op_synth_of(npk_rk_op op)
{
    return (unsigned)op < NPK_RK_OP_COUNT && rows[op]->synth ? rows[op] : NULL;
}

uint32_t npk_rk_op_max_body(void)
{
    uint32_t max = 0;
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++)
        if (rows[i]->body > max)
            max = rows[i]->body;
    return max;
}
