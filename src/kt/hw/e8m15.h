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

/* The format's exponent bias and mantissa width. */
enum { KT_E8_BIAS = 127, KT_E8_MBITS = 15 };

/* The fused multiply-add's frame, from the format: the 16 x 16-bit product of the significands
 * sits at bit 0, its lsb weighing 2^(ea + eb - 2 * (bias + mbits)); the addend's 16-bit
 * significand starts KT_E8_ADDEND_UP bits up, lsb 2^(ec - (bias + mbits)), and is shifted down by
 * ea + eb - ec - KT_E8_ALIGN_BIAS to put its lsb onto the product's. A result whose leading one
 * is at frame bit `lead` has the exponent field lead + ea + eb - KT_E8_EXP_BIAS_FMA, or
 * lead + ec - KT_E8_EXP_BIAS_BYP for an addend that bypasses the product (left unshifted). A
 * difference the product outweighs is negated within KT_E8_NEG_BITS: the product's width and
 * one bit more. */
enum {
    KT_E8_FRAME = 48,
    KT_E8_ADDEND_UP = 32,
    KT_E8_ALIGN_BIAS = (KT_E8_BIAS + KT_E8_MBITS) - KT_E8_ADDEND_UP,                /* 110 */
    KT_E8_EXP_BIAS_FMA = 2 * (KT_E8_BIAS + KT_E8_MBITS) - KT_E8_BIAS,               /* 157 */
    KT_E8_EXP_BIAS_BYP = (KT_E8_BIAS + KT_E8_MBITS) + KT_E8_ADDEND_UP - KT_E8_BIAS, /* 47 */
    KT_E8_NEG_BITS = 2 * (KT_E8_MBITS + 1) + 1,                                     /* 33 */
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
/* kt_e8_alu(KT_E8_FMA, a, b, c, pred) without the dispatch (its predicate bit is false), through
 * the datapath step by step: the reference kt_e8_fma's shortcut is held to. */
uint32_t kt_e8_fma_datapath(uint32_t a, uint32_t b, uint32_t c);

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

/* kt_e8_round's body, inline where a caller runs it per element. */
static inline uint32_t kt_e8_round_inline(uint64_t mag, int ebase, bool sticky, unsigned sign)
{
    const uint64_t m48 = (1ull << 48) - 1; /* the widest magnitude: the FMA's sum */
    if (!mag)
        return (uint32_t)sign << 23;
    unsigned pos = kt_e8_lead1(mag);
    uint64_t nrm = (mag << (47 - pos)) & m48;
    uint32_t sig = (uint32_t)(nrm >> 32) & 0xFFFF;
    bool g = nrm >> 31 & 1, st = (nrm & 0x7FFFFFFFu) || sticky;
    uint32_t r = sig + (g && (st || (sig & 1)));
    bool carry = r >> 16 & 1;
    int e = (int)pos + ebase + carry;
    if (e >= 0xFF)
        return (uint32_t)sign << 23 | 0xFFu << 15;
    if (e <= 0)
        return (uint32_t)sign << 23;
    return (uint32_t)sign << 23 | (uint32_t)e << 15 | (carry ? 0 : (r & 0x7FFF));
}

/* The vector lanes' commonest operation, a * b + c, with the commonest operands' shortcut: all
 * three normal (exponent 1..254), so no special, no zero flag, and the datapath reduces to the
 * addend's bypass (an addend 2^17 above the product is the result, exactly: its significand
 * normalises onto itself) or its alignment into the 48-bit frame, one product, one sum and the
 * rounder. Any other operand takes the datapath (tests/test_kt_e8_paths.c holds the two to the
 * same bits). */
static inline uint32_t kt_e8_fma(uint32_t a, uint32_t b, uint32_t c)
{
    unsigned ea = a >> 15 & 0xFF, eb = b >> 15 & 0xFF, ec = c >> 15 & 0xFF;
    if (ea - 1u >= 254u || eb - 1u >= 254u || ec - 1u >= 254u)
        return kt_e8_fma_datapath(a, b, c);
    int shift =
        (int)(ea + eb) - (int)ec - KT_E8_ALIGN_BIAS; /* the addend's lsb onto the product's */
    if (shift < 0)
        return c & 0xFFFFFF;
    unsigned s = shift > KT_E8_FRAME ? KT_E8_FRAME : (unsigned)shift;
    uint64_t gc = 0x8000u | (c & 0x7FFF);
    uint64_t prod = (uint64_t)(0x8000u | (a & 0x7FFF)) * (0x8000u | (b & 0x7FFF));
    uint64_t algn = (gc << KT_E8_ADDEND_UP) >> s;
    /* addend bits below the frame: its hidden bit among them once 16 or more drop */
    bool sticky =
        s > KT_E8_ADDEND_UP && (s >= KT_E8_FRAME || (gc & ((1u << (s - KT_E8_ADDEND_UP)) - 1)));
    unsigned sab = (a ^ b) >> 23 & 1;
    if (!((sab ^ c >> 23) & 1))
        return kt_e8_round_inline(algn + prod, (int)(ea + eb) - KT_E8_EXP_BIAS_FMA, sticky, sab);
    uint64_t p = (algn - prod) & ((1ull << KT_E8_FRAME) - 1);
    if (s &&
        (p >> (KT_E8_FRAME - 1) & 1)) /* the product outweighs the addend: the magnitude negated */
        return kt_e8_round_inline((0 - p) & ((1ull << KT_E8_NEG_BITS) - 1),
                                  (int)(ea + eb) - KT_E8_EXP_BIAS_FMA, sticky, sab);
    if (!p)
        return 0; /* exact cancellation: +0 */
    return kt_e8_round_inline(p, (int)(ea + eb) - KT_E8_EXP_BIAS_FMA, sticky, c >> 23 & 1);
}

/* out[i] = kt_e8_fma(a[i], b[i], c[i]) for i < n, the same bits: four lanes at a time with
 * AVX2 where the CPU has it (e8m15_lanes.c), the loop elsewhere. */
void kt_e8_fma_n(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *out,
                 unsigned n);

/* The FP16 conversions, inline: the vector core's loads and stores convert 16 lanes a chunk. */
static inline uint32_t kt_e8_from_f16(uint16_t h)
{
    uint32_t s = h >> 15, e = h >> 10 & 0x1F, m = h & 0x3FF;
    if (!e && !m)
        return s << 23;
    if (e == 0x1F)
        return s << 23 | 0xFFu << 15 | m << 5;
    if (!e) { /* subnormal: renormalise; exact */
        unsigned p = kt_e8_lead1(m);
        return s << 23 | (103 + p) << 15 | ((m << (15 - p)) & 0x7FFF);
    }
    return s << 23 | (e + 112) << 15 | m << 5;
}

static inline uint16_t kt_e8_to_f16(uint32_t v)
{
    uint16_t s = (uint16_t)((v >> 23 & 1) << 15);
    unsigned e = v >> 15 & 0xFF, m = v & 0x7FFF, sig = 0x8000u | m;
    if (!e)
        return s;
    if (e == 0xFF)
        return (uint16_t)(s | 0x7C00 | (m ? 0x200 | (m >> 5 & 0x1FF) : 0));
    unsigned keep = sig >> 5, guard = m >> 4 & 1, stick = (m & 0xF) != 0;
    unsigned rnd = keep + (guard & (stick | (keep & 1)));
    unsigned carry = rnd >> 11 & 1;
    int e5 = (int)e - 112 + (int)carry;
    if (e5 >= 31)
        return (uint16_t)(s | 0x7BFF); /* saturates to the largest finite */
    if (e5 <= 0) { /* subnormal out, rounded again from the unrounded significand */
        unsigned sh = 118 - e > 31 ? 31 : 118 - e;
        uint64_t wide = ((uint64_t)sig << 32) >> sh;
        unsigned k = (unsigned)(wide >> 32) & 0x7FF, g = wide >> 31 & 1;
        unsigned st = (wide & 0x7FFFFFFFu) != 0;
        return (uint16_t)(s | ((k + (g & (st | (k & 1)))) & 0x7FF));
    }
    return (uint16_t)(s | (unsigned)e5 << 10 | (carry ? 0 : (rnd & 0x3FF)));
}
/* A chunk of 16 lanes converted at once, as the vector core's loads and stores move them (FP16
 * little-endian in L1), with the commonest lanes' shortcut: when every one is a normal FP16 (in)
 * or an E8M15 that rounds to a normal FP16 without reaching the top binade (out, exponent
 * 113..141), each converts with a few shifts and adds and no branch; a chunk with any other
 * lane converts lane by lane above (tests/test_kt_vec.c holds the two to the same bits). */
enum { KT_E8_CHUNK = 16 };
static inline void kt_e8_from_f16_chunk(uint32_t out[KT_E8_CHUNK],
                                        const uint8_t in[2 * KT_E8_CHUNK])
{
    unsigned other = 0;
    for (unsigned l = 0; l < KT_E8_CHUNK; l++) {
        uint32_t h = in[2 * l] | (uint32_t)in[2 * l + 1] << 8;
        other |= (h >> 10 & 0x1F) - 1u >= 30u; /* zero, subnormal, infinity or NaN */
        out[l] = (h & 0x8000) << 8 | ((h & 0x7FFF) + (112u << 10)) << 5;
    }
    if (other)
        for (unsigned l = 0; l < KT_E8_CHUNK; l++)
            out[l] = kt_e8_from_f16((uint16_t)(in[2 * l] | in[2 * l + 1] << 8));
}

static inline void kt_e8_to_f16_chunk(uint8_t out[2 * KT_E8_CHUNK], const uint32_t in[KT_E8_CHUNK])
{
    unsigned other = 0;
    uint16_t h[KT_E8_CHUNK];
    for (unsigned l = 0; l < KT_E8_CHUNK; l++) {
        uint32_t v = in[l], e = v >> 15 & 0xFF, m = v & 0x7FFF;
        other |= e - 113u >= 29u;
        uint32_t keep = (0x8000u | m) >> 5, guard = m >> 4 & 1, stick = (m & 0xF) != 0;
        uint32_t rnd = keep + (guard & (stick | (keep & 1))); /* 0x400..0x800: a carry is 0x800 */
        h[l] = (uint16_t)((v >> 8 & 0x8000) | (((e - 112) << 10) + rnd - 0x400));
    }
    if (other)
        for (unsigned l = 0; l < KT_E8_CHUNK; l++)
            h[l] = kt_e8_to_f16(in[l]);
    for (unsigned l = 0; l < KT_E8_CHUNK; l++) {
        out[2 * l] = (uint8_t)h[l];
        out[2 * l + 1] = (uint8_t)(h[l] >> 8);
    }
}

uint32_t kt_e8_from_f32(uint32_t f);
uint32_t kt_e8_to_f32(uint32_t e);
/* As a double (exact), for references and reports. */
double kt_e8_value(uint32_t e);

#endif
