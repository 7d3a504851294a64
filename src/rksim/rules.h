/* SPDX-License-Identifier: MIT */
/* The simulator's one rule engine: what a decoder requires of the registers is a table of rows
 * (register, field, condition, relation, expected value, reason) checked by one loop, and a
 * value outside them is refused in one format naming the register, its value, the field, what
 * was expected and why. A decoder supplies its conditions and computed quantities as callbacks
 * over its own decoded state, so a new engine is rows (matmul_decode.c, sdp_decode.c). */
#ifndef NPUKIT_RKSIM_RULES_H
#define NPUKIT_RKSIM_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regs.h"
#include "rksim/result.h"
#include "rksim/sim.h"

enum { RKSIM_RULE_WHOLE = -1 }; /* a row about the register's whole value */

/* How the value must relate to the expected value. */
typedef enum rksim_rel {
    RKSIM_REL_EQ,
    RKSIM_REL_NE,
    RKSIM_REL_GE,
    RKSIM_REL_LE,
    RKSIM_REL_MULTIPLE,   /* a multiple of the expected value */
    RKSIM_REL_SIGNED_GT,  /* the field read as two's complement is above the expected value */
    RKSIM_REL_MASK_CLEAR, /* no bit of the expected mask is set */
    RKSIM_REL_IN_SET,     /* a member of the decoder's set numbered by the row's constant */
} rksim_rel;

/* Where the expected value comes from: the row's constant, another field's value (the row's
 * constant is its npk_rk_field_id), or a quantity the decoder computes (its own numbers from
 * RKSIM_Q_DECODER on). */
enum { RKSIM_Q_CONST = 0, RKSIM_Q_FIELD = 1, RKSIM_Q_DECODER = 2 };

/* Condition 0 applies always; other numbers are the decoder's. */
enum { RKSIM_WHEN_ALL = 0 };

typedef struct rksim_rule {
    npk_rk_reg_id reg;
    int field; /* npk_rk_field_id or RKSIM_RULE_WHOLE */
    int when;
    rksim_rel rel;
    int q;
    uint32_t c;
    const char *why;
} rksim_rule;

/* A decoder's side of the engine; ctx is its decoded state. */
typedef struct rksim_rule_ops {
    bool (*applies)(int when, const rksim_regfile *rf, const void *ctx);
    int64_t (*quantity)(int q, const rksim_regfile *rf, const void *ctx); /* q >= DECODER */
    /* REL_IN_SET: membership and the set as text ("a matmul input (fp16/int8/int4)"); both
     * NULL for a decoder whose rules use no set */
    bool (*in_set)(uint32_t set, int64_t v, const rksim_regfile *rf, const void *ctx);
    void (*set_text)(uint32_t set, const void *ctx, char *buf, size_t size);
    /* a deviation the hazard table describes: true accepts the value (may be NULL) */
    bool (*accept)(npk_rk_field_id f, uint32_t raw, void *ctx);
} rksim_rule_ops;

/* A field's value as two's complement over the field's width. */
int64_t rksim_field_signed(npk_rk_field_id f, uint32_t v);

/* Check every applying row in order; false with r "unsupported by the model" at the first
 * row that does not hold (and that no accept hook takes). */
bool rksim_rules_check(const rksim_rule *rows, size_t n, const rksim_regfile *rf,
                       const rksim_rule_ops *ops, void *ctx, rksim_core_result *r);

#endif
