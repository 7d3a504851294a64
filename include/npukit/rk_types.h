/* SPDX-License-Identifier: MIT */
/* RK NPU basic types: the precision enum (the one place it is defined) and one row of facts
 * per precision.
 *
 * The enum values are the hardware's own field values (CNA CONV_CON1 IN/PROC_PRECISION,
 * CORE MISC_CFG PROC_PRECISION, DPU DATA_FORMAT IN/OUT/PROC_PRECISION): spec, "The precision
 * enum"; facts B.5. */
#ifndef NPUKIT_RK_TYPES_H
#define NPUKIT_RK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

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
    NPK_PREC_TF32 = 7, /* CNA/CORE only */
} npk_rk_prec;

/* Feature/output geometry: line mode (CONV_CON1.GROUP_LINE_OFF=1, row-major operands) or the
 * cube mode ([K/C2][M][C2] features, [N/C2o][M][C2o] outputs). Facts C.0, D.2, D.3. */
typedef enum npk_rk_mode {
    NPK_MODE_LINE = 0,
    NPK_MODE_CUBE = 1,
} npk_rk_mode;

/* How an element's bits encode its value. */
typedef enum npk_rk_encoding {
    NPK_ENC_TWOS = 0, /* two's complement integer of the row's width */
    NPK_ENC_IEEE,     /* IEEE 754 binary16 (fp16) or binary32 (fp32; tf32 in its container) */
    NPK_ENC_BFLOAT,   /* bfloat16: the top half of a binary32 */
} npk_rk_encoding;

/* The bank-split (sched 1) facts of a matmul input (spec "Small-K validity of the 0x1040
 * schedule", "The M-tiling scheduler"; facts C.3); all 0 where sched 1 is not described. */
typedef struct npk_rk_sched1 {
    unsigned small_k;    /* at K <= this a split above 0xB1 breaks the K reduction: zeros
                            at M=1, garbage at M>1 (hazard 9; fp16 64, int8 128) */
    unsigned k_min;      /* the defence: sched 1 only from this K (fp16 96, int8 256) */
    unsigned k_lo, k_hi; /* the power-of-two K it is used at (fp16 128..1024, int8
                            512..4096; off powers of two the fit takes fractional steps) */
    unsigned wrong_k;    /* from this K on, rows above wrong_m are wrong (fp16 2048: M 8) */
    unsigned wrong_m;
    unsigned row_group;  /* the ceiling of 11 data banks counts whole groups of this many
                            rows (fp16 1; int8 64: the measured mg_max x 64) */
    unsigned envelope_k; /* at K <= this (fp16 128: half-bank steps) the envelope is
                            non-monotonic: the ceiling is envelope_m */
    unsigned envelope_m;
} npk_rk_sched1;

/* Every per-precision fact, one row per enum value. The matmul inputs (fp16, int8, int4) fill
 * every field; the other precisions have a name, a size and their layout roles only. */
typedef struct npk_rk_prec_row {
    const char *name;
    unsigned bits;           /* element size (int4 4, int8 8, fp16 16, fp32 32, ...) */
    bool input;              /* a matmul input the synthesizer and the simulator know */
    bool is_float;           /* a floating-point format (fp16, bf16, fp32, tf32) */
    npk_rk_encoding enc;     /* how its bits encode a value */
    bool layout_in;          /* the layout packers take it as an operand (A, B) */
    bool layout_out;         /* ... and as an output (C); tf32 has its own 16x16 tiles */
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
    bool vendor_multitask;   /* the vendor batches rows as a multi-task SUBMIT, one row per
                                task (spec "TWO distinct batch mechanisms": int4; int8 and fp16
                                batch in-task), so the runtime weighs that form by cost */
    unsigned macs_per_cycle; /* MAC-array peak per core and cycle (spec "The precision enum":
                                the 1 KB int8 B atom is 1024 MACs; fp16 half of it, 3 TFLOPS
                                vs 6 TOPS, facts G; int4 taken at the int8 rate, a 2x-wide
                                int4 array being an open question) */
    npk_rk_sched1 sched1;
} npk_rk_prec_row;

/* The row of a precision; NULL for a value outside the enum. */
NPUKIT_API const npk_rk_prec_row *npk_rk_prec_row_of(npk_rk_prec p);
/* The row of a matmul input precision; NULL for any other value. */
NPUKIT_API const npk_rk_prec_row *npk_rk_input_row(npk_rk_prec p);

/* A feature row pitch the line form is described at: rows `factor` x the packed row (Kp x eb
 * bytes) apart, CNA_DMA_CON1.LINE_STRIDE = factor x Kp x eb / 16 (spec "0x107c
 * CNA_DMA_CON1.LINE_STRIDE — the matmul reads STRIDED / non-contiguous activations"). One row
 * per (precision, factor) with its evidence: fp16 at 1 (production) and 2, 4, 8 (the board
 * probe ORK_F16_ROWPITCH, bit-exact); int8 at 1 (production); int4 at 2 only: its 0x107c is
 * K/16, twice its packed row (spec "0x107c — entries per activation slice": int4 reuses
 * int8's 16-element entry), each row followed by a zero line of the same size (the spec's
 * "mc_phys = 2H zero-line padding", whose lever 0x107c is). */
typedef struct npk_rk_pitch_row {
    npk_rk_prec prec;
    unsigned factor;
    bool board_confirmed; /* run on a board at this pitch (else read from the spec's values) */
    const char *source;
} npk_rk_pitch_row;
/* The row of (p, factor), NULL when that pitch is not described for p. */
NPUKIT_API const npk_rk_pitch_row *npk_rk_pitch_row_of(npk_rk_prec p, unsigned factor);
/* The i-th row, NULL past the end. */
NPUKIT_API const npk_rk_pitch_row *npk_rk_pitch_row_at(unsigned i);
/* The pitches described for p as text ("1, 2, 4, 8"; "none"), for messages. */
NPUKIT_API const char *npk_rk_pitch_list(npk_rk_prec p, char *buf, size_t size);

/* Lower-case name ("fp16", "int8", ...) or NULL for a value outside the enum. */
NPUKIT_API const char *npk_rk_prec_name(npk_rk_prec p);
/* Parse a name; returns false for an unknown one. */
NPUKIT_API bool npk_rk_prec_parse(const char *name, npk_rk_prec *out);
/* Element size in bits (int4 4, int8 8, fp16 16, fp32 32, ...). */
NPUKIT_API unsigned npk_rk_prec_bits(npk_rk_prec p);
/* Element i of an array of precision p, little-endian like the NPU and every host it serves
 * (int4 two per byte, the even index in the low nibble, facts D.1), as its value; 0 for a
 * value outside the enum. */
NPUKIT_API double npk_rk_prec_load(npk_rk_prec p, const void *base, size_t i);
/* Store v as element i: floats rounded to nearest even, integers wrapped to the width. */
NPUKIT_API void npk_rk_prec_store(npk_rk_prec p, void *base, size_t i, double v);

#ifdef __cplusplus
}
#endif
#endif
