/* SPDX-License-Identifier: MIT */
/* The RK NPU register table: blocks, registers and fields as data.
 *
 * The table itself is include/npukit/rk_regs.def. The synthesizer packs values through the
 * field ids, the decoder names entries through the lookup, the simulator extracts fields
 * through the same ids, so a field position is written down exactly once. */
#ifndef NPUKIT_RK_REGS_H
#define NPUKIT_RK_REGS_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Regcmd targets (the top 16 bits of an entry): one-hot block bit << 8 | 1 ("write"), and the
 * two PC control ops 0x41 / 0x81 of the trailer. Facts B.2. */
typedef enum npk_rk_unit {
    NPK_BLK_PC,       /* 0x0101  0x00xx */
    NPK_BLK_CNA,      /* 0x0201  0x10xx-0x11xx */
    NPK_BLK_CMAC,     /* 0x0401  0x20xx (seen only as an S_POINTER wake) */
    NPK_BLK_CORE,     /* 0x0801  0x30xx */
    NPK_BLK_DPU,      /* 0x1001  0x40xx-0x41xx */
    NPK_BLK_DPU_RDMA, /* 0x2001  0x50xx */
    NPK_BLK_PPU,      /* 0x4001  0x60xx */
    NPK_BLK_PPU_RDMA, /* 0x8001  0x70xx */
    NPK_BLK_PC_OP40,  /* 0x0041  the pre-op-enable entry */
    NPK_BLK_PC_OPEN,  /* 0x0081  the op-enable entry */
    NPK_BLK_COUNT
} npk_rk_unit;

enum {
    NPK_TARGET_NOP = 0x0000,
    NPK_TARGET_PC = 0x0101,
    NPK_TARGET_CNA = 0x0201,
    NPK_TARGET_CMAC = 0x0401,
    NPK_TARGET_CORE = 0x0801,
    NPK_TARGET_DPU = 0x1001,
    NPK_TARGET_DPU_RDMA = 0x2001,
    NPK_TARGET_PPU = 0x4001,
    NPK_TARGET_PPU_RDMA = 0x8001,
    NPK_TARGET_PC_OP40 = 0x0041,
    NPK_TARGET_PC_OPEN = 0x0081,
};

typedef enum npk_rk_reg_id {
#define RK_REG(name, block, offset) NPK_REG_##name,
#define RK_FIELD(reg, field, hi, lo)
#include "npukit/rk_regs.def"
#undef RK_REG
#undef RK_FIELD
    NPK_REG_COUNT
} npk_rk_reg_id;

typedef enum npk_rk_field_id {
#define RK_REG(name, block, offset)
#define RK_FIELD(reg, field, hi, lo) NPK_F_##reg##_##field,
#include "npukit/rk_regs.def"
#undef RK_REG
#undef RK_FIELD
    NPK_FIELD_COUNT
} npk_rk_field_id;

typedef struct npk_rk_field {
    const char *name; /* "DATA_BANK" */
    npk_rk_reg_id reg;
    uint8_t hi, lo;
} npk_rk_field;

typedef struct npk_rk_reg {
    const char *name; /* "CNA_CBUF_CON0" */
    npk_rk_unit block;
    uint16_t target;
    uint16_t offset;
    uint16_t first_field; /* index into the field table */
    uint16_t nfields;     /* 0: the layout is undocumented */
} npk_rk_reg;

/* Blocks */
NPUKIT_API uint16_t npk_rk_unit_target(npk_rk_unit b);
NPUKIT_API const char *npk_rk_unit_name(npk_rk_unit b); /* "CNA", "DPU", ... */
/* false when the target is not a known block (or the no-op target 0). */
NPUKIT_API bool npk_rk_unit_of_target(uint16_t target, npk_rk_unit *out);
/* The write target an ordinary register offset belongs to (0x1040 -> 0x0201), 0 if none. */
NPUKIT_API uint16_t npk_rk_target_for_offset(uint16_t offset);

