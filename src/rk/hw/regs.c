/* SPDX-License-Identifier: MIT */
/* The register table built from rk_regs.def, and look-ups over it. */
#include <pthread.h>
#include <string.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_sdp_hw.h"

static const struct {
    const char *name;
    uint16_t target;
} blocks[NPK_BLK_COUNT] = {
    [NPK_BLK_PC] = {"PC", NPK_TARGET_PC},
    [NPK_BLK_CNA] = {"CNA", NPK_TARGET_CNA},
    [NPK_BLK_CMAC] = {"CMAC", NPK_TARGET_CMAC},
    [NPK_BLK_CORE] = {"CORE", NPK_TARGET_CORE},
    [NPK_BLK_DPU] = {"DPU", NPK_TARGET_DPU},
    [NPK_BLK_DPU_RDMA] = {"DPU_RDMA", NPK_TARGET_DPU_RDMA},
    [NPK_BLK_PPU] = {"PPU", NPK_TARGET_PPU},
    [NPK_BLK_PPU_RDMA] = {"PPU_RDMA", NPK_TARGET_PPU_RDMA},
    [NPK_BLK_PC_OP40] = {"PC_OP40", NPK_TARGET_PC_OP40},
    [NPK_BLK_PC_OPEN] = {"PC_OPEN", NPK_TARGET_PC_OPEN},
};

/* The position of each register's first field: each RK_REG marker takes the value of the
 * next field's index (the _FIX enumerator steps the counter back so markers take no slot). */
enum {
#define RK_REG(name, block, offset) FSTART_##name, FSTART_FIX_##name = FSTART_##name - 1,
#define RK_FIELD(reg, field, hi, lo) FPOS_##reg##_##field,
#include "npukit/rk_regs.def"
#undef RK_REG
#undef RK_FIELD
    FSTART_END
};

static const npk_rk_field fields[NPK_FIELD_COUNT] = {
#define RK_REG(name, block, offset)
#define RK_FIELD(reg, field, hi, lo) {#field, NPK_REG_##reg, hi, lo},
#include "npukit/rk_regs.def"
#undef RK_REG
#undef RK_FIELD
};

static npk_rk_reg regs[NPK_REG_COUNT] = {
#define RK_REG(name, block, offset) {#name, NPK_BLK_##block, 0, offset, FSTART_##name, 0},
#define RK_FIELD(reg, field, hi, lo)
#include "npukit/rk_regs.def"
#undef RK_REG
#undef RK_FIELD
};

/* Offsets 0x1000..0x7FFF index a direct table (one register per offset there); the PC and
 * its control-op targets share low offsets and are searched. */
enum { DIRECT_BASE = 0x1000, DIRECT_END = 0x8000 };
static uint16_t direct[(DIRECT_END - DIRECT_BASE) / 4]; /* register index + 1, 0 = none */
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
    for (unsigned i = 0; i < NPK_REG_COUNT; i++) {
        npk_rk_reg *r = &regs[i];
        r->target = blocks[r->block].target;
        unsigned end = i + 1 < NPK_REG_COUNT ? regs[i + 1].first_field : NPK_FIELD_COUNT;
        r->nfields = (uint16_t)(end - r->first_field);
        if (r->offset >= DIRECT_BASE && r->offset < DIRECT_END)
            direct[(r->offset - DIRECT_BASE) / 4] = (uint16_t)(i + 1);
    }
}

static void ensure_table(void) { pthread_once(&table_once, build_table); }

uint16_t npk_rk_unit_target(npk_rk_unit b)
{
    return (unsigned)b < NPK_BLK_COUNT ? blocks[b].target : 0;
}

const char *npk_rk_unit_name(npk_rk_unit b)
{
    return (unsigned)b < NPK_BLK_COUNT ? blocks[b].name : "?";
}

bool npk_rk_unit_of_target(uint16_t target, npk_rk_unit *out)
{
    for (unsigned b = 0; b < NPK_BLK_COUNT; b++)
        if (blocks[b].target == target) {
            *out = (npk_rk_unit)b;
            return true;
        }
    return false;
}

uint16_t npk_rk_target_for_offset(uint16_t offset)
{
    /* Facts B.2: the block's register range is its page: 0x1000 CNA (and 0x11xx), 0x2000
     * CMAC, 0x3000 CORE, 0x4000 DPU (and 0x41xx), 0x5000 DPU_RDMA, 0x6000 PPU, 0x7000
     * PPU_RDMA, 0x00xx PC. */
    static const uint16_t by_page[8] = {NPK_TARGET_PC,   NPK_TARGET_CNA,     NPK_TARGET_CMAC,
                                        NPK_TARGET_CORE, NPK_TARGET_DPU,     NPK_TARGET_DPU_RDMA,
                                        NPK_TARGET_PPU,  NPK_TARGET_PPU_RDMA};
    unsigned page = offset >> 12;
    if (page >= 8 || (page == 0 && offset >= 0x100))
        return 0;
    return by_page[page];
}

const npk_rk_reg *npk_rk_reg_info(npk_rk_reg_id id)
{
    ensure_table();
    return (unsigned)id < NPK_REG_COUNT ? &regs[id] : NULL;
}

const npk_rk_field *npk_rk_field_info(npk_rk_field_id id)
{
    /* Out-of-range ids are a programming error; clamp so a bad id cannot read past. */
    return &fields[(unsigned)id < NPK_FIELD_COUNT ? id : 0];
}

