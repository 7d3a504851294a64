/* SPDX-License-Identifier: MIT */
/* A job's programs and task records laid out in the form the runtime's submission form says
 * (submission.h). */
#ifndef NPUKIT_RK_RUNTIME_FORMS_H
#define NPUKIT_RK_RUNTIME_FORMS_H

#include "npukit/rk_plan.h"
#include "runtime_internal.h"
#include "rk/program/submission.h"

typedef struct npk_rk_job_builder {
    npk_rk *rt;
    npk_rk_job_layout layout;
    const npk_rk_mem *prog;             /* the core's task buffer: its programs */
    const npk_rk_mem *records;          /* where the job's records go (another core's buffer in a
                                           multi-core SUBMIT) */
    uint32_t record0;                   /* the job's first record there */
    uint32_t count;                     /* tasks in this core's job */
    uint64_t written;                   /* program entries written (trailers excluded) */
    uint64_t last_trailer;              /* byte offset of the previous task's trailer */
    npk_rk_entry prev[NPK_RK_BODY_MAX]; /* the previous task's full body (incremental) */
    size_t prev_n;
} npk_rk_job_builder;

/* Tasks one job holds: set_chain's count for the forms that group tasks, else one. */
static inline uint32_t npk_rk_tasks_per_job(const npk_rk *rt)
{
    return rt->submission->groups ? rt->chain : 1;
}

/* Whether task b may join the job task a (the task before it on the core) is in. The forms that
 * group tasks group any consecutive tasks of a core; the row-offset form only the M-tiles of one
 * K slice and column range, the tiles that share one output surface. */
bool npk_rk_job_joins(const npk_rk *rt, const npk_rk_task_plan *a, const npk_rk_task_plan *b);

/* The place of each M-tile of a shared output surface: tile i starts at surface row row[i]
 * (ascending from row[0] = 0); its DST points at surface row base[i] and its rows land
 * v[i] = row[i] - base[i] further down by the 0x1068 row offset (at most PAD_TOP's 15). Tiles
 * share a DST base while the offset reaches them; a tile the offset cannot reach starts a new
 * base. */
void npk_rk_surface_place(const uint32_t *row, uint32_t count, uint32_t *base, uint32_t *v);

/* A job of `count` tasks on `core`, its records at record0.. of `records`. */
void npk_rk_job_builder_init(npk_rk_job_builder *jb, npk_rk *rt, unsigned core,
                             const npk_rk_mem *records, uint32_t record0, uint32_t count);
/* Place task i's body (tasks in order 0..count-1). */
npk_status npk_rk_job_place(npk_rk_job_builder *jb, uint32_t i, const npk_rk_entry *body,
                            size_t nb);
/* Task records the job submits (task_number for its core). */
uint32_t npk_rk_job_records(const npk_rk_job_builder *jb);

#endif
