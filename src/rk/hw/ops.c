/* SPDX-License-Identifier: MIT */
/* The operations' hardware rows: rk_ops.def expanded (see rk_ops.h). */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "rk_ops.h"

#define OPEN(field) npk_rk_field_put(NPK_RKF(PC_OP_ENABLE, field), 1)
#define PREC(p) (1u << (p))

static const npk_rk_op_desc rows[NPK_RK_OP_COUNT] = {
#define NPK_RK_OP(ENUM, name_, ...)                                                              \
    [NPK_RK_OP_##ENUM] = {.op = NPK_RK_OP_##ENUM, .name = #name_, __VA_ARGS__},
#include "rk_ops.def"
#undef NPK_RK_OP
};

const npk_rk_op_desc *npk_rk_op_desc_of(npk_rk_op op)
{
    return (unsigned)op < NPK_RK_OP_COUNT ? &rows[op] : NULL;
}

const char *npk_rk_op_name(npk_rk_op op, char buf[32])
{
    const npk_rk_op_desc *d = npk_rk_op_desc_of(op);
    if (d)
        return d->name;
    snprintf(buf, 32, "operation %d", (int)op);
    return buf;
}

static bool has_set(const npk_rk_op_desc *d, uint32_t blocks)
{
    return blocks == d->enable || (d->enable_also && blocks == d->enable_also);
}

const npk_rk_op_desc *npk_rk_op_by_enable(uint32_t blocks)
{
    blocks &= ~OPEN(WAIT);
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++)
        if (!rows[i].mark_mask && has_set(&rows[i], blocks))
            return &rows[i];
    return NULL;
}

const npk_rk_op_desc *npk_rk_op_select(uint32_t blocks,
                                       uint32_t (*reg)(const void *ctx, npk_rk_reg_id id),
                                       const void *ctx)
{
    blocks &= ~OPEN(WAIT);
    for (unsigned i = 0; i < NPK_RK_OP_COUNT; i++)
        if (rows[i].mark_mask && has_set(&rows[i], blocks) &&
            (reg(ctx, rows[i].mark_reg) & rows[i].mark_mask) == rows[i].mark_value)
            return &rows[i];
    return npk_rk_op_by_enable(blocks);
}

const char *npk_rk_op_enables(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < NPK_RK_OP_COUNT && n < size; i++) {
        int w = rows[i].enable_also
                    ? snprintf(buf + n, size - n, "%s0x%02x|0x%02x (%s)", i ? ", " : "",
                               rows[i].enable, rows[i].enable_also, rows[i].name)
                    : snprintf(buf + n, size - n, "%s0x%02x (%s)", i ? ", " : "", rows[i].enable,
                               rows[i].name);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

bool npk_rk_op_takes(const npk_rk_op_desc *d, npk_rk_prec p)
{
    return d && (unsigned)p < 32 && (d->in_precs >> p & 1u);
}
