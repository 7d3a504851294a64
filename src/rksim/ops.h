/* SPDX-License-Identifier: MIT */
/* The simulator's row of each operation (rk/hw/rk_ops.h): the executor that runs it once the
 * op-enable's block set has selected the operation's description row. A block set no row
 * selects is refused as unsupported, naming the sets that are modelled; an operation with a
 * description row and no executor is refused by name. */
#ifndef NPUKIT_RKSIM_OPS_H
#define NPUKIT_RKSIM_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rksim.h"
#include "rk/hw/rk_ops.h"
#include "rksim/result.h"

typedef struct rksim_op_row {
    npk_rk_op op;
    /* Run the operation the core's registers configure; `blocks` is the op-enable without WAIT,
     * `first_in_job` tells whether it is the job's first operation (hazard 2). */
    void (*exec)(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                 rksim_core_result *r);
} rksim_op_row;

/* NULL for a value outside the enum or an operation the simulator has no executor for. */
const rksim_op_row *rksim_op_row_of(npk_rk_op op);

/* The matmul's executor (matmul_exec.c); the SDP's is rksim_sdp_op (sdp.h). */
void rksim_matmul_op(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                     rksim_core_result *r);

#endif
