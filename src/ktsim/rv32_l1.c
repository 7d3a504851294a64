/* SPDX-License-Identifier: MIT */
/* The RV32 processor's L1 (rv32_l1.h). */
#include "rv32_l1.h"

#include <stdlib.h>
#include <string.h>

enum { OFFSET_MASK = 0x7fffffffu }; /* the DRAM region's address bits, addr[30:0] */

bool ksim_rv32_l1_init(ksim_rv32_l1 *l1, uint32_t lines, uint32_t miss_cycles)
{
    memset(l1, 0, sizeof *l1);
    l1->lines = lines;
    l1->miss_cycles = miss_cycles;
    l1->tag = calloc(lines, sizeof *l1->tag);
    l1->valid = calloc(lines, 1);
    l1->dirty = calloc(lines, 1);
    l1->data = calloc(lines, sizeof *l1->data);
    if (!l1->tag || !l1->valid || !l1->dirty || !l1->data) {
        ksim_rv32_l1_free(l1);
        return false;
    }
    return true;
}

void ksim_rv32_l1_free(ksim_rv32_l1 *l1)
{
    free(l1->tag);
    free(l1->valid);
    free(l1->dirty);
    free(l1->data);
    memset(l1, 0, sizeof *l1);
}

void ksim_rv32_l1_reset(ksim_rv32_l1 *l1)
{
    ksim_rv32_l1_invalidate(l1);
    l1->ready_at = 0;
}

static uint32_t line_of(const ksim_rv32_l1 *l1, uint32_t addr)
{
    return ((addr & OFFSET_MASK) / KSIM_RV32_L1_LINE) & (l1->lines - 1);
}
static uint32_t tag_of(const ksim_rv32_l1 *l1, uint32_t addr)
{
    return (addr & OFFSET_MASK) / KSIM_RV32_L1_LINE / l1->lines;
}
static uint64_t line_offset(const ksim_rv32_l1 *l1, uint32_t i)
{
    return ((uint64_t)l1->tag[i] * l1->lines + i) * KSIM_RV32_L1_LINE;
}

static bool write_back(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem, uint32_t i)
{
    if (!l1->valid[i] || !l1->dirty[i])
        return true;
    if (!mem->write || !mem->write(mem->ctx, line_offset(l1, i), l1->data[i]))
        return false;
    l1->dirty[i] = 0;
    l1->writebacks++;
    return true;
}

/* The line holding addr, present: a hit at once, a miss after miss_cycles. */
static ksim_rv32_l1_result present(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem, uint64_t now,
                                   uint32_t addr, uint32_t *line)
{
    uint32_t i = line_of(l1, addr), t = tag_of(l1, addr);
    *line = i;
    if (l1->valid[i] && l1->tag[i] == t) {
        l1->hits++;
        return KSIM_RV32_L1_OK;
    }
    if (l1->ready_at == 0 || l1->miss_addr != addr) { /* the miss starts: one at a time */
        l1->ready_at = now + l1->miss_cycles;
        l1->miss_addr = addr;
    }
    if (now < l1->ready_at)
        return KSIM_RV32_L1_WAIT;
    l1->ready_at = 0;
    l1->misses++;
    if (!write_back(l1, mem, i))
        return KSIM_RV32_L1_FAULT;
    l1->valid[i] = 0;
    l1->tag[i] = t;
    if (!mem->read || !mem->read(mem->ctx, line_offset(l1, i), l1->data[i]))
        return KSIM_RV32_L1_FAULT;
    l1->valid[i] = 1;
    l1->dirty[i] = 0;
    return KSIM_RV32_L1_OK;
}

ksim_rv32_l1_result ksim_rv32_l1_load(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem, uint64_t now,
                                      uint32_t addr, unsigned width, uint32_t *value)
{
    uint32_t i;
    ksim_rv32_l1_result r = present(l1, mem, now, addr, &i);
    if (r != KSIM_RV32_L1_OK)
        return r;
    uint32_t v = 0;
    for (unsigned b = 0; b < width; b++)
        v |= (uint32_t)l1->data[i][(addr + b) % KSIM_RV32_L1_LINE] << (8 * b);
    *value = v;
    return KSIM_RV32_L1_OK;
}

ksim_rv32_l1_result ksim_rv32_l1_store(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem,
                                       uint64_t now, uint32_t addr, unsigned width,
                                       uint32_t value)
{
    uint32_t i;
    ksim_rv32_l1_result r = present(l1, mem, now, addr, &i); /* write-allocate */
    if (r != KSIM_RV32_L1_OK)
        return r;
    for (unsigned b = 0; b < width; b++)
        l1->data[i][(addr + b) % KSIM_RV32_L1_LINE] = (uint8_t)(value >> (8 * b));
    l1->dirty[i] = 1;
    return KSIM_RV32_L1_OK;
}

bool ksim_rv32_l1_flush(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem)
{
    for (uint32_t i = 0; i < l1->lines; i++)
        if (!write_back(l1, mem, i))
            return false;
    return true;
}

void ksim_rv32_l1_invalidate(ksim_rv32_l1 *l1)
{
    memset(l1->valid, 0, l1->lines);
    memset(l1->dirty, 0, l1->lines);
}
