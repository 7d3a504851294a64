/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
/* SUBMIT: picks the cores and task ranges the way rknpu_job.c does (facts A.1), runs each
 * core's PC, and turns the outcome into the kernel's answer (0, ETIMEDOUT after the scaled
 * timeout, task_counter, hw_elapse_time). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "npukit/rknpu_uapi.h"
#include "rksim/exec.h"
#include "rksim/sim.h"

/* Hazard 5: this many wedges on a core without an ACT_RESET in between corrupt the job queue
 * for good (spec "Multi-core submit ... trap 2": storming wedging submits without the
 * per-submit reset is a hard hang). The exact count is not measured; 3 is the model's choice:
 * one wedge is recovered by the kernel's soft reset, a storm is not. */
enum { STORM_HANG_WEDGES = 3 };

static void sleep_scaled_timeout(const rksim *s, uint32_t timeout_ms)
{
    double ms = rksim_wait_ms(s, timeout_ms);
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

static int crash(rksim *s, rksim_hazard_id id, const char *msg)
{
    s->dead = true;
    s->report.outcome = RKSIM_CRASH;
    s->report.hazards |= RKSIM_HZ_BIT(id);
    snprintf(s->report.message, sizeof s->report.message, "%s", msg);
    return -ENODEV;
}

int rksim_run_submit(rksim *s, struct rknpu_submit *sub, const uint8_t *task_buf,
                     uint64_t task_buf_size)
{
    memset(&s->report, 0, sizeof s->report);
    rksim_report *rep = &s->report;
    sub->task_counter = 0;

    /* AUTO (0) puts the job on the least-loaded core; jobs run one at a time here, so core 0. */
    uint32_t mask = sub->core_mask ? sub->core_mask : RKNPU_CORE0_MASK;
    mask &= (1u << s->cfg.cores) - 1;
    if (!mask) {
        rep->outcome = RKSIM_REJECTED;
        snprintf(rep->message, sizeof rep->message, "core_mask 0x%x names no simulated core",
                 sub->core_mask);
        return -EINVAL;
    }
    uint64_t records = task_buf_size / sizeof(struct rknpu_task);

    /* Each core's range: subcore_task[core] for one or two cores, subcore_task[core + 2] when
     * all three run (facts A.1 "Sub-core selection"). */
    struct rknpu_subcore_task range[RKSIM_MAX_CORES] = {{0, 0}};
    for (unsigned c = 0; c < s->cfg.cores; c++) {
        if (!(mask & (1u << c)))
            continue;
        unsigned idx = rknpu_subcore_index(mask, c);
        range[c] = sub->subcore_task[idx];
        if (range[c].task_number == 0) {
            /* The kernel computes the last task as task[start + 0 - 1]: a NULL deref. */
            if (rksim_faithful(s, RKSIM_HZ_SUBCORE_NULL_CRASH))
                return crash(s, RKSIM_HZ_SUBCORE_NULL_CRASH,
                             "kernel Oops in rknpu_job_subcore_commit: core_mask selects "
                             "an empty subcore_task entry (modelled: device dead until "
                             "re-opened)");
            rep->outcome = RKSIM_REJECTED;
            snprintf(rep->message, sizeof rep->message,
                     "subcore_task[%u] is empty for core %u (ideal: rejected)", idx, c);
            return -EINVAL;
        }
        if ((uint64_t)range[c].task_start + range[c].task_number > records) {
            rep->outcome = RKSIM_REJECTED;
            snprintf(rep->message, sizeof rep->message,
                     "subcore_task[%u] = {%u, %u} runs past the %llu task records", idx,
                     range[c].task_start, range[c].task_number, (unsigned long long)records);
            return -EINVAL;
        }
    }

    const struct rknpu_task *tasks = (const struct rknpu_task *)task_buf;
    rksim_mem_job_begin(&s->mem);
    double longest_us = 0;
    int rc = 0;
    rksim_outcome worst = RKSIM_OK;
    for (unsigned c = 0; c < s->cfg.cores; c++) {
        if (!(mask & (1u << c)))
            continue;
        rksim_core_result r;
        rksim_pc_run(s, c, tasks, range[c].task_start, range[c].task_number,
                     (sub->flags & RKNPU_JOB_PINGPONG) != 0, &r);
        sub->task_counter += r.completed;
        rep->ops += r.ops;
        rep->hazards |= r.hazards;
        if (r.model_us > longest_us)
            longest_us = r.model_us;
        if (r.outcome != RKSIM_OK && worst == RKSIM_OK) {
            worst = r.outcome;
            rep->fault_iova = r.fault_iova;
            snprintf(rep->message, sizeof rep->message, "core %u: %s", c, r.message);
        }
        rksim_core *core = &s->core[c];
        if (r.outcome == RKSIM_WEDGE || r.outcome == RKSIM_FAULT) {
            core->storm++;
            /* the kernel's timeout handler soft-resets the core */
            rksim_core_reset(core, true);
        }
        if (core->storm >= STORM_HANG_WEDGES && rksim_faithful(s, RKSIM_HZ_WEDGE_STORM_HANG)) {
            rksim_mem_job_end(&s->mem);
            return crash(s, RKSIM_HZ_WEDGE_STORM_HANG,
                         "hard hang: repeated wedging submits without ACT_RESET corrupted "
                         "the job queue (modelled: device dead until re-opened)");
        }
    }
    if (rksim_mem_job_end(&s->mem))
        rep->hazards |= RKSIM_HZ_BIT(RKSIM_HZ_STALE_FRESH_OUTPUT);

    rep->outcome = worst;
    rep->task_counter = sub->task_counter;
    rep->model_us = longest_us;
    bool nonblock = (sub->flags & RKNPU_JOB_NONBLOCK) != 0;
    switch (worst) {
    case RKSIM_OK: rc = 0; break;
    case RKSIM_UNSUPPORTED:
        /* Not a kernel answer: the simulator refuses to guess (EOPNOTSUPP is never returned
         * by rknpu for SUBMIT, so callers can tell it apart). */
        rc = -EOPNOTSUPP;
        break;
    case RKSIM_WEDGE:
    case RKSIM_FAULT:
    case RKSIM_CRASH:
    case RKSIM_REJECTED:
    default: /* a wedge or a DMA fault: the job never raises its interrupt */
        if (!nonblock)
            sleep_scaled_timeout(s, sub->timeout);
        rc = -ETIMEDOUT;
        break;
    }
    if (nonblock && rc != -EOPNOTSUPP) {
        /* Accepted: the outcome waits for the completion on every core the job ran on. */
        for (unsigned c = 0; c < s->cfg.cores; c++)
            if (mask & (1u << c)) {
                s->nonblock[c].pending = true;
                s->nonblock[c].rc = rc;
                s->nonblock[c].model_us = longest_us;
                s->nonblock[c].wait_ms = rc ? rksim_wait_ms(s, sub->timeout) : 0;
            }
        rc = 0;
    }
    /* hw_elapse_time exists in the 0.9.8 struct only; the 5.10 field there is user_data,
     * which the old kernel leaves alone. */
    if (!s->gen_510)
        sub->u48_.hw_elapse_time = (int64_t)(longest_us + 0.5);
    return rc;
}

int rksim_nonblock_take(rksim *s, unsigned core, double *model_us, double *wait_ms)
{
    *model_us = 0;
    *wait_ms = 0;
    if (core >= RKSIM_MAX_CORES || !s->nonblock[core].pending)
        return 0;
    s->nonblock[core].pending = false;
    *model_us = s->nonblock[core].model_us;
    *wait_ms = s->nonblock[core].wait_ms;
    return s->nonblock[core].rc;
}
