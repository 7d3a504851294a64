/* SPDX-License-Identifier: MIT */
/* The DPU's SDP element-wise engine as data: the operations it is known to perform, the
 * precisions its feature path takes, and the field values that select them. The synthesizer
 * encodes through these rows and the simulator decodes through the same rows.
 *
 * Sources: spec "SDP element-wise + DPU output-stage registers", "0x4070 DPU_EW_CFG + 0x5034
 * ERDMA_CFG data-mode fields", "Chained 2-input SDP", "OVER-FETCH"; facts B.4 (field layout). */
#ifndef NPUKIT_RK_SDP_HW_H
#define NPUKIT_RK_SDP_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/rk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = a OP b (b per element or per channel), or a 1-input op on a alone. */
typedef enum npk_rk_ew_op {
    NPK_EW_ADD,       /* EW ALU, SUM */
    NPK_EW_MUL,       /* EW MUL unit */
    NPK_EW_MAX,       /* EW ALU, MAX */
    NPK_EW_MIN,       /* EW ALU, MIN */
    NPK_EW_RELU,      /* 1-input: the BS stage's ReLU, ERDMA disabled */
    NPK_EW_EQL,       /* EW ALU, EQL (the spec's NVDLA order): synthesized, not simulated */
    NPK_EW_RELU6,     /* 1-input: the BS ReLU clamped above at 6 (RELUX) */
    NPK_EW_LEAKYRELU, /* x < 0 ? x * slope : x: the BS MUL in PReLU mode, slope immediate */
    NPK_EW_BATCHNORM, /* x * scale + shift, per tensor: BS MUL then the BN stage's ALU */
    NPK_EW_LUT,       /* 1-input: the EW stage's LUT with a fitted table (rk_act_hw.h) */
    NPK_EW_OP_COUNT
} npk_rk_ew_op;

/* Where the second operand comes from. */
typedef enum npk_rk_ew_operand {
    NPK_EW_PER_ELEMENT, /* b[M][N], in the feature's atom layout */
    NPK_EW_PER_CHANNEL, /* b[N], contiguous, broadcast across the rows */
    NPK_EW_NO_OPERAND,  /* 1-input op */
    NPK_EW_IMMEDIATE,   /* b: one value for every element (batchnorm: two, scale and shift),
                           held in a register of the stage that applies it */
} npk_rk_ew_operand;

/* The operand kinds an op takes, as a mask of NPK_EW_OPERAND_BIT(kind). */
#define NPK_EW_OPERAND_BIT(kind) (1u << (kind))

/* Which unit of the BS stage applies an op's immediate operand (NVDLA's X1 order: ALU, then
 * MUL, then ReLU; the operand from the stage's register, BS_ALU_SRC / BS_MUL_SRC 0). */
typedef enum npk_rk_bs_unit {
    NPK_BS_UNIT_NONE = 0,
    NPK_BS_UNIT_ALU,   /* BS_ALU_CFG holds the operand, BS_ALU_ALGO the op */
    NPK_BS_UNIT_MUL,   /* BS_MUL_CFG.BS_MUL_OPERAND holds it */
    NPK_BS_UNIT_PRELU, /* the MUL in PReLU mode: negatives only */
} npk_rk_bs_unit;

/* Field values (spec): EW_ALU_ALGO in the NVDLA order, SUM=2 confirmed on silicon; EW_OP_TYPE
 * 1 selects the MUL unit; EW_OP_SRC 0 reads the operand from memory (the vendor capture has it
 * clear); the data modes of EW_CFG [29:28] and ERDMA_CFG [31:30] as the vendor capture sets
 * them (per-element 2, per-channel 0). The spec's first ERDMA table gives per-element as 1;
 * the capture (0x8000000a) is the value reproduced here. */
