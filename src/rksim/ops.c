/* SPDX-License-Identifier: MIT */
/* The simulator's operation table: rk_ops.def expanded over the rows each operation's executor
 * file defines (ops.h). */
#include "rksim/ops.h"

static const rksim_op_row *const rows[NPK_RK_OP_COUNT] = {
#define NPK_RK_OP(ENUM, name, ...) [NPK_RK_OP_##ENUM] = &rksim_op_##name,
#include "rk/hw/rk_ops.def"
#undef NPK_RK_OP
};

const rksim_op_row *rksim_op_row_of(npk_rk_op op)
{
    return (unsigned)op < NPK_RK_OP_COUNT && rows[op]->exec ? rows[op] : NULL;
}
