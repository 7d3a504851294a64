/* SPDX-License-Identifier: MIT */
/* E8M15, the vector core's lane format (facts §3.2), as pure arithmetic: FP32's top 24 bits —
 * sign, 8-bit exponent (bias 127), 15-bit mantissa — with no subnormals (exponent 0 is zero),
 * exponent 255 infinity (mantissa 0) or NaN.
 *
 * The lane (upstream's vec_alu) sends every arithmetic opcode through one fused multiply-add,
 * a * b + c with one rounding, and the arithmetic here follows its datapath step by step, so
 * that results match bit for bit, quirks included: the product and the aligned addend meet in a
 * 48-bit frame, an addend shifted past it leaves only a sticky bit (and a zero addend still sets
 * it, so an exact tie of a product rounds up), an addend 2^17 above the product bypasses it,
 * results below the smallest normal flush to zero, and rounding is to nearest with ties to even
 * otherwise. The conversions (upstream's vec_cvt) are the same: FP16 in exactly (subnormals
 * renormalised), FP16 out rounded to nearest even with subnormal outputs and saturation to the
 * largest finite value, FP32 in rounded to nearest even (FP32 subnormals read as zero), FP32
 * out exact. tests/test_kt_vec.c holds them to outputs recorded from the RTL. */
#ifndef NPUKIT_KT_HW_E8M15_H
#define NPUKIT_KT_HW_E8M15_H

#include <stdbool.h>
#include <stdint.h>

enum {
    KT_E8_ZERO = 0x000000,
    KT_E8_ONE = 0x3F8000,
    KT_E8_MINUS_ONE = 0xBF8000,
    KT_E8_NAN = 0x7FC000, /* the lane's quiet NaN */
};

/* The lane's arithmetic opcodes, numbered as the ISA numbers them (0x00..0x11; the lane itself
 * numbers the four seeds 16..19). */
typedef enum kt_e8_op {
    KT_E8_MOV,
    KT_E8_NEG,
    KT_E8_ABS,
    KT_E8_ADD,
    KT_E8_SUB,
    KT_E8_MUL,
    KT_E8_FMA,
    KT_E8_FNMA,
    KT_E8_MAX,
    KT_E8_MIN,
    KT_E8_SEL,
    KT_E8_CMPLT,
    KT_E8_CMPGT,
    KT_E8_CMPEQ,
    KT_E8_EXP2,
    KT_E8_LOG2,
    KT_E8_INV,
    KT_E8_RSQRT,
    KT_E8_OP_COUNT
} kt_e8_op;

/* One lane operation on three 24-bit operands, as the lane computes it: MOV/NEG/ABS a;
 * ADD a + c; SUB a - c; MUL a * b; FMA a * b + c; FNMA -(a * b) + c; MAX/MIN of a and b;
 * SEL c != 0 ? a : b; the compares a against b (result 1.0 or 0.0; *pred the predicate bit,
 * false for the rest); the seeds 2^a, log2 a, 1/a and 1/sqrt(a) (kt_e8_seed). */
uint32_t kt_e8_alu(kt_e8_op op, uint32_t a, uint32_t b, uint32_t c, bool *pred);
/* kt_e8_alu(KT_E8_FMA, a, b, c, pred) without the dispatch (its predicate bit is false): the
 * vector lanes' commonest operation. */
uint32_t kt_e8_fma(uint32_t a, uint32_t b, uint32_t c);

/* The seeds (e8m15_seed.c), as the lane computes them: a quadratic per segment of 1/32 of an
 * octave, its coefficients from a table, evaluated in two fixed-point Horner steps and rounded
 * once by the lane's rounder. `op` is KT_E8_EXP2..KT_E8_RSQRT; any other op returns NaN. */
uint32_t kt_e8_seed(kt_e8_op op, uint32_t a);
/* The seed table's row: `idx` 0..31 (RSQRT 0..63, bit 5 the odd-octave half), c[0..2] the
 * coefficients at weights 2^-20, 2^-24, 2^-28; false for an op or index with no row. */
bool kt_e8_seed_row(kt_e8_op op, unsigned idx, int32_t c[3]);
/* The lane's last three cycles (e8m15_round.c): a magnitude whose leading one weighs 2^(position +
 * ebase - 127), normalised to 16 significant bits, rounded to nearest even (sticky: bits already
 * lost below it), then bounded: at or above exponent 255 infinity, at or below 0 zero. A zero
 * magnitude is a zero of `sign`. Shared by the fused multiply-add and the seeds. */
uint32_t kt_e8_round(uint64_t mag, int ebase, bool sticky, unsigned sign);
/* The position of x's leading one (0 for 0, as for 1): the lane's leading-one search. */
static inline unsigned kt_e8_lead1(uint64_t x)
{
    return x ? 63u - (unsigned)__builtin_clzll(x) : 0;
}

uint32_t kt_e8_from_f16(uint16_t h);
uint16_t kt_e8_to_f16(uint32_t e);
uint32_t kt_e8_from_f32(uint32_t f);
uint32_t kt_e8_to_f32(uint32_t e);
/* As a double (exact), for references and reports. */
double kt_e8_value(uint32_t e);

#endif