enum npk_rk_ew_alu_algo {
    NPK_EW_ALU_MAX = 0,
    NPK_EW_ALU_MIN = 1,
    NPK_EW_ALU_SUM = 2,
    NPK_EW_ALU_EQL = 3,
};
enum {
    NPK_EW_OP_TYPE_ALU = 0,
    NPK_EW_OP_TYPE_MUL = 1,
    NPK_EW_OP_SRC_MEMORY = 0,
    NPK_EW_OP_SRC_REGISTER = 1, /* the other value: an inference the simulator does not run */
    NPK_EW_DATA_MODE_PER_CHANNEL = 0,
    NPK_EW_DATA_MODE_PER_ELEMENT = 2,
    /* ERDMA_DATA_SIZE (and EDATA_SIZE, "2=fp16"): 1 = ONE_BYTE, 2 = TWO_BYTE (spec) */
    NPK_SDP_DATA_SIZE_ONE_BYTE = 1,
    NPK_SDP_DATA_SIZE_TWO_BYTES = 2,
};

typedef struct npk_rk_ew_op_row {
    npk_rk_ew_op op;
    const char *name;  /* "add", "mul", ... */
    bool binary;       /* reads a second operand through the ERDMA */
    unsigned op_type;  /* DPU_EW_CFG.EW_OP_TYPE */
    unsigned alu_algo; /* DPU_EW_CFG.EW_ALU_ALGO (0 for the MUL unit, as captured) */
    bool bs_relu;      /* 1-input: the BS stage with only its ReLU active */
    /* The rows below the first five: the operand kinds the op takes (NPK_EW_OPERAND_BIT; 0
     * reads as the first five's rule: per element or per channel when binary, else none), the
     * BS unit an immediate operand goes to, a ReLUX clamp (relu6), and whether the simulator
     * has the evidence to run it (a row it has not is synthesized and decoded only). */
    unsigned operands;
    npk_rk_bs_unit imm_unit;
    bool relux;
    int relux_value;
    const char *not_simulated; /* NULL, or the reason naming the missing evidence */
    /* The op on one value as the SDP computes it (fp32: fp16 data, each step rounded to fp32;
     * else integers, exact until the output saturates): a, the operand b (per element, per
     * channel or the immediate), imm the immediates (leakyrelu's slope; batchnorm's scale and
     * shift). The host reference of every layer (the CLI's --check, the tests' row sweep);
     * NULL where no source gives the output (EQL) or a table gives it (LUT: rk_act_hw.h). */
    double (*value)(double a, double b, const double imm[2], bool fp32);
    /* Values an immediate operand holds in its registers: 1 (add/mul/max/min's value,
     * leakyrelu's slope; ops with no immediate too), 2 for batchnorm's scale and shift. */
    unsigned immediates;
} npk_rk_ew_op_row;

/* The operand kinds of an op row (the row's mask, or the first five rows' rule). */
NPUKIT_API unsigned npk_rk_ew_op_operands(const npk_rk_ew_op_row *row);
/* The values an immediate operand of the op holds (1 or 2; 0 for an op past the table). */
NPUKIT_API unsigned npk_rk_ew_op_immediates(npk_rk_ew_op op);
/* "per-element", "per-channel", "none", "immediate" */
NPUKIT_API const char *npk_rk_ew_operand_name(npk_rk_ew_operand kind);
/* A mask's kinds joined by '/' ("per-element/per-channel/immediate") into buf. */
NPUKIT_API const char *npk_rk_ew_operand_names(unsigned mask, char *buf, size_t size);

/* One per-point stage ahead of the EW stage: BS (0x4040..0x404C) or BN (0x4060..0x406C), the
 * same fields at a different base (facts B.4). Operands come from the stage's registers. */
typedef enum npk_rk_sdp_stage_id {
    NPK_SDP_STAGE_BS,
    NPK_SDP_STAGE_BN,
    NPK_SDP_STAGE_COUNT
} npk_rk_sdp_stage_id;

typedef struct npk_rk_sdp_stage_row {
    npk_rk_sdp_stage_id id;
    const char *name; /* "BS", "BN" */
    unsigned cfg_reg; /* npk_rk_reg_id of the stage's CFG, ALU_CFG, MUL_CFG, RELUX_CMP_VALUE */
    unsigned alu_reg, mul_reg, relux_reg;
    unsigned rdma_cfg_reg; /* its operand read DMA's CFG (BRDMA / NRDMA): 0 = no memory read */
} npk_rk_sdp_stage_row;

