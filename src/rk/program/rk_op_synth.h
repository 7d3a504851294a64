/* SPDX-License-Identifier: MIT */
/* The driver's row of each operation (rk/hw/rk_ops.h): how a task of that operation is checked,
 * synthesized and chained behind another, over one task type that holds any operation's
 * arguments. A job of such tasks (any mix of operations) is written into one task buffer by
 * npk_rk_job_write (rk_sdp.h), which reads only these rows. */
#ifndef NPUKIT_RK_OP_SYNTH_H
#define NPUKIT_RK_OP_SYNTH_H

#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_synth.h"
#include "npukit/status.h"
#include "rk/hw/rk_ops.h"
#include "rk_conv.h"
#include "rk_pool.h"
#include "rk_sdp.h"

/* One task of a job: its operation and that operation's arguments. A zeroed task is a matmul,
 * as NPK_RK_OP_MATMUL is 0. */
typedef struct npk_rk_job_task {
    npk_rk_op op;
    union {
        npk_rk_mm mm;   /* NPK_RK_OP_MATMUL */
        npk_rk_sdp sdp; /* NPK_RK_OP_SDP */
        npk_rk_conv conv; /* NPK_RK_OP_CONV */
        npk_rk_pool pool; /* NPK_RK_OP_POOL */
    };
} npk_rk_job_task;

typedef struct npk_rk_op_synth {
    npk_rk_op op;
    /* Every limit of the task, NPK_EINVAL naming the value and the limit. */
    npk_status (*check)(const npk_rk_job_task *t);
    /* The body (the row's `body` entries, in its `order`), the task checked first. */
    npk_status (*synth)(const npk_rk_job_task *t, npk_rk_entry *body);
    /* What the task writes, for the fusion rule of the task after it. */
    npk_rk_prec (*out_prec)(const npk_rk_job_task *t);
    /* The fusion rule behind a task that wrote prev_out; NULL when the op chains regardless. */
    npk_status (*chain_check)(npk_rk_prec prev_out, const npk_rk_job_task *t);
} npk_rk_op_synth;

/* NULL for a value outside the enum. */
const npk_rk_op_synth *npk_rk_op_synth_of(npk_rk_op op);

#endif
