/* SPDX-License-Identifier: MIT */
/* The SDP element-wise rows (see rk_sdp_hw.h for the sources). */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "npukit/rk_sdp_hw.h"

static const npk_rk_ew_op_row ops[NPK_EW_OP_COUNT] = {
    /* op          name    binary op_type              alu_algo         bs_relu */
    {NPK_EW_ADD, "add", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_SUM, false},
    {NPK_EW_MUL, "mul", true, NPK_EW_OP_TYPE_MUL, 0, false},
    {NPK_EW_MAX, "max", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_MAX, false},
    {NPK_EW_MIN, "min", true, NPK_EW_OP_TYPE_ALU, NPK_EW_ALU_MIN, false},
    {NPK_EW_RELU, "relu", false, NPK_EW_OP_TYPE_ALU, 0, true},
    {NPK_EW_LUT, "lut", false, NPK_EW_OP_TYPE_ALU, 0, false},
};

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
