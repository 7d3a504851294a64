/* SPDX-License-Identifier: MIT */
/* rksim execution: the PC walker (regcmd fetch, register writes, op-enable, trailer chaining)
 * and the operation executor it calls. */
#ifndef NPUKIT_RKSIM_EXEC_H
#define NPUKIT_RKSIM_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rksim.h"
#include "rksim/result.h"

struct rknpu_task;

/* Run tasks [first, first+count) of a task buffer on one core. */
void rksim_pc_run(rksim *s, unsigned core, const struct rknpu_task *tasks, uint32_t first,
                  uint32_t count, bool pingpong, rksim_core_result *r);

/* Execute the operation the core's registers configure, for an op-enable of `enable_mask`.
 * `first_in_job` tells whether it is the job's first operation (hazard 2). */
void rksim_exec_op(rksim *s, unsigned core, uint32_t enable_mask, bool first_in_job,
                   rksim_core_result *r);

#endif
