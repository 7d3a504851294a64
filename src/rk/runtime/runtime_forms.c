/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Laying a job's programs out in the task buffer the way its submission form says
 * (submission.h): programs linked by trailers, bodies concatenated around CORE_CTRL 0x000f, or
 * incremental programs after a full first one. The caller synthesizes each task's body; the
 * builder decides where it goes, what of it is written and how it is linked. */
#include <stdint.h>
#include <string.h>

#include "npukit/rk_regs.h"
#include "runtime_forms.h"

void npk_rk_job_builder_init(npk_rk_job_builder *jb, npk_rk *rt, unsigned core,
                             const npk_rk_mem *records, uint32_t record0, uint32_t count)
{
    memset(jb, 0, sizeof *jb);
    jb->rt = rt;
    jb->layout = rt->submission->layout;
    jb->prog = &rt->core[core].task;
    jb->records = records;
    jb->record0 = record0;
    jb->count = count;
}

static npk_rk_entry *entries_at(const npk_rk_mem *m, uint64_t off)
{
    return (npk_rk_entry *)((uint8_t *)m->host + off);
}

static void write_record(npk_rk_job_builder *jb, uint32_t i, uint64_t prog_off, uint32_t entries)
{
    const npk_rk_kernel_form *kf = jb->rt->form;
    struct rknpu_task task = {0};
    task.enable_mask = kf->enable;
    task.int_mask = npk_rk_matmul_int_mask(); /* the DPU interrupt ends a matmul (facts A.1) */
    task.int_clear = RKNPU_INT_CLEAR;
    task.regcfg_amount = entries; /* rknpu-shaped: a rocket device adds the trailer */
    task.regcmd_addr = jb->prog->iova + prog_off;
    memcpy((uint8_t *)jb->records->host + (jb->record0 + i) * sizeof task, &task, sizeof task);
}

/* The value a program leaves in the register `e` writes (its last write of it), or -1 when it
 * does not write it. */
static int64_t final_value(const npk_rk_entry *p, size_t n, npk_rk_entry e)
{
    for (size_t i = n; i-- > 0;)
        if (npk_rk_entry_target(p[i]) == npk_rk_entry_target(e) &&
            npk_rk_entry_reg(p[i]) == npk_rk_entry_reg(e))
            return npk_rk_entry_value(p[i]);
    return -1;
}

/* The entries of `body` that change a register file `prev` left: every write of a register
 * whose final value differs (the vendor's incremental task). The op itself is started by the
 * trailer as always. */
static size_t incremental(const npk_rk_entry *prev, size_t np, const npk_rk_entry *body, size_t nb,
                          npk_rk_entry *out)
{
    size_t n = 0;
    for (size_t i = 0; i < nb; i++)
        if (final_value(prev, np, body[i]) != final_value(body, nb, body[i]))
            out[n++] = body[i];
    return n;
}

/* The PC fetches whole pairs of entries (PC_REGISTER_AMOUNTS counts pairs, facts A.1): a body
 * of odd length gets a no-op entry, or the fetch would run one entry past the trailer into
 * whatever an earlier job left there. */
static size_t pad_even(npk_rk_entry *prog, size_t n)
{
    if (n % 2)
        prog[n++] = 0; /* target 0: a no-op (facts B.2) */
    return n;
}

/* Programs linked by trailers: task i's program sits in its own region; the trailer of the
 * task before it is rewritten to chain here, now that this program's length is known. */
static npk_status place_linked(npk_rk_job_builder *jb, uint32_t i, const npk_rk_entry *body,
                               size_t nb)
{
    npk_rk *rt = jb->rt;
    uint64_t off = npk_rk_regcmd_offset(rt->chain, i);
    npk_rk_entry *prog = entries_at(jb->prog, off);
    size_t n = nb;
    if (jb->layout == NPK_RK_JOB_INCREMENTAL && i > 0 && i >= rt->submission->full_tasks)
        n = incremental(jb->prev, jb->prev_n, body, nb, prog);
    else
        memcpy(prog, body, nb * sizeof *body);
    n = pad_even(prog, n);
    if (jb->layout == NPK_RK_JOB_INCREMENTAL) {
        memcpy(jb->prev, body, nb * sizeof *body);
        jb->prev_n = nb;
    }
    npk_status s = npk_rk_trailer(prog + n, 0, 0, rt->form->enable);
    if (s == NPK_OK && i > 0)
        s = npk_rk_trailer(entries_at(jb->prog, jb->last_trailer), (uint32_t)(jb->prog->iova + off),
                           (uint32_t)n, rt->form->enable);
    jb->last_trailer = off + n * sizeof(npk_rk_entry);
    jb->written += n;
    write_record(jb, i, off, (uint32_t)n);
    return s;
}

/* Concatenated bodies: one program from the first region on, each body but the last ended by
 * an op-enable with the WAIT bit (spec CORE_CTRL 0x000f), the last by the trailer; one record
 * describes it all. */
static npk_status place_concat(npk_rk_job_builder *jb, uint32_t i, const npk_rk_entry *body,
                               size_t nb)
{
    npk_rk *rt = jb->rt;
    uint64_t off0 = npk_rk_regcmd_offset(rt->chain, 0);
    npk_rk_entry *prog = entries_at(jb->prog, off0);
    memcpy(prog + jb->written, body, nb * sizeof *body);
    jb->written += nb;
    if (i + 1 < jb->count) {
        uint32_t wait = rt->form->enable | npk_rk_field_put(NPK_RKF(PC_OP_ENABLE, WAIT), 1);
        prog[jb->written++] = npk_rk_entry_reg_write(NPK_REG_PC_OP_ENABLE, wait);
        return NPK_OK;
    }
    jb->written = pad_even(prog, jb->written);
    write_record(jb, 0, off0, (uint32_t)jb->written);
    return npk_rk_trailer(prog + jb->written, 0, 0, rt->form->enable);
}

npk_status npk_rk_job_place(npk_rk_job_builder *jb, uint32_t i, const npk_rk_entry *body, size_t nb)
{
    return jb->layout == NPK_RK_JOB_CONCAT ? place_concat(jb, i, body, nb)
                                           : place_linked(jb, i, body, nb);
}

uint32_t npk_rk_job_records(const npk_rk_job_builder *jb)
{
    return jb->layout == NPK_RK_JOB_CONCAT ? 1 : jb->count;
}

bool npk_rk_job_joins(const npk_rk *rt, const npk_rk_task_plan *a, const npk_rk_task_plan *b)
{
    if (!rt->submission->row_offset)
        return true;
    return a->core == b->core && a->k0 == b->k0 && a->n0 == b->n0 && a->n1 == b->n1 &&
           b->m0 == a->m1;
}

void npk_rk_surface_place(const uint32_t *row, uint32_t count, uint32_t *base, uint32_t *v)
{
    const uint32_t reach = npk_rk_field_get(NPK_RKF(CNA_PAD_CON0, PAD_TOP), UINT32_MAX);
    for (uint32_t i = 0; i < count; i++) {
        base[i] = i && row[i] - base[i - 1] <= reach ? base[i - 1] : row[i];
        v[i] = row[i] - base[i];
    }
}
