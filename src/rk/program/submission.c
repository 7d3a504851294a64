/* SPDX-License-Identifier: MIT */
/* The submission-form table (submission.h) and the public listing of it (rk.h). */
#include <string.h>

#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "submission.h"

static const npk_rk_submission_row rows[] = {
    {.name = "single",
     .layout = NPK_RK_JOB_TRAILERS,
     .rocket = true,
     .about = "one task per SUBMIT, blocking (the board-validated default)"},
    /* On rocket one job of these tasks: the kernel kicks each task on its own (TASK_NUMBER 1,
     * facts A.2) and the trailers' links go unused; hazard 2 (the feature address a core
     * caches between jobs) is the vendor driver's (its row: rknpu only). */
    {.name = "chained",
     .layout = NPK_RK_JOB_TRAILERS,
     .groups = true,
     .rocket = true,
     .about = "up to --chain tasks of a core per SUBMIT, linked by their trailers (task_number "
              "> 1)"},
    {.name = "concat",
     .layout = NPK_RK_JOB_CONCAT,
     .groups = true,
     .rocket = true,
     .about = "up to --chain tasks of a core in one regcmd array, CORE_CTRL 0x000f (start and "
              "wait for the MAC array) between them: one task_number = 1 job"},
    {.name = "multitask",
     .layout = NPK_RK_JOB_INCREMENTAL,
     .full_tasks = 2,
     .groups = true,
     .all_cores = true,
     .rocket_refusal = "the rocket uAPI has no core mask or subcore ranges, and it kicks every "
                       "task on its own (facts A.2)",
     .about = "the vendor's multi-task SUBMIT: up to --chain tasks per core, every core's "
              "subcore range in one SUBMIT; a core's tasks 0 and 1 whole, later ones only the "
              "registers that differ"},
    {.name = "nonblock",
     .layout = NPK_RK_JOB_TRAILERS,
     .nonblock = true,
     .rocket = true,
     .about = "one task per SUBMIT without BLOCK; each core's worker waits for its own "
              "completion (submit and wait timed apart)"},
    {.name = "rowoffset",
     .layout = NPK_RK_JOB_CONCAT,
     .groups = true,
     .row_offset = true,
     .rocket = true,
     .about = "int8: up to --chain M-tiles of one K slice and column range in one concat job, "
              "writing one shared output surface through the 0x1068 row offset (at most 15 "
              "rows from a shared DST), read back once"},
};
enum { ROWS = sizeof rows / sizeof rows[0] };

const npk_rk_submission_row *npk_rk_submission_default(void) { return &rows[0]; }

const npk_rk_submission_row *npk_rk_submission_find(const char *name)
{
    for (unsigned i = 0; name && i < ROWS; i++)
        if (!strcmp(rows[i].name, name))
            return &rows[i];
    return NULL;
}

const char *npk_rk_submission_refusal(const npk_rk_submission_row *f, const char *kernel,
                                      npk_rk_prec in)
{
    if (!strcmp(kernel, "rocket") && !f->rocket)
        return f->rocket_refusal;
    if (f->row_offset && !npk_rk_input_row(in)->top_pad)
        return "the output row offset (0x1068) is described for int8 matmuls only (spec "
               "\"0x1068\")";
    return NULL;
}

unsigned npk_rk_submission_count(void) { return ROWS; }

const char *npk_rk_submission_name(unsigned i) { return i < ROWS ? rows[i].name : NULL; }

const char *npk_rk_submission_about(unsigned i) { return i < ROWS ? rows[i].about : NULL; }

npk_status npk_rk_submission_plan(const char *form, unsigned chain, npk_rk_plan_request *req)
{
    const npk_rk_submission_row *f = form ? npk_rk_submission_find(form) : &rows[0];
    if (!f)
        return npk_fail(NPK_EINVAL, "submission form %s is not one of the %u forms", form, ROWS);
    if (chain < 1 || chain > NPK_RK_MAX_CHAIN)
        return npk_fail(NPK_EINVAL, "chain=%u: tasks per submit must be 1..%u", chain,
                        NPK_RK_MAX_CHAIN);
    if (chain > 1 && f == &rows[0])
        f = npk_rk_submission_find("chained");
    req->chain = f->groups ? chain : 1;
    req->chain_m_tiles = f->row_offset;
    req->host_one_thread = f->all_cores;
    return NPK_OK;
}
