/* SPDX-License-Identifier: MIT */
/* The SDP's activations as data: which engine stage computes each one (the EW stage's LUT for
 * the smooth functions, a clamp without LUT for the piecewise-linear ones: spec "Activation
 * dispatch splits by smoothness"), the LUT as the hardware holds it (two tables of 513 16-bit
 * entries, LE and LO, their ranges, index steps and out-of-range slopes), how each function is
 * fitted into it, and the LUT's arithmetic as modelled. The synthesizer writes a fitted LUT
 * through these rows; the simulator evaluates the registers it decoded with npk_rk_lut_eval.
 *
 * The LUT as modelled (docs/facts-engines.md, "SDP LUT"; inferred parts marked there):
 *   X = (x + a) * s              the BN stage: its ALU adds a (BN_ALU_CFG, fp32 bits; -0.0 adds
 *                                nothing), its multiplier scales (BN_MUL_OPERAND, fp16 s), fp32
 *   a table T of 513 entries covers [START, START + 512 * 2^SELECT] (END), integer units
 *   inside:  u = (X - START) / 2^SELECT, i = floor(u), y = T[i] + (T[i+1] - T[i]) * (u - i)
 *   below:   y = T[0]   + (X - START) * UFLOW_SCALE / 2^UFLOW_SHIFT   (scale signed 16 bits)
 *   above:   y = T[512] + (X - END)   * OFLOW_SCALE / 2^OFLOW_SHIFT
 *   which table: the one X falls in; in both, HYBRID_PRIORITY (0 LE, 1 LO); below both,
 *   UFLOW_PRIORITY; above both, OFLOW_PRIORITY; between them, HYBRID_PRIORITY
 *   out = y * 2^-MINUS_EXP        the output converter (OUT_CVT_SHIFT.MINUS_EXP), then fp16 */
