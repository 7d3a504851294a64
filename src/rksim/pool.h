/* SPDX-License-Identifier: MIT */
/* The PDP pooling task (op-enable PPU | PPU_RDMA, rk_pool.h) and its executor. */
#ifndef NPUKIT_RKSIM_POOL_H
#define NPUKIT_RKSIM_POOL_H

#include "rksim/result.h"
#include "rksim/sim.h"

/* Run one pooling task from the core's registers. */
void rksim_pool_op(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                   rksim_core_result *r);

#endif
