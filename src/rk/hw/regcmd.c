/* SPDX-License-Identifier: MIT */
/* Regcmd entry helpers, the PC trailer and the program buffer. */
#include <stdlib.h>

#include "npukit/rk_regcmd.h"

npk_rk_entry npk_rk_entry_reg_write(npk_rk_reg_id id, uint32_t value)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    return npk_rk_entry_make(r->target, r->offset, value);
}

uint32_t npk_rk_pc_amount(uint32_t body_entries)
{
    /* pc_data_amount_scale = 2 on RK3588: the PC fetches pairs of entries. */
    return (body_entries + NPK_RK_TRAILER_ENTRIES + 1) / 2 - 1;
}

npk_status npk_rk_trailer(npk_rk_entry out[NPK_RK_TRAILER_ENTRIES], uint32_t next_iova,
                          uint32_t next_body_entries, uint32_t enable_mask)
{
    if (next_iova & 0xf)
        return npk_fail(NPK_EINVAL,
                        "next regcmd IOVA 0x%08x is not 16-byte aligned (PC_SOURCE_ADDR holds "
                        "bits [31:4])",
                        next_iova);
    if (next_iova && next_body_entries == 0)
        return npk_fail(NPK_EINVAL, "a chained task needs the next body's entry count (got 0)");
    if (next_iova) {
        out[0] = npk_rk_entry_reg_write(NPK_REG_PC_BASE_ADDRESS, next_iova);
        out[1] = npk_rk_entry_reg_write(NPK_REG_PC_REGISTER_AMOUNTS,
                                        npk_rk_pc_amount(next_body_entries));
    } else {
        out[0] = 0; /* the no-op entry the vendor, ork and mtx emit */
        out[1] = npk_rk_entry_reg_write(NPK_REG_PC_REGISTER_AMOUNTS, 0);
    }
    out[2] = npk_rk_entry_reg_write(NPK_REG_PC_OP_40, 0);
    out[3] = npk_rk_entry_reg_write(NPK_REG_PC_OP_ENABLE, enable_mask);
    return NPK_OK;
}

void npk_rk_program_init(npk_rk_program *p)
{
    p->entries = NULL;
    p->count = p->capacity = 0;
}

void npk_rk_program_free(npk_rk_program *p)
{
    free(p->entries);
    npk_rk_program_init(p);
}

npk_status npk_rk_program_append(npk_rk_program *p, const npk_rk_entry *e, size_t n)
{
    if (p->count + n > p->capacity) {
        size_t cap = p->capacity ? p->capacity : 128;
        while (cap < p->count + n)
            cap *= 2;
        npk_rk_entry *grown = realloc(p->entries, cap * sizeof *grown);
        if (!grown)
            return npk_fail(NPK_ENOMEM, "program of %zu entries: out of memory", cap);
        p->entries = grown;
        p->capacity = cap;
    }
    for (size_t i = 0; i < n; i++)
        p->entries[p->count++] = e[i];
    return NPK_OK;
}

npk_status npk_rk_program_push(npk_rk_program *p, npk_rk_entry e)
{
    return npk_rk_program_append(p, &e, 1);
}
