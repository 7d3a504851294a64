/* SPDX-License-Identifier: MIT */
/* The NPU's operations as data: one row per operation the driver can build and the simulator
 * can run (rk_ops.def, the only list) — which engine blocks it enables (PC_OP_ENABLE), the
 * precisions its input takes, the interrupt it ends on, and the source of each. The driver's
 * rows (src/rk/program/rk_op_synth.h: body order, synthesizer, limits, output precision) and
 * the simulator's rows (src/rksim/ops.h: executor) are expansions of the same list, each
 * defined in the operation's own file; a value past the enum is refused by name at every
 * layer.
 *
 * A new operation is a row of rk_ops.def, its driver file and its simulator file. */
#ifndef NPUKIT_RK_OPS_H
#define NPUKIT_RK_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_types.h"

/* The interrupt pairs operations end on (PC_INTERRUPT_MASK, facts B.4): DPU_GROUP0|1 [9:8],
 * PPU_GROUP0|1 [11:10] (test_rk_ops holds them to the register table's fields). */
#define NPK_RK_INT_DPU 0x300u
#define NPK_RK_INT_PPU 0xC00u

/* NPK_RK_OP_MATMUL (C = A . B, a 1x1 convolution on the CNA), NPK_RK_OP_SDP (the SDP's
 * element-wise task, no CNA), NPK_RK_OP_CONV, NPK_RK_OP_POOL (the PDP, no CNA or DPU), ... in
 * the order of rk_ops.def. */
typedef enum npk_rk_op {
#define NPK_RK_OP(ENUM, name, ...) NPK_RK_OP_##ENUM,
#include "rk/hw/rk_ops.def"
#undef NPK_RK_OP
    NPK_RK_OP_COUNT
} npk_rk_op;

typedef struct npk_rk_op_desc {
    npk_rk_op op;
    const char *name;         /* "matmul", "sdp" */
    uint32_t enable;          /* PC_OP_ENABLE: the blocks the op runs on (WAIT excluded) */
    uint32_t enable_also;     /* another block set that runs the same op, 0 if none */
    uint32_t in_precs;        /* input precisions taken: bit (1 << npk_rk_prec) */
    const char *source;       /* where the row's facts come from */
    uint32_t int_mask;        /* the PC interrupt bits the operation ends on (its task's
                                 rknpu_task.int_mask) */
    /* A block set another row runs too is claimed by the row whose register mark_reg, masked
     * by mark_mask, equals mark_value (mark_mask 0: the row claims what no marked row does). */
    npk_rk_reg_id mark_reg;
    uint32_t mark_mask, mark_value;
} npk_rk_op_desc;

/* NULL for a value outside the enum. */
const npk_rk_op_desc *npk_rk_op_desc_of(npk_rk_op op);
/* "operation N" for a value outside the enum (the caller's buffer), else the row's name. */
const char *npk_rk_op_name(npk_rk_op op, char buf[32]);
/* The operation an op-enable's block set (WAIT masked off) selects, marks not consulted (the
 * unmarked row of a shared set); NULL when no row has it. */
const npk_rk_op_desc *npk_rk_op_by_enable(uint32_t blocks);
/* The operation a block set selects in a program whose registers reg(ctx, id) reads: a marked
 * row whose mark holds, else the set's unmarked row; NULL when no row has the set. */
const npk_rk_op_desc *npk_rk_op_select(uint32_t blocks,
                                       uint32_t (*reg)(const void *ctx, npk_rk_reg_id id),
                                       const void *ctx);
/* The block sets of every row, "0x0d|0x1d (matmul), 0x18 (sdp)", for a refusal's message;
 * written into buf (cut to size), which is returned. */
const char *npk_rk_op_enables(char *buf, size_t size);
/* Whether `op` takes input precision `p`. */
bool npk_rk_op_takes(const npk_rk_op_desc *d, npk_rk_prec p);

#endif