const npk_rk_reg *npk_rk_reg_lookup(uint16_t target, uint16_t offset)
{
    ensure_table();
    if (offset >= DIRECT_BASE && offset < DIRECT_END) {
        if (offset & 3)
            return NULL;
        unsigned i = direct[(offset - DIRECT_BASE) / 4];
        if (i && regs[i - 1].target == target)
            return &regs[i - 1];
        return NULL;
    }
    for (unsigned i = 0; i < NPK_REG_COUNT; i++)
        if (regs[i].offset == offset && regs[i].target == target)
            return &regs[i];
    return NULL;
}

const npk_rk_reg *npk_rk_reg_by_name(const char *name)
{
    ensure_table();
    for (unsigned i = 0; name && i < NPK_REG_COUNT; i++)
        if (!strcmp(regs[i].name, name))
            return &regs[i];
    return NULL;
}

npk_rk_reg_id npk_rk_reg_id_of(const npk_rk_reg *r) { return (npk_rk_reg_id)(r - regs); }

int npk_rk_field_find(const npk_rk_reg *r, const char *field_name)
{
    for (unsigned i = 0; r && i < r->nfields; i++)
        if (!strcmp(fields[r->first_field + i].name, field_name))
            return (int)(r->first_field + i);
    return -1;
}

/* The named field values (rk_regs.h), as text. */
static const struct {
    npk_rk_field_id field;
    uint32_t value;
    const char *name;
} value_names[] = {
    {NPK_RKF(DPU_FEATURE_MODE_CFG, OUTPUT_MODE), NPK_DPU_OUTPUT_MODE_MEMORY, "memory"},
    {NPK_RKF(CNA_CONV_CON1, CONV_MODE), NPK_CONV_MODE_DIRECT, "direct"},
    {NPK_RKF(DPU_FEATURE_MODE_CFG, CONV_MODE), NPK_CONV_MODE_DIRECT, "direct"},
    {NPK_RKF(CNA_CVT_CON0, DATA_SIGN), NPK_DATA_SIGN_UNSIGNED, "unsigned"},
    {NPK_RKF(CNA_CVT_CON0, DATA_SIGN), NPK_DATA_SIGN_SIGNED, "signed"},
    {NPK_RKF(CNA_DMA_CON0, WEIGHT_BURST_LEN), NPK_BURST_LEN_LONGEST, "longest"},
    {NPK_RKF(CNA_DMA_CON0, DATA_BURST_LEN), NPK_BURST_LEN_LONGEST, "longest"},
    {NPK_RKF(DPU_FEATURE_MODE_CFG, BURST_LEN), NPK_BURST_LEN_LONGEST, "longest"},
    {NPK_RKF(DPU_RDMA_FEATURE_MODE_CFG, BURST_LEN), NPK_BURST_LEN_LONGEST, "longest"},
    /* the SDP element-wise fields (rk_sdp_hw.h) */
    {NPK_RKF(DPU_EW_CFG, EW_ALU_ALGO), NPK_EW_ALU_MAX, "max"},
    {NPK_RKF(DPU_EW_CFG, EW_ALU_ALGO), NPK_EW_ALU_MIN, "min"},
    {NPK_RKF(DPU_EW_CFG, EW_ALU_ALGO), NPK_EW_ALU_SUM, "sum"},
    {NPK_RKF(DPU_EW_CFG, EW_ALU_ALGO), NPK_EW_ALU_EQL, "eql"},
    {NPK_RKF(DPU_EW_CFG, EW_OP_TYPE), NPK_EW_OP_TYPE_ALU, "alu"},
    {NPK_RKF(DPU_EW_CFG, EW_OP_TYPE), NPK_EW_OP_TYPE_MUL, "mul"},
    {NPK_RKF(DPU_EW_CFG, EW_OP_SRC), NPK_EW_OP_SRC_MEMORY, "memory"},
    {NPK_RKF(DPU_EW_CFG, EW_DATA_MODE), NPK_EW_DATA_MODE_PER_CHANNEL, "per-channel"},
    {NPK_RKF(DPU_EW_CFG, EW_DATA_MODE), NPK_EW_DATA_MODE_PER_ELEMENT, "per-element"},
    {NPK_RKF(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_MODE), NPK_EW_DATA_MODE_PER_CHANNEL, "per-channel"},
    {NPK_RKF(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_MODE), NPK_EW_DATA_MODE_PER_ELEMENT, "per-element"},
    {NPK_RKF(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_SIZE), NPK_SDP_DATA_SIZE_ONE_BYTE, "one-byte"},
    {NPK_RKF(DPU_RDMA_ERDMA_CFG, ERDMA_DATA_SIZE), NPK_SDP_DATA_SIZE_TWO_BYTES, "two-byte"},
    {NPK_RKF(DPU_EW_CFG, EDATA_SIZE), NPK_SDP_DATA_SIZE_ONE_BYTE, "one-byte"},
    {NPK_RKF(DPU_EW_CFG, EDATA_SIZE), NPK_SDP_DATA_SIZE_TWO_BYTES, "two-byte"},
};

const char *npk_rk_field_value_name(npk_rk_field_id f, uint32_t v)
{
    for (size_t i = 0; i < sizeof value_names / sizeof value_names[0]; i++)
        if (value_names[i].field == f && value_names[i].value == v)
            return value_names[i].name;
    return NULL;
}
