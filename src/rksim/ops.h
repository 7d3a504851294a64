/* SPDX-License-Identifier: MIT */
/* The simulator's row of each operation (rk/hw/rk_ops.def): the executor that runs it once the
 * op-enable's block set has selected the operation's description row. Each operation defines
 * its row, rksim_op_<name>, in its own file beside its executor; the table (ops.c) is rk_ops.def
 * expanded over those names. A block set no row selects is refused as unsupported, naming the
 * sets that are modelled; an operation whose row has no executor is refused by name. */
#ifndef NPUKIT_RKSIM_OPS_H
#define NPUKIT_RKSIM_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rksim.h"
#include "rk/hw/rk_ops.h"
#include "rksim/result.h"

typedef struct rksim_op_row {
    /* Run the operation the core's registers configure (functional result and model time in
     * r); `blocks` is the op-enable without WAIT, `first_in_job` tells whether it is the job's
     * first operation (hazard 2). */
    void (*exec)(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                 rksim_core_result *r);
} rksim_op_row;

#define NPK_RK_OP(ENUM, name, ...) extern const rksim_op_row rksim_op_##name;
#include "rk/hw/rk_ops.def"
#undef NPK_RK_OP

/* NULL for a value outside the enum or an operation the simulator has no executor for. */
const rksim_op_row *rksim_op_row_of(npk_rk_op op);

#endif
