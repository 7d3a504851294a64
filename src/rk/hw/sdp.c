/* SPDX-License-Identifier: MIT */
/* The SDP element-wise rows (see rk_sdp_hw.h for the sources). */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_sdp_hw.h"

/* The memory operand kinds of the EW stage's 2-input ops. */
#define EW_MEMORY (NPK_EW_OPERAND_BIT(NPK_EW_PER_ELEMENT) | NPK_EW_OPERAND_BIT(NPK_EW_PER_CHANNEL))
/* ... and with an immediate that the BS stage applies */
#define EW_ANY (EW_MEMORY | NPK_EW_OPERAND_BIT(NPK_EW_IMMEDIATE))

/* Each op's arithmetic on one value (npk_rk_ew_op_row.value), beside its row. */
static double rounded(bool fp32, double v) { return fp32 ? (double)(float)v : v; }
static double ew_add(double a, double b, const double imm[2], bool fp32)
{
    (void)imm;
    return rounded(fp32, a + b);
}
static double ew_mul(double a, double b, const double imm[2], bool fp32)
{
    (void)imm;
    return rounded(fp32, a * b);
}
static double ew_max(double a, double b, const double imm[2], bool fp32)
{
    (void)imm, (void)fp32;
    return a >= b ? a : b;
}
static double ew_min(double a, double b, const double imm[2], bool fp32)
{
    (void)imm, (void)fp32;
    return a <= b ? a : b;
}
static double ew_relu(double a, double b, const double imm[2], bool fp32)
{
    (void)b, (void)imm, (void)fp32;
    return a < 0 ? 0 : a;
}
static double ew_relu6(double a, double b, const double imm[2], bool fp32)
{
    (void)b, (void)imm, (void)fp32;
    return a < 0 ? 0 : a > 6 ? 6 : a;
}
static double ew_leakyrelu(double a, double b, const double imm[2], bool fp32)
{
    (void)b;
    return a < 0 ? rounded(fp32, a * imm[0]) : a;
}
/* x * scale in the BS stage's MUL, then + shift in the BN stage's ALU: two roundings */
static double ew_batchnorm(double a, double b, const double imm[2], bool fp32)
{
    (void)b;
    return rounded(fp32, rounded(fp32, a * imm[0]) + imm[1]);
}

static const npk_rk_ew_op_row ops[NPK_EW_OP_COUNT] = {
    /* op          name    binary op_type              alu_algo         bs_relu */
    {NPK_EW_ADD, "add", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_SUM, false, EW_ANY, NPK_BS_UNIT_ALU,
     false, 0, NULL, ew_add, 1},
    {NPK_EW_MUL, "mul", true, NPK_EW_OP_TYPE_MUL, 0, false, EW_ANY, NPK_BS_UNIT_MUL, false, 0,
     NULL, ew_mul, 1},
    {NPK_EW_MAX, "max", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_MAX, false, EW_ANY, NPK_BS_UNIT_ALU,
     false, 0, NULL, ew_max, 1},
    {NPK_EW_MIN, "min", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_MIN, false, EW_ANY, NPK_BS_UNIT_ALU,
     false, 0, NULL, ew_min, 1},
    {NPK_EW_RELU, "relu", false, NPK_EW_OP_TYPE_ALU, 0, true, 0, NPK_BS_UNIT_NONE, false, 0, NULL,
     ew_relu, 1},
    /* EQL: the spec names it only as EW_ALU_ALGO 3 in NVDLA's order; what it writes is nowhere
     * in the spec or the fact sheet (NVDLA's documentation has no EQL output either). */
    {NPK_EW_EQL, "eql", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_EQL, false, EW_MEMORY,
     NPK_BS_UNIT_NONE, false, 0,
     "EW_ALU_ALGO EQL: the spec names the value (NVDLA order), no source gives its output",
     NULL, 1},
    /* relu6 and leakyrelu are clamps on the PPU/SDP path, no LUT (spec "Op map — expanded
     * battery": relu / relu6 / leakyrelu = clamp). relu6 = the BS ReLU with RELUX at 6;
     * leakyrelu = the BS MUL in PReLU mode (NVDLA: the multiplier passes positives). */
    {NPK_EW_RELU6, "relu6", false, NPK_EW_OP_TYPE_ALU, 0, true,
     NPK_EW_OPERAND_BIT(NPK_EW_NO_OPERAND), NPK_BS_UNIT_NONE, true, 6, NULL, ew_relu6, 1},
    {NPK_EW_LEAKYRELU, "leakyrelu", false, NPK_EW_OP_TYPE_ALU, 0, false,
     NPK_EW_OPERAND_BIT(NPK_EW_IMMEDIATE), NPK_BS_UNIT_PRELU, false, 0, NULL, ew_leakyrelu, 1},
    /* batchnorm folded to x * scale + shift: the BS stage's MUL, then the BN stage's ALU (each
     * stage runs ALU before MUL, so the two units in this order need the two stages). */
    {NPK_EW_BATCHNORM, "batchnorm", false, NPK_EW_OP_TYPE_ALU, 0, false,
     NPK_EW_OPERAND_BIT(NPK_EW_IMMEDIATE), NPK_BS_UNIT_MUL, false, 0, NULL, ew_batchnorm, 2},
    /* the EW stage's LUT alone, its table fitted and uploaded by the task (rk_act_hw.h) */
    {NPK_EW_LUT, "lut", false, NPK_EW_OP_TYPE_ALU, 0, false, 0, NPK_BS_UNIT_NONE, false, 0, NULL,
     NULL, 1},
};

unsigned npk_rk_ew_op_operands(const npk_rk_ew_op_row *row)
{
    if (!row)
        return 0;
    if (row->operands)
        return row->operands;
    return row->binary ? EW_MEMORY : NPK_EW_OPERAND_BIT(NPK_EW_NO_OPERAND);
}

