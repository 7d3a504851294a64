/* rksim execution: the PC walker (regcmd fetch, register writes, op-enable, trailer chaining)
 * and the operation executor it calls. */
#ifndef NPUKIT_RKSIM_EXEC_H
#define NPUKIT_RKSIM_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rksim.h"

struct rknpu_task;

/* The result of one core's part of a job, or of one operation. */
typedef struct rksim_core_result {
    rksim_outcome outcome;
    uint32_t completed;   /* tasks whose completion the PC counted */
    uint32_t ops;
    uint32_t hazards;     /* RKSIM_HZ_BIT of each hazard that fired */
    uint64_t fault_iova;
    double model_us;
    char message[200];
} rksim_core_result;

/* Run tasks [first, first+count) of a task buffer on one core. */
void rksim_pc_run(rksim *s, unsigned core, const struct rknpu_task *tasks, uint32_t first,
                  uint32_t count, bool pingpong, rksim_core_result *r);

/* Execute the operation the core's registers configure, for an op-enable of `enable_mask`.
 * `first_in_job` tells whether it is the job's first operation (hazard 2). */
void rksim_exec_op(rksim *s, unsigned core, uint32_t enable_mask, bool first_in_job,
                   rksim_core_result *r);

/* printf into r->message and set the outcome; returns false for use in `return fail(...)`. */
bool rksim_result_fail(rksim_core_result *r, rksim_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
