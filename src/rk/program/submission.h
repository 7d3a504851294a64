/* SPDX-License-Identifier: MIT */
/* Submission forms as data: how the runtime lays a job's tasks out in the task buffer and how it
 * submits and waits for them. One row per form (spec "Ruled out": 0x000f concatenation; "TWO
 * distinct batch mechanisms": the vendor's multi-task submit; "Parallel per-core doorbell
 * submit": non-blocking submits; "0x1068": the output row offset). The runtime's spine asks the
 * row; it has no form-specific branches of its own beyond the row's fields. */
#ifndef NPUKIT_RK_SUBMISSION_H
#define NPUKIT_RK_SUBMISSION_H

#include <stdbool.h>

#include "npukit/rk_types.h"

/* How the tasks of one job sit in the task buffer. */
typedef enum npk_rk_job_layout {
    /* One task record and one program per task; each trailer links to the next program
     * (facts B.3), the last one ends the job. */
    NPK_RK_JOB_TRAILERS,
    /* One task record, one program: the tasks' bodies back to back, each ended by an op-enable
     * with the WAIT bit (CORE_CTRL 0x000f: start, and let the parser wait for the MAC array),
     * the last one by the trailer: a task_number = 1 job however many tasks it holds. */
    NPK_RK_JOB_CONCAT,
    /* One record per task, trailers linking them, every used core's tasks in one SUBMIT
     * (core_mask of them all, each core's subcore range); a core's first task is a full
     * program and each later one writes only the registers whose value differs from the task
     * before it (the vendor's incremental tasks), relying on the register file it left. */
    NPK_RK_JOB_INCREMENTAL,
} npk_rk_job_layout;

typedef struct npk_rk_submission_row {
    const char *name;
    npk_rk_job_layout layout;
    bool groups;    /* a job holds up to npk_rk_set_chain's tasks (else exactly one) */
    bool all_cores; /* one SUBMIT and one thread for every core's tasks */
    bool nonblock;  /* SUBMIT without BLOCK; the core's own worker then waits for completion */
    /* The M-tiles of one output column range write one shared output surface at their row
     * (0x1068 row offset + DST base); only for inputs whose row describes it (int8). */
    bool row_offset;
    /* NPK_RK_JOB_INCREMENTAL: a core's first tasks written whole before the incremental ones
     * (the vendor's int4 capture: "task[0,1] full (108 regs), task[2+] lightweight", spec "TWO
     * distinct batch mechanisms") */
    unsigned full_tasks;
    bool rocket; /* the rocket kernel allows it */
    const char *rocket_refusal;
    const char *about;
} npk_rk_submission_row;

/* The default: one task per submit, blocking (the board-validated form). */
const npk_rk_submission_row *npk_rk_submission_default(void);
/* The row named `name`, NULL if none. */
const npk_rk_submission_row *npk_rk_submission_find(const char *name);
/* Why form f cannot run a matmul of `in` weights on kernel `kernel` ("rknpu"/"rocket"), NULL if
 * it can. */
const char *npk_rk_submission_refusal(const npk_rk_submission_row *f, const char *kernel,
                                      npk_rk_prec in);

#endif