NPUKIT_API const npk_rk_sdp_stage_row *npk_rk_sdp_stage_row_of(npk_rk_sdp_stage_id id);

/* A stage's configuration as the synthesizer and the simulator see it; all false: bypassed.
 * Operands are values: the encoding into the registers is the precision's (fp16 SDP: the ALU
 * operand and the ReLUX bound as fp32 bits, the MUL operand as fp16 bits; integers: two's
 * complement), an inference — the spec gives the fields, not the encodings. */
typedef struct npk_rk_sdp_stage {
    bool alu;          /* ALU active (ALU_BYPASS clear) */
    unsigned alu_algo; /* NPK_EW_ALU_MAX, MIN or SUM */
    double alu_operand;
    bool mul;   /* MUL active */
    bool prelu; /* ... on negatives only (MUL_PRELU) */
    double mul_operand;
    unsigned mul_shift; /* right shift after the MUL (integers) */
    bool relu;          /* ReLU active (RELU_BYPASS clear) */
    bool relux;         /* ... and clamped above at relux_value (RELUX_EN) */
    double relux_value;
} npk_rk_sdp_stage;

/* Whether any unit of the stage is active. */
NPUKIT_API bool npk_rk_sdp_stage_active(const npk_rk_sdp_stage *st);
/* One value through the stage in the SDP's arithmetic (fp16: fp32, each unit rounding to
 * fp32; integers exact; the output converter saturates later): ALU, MUL (or PReLU), ReLU,
 * ReLUX — NVDLA's X1/X2 order (facts I.2), which the spec does not contradict. */
NPUKIT_API double npk_rk_sdp_stage_apply(const npk_rk_sdp_stage *st, bool fp32, double x);

/* NULL for a value outside the enum. */
NPUKIT_API const npk_rk_ew_op_row *npk_rk_ew_op_row_of(npk_rk_ew_op op);
NPUKIT_API bool npk_rk_ew_op_parse(const char *name, npk_rk_ew_op *out);
/* The binary op an (EW_OP_TYPE, EW_ALU_ALGO) pair selects; NULL when no row has it (EQL, or an
 * algorithm value the spec does not describe). */
NPUKIT_API const npk_rk_ew_op_row *npk_rk_ew_op_decode(unsigned op_type, unsigned alu_algo);
/* Every op's name, "|"-separated, in the enum's order ("add|mul|max|min|relu"). */
NPUKIT_API const char *npk_rk_ew_op_names(void);

/* The precisions the SDP's feature path takes (spec: the DPU compute lanes are int8, int16 and
 * fp16; fp16 is read through MRDMA_FP16TOFP32_EN and written through FP32TOFP16_EN). */
typedef struct npk_rk_sdp_prec_row {
    npk_rk_prec prec;
    unsigned bytes;     /* element size */
    unsigned data_size; /* ERDMA_DATA_SIZE / EDATA_SIZE: 1 one byte, 2 two bytes */
    bool fp32_compute;  /* fp16: MRDMA_FP16TOFP32_EN in, FP32TOFP16_EN out */
    int32_t min, max;   /* integer output range (0, 0 for fp16) */
} npk_rk_sdp_prec_row;

/* NULL for a precision the SDP does not take as its feature. */
NPUKIT_API const npk_rk_sdp_prec_row *npk_rk_sdp_prec_row_of(npk_rk_prec p);
/* The i-th row of the SDP precisions (fp16 first: the default), NULL past the last. */
NPUKIT_API const npk_rk_sdp_prec_row *npk_rk_sdp_prec_row_at(unsigned i);
/* Channels in one 16-byte atom of the SDP's feature/output layout (16 / element bytes: fp16
 * and int16 8, int8 16); 0 for a precision the SDP does not take. */
NPUKIT_API unsigned npk_rk_sdp_atom_channels(npk_rk_prec p);

/* The op-enable of a DPU-only SDP task: DPU | DPU_RDMA = 0x18 (spec "int16/narrow-output
 * MATMUL": "The SDP (enable=0x18, DPU-only)"). */
#define NPK_RK_ENABLE_SDP 0x18u

#ifdef __cplusplus
}
#endif
#endif
