/* SPDX-License-Identifier: MIT */
/* The simulator's operation rows (ops.h). */
#include "rksim/ops.h"

#include "rksim/conv.h"
#include "rksim/pool.h"
#include "rksim/sdp.h"

static const rksim_op_row rows[NPK_RK_OP_COUNT] = {
    [NPK_RK_OP_MATMUL] = {NPK_RK_OP_MATMUL, rksim_matmul_op},
    [NPK_RK_OP_SDP] = {NPK_RK_OP_SDP, rksim_sdp_op},
    [NPK_RK_OP_CONV] = {NPK_RK_OP_CONV, rksim_conv_op},
    [NPK_RK_OP_POOL] = {NPK_RK_OP_POOL, rksim_pool_op},
};

const rksim_op_row *rksim_op_row_of(npk_rk_op op)
{
    return (unsigned)op < NPK_RK_OP_COUNT && rows[op].exec ? &rows[op] : NULL;
}