#ifndef NPUKIT_RK_ACT_HW_H
#define NPUKIT_RK_ACT_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/rk_sdp_hw.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries per LUT table on RK3588: the spec's sigmoid/gelu/silu capture writes 1079 DPU
 * registers where a 1-input element-wise op writes 51; 1079 - 51 = 1028 = 2 x (1 ACCESS_CFG +
 * 513 ACCESS_DATA) (NVDLA's tables are 65 and 257). */
#define NPK_RK_LUT_ENTRIES 513
/* Index intervals per table. */
#define NPK_RK_LUT_STEPS (NPK_RK_LUT_ENTRIES - 1)

typedef enum npk_rk_act_kind {
    NPK_ACT_SIGMOID,
    NPK_ACT_TANH,
    NPK_ACT_GELU,        /* the tanh form of GELU (ggml's and PyTorch's "tanh" approximation) */
    NPK_ACT_SILU,        /* x * sigmoid(x) */
    NPK_ACT_HARDSWISH,   /* x * min(max(x + 3, 0), 6) / 6 */
    NPK_ACT_HARDSIGMOID, /* max(0, min(1, alpha * x + beta)); alpha 1/6, beta 1/2 by default */
    NPK_ACT_EXP,         /* e^x for x <= 0 (softmax's exponent after the row maximum) */
    NPK_ACT_RELU,        /* clamp at 0 without LUT: the BS stage's ReLU */
    NPK_ACT_RELU6,       /* min(max(x, 0), 6) without LUT: the BS ReLU with RELUX at 6 */
    NPK_ACT_COUNT
} npk_rk_act_kind;

/* The stage that computes an activation. */
typedef enum npk_rk_act_engine {
    NPK_ACT_ENGINE_LUT,   /* EW stage LUT (EW_LUT_BYPASS clear), BN stage scaling its input */
    NPK_ACT_ENGINE_CLAMP, /* a clamp of the BS stage, no LUT */
} npk_rk_act_engine;

/* How a LUT activation is fitted: LE samples [x_lo, x_mid], LO samples [x_mid, x_hi], each in
 * 512 steps; out of range, the slope of the function at the end (or 0 where it is flat).
 * out_exp: entries hold f(x) * 2^out_exp (int16), the converter divides it back out. */
typedef struct npk_rk_act_row {
    npk_rk_act_kind act;
    const char *name;
    npk_rk_act_engine engine;
    npk_rk_ew_op op;          /* the SDP op that computes it: NPK_EW_LUT, or the clamp's own row */
    double x_lo, x_mid, x_hi; /* LUT only; the widths are powers of two */
    int out_exp;              /* LUT only */
    bool params;              /* takes alpha/beta (hardsigmoid) */
    double alpha, beta;       /* their defaults */
    /* the function in double precision: the reference every result is held to */
    double (*ref)(double x, double alpha, double beta);
} npk_rk_act_row;

/* NULL for a value outside the enum. */
NPUKIT_API const npk_rk_act_row *npk_rk_act_row_of(npk_rk_act_kind act);
NPUKIT_API bool npk_rk_act_parse(const char *name, npk_rk_act_kind *out);
/* "sigmoid|tanh|gelu|silu|hardswish|hardsigmoid|exp|relu|relu6" */
NPUKIT_API const char *npk_rk_act_names(void);

/* One LUT table: its entries, range start, index step 2^select (integer units of X) and its
 * out-of-range slopes (signed scale, right shift). */
typedef struct npk_rk_lut_table {
    int16_t t[NPK_RK_LUT_ENTRIES];
    int32_t start;
    uint8_t select;
    int16_t uflow_scale, oflow_scale;
    uint8_t uflow_shift, oflow_shift;
} npk_rk_lut_table;

/* A LUT program: both tables, the input scale, the priorities and the output exponent. */
typedef struct npk_rk_lut {
    npk_rk_lut_table le, lo;
    uint16_t in_scale; /* fp16 bits of s, X = (x + a) * s (BN_MUL_OPERAND) */
    float in_offset;   /* a (BN_ALU_CFG): -0.0f from the fitter; softmax's -max of a row */
    bool hybrid_lo;    /* LUT_HYBRID_PRIORITY: LO */
    bool uflow_lo;     /* LUT_UFLOW_PRIORITY: LO */
    bool oflow_lo;     /* LUT_OFLOW_PRIORITY: LO */
    uint8_t minus_exp; /* OUT_CVT_SHIFT.MINUS_EXP */
} npk_rk_lut;

/* The LUT fields' captured settings that the model requires (third-party captures of the
 * vendor's LUT activations): LO_LE_MUX 2, EXPAND_EN / ROAD_SEL / CAL_SEL 0. */
#define NPK_RK_LUT_LO_LE_MUX 2u

/* Fit activation `act` (alpha/beta for a row with params; ignored otherwise) into *lut.
 * NPK_EINVAL naming the activation when it is not a LUT activation or a parameter is not
 * finite. */
NPUKIT_API npk_status npk_rk_lut_fit(npk_rk_act_kind act, double alpha, double beta,
                                     npk_rk_lut *lut);
/* The same for gain * f (0 < gain <= 1) with the entries' scale raised by 2^k, k the largest
 * with gain * 2^k <= 1, so a small output keeps the table's full 16 bits (softmax's second pass:
 * gain 1 / the row's sum); MINUS_EXP grows by k. NPK_ELIMIT when MINUS_EXP would pass its 8
 * bits, NPK_EINVAL for a gain outside (0, 1]. */
NPUKIT_API npk_status npk_rk_lut_fit_scaled(npk_rk_act_kind act, double alpha, double beta,
                                            double gain, npk_rk_lut *lut);

/* The LUT's value for one input x as modelled (fp32 arithmetic), before the fp16 rounding of
 * the output. */
NPUKIT_API float npk_rk_lut_eval(const npk_rk_lut *lut, float x);

/* The one table's value (used by npk_rk_lut_eval): which table applies is the caller's. */
NPUKIT_API float npk_rk_lut_table_eval(const npk_rk_lut_table *t, float X);

#ifdef __cplusplus
}
#endif
#endif
