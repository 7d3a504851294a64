/* SPDX-License-Identifier: MIT */
/* The rule engine (rules.h): one loop, one refusal format. */
#include "rksim/rules.h"

#include <stdio.h>

#include "rksim/regs_view.h"

int64_t rksim_field_signed(npk_rk_field_id f, uint32_t v)
{
    const npk_rk_field *fi = npk_rk_field_info(f);
    unsigned width = (unsigned)(fi->hi - fi->lo + 1);
    int64_t x = v;
    return (x & (1ll << (width - 1))) ? x - (1ll << width) : x;
}

static bool holds(const rksim_rule *row, int64_t v, int64_t want, const rksim_regfile *rf,
                  const rksim_rule_ops *ops, const void *ctx)
{
    switch (row->rel) {
    case RKSIM_REL_EQ: return v == want;
    case RKSIM_REL_NE: return v != want;
    case RKSIM_REL_GE: return v >= want;
    case RKSIM_REL_LE: return v <= want;
    case RKSIM_REL_MULTIPLE: return want > 0 && v % want == 0;
    case RKSIM_REL_SIGNED_GT: return v > want;
    case RKSIM_REL_MASK_CLEAR: return (v & want) == 0;
    case RKSIM_REL_IN_SET: return ops->in_set && ops->in_set(row->c, v, rf, ctx);
    }
    return false;
}

/* What the value should have been, as text: "2", "at least 4", "no bit of 0x3", a set. */
static void describe(const rksim_rule *row, int64_t want, const rksim_rule_ops *ops,
                     const void *ctx, char *buf, size_t size)
{
    static const char *const prefix[] = {
        [RKSIM_REL_EQ] = "",
        [RKSIM_REL_NE] = "not ",
        [RKSIM_REL_GE] = "at least ",
        [RKSIM_REL_LE] = "at most ",
        [RKSIM_REL_MULTIPLE] = "a multiple of ",
        [RKSIM_REL_SIGNED_GT] = "above ",
    };
    if (row->rel == RKSIM_REL_IN_SET && ops->set_text)
        ops->set_text(row->c, ctx, buf, size);
    else if (row->rel == RKSIM_REL_IN_SET)
        snprintf(buf, size, "a set (%u)", (unsigned)row->c);
    else if (row->rel == RKSIM_REL_MASK_CLEAR)
        snprintf(buf, size, "no bit of 0x%llX set", (unsigned long long)want);
    else
        snprintf(buf, size, "%s%lld", prefix[row->rel], (long long)want);
}

static int64_t expected(const rksim_rule *row, const rksim_regfile *rf, const rksim_rule_ops *ops,
                        const void *ctx)
{
    switch (row->q) {
    case RKSIM_Q_CONST: return row->c;
    case RKSIM_Q_FIELD: return rksim_field(rf, (npk_rk_field_id)row->c);
    default: return ops->quantity(row->q, rf, ctx);
    }
}

bool rksim_rules_check(const rksim_rule *rows, size_t n, const rksim_regfile *rf,
                       const rksim_rule_ops *ops, void *ctx, rksim_core_result *r)
{
    for (size_t i = 0; i < n; i++) {
        const rksim_rule *row = &rows[i];
        if (row->when != RKSIM_WHEN_ALL && !ops->applies(row->when, rf, ctx))
            continue;
        bool whole = row->field == RKSIM_RULE_WHOLE;
        uint32_t raw =
            whole ? rksim_reg(rf, row->reg) : rksim_field(rf, (npk_rk_field_id)row->field);
        int64_t v = row->rel == RKSIM_REL_SIGNED_GT
                        ? rksim_field_signed((npk_rk_field_id)row->field, raw)
                        : (int64_t)raw;
        int64_t want = expected(row, rf, ops, ctx);
        if (holds(row, v, want, rf, ops, ctx))
            continue;
        if (!whole && ops->accept && ops->accept((npk_rk_field_id)row->field, raw, ctx))
            continue;
        const npk_rk_reg *info = npk_rk_reg_info(row->reg);
        char what[96];
        describe(row, want, ops, ctx, what, sizeof what);
        return rksim_result_fail(
            r, RKSIM_UNSUPPORTED,
            "unsupported by the model: %s (0x%04X) = 0x%08X: %s = %lld, expected %s (%s)",
            info->name, info->offset, rksim_reg(rf, row->reg),
            whole ? "the value" : npk_rk_field_info((npk_rk_field_id)row->field)->name,
            (long long)v, what, row->why);
    }
    return true;
}
