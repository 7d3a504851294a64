/* SPDX-License-Identifier: MIT */
/* A job of one task of any operation in a task buffer: its rknpu_task record at offset 0 and
 * its program, with the last-task trailer, from a 64-byte boundary (PC_SOURCE_ADDR needs 16). */
#include <string.h>

#include "npukit/rknpu_uapi.h"
#include "rk/program/rk_conv.h"

enum { PROGRAM_OFFSET = 64 };

uint64_t npk_rk_single_task_bytes(uint32_t body_entries)
{
    return PROGRAM_OFFSET + ((uint64_t)body_entries + NPK_RK_TRAILER_ENTRIES) * sizeof(npk_rk_entry);
}

npk_status npk_rk_single_task_write(void *host, uint32_t iova, uint64_t size,
                                    const npk_rk_entry *body, uint32_t body_entries,
                                    uint32_t enable, uint32_t int_mask)
{
    if (!host || !body || !body_entries)
        return npk_fail(NPK_EINVAL, "task: NULL buffer or an empty body");
    if (size < npk_rk_single_task_bytes(body_entries))
        return npk_fail(NPK_EINVAL, "task: the task buffer has %llu bytes, the task needs %llu",
                        (unsigned long long)size,
                        (unsigned long long)npk_rk_single_task_bytes(body_entries));
    if (iova % 16)
        return npk_fail(NPK_EINVAL, "task: task buffer IOVA 0x%x is not 16-byte aligned", iova);
    npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)host + PROGRAM_OFFSET);
    memcpy(prog, body, (size_t)body_entries * sizeof *prog);
    npk_status s = npk_rk_trailer(prog + body_entries, 0, 0, enable);
    if (s)
        return s;
    struct rknpu_task rec = {0};
    rec.enable_mask = enable;
    rec.int_mask = int_mask;
    rec.int_clear = RKNPU_INT_CLEAR;
    rec.regcfg_amount = body_entries;
    rec.regcmd_addr = iova + PROGRAM_OFFSET;
    memcpy(host, &rec, sizeof rec);
    return NPK_OK;
}
