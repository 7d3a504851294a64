/* SPDX-License-Identifier: MIT */
/* The SDP LUT's RAM and its registers (rksim/lut.h). What the model requires of the LUT
 * registers is a table of rows on the rule engine (rules.h); the semantics are the hardware
 * layer's (rk_act_hw.h, docs/facts-engines.md "The SDP LUT"). */
#include <stdio.h>
#include <string.h>

#include "npukit/rk_regs.h"
#include "rksim/lut.h"
#include "rksim/regs_view.h"
#include "rksim/rules.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define FLD(reg, field) NPK_REG_##reg, NPK_RKF(reg, field)

void rksim_lut_access(rksim_lut_ram *ram, const rksim_regfile *rf, const rksim_entry *e)
{
    if (e->info == npk_rk_reg_info(NPK_REG_DPU_LUT_ACCESS_CFG)) {
        ram->next = (uint16_t)npk_rk_field_get(NPK_RKF(DPU_LUT_ACCESS_CFG, LUT_ADDR), e->value);
        return;
    }
    if (e->info != npk_rk_reg_info(NPK_REG_DPU_LUT_ACCESS_DATA) ||
        !F(DPU_LUT_ACCESS_CFG, LUT_ACCESS_TYPE))
        return;
    unsigned id = F(DPU_LUT_ACCESS_CFG, LUT_TABLE_ID);
    uint32_t addr = ram->next++;
    if (addr >= NPK_RK_LUT_ENTRIES) {
        if (!ram->overrun)
            ram->overrun_addr = addr;
        ram->overrun = true;
        return;
    }
    ram->t[id][addr] =
        (int16_t)npk_rk_field_get(NPK_RKF(DPU_LUT_ACCESS_DATA, LUT_ACCESS_DATA), e->value);
    ram->written[id][addr] = true;
}

typedef enum quantity {
    Q_CONST = RKSIM_Q_CONST,
    Q_LE_END = RKSIM_Q_DECODER, /* LE_START + 512 x 2^LE_INDEX_SELECT */
    Q_LO_END,
} quantity;

static const char captured[] = "only the captured LUT configuration (LO_LE_MUX 2, no expand, road "
                               "0) is modelled";
static const char ends[] = "a table's END is START + 512 steps of 2^INDEX_SELECT (513 entries)";
static const char steps[] = "an index step of at most 2^30 units is modelled";

static const rksim_rule rows[] = {
    {FLD(DPU_LUT_CFG, LUT_LO_LE_MUX), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, NPK_RK_LUT_LO_LE_MUX,
     captured},
    {FLD(DPU_LUT_CFG, LUT_EXPAND_EN), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0, captured},
    {FLD(DPU_LUT_CFG, LUT_ROAD_SEL), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0, captured},
    {FLD(DPU_LUT_CFG, LUT_CAL_SEL), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0, captured},
    {FLD(DPU_LUT_INFO, LUT_LE_INDEX_SELECT), RKSIM_WHEN_ALL, RKSIM_REL_LE, Q_CONST, 30, steps},
    {FLD(DPU_LUT_INFO, LUT_LO_INDEX_SELECT), RKSIM_WHEN_ALL, RKSIM_REL_LE, Q_CONST, 30, steps},
    {FLD(DPU_LUT_LE_END, LUT_LE_END), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_LE_END, 0, ends},
    {FLD(DPU_LUT_LO_END, LUT_LO_END), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_LO_END, 0, ends},
    /* the BN stage scales the LUT's input: its multiplier on, from the register */
    {FLD(DPU_BN_CFG, BN_BYPASS), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "the LUT's input is the BN stage's product (BN_BYPASS clear)"},
    {FLD(DPU_BN_CFG, BN_MUL_BYPASS), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "the LUT's input is the BN stage's product (BN_MUL_BYPASS clear)"},
    {FLD(DPU_BN_CFG, BN_ALU_BYPASS), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "the LUT's input is the BN stage's sum then product (BN_ALU_BYPASS clear)"},
    {FLD(DPU_BN_CFG, BN_ALU_ALGO), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 2,
     "the BN ALU before the LUT is modelled as a SUM (2)"},
    {FLD(DPU_BN_CFG, BN_ALU_SRC), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "a BN ALU operand from memory is not modelled"},
    {FLD(DPU_BN_CFG, BN_RELU_BYPASS), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 1,
     "a BN ReLU before the LUT is not modelled"},
    {FLD(DPU_BN_CFG, BN_MUL_PRELU), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "a BN PReLU before the LUT is not modelled"},
    {FLD(DPU_BN_MUL_CFG, BN_MUL_SRC), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "the BN multiplier from memory is not modelled"},
    {FLD(DPU_BN_MUL_CFG, BN_MUL_SHIFT_VALUE), RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "a BN multiplier shift is not modelled (fp16 operand)"},
    {NPK_REG_DPU_RDMA_NRDMA_CFG, RKSIM_RULE_WHOLE, RKSIM_WHEN_ALL, RKSIM_REL_EQ, Q_CONST, 0,
     "BN operands from memory are not modelled"},
};

