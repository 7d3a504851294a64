/* SPDX-License-Identifier: MIT */
/* A job of chained matmul and SDP tasks in one task buffer: the task records, the programs and
 * the trailers that link them (facts B.3), as one single-submit program. */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "rk_sdp.h"
#include "npukit/rknpu_uapi.h"

enum { SLOT_ENTRIES = NPK_RK_MATMUL_BODY + NPK_RK_TRAILER_ENTRIES };

static uint64_t records_bytes(uint32_t count)
{
    return ((uint64_t)count * sizeof(struct rknpu_task) + 63) / 64 * 64;
}

uint64_t npk_rk_job_program_offset(uint32_t count, uint32_t i)
{
    return records_bytes(count) + (uint64_t)i * SLOT_ENTRIES * sizeof(npk_rk_entry);
}

uint64_t npk_rk_job_bytes(uint32_t count) { return npk_rk_job_program_offset(count, count); }

static uint32_t body_entries(const npk_rk_job_task *t)
{
    return t->is_sdp ? npk_rk_sdp_body_entries(&t->sdp) : NPK_RK_MATMUL_BODY;
}

/* A task's program slot in bytes: the fixed slot, or a LUT task's longer body and trailer
 * from one 64-byte boundary to the next. */
static uint64_t slot_bytes(const npk_rk_job_task *t)
{
    uint64_t entries = body_entries(t) + NPK_RK_TRAILER_ENTRIES;
    if (entries < SLOT_ENTRIES)
        entries = SLOT_ENTRIES;
    return (entries * sizeof(npk_rk_entry) + 63) / 64 * 64;
}

/* Offset of task i's program in a job of these tasks (the fixed layout when no task is a LUT
 * task). */
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

static uint32_t enable_of(const npk_rk_job_task *t)
{
    return t->is_sdp ? NPK_RK_ENABLE_SDP : NPK_RK_ENABLE_MATMUL;
}

/* What a task writes: the fusion rule compares it with the next SDP's feature. */
static npk_rk_prec out_of(const npk_rk_job_task *t) { return t->is_sdp ? t->sdp.prec : t->mm.out; }

/* The error s again, prefixed with the task's index (npk_last_error() copied first: the message
 * buffer is the one npk_fail writes). */
static npk_status task_fail(npk_status s, uint32_t i)
{
    char msg[400];
    snprintf(msg, sizeof msg, "%s", npk_last_error());
    return npk_fail(s, "job task %u: %s", i, msg);
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
    for (uint32_t i = 0; i < count; i++) {
        const npk_rk_job_task *t = &tasks[i];
        uint64_t off = program_offset(tasks, count, i);
        npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)host + off);
        if (t->is_sdp && i > 0 && !t->sdp.unchecked &&
            (s = npk_rk_sdp_chain_check(out_of(&tasks[i - 1]), &t->sdp)))
            return task_fail(s, i);
        s = t->is_sdp ? npk_rk_synth_sdp(&t->sdp, prog) : npk_rk_synth_matmul(&t->mm, prog, NULL);
        if (s)
            return task_fail(s, i);
        bool last = i + 1 == count;
        uint32_t next = last ? 0 : iova + (uint32_t)program_offset(tasks, count, i + 1);
        if ((s = npk_rk_trailer(prog + body_entries(t), next,
                                last ? 0 : body_entries(&tasks[i + 1]), enable_of(t))))
            return s;
        struct rknpu_task rec = {0};
        rec.enable_mask = enable_of(t);
        rec.int_mask = npk_rk_matmul_int_mask(); /* both end on the DPU interrupt pair */
        rec.int_clear = RKNPU_INT_CLEAR;
        rec.regcfg_amount = body_entries(t);
        rec.regcmd_addr = iova + off;
        memcpy((uint8_t *)host + i * sizeof rec, &rec, sizeof rec);
    }
    return NPK_OK;
}
