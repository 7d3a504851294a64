/* RK NPU basic types: the precision enum (the one place it is defined) and element sizes.
 *
 * The enum values are the hardware's own field values (CNA CONV_CON1 IN/PROC_PRECISION,
 * CORE MISC_CFG PROC_PRECISION, DPU DATA_FORMAT IN/OUT/PROC_PRECISION): spec, "The precision
 * enum"; facts B.5. */
#ifndef NPUKIT_RK_TYPES_H
#define NPUKIT_RK_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum npk_rk_prec {
    NPK_PREC_INT8 = 0,
    NPK_PREC_INT16 = 1,
    NPK_PREC_FP16 = 2,
    NPK_PREC_BF16 = 3,
    NPK_PREC_INT32 = 4, /* output only */
    NPK_PREC_FP32 = 5,  /* output only (DPU proc precision for tf32) */
    NPK_PREC_INT4 = 6,
    NPK_PREC_TF32 = 7,  /* CNA/CORE only */
} npk_rk_prec;

/* Feature/output geometry: line mode (CONV_CON1.GROUP_LINE_OFF=1, row-major operands) or the
 * cube mode ([K/C2][M][C2] features, [N/C2o][M][C2o] outputs). Facts C.0, D.2, D.3. */
typedef enum npk_rk_mode {
    NPK_MODE_LINE = 0,
    NPK_MODE_CUBE = 1,
} npk_rk_mode;

/* Lower-case name ("fp16", "int8", ...) or NULL for a value outside the enum. */
const char *npk_rk_prec_name(npk_rk_prec p);
/* Parse a name; returns false for an unknown one. */
bool npk_rk_prec_parse(const char *name, npk_rk_prec *out);
/* Element size in bits (int4 4, int8 8, fp16 16, fp32 32, ...). */
unsigned npk_rk_prec_bits(npk_rk_prec p);

#ifdef __cplusplus
}
#endif
#endif