/* Registers and fields */
NPUKIT_API const npk_rk_reg *npk_rk_reg_info(npk_rk_reg_id id);
NPUKIT_API const npk_rk_field *npk_rk_field_info(npk_rk_field_id id);
/* NULL when (target, offset) is not in the table. */
NPUKIT_API const npk_rk_reg *npk_rk_reg_lookup(uint16_t target, uint16_t offset);
NPUKIT_API const npk_rk_reg *npk_rk_reg_by_name(const char *name);
NPUKIT_API npk_rk_reg_id npk_rk_reg_id_of(const npk_rk_reg *r);
/* Field by register and field name, or -1. */
NPUKIT_API int npk_rk_field_find(const npk_rk_reg *r, const char *field_name);

static inline uint32_t npk_rk_field_mask(npk_rk_field_id f)
{
    const npk_rk_field *fi = npk_rk_field_info(f);
    uint32_t width = (uint32_t)(fi->hi - fi->lo + 1);
    return (width >= 32 ? 0xffffffffu : ((1u << width) - 1u)) << fi->lo;
}
/* The field's value inside a register value. */
static inline uint32_t npk_rk_field_get(npk_rk_field_id f, uint32_t reg_value)
{
    return (reg_value & npk_rk_field_mask(f)) >> npk_rk_field_info(f)->lo;
}
/* v placed at the field's position; bits beyond the field are dropped (check with _fits). */
static inline uint32_t npk_rk_field_put(npk_rk_field_id f, uint32_t v)
{
    return (v << npk_rk_field_info(f)->lo) & npk_rk_field_mask(f);
}
/* True when v fits the field's width. */
static inline bool npk_rk_field_fits(npk_rk_field_id f, uint64_t v)
{
    const npk_rk_field *fi = npk_rk_field_info(f);
    unsigned width = (unsigned)(fi->hi - fi->lo + 1);
    return width >= 64 || v < (1ull << width);
}

/* Named values of the fields that hold an enumeration (facts B.4, C.1; the precision fields
 * take npk_rk_prec values, GROUP_LINE_OFF is 1 for npk_rk_mode's line mode). */
enum npk_rk_dpu_output_mode { /* DPU_FEATURE_MODE_CFG.OUTPUT_MODE */
                              NPK_DPU_OUTPUT_MODE_MEMORY =
                                  2, /* write the result to memory (the 0x1E4 family) */
};
enum npk_rk_conv_mode { /* CNA_CONV_CON1.CONV_MODE, DPU_FEATURE_MODE_CFG.CONV_MODE */
                        NPK_CONV_MODE_DIRECT = 0, /* direct convolution: a matmul is a 1x1 one */
};
enum npk_rk_data_sign { /* CNA_CVT_CON0.DATA_SIGN */
                        NPK_DATA_SIGN_UNSIGNED = 0,
                        NPK_DATA_SIGN_SIGNED =
                            1, /* signed operands, as every described program (facts C.1 #17) */
};
enum npk_rk_cvt_type { /* CNA_CVT_CON0.CVT_TYPE: what its values select is not described */
                       NPK_CVT_TYPE_DESCRIBED =
                           1, /* the value every described program writes (facts C.1 #17) */
};
enum npk_rk_burst_len { /* CNA_DMA_CON0.WEIGHT_BURST_LEN and DATA_BURST_LEN, the BURST_LEN of
                         * DPU_FEATURE_MODE_CFG and DPU_RDMA_FEATURE_MODE_CFG */
                        NPK_BURST_LEN_LONGEST = 15, /* the 4-bit field's largest value, in every
                                                       described program (facts C.1 #27, #58) */
};

/* The name of a field's value where the value has one ("memory", "signed"), else NULL; the
 * register decoder prints it next to the number. */
NPUKIT_API const char *npk_rk_field_value_name(npk_rk_field_id f, uint32_t v);

/* Mesa-style shorthands: NPK_RKF(CNA_CBUF_CON0, DATA_BANK) is the field id,
 * NPK_RKPUT(CNA_CBUF_CON0, DATA_BANK, 1) its packed value. */
#define NPK_RKF(reg, field) NPK_F_##reg##_##field
#define NPK_RKPUT(reg, field, v) npk_rk_field_put(NPK_F_##reg##_##field, (uint32_t)(v))

#ifdef __cplusplus
}
#endif
#endif
