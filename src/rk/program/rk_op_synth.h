/* SPDX-License-Identifier: MIT */
/* The driver's row of each operation (rk/hw/rk_ops.def): the order its program writes its
 * registers in, and how a task of that operation is checked, synthesized and chained behind
 * another. Each operation defines its row, npk_rk_op_synth_<name>, in its own file beside its
 * argument struct and synthesizer; this room's table (ops.c) is rk_ops.def expanded over those
 * names. A job of tasks (any mix of operations) is written into one task buffer by
 * npk_rk_job_write (rk_job.h), which reads only these rows. */
#ifndef NPUKIT_RK_OP_SYNTH_H
#define NPUKIT_RK_OP_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"
#include "rk/hw/rk_ops.h"

/* One task of a job: its operation and that operation's argument struct (the type its driver
 * file declares: npk_rk_mm for the matmul, npk_rk_sdp, npk_rk_conv, npk_rk_pool), which the
 * caller keeps alive until the job is written. */
typedef struct npk_rk_job_task {
    npk_rk_op op;
    const void *args;
} npk_rk_job_task;

typedef struct npk_rk_op_synth {
    const npk_rk_reg_id *order; /* the program body's registers, in the order written */
    unsigned body;              /* entries in `order` */
    size_t args_size;           /* sizeof the operation's argument struct */
    /* Every limit of the task, NPK_EINVAL naming the value and the limit. */
    npk_status (*check)(const void *args);
    /* The body (`body` entries, in `order`, unless `entries` says more), the task checked
     * first. */
    npk_status (*synth)(const void *args, npk_rk_entry *body);
    /* What the task writes, for the fusion rule of the task after it. */
    npk_rk_prec (*out_prec)(const void *args);
    /* The fusion rule behind a task that wrote prev_out; NULL when the op chains regardless. */
    npk_status (*chain_check)(npk_rk_prec prev_out, const void *args);
    /* Body entries of this task when they can differ from `body` (NULL: `body`). */
    uint32_t (*entries)(const void *args);
    /* A small valid task (args_size bytes) reading `in` and `in2` and writing `out`, each
     * 64 KiB at an NPU address: what a sweep over every row runs (test_rk_ops). */
    void (*sample)(void *args, uint32_t in, uint32_t in2, uint32_t out);
} npk_rk_op_synth;

#define NPK_RK_OP(ENUM, name, ...) extern const npk_rk_op_synth npk_rk_op_synth_##name;
#include "rk/hw/rk_ops.def"
#undef NPK_RK_OP

/* NULL for a value outside the enum. */
const npk_rk_op_synth *npk_rk_op_synth_of(npk_rk_op op);
/* The largest body of any operation: a job's program slots are this many entries plus the
 * trailer. */
uint32_t npk_rk_op_max_body(void);

#endif
