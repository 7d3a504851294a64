/* RK NPU basic types: the precision enum (the one place it is defined) and one row of facts
 * per precision.
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

/* Every per-precision fact, one row per enum value. The matmul inputs (fp16, int8, int4) fill
 * every field; the other precisions have a name and a size only (the rest 0). */
typedef struct npk_rk_prec_row {
    const char *name;
    unsigned bits;           /* element size (int4 4, int8 8, fp16 16, fp32 32, ...) */
    bool input;              /* a matmul input the synthesizer and the simulator know */
    bool is_float;
    unsigned cbuf_bytes;     /* CBUF bytes per feature element (int4 uses int8's entries,
                                spec 0x107c) */
    unsigned line_unit;      /* feature elements per 16-byte LINE_STRIDE unit (fp16 8, int8 and
                                int4 16: int4 uses int8's 16-element entry, spec 0x107c) */
    unsigned n_tile;         /* N width of a weight tile (facts D.1: 16, 32, 64) */
    unsigned fit_ref_k;      /* reference K of the sched-1 linear fit (fp16 256, int8 512;
                                int4 shares int8's CBUF entry) */
    unsigned tile_elems;     /* CBUF row budget: rows per internal M-tile = this / K (spec:
                                32768 fp16, int8 packs twice the rows) */
    unsigned bank_elems;     /* feature elements one data bank holds (sched-0 M ceiling x K:
                                fp16 16384, int8 32768, int4 16384 as measured) */
    int op_min, op_max;      /* operand range of the integer inputs (0, 0 for floats) */
    unsigned acc_bits;       /* the task's accumulator width (fp32 32, int32 32, int4's 16) */
    npk_rk_prec acc;         /* ... and its precision: the default output of a task */
    npk_rk_prec host_acc;    /* the precision the host adds partial results in and returns */
    npk_rk_mode mode;        /* the vendor's default feature/output mode (facts C.0) */
    bool top_pad;            /* CNA_PAD_CON0.PAD_TOP is described as an output row offset
                                (spec "0x1068": measured for int8 only) */
} npk_rk_prec_row;

/* The row of a precision; NULL for a value outside the enum. */
const npk_rk_prec_row *npk_rk_prec_row_of(npk_rk_prec p);
/* The row of a matmul input precision; NULL for any other value. */
const npk_rk_prec_row *npk_rk_input_row(npk_rk_prec p);

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
