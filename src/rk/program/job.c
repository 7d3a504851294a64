/* SPDX-License-Identifier: MIT */
/* A job of chained tasks in one task buffer: the task records, the programs and the trailers
 * that link them (facts B.3), as one single-submit program. Every operation-specific step goes
 * through the operation's rows (rk/hw/rk_ops.def: its hardware row and its driver row). */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rknpu_uapi.h"
#include "rk_job.h"

/* The fixed slot: the longest body and its trailer, rounded up to a pair (the PC fetches
 * pairs, so an odd program's no-op pad fits). */
static uint64_t slot_entries(void)
{
    return ((uint64_t)npk_rk_op_max_body() + NPK_RK_TRAILER_ENTRIES + 1) / 2 * 2;
}

static uint64_t records_bytes(uint32_t count)
{
    return ((uint64_t)count * sizeof(struct rknpu_task) + 63) / 64 * 64;
}

uint64_t npk_rk_job_program_offset(uint32_t count, uint32_t i)
{
    return records_bytes(count) + (uint64_t)i * slot_entries() * sizeof(npk_rk_entry);
}

uint64_t npk_rk_job_bytes(uint32_t count) { return npk_rk_job_program_offset(count, count); }

/* Body entries of task t: its operation's body, or what its driver row says the task writes
 * (an SDP task with a LUT writes the tables' upload too). */
static uint32_t body_of(const npk_rk_job_task *t)
{
    const npk_rk_op_synth *sy = npk_rk_op_synth_of(t->op);
    if (!sy || !t->args)
        return 0;
    return sy->entries ? sy->entries(t->args) : sy->body;
}

/* A task's program slot in bytes: the fixed slot, or a longer body and its trailer from one
 * 64-byte boundary to the next. */
static uint64_t slot_bytes(const npk_rk_job_task *t)
{
    uint64_t entries = body_of(t) + NPK_RK_TRAILER_ENTRIES;
    if (entries < slot_entries())
        entries = slot_entries();
    return (entries * sizeof(npk_rk_entry) + 63) / 64 * 64;
}

/* Offset of task i's program in a job of these tasks (the fixed layout when every body fits
 * the fixed slot). */
static uint64_t program_offset(const npk_rk_job_task *tasks, uint32_t count, uint32_t i)
{
    uint64_t off = records_bytes(count);
    for (uint32_t k = 0; k < i; k++)
        off += slot_bytes(&tasks[k]);
    return off;
}

uint64_t npk_rk_job_bytes_of(const npk_rk_job_task *tasks, uint32_t count)
{
    return program_offset(tasks, count, count);
}

/* The error s again, prefixed with the task's index (npk_last_error() copied first: the message
 * buffer is the one npk_fail writes). */
static npk_status task_fail(npk_status s, uint32_t i)
{
    char msg[400];
    snprintf(msg, sizeof msg, "%s", npk_last_error());
    return npk_fail(s, "job task %u: %s", i, msg);
}

/* The rows of task i's operation, or a refusal naming it (or its missing arguments). */
static npk_status rows_of(const npk_rk_job_task *t, uint32_t i, const npk_rk_op_desc **d,
                          const npk_rk_op_synth **sy)
{
    char name[32];
    *d = npk_rk_op_desc_of(t->op);
    *sy = npk_rk_op_synth_of(t->op);
    if (!*d || !*sy)
        return npk_fail(NPK_EINVAL, "job task %u: %s has no %s row", i,
                        npk_rk_op_name(t->op, name), *d ? "synthesizer" : "operation");
    if (!t->args)
        return npk_fail(NPK_EINVAL, "job task %u: the %s task has no arguments (NULL)", i,
                        (*d)->name);
    return NPK_OK;
}

npk_status npk_rk_job_write(void *host, uint32_t iova, uint64_t size, const npk_rk_job_task *tasks,
                            uint32_t count)
{
    if (!host || !tasks || !count)
        return npk_fail(NPK_EINVAL, "job: NULL buffer or no task");
    if (size < npk_rk_job_bytes_of(tasks, count))
        return npk_fail(NPK_EINVAL, "job: the task buffer has %llu bytes, %u tasks need %llu",
                        (unsigned long long)size, count,
                        (unsigned long long)npk_rk_job_bytes_of(tasks, count));
    if (iova % 16)
        return npk_fail(NPK_EINVAL,
                        "job: task buffer IOVA 0x%x is not 16-byte aligned "
                        "(PC_SOURCE_ADDR)",
                        iova);
    npk_status s;
    const npk_rk_op_desc *d, *next_d = NULL;
    const npk_rk_op_synth *sy, *next_sy = NULL;
    if ((s = rows_of(&tasks[0], 0, &d, &sy)))
        return s;
    for (uint32_t i = 0; i < count; i++, d = next_d, sy = next_sy) {
        const npk_rk_job_task *t = &tasks[i];
        bool last = i + 1 == count;
        if (!last && (s = rows_of(&tasks[i + 1], i + 1, &next_d, &next_sy)))
            return s;
        uint64_t off = program_offset(tasks, count, i);
        npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)host + off);
        if (i > 0 && sy->chain_check) {
            const npk_rk_op_synth *prev = npk_rk_op_synth_of(tasks[i - 1].op);
            if ((s = sy->chain_check(prev->out_prec(tasks[i - 1].args), t->args)))
                return task_fail(s, i);
        }
        if ((s = sy->synth(t->args, prog)))
            return task_fail(s, i);
        uint32_t next = last ? 0 : iova + (uint32_t)program_offset(tasks, count, i + 1);
        if ((s = npk_rk_trailer(prog + body_of(t), next, last ? 0 : body_of(&tasks[i + 1]),
                                d->enable)))
            return s;
        /* The PC fetches pairs of entries (npk_rk_pc_amount): an odd program's last pair ends
         * on a no-op, not on whatever an earlier job left in the slot (a stale LUT upload would
         * write the LUT RAM). Every slot has room: the fixed one is a whole number of pairs, a
         * longer one ends on a 64-byte boundary. */
        if ((body_of(t) + NPK_RK_TRAILER_ENTRIES) % 2)
            prog[body_of(t) + NPK_RK_TRAILER_ENTRIES] = 0;
        struct rknpu_task rec = {0};
        rec.enable_mask = d->enable;
        rec.int_mask = d->int_mask; /* the interrupt the operation ends on */
        rec.int_clear = RKNPU_INT_CLEAR;
        rec.regcfg_amount = body_of(t);
        rec.regcmd_addr = iova + off;
        memcpy((uint8_t *)host + i * sizeof rec, &rec, sizeof rec);
    }
    return NPK_OK;
}