unsigned npk_rk_ew_op_immediates(npk_rk_ew_op op)
{
    const npk_rk_ew_op_row *row = npk_rk_ew_op_row_of(op);
    return row ? row->immediates : 0;
}

const char *npk_rk_ew_operand_name(npk_rk_ew_operand kind)
{
    static const char *const names[] = {"per-element", "per-channel", "none", "immediate"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *npk_rk_ew_operand_names(unsigned mask, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (unsigned k = 0; k <= NPK_EW_IMMEDIATE && n < size; k++)
        if (mask & NPK_EW_OPERAND_BIT(k))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "/" : "",
                                  k == NPK_EW_NO_OPERAND
                                      ? "no operand"
                                      : npk_rk_ew_operand_name((npk_rk_ew_operand)k));
    return buf;
}

static const npk_rk_sdp_stage_row stages[NPK_SDP_STAGE_COUNT] = {
    {NPK_SDP_STAGE_BS, "BS", NPK_REG_DPU_BS_CFG, NPK_REG_DPU_BS_ALU_CFG, NPK_REG_DPU_BS_MUL_CFG,
     NPK_REG_DPU_BS_RELUX_CMP_VALUE, NPK_REG_DPU_RDMA_BRDMA_CFG},
    {NPK_SDP_STAGE_BN, "BN", NPK_REG_DPU_BN_CFG, NPK_REG_DPU_BN_ALU_CFG, NPK_REG_DPU_BN_MUL_CFG,
     NPK_REG_DPU_BN_RELUX_CMP_VALUE, NPK_REG_DPU_RDMA_NRDMA_CFG},
};

const npk_rk_sdp_stage_row *npk_rk_sdp_stage_row_of(npk_rk_sdp_stage_id id)
{
    return (unsigned)id < NPK_SDP_STAGE_COUNT ? &stages[id] : NULL;
}

bool npk_rk_sdp_stage_active(const npk_rk_sdp_stage *st) { return st->alu || st->mul || st->relu; }

double npk_rk_sdp_stage_apply(const npk_rk_sdp_stage *st, bool fp32, double x)
{
    if (st->alu) {
        double b = st->alu_operand;
        switch (st->alu_algo) {
        case NPK_EW_ALU_MAX: x = (isnan(x) || x >= b) ? x : b; break;
        case NPK_EW_ALU_MIN: x = (isnan(x) || x <= b) ? x : b; break;
        case NPK_EW_ALU_SUM: x = rounded(fp32, x + b); break;
        default: x = NAN; break; /* no row synthesizes another algorithm */
        }
    }
    if (st->mul && (!st->prelu || x < 0))
        x = rounded(fp32, x * st->mul_operand);
    if (st->relu && x < 0)
        x = 0;
    if (st->relu && st->relux && x > st->relux_value)
        x = st->relux_value;
    return x;
}

const npk_rk_ew_op_row *npk_rk_ew_op_row_of(npk_rk_ew_op op)
{
    return (unsigned)op < NPK_EW_OP_COUNT ? &ops[op] : NULL;
}

bool npk_rk_ew_op_parse(const char *name, npk_rk_ew_op *out)
{
    for (unsigned i = 0; name && i < NPK_EW_OP_COUNT; i++)
        if (!strcmp(name, ops[i].name)) {
            *out = ops[i].op;
            return true;
        }
    return false;
}

const npk_rk_ew_op_row *npk_rk_ew_op_decode(unsigned op_type, unsigned alu_algo)
{
    for (unsigned i = 0; i < NPK_EW_OP_COUNT; i++) {
        if (!ops[i].binary || ops[i].op_type != op_type)
            continue;
        /* the MUL unit ignores the ALU's algorithm */
        if (op_type == NPK_EW_OP_TYPE_MUL || ops[i].alu_algo == alu_algo)
            return &ops[i];
    }
    return NULL;
}

/* "add|mul|...": every row's name, in the table's order, made once. */
static char op_names[NPK_EW_OP_COUNT * 16];
static void make_op_names(void)
{
    size_t n = 0;
    for (unsigned i = 0; i < NPK_EW_OP_COUNT; i++) {
        int w = snprintf(op_names + n, sizeof op_names - n, "%s%s", i ? "|" : "", ops[i].name);
        n += w > 0 && (size_t)w < sizeof op_names - n ? (size_t)w : 0;
    }
}

const char *npk_rk_ew_op_names(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_op_names);
    return op_names;
}

static const npk_rk_sdp_prec_row precs[] = {
    /* prec            bytes size fp32   min     max */
    {NPK_PREC_FP16, 2, NPK_SDP_DATA_SIZE_TWO_BYTES, true, 0, 0},
    {NPK_PREC_INT16, 2, NPK_SDP_DATA_SIZE_TWO_BYTES, false, -32768, 32767},
    {NPK_PREC_INT8, 1, NPK_SDP_DATA_SIZE_ONE_BYTE, false, -128, 127},
};

const npk_rk_sdp_prec_row *npk_rk_sdp_prec_row_of(npk_rk_prec p)
{
    for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
        if (precs[i].prec == p)
            return &precs[i];
    return NULL;
}

const npk_rk_sdp_prec_row *npk_rk_sdp_prec_row_at(unsigned i)
{
    return i < sizeof precs / sizeof precs[0] ? &precs[i] : NULL;
}

unsigned npk_rk_sdp_atom_channels(npk_rk_prec p)
{
    const npk_rk_sdp_prec_row *r = npk_rk_sdp_prec_row_of(p);
    return r ? 16u / r->bytes : 0;
}