static bool applies(int when, const rksim_regfile *rf, const void *ctx)
{
    (void)when, (void)rf, (void)ctx;
    return true;
}

static int64_t end_of(int64_t start, unsigned select)
{
    return (int64_t)(int32_t)(uint32_t)start + ((int64_t)NPK_RK_LUT_STEPS << select);
}

static int64_t quantity_of(int q, const rksim_regfile *rf, const void *ctx)
{
    (void)ctx;
    int64_t end = 0;
    switch ((quantity)q) {
    case Q_CONST: return 0;
    case Q_LE_END:
        end = end_of(F(DPU_LUT_LE_START, LUT_LE_START), F(DPU_LUT_INFO, LUT_LE_INDEX_SELECT) & 31);
        break;
    case Q_LO_END:
        end = end_of(F(DPU_LUT_LO_START, LUT_LO_START), F(DPU_LUT_INFO, LUT_LO_INDEX_SELECT) & 31);
        break;
    }
    /* the register holds END's 32 bits */
    return (int64_t)(uint32_t)end;
}

static const rksim_rule_ops lut_ops = {applies, quantity_of, NULL, NULL, NULL};

static void table_of(const rksim_lut_ram *ram, unsigned id, npk_rk_lut_table *t)
{
    for (unsigned i = 0; i < NPK_RK_LUT_ENTRIES; i++)
        t->t[i] = ram->t[id][i];
}

bool rksim_lut_decode(const rksim_lut_ram *ram, const rksim_regfile *rf, npk_rk_lut *lut,
                      rksim_core_result *r)
{
    if (!rksim_rules_check(rows, sizeof rows / sizeof rows[0], rf, &lut_ops, NULL, r))
        return false;
    if (ram->overrun)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: DPU_LUT_ACCESS_DATA (0x4104) written "
                                 "at address %u, past a table's %u entries",
                                 ram->overrun_addr, NPK_RK_LUT_ENTRIES);
    static const char *const name[2] = {"LE", "LO"};
    for (unsigned id = 0; id < 2; id++)
        for (unsigned i = 0; i < NPK_RK_LUT_ENTRIES; i++)
            if (!ram->written[id][i])
                return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                         "unsupported by the model: the %s table's entry %u was "
                                         "never written (DPU_LUT_ACCESS_DATA 0x4104): its "
                                         "contents are not described",
                                         name[id], i);
    table_of(ram, 0, &lut->le);
    table_of(ram, 1, &lut->lo);
    lut->le.start = (int32_t)F(DPU_LUT_LE_START, LUT_LE_START);
    lut->lo.start = (int32_t)F(DPU_LUT_LO_START, LUT_LO_START);
    lut->le.select = (uint8_t)F(DPU_LUT_INFO, LUT_LE_INDEX_SELECT);
    lut->lo.select = (uint8_t)F(DPU_LUT_INFO, LUT_LO_INDEX_SELECT);
    lut->le.uflow_scale = (int16_t)F(DPU_LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_UFLOW_SCALE);
    lut->le.oflow_scale = (int16_t)F(DPU_LUT_LE_SLOPE_SCALE, LUT_LE_SLOPE_OFLOW_SCALE);
    lut->le.uflow_shift = (uint8_t)F(DPU_LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_UFLOW_SHIFT);
    lut->le.oflow_shift = (uint8_t)F(DPU_LUT_LE_SLOPE_SHIFT, LUT_LE_SLOPE_OFLOW_SHIFT);
    lut->lo.uflow_scale = (int16_t)F(DPU_LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_UFLOW_SCALE);
    lut->lo.oflow_scale = (int16_t)F(DPU_LUT_LO_SLOPE_SCALE, LUT_LO_SLOPE_OFLOW_SCALE);
    lut->lo.uflow_shift = (uint8_t)F(DPU_LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_UFLOW_SHIFT);
    lut->lo.oflow_shift = (uint8_t)F(DPU_LUT_LO_SLOPE_SHIFT, LUT_LO_SLOPE_OFLOW_SHIFT);
    lut->hybrid_lo = F(DPU_LUT_CFG, LUT_HYBRID_PRIORITY);
    lut->uflow_lo = F(DPU_LUT_CFG, LUT_UFLOW_PRIORITY);
    lut->oflow_lo = F(DPU_LUT_CFG, LUT_OFLOW_PRIORITY);
    lut->in_scale = (uint16_t)F(DPU_BN_MUL_CFG, BN_MUL_OPERAND);
    uint32_t off = F(DPU_BN_ALU_CFG, BN_ALU_OPERAND);
    memcpy(&lut->in_offset, &off, sizeof off);
    lut->minus_exp = (uint8_t)F(DPU_OUT_CVT_SHIFT, MINUS_EXP);
    return true;
}
