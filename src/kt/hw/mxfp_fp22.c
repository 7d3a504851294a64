/* SPDX-License-Identifier: MIT */
/* The matmul cluster's accumulator float (FP22: sign, 7-bit exponent biased 63, 14-bit fraction;
 * exponent 0 is zero) and its adder as the cluster's accumulation unit computes it — not the
 * exact sum rounded once. The adder carries both significands as 1.f with 8 guard bits (23 bits),
 * shifts the smaller one right by the exponent difference and remembers only whether anything
 * was shifted out (`lost`); the add or subtract, the normalisation and a round to nearest even
 * follow, with `lost` as part of the sticky bit. For a sum that is exact and the same as rounding
 * once; for a difference whose smaller operand lost bits it is not: the truncated operand makes
 * the difference too large by less than the lowest kept bit, so a difference that lands exactly
 * on a halfway point (guard set, nothing below) with bits lost rounds up where the exact value
 * (just below the halfway point) rounds down. Results whose exponent reaches 0 after rounding are
 * zero (no subnormals, no sign); 127 or more saturates to the largest magnitude with the larger
 * operand's sign. An exact cancellation is +0, and a zero operand passes the other unchanged. */
#include <math.h>

#include "kt/hw/mxfp.h"

enum {
    MW = KT_MX_ACC_MANT,     /* fraction bits */
    GUARD = 8,               /* spare bits below the fraction while aligning */
    SW = MW + 1 + GUARD,     /* 1.f and the guard bits: 23 */
    EXP_MAX = 127,           /* a rounded exponent at or above this saturates */
};

static unsigned fp22_sign(uint32_t v) { return v >> (MW + 7) & 1; }
static unsigned fp22_exp(uint32_t v) { return v >> MW & 0x7F; }
static uint32_t fp22_frac(uint32_t v) { return v & ((1u << MW) - 1); }
static uint32_t fp22_pack(unsigned s, unsigned e, uint32_t f)
{
    return (uint32_t)s << (MW + 7) | (uint32_t)e << MW | (f & ((1u << MW) - 1));
}

/* The leading one's position (0 for 0, as for 1). */
static unsigned msb_of(uint32_t x) { return x ? 31u - (unsigned)__builtin_clz(x) : 0; }

uint32_t kt_mx_fp22_add(uint32_t a, uint32_t b)
{
    bool za = fp22_exp(a) == 0, zb = fp22_exp(b) == 0;
    if (za && zb)
        return 0;
    if (za || zb)
        return za ? b : a;
    /* order by magnitude: {exponent, fraction} compared as one number; ties take a */
    bool a_ge = (a & 0x1FFFFF) >= (b & 0x1FFFFF);
    uint32_t big = a_ge ? a : b, small = a_ge ? b : a;
    unsigned e_big = fp22_exp(big), diff = e_big - fp22_exp(small);
    uint32_t bg = ((1u << MW) | fp22_frac(big)) << GUARD;
    uint32_t sml = ((1u << MW) | fp22_frac(small)) << GUARD;
    unsigned sh = diff >= SW ? SW : diff;
    uint32_t shifted = sml >> sh;
    bool lost = (sml & ((1u << sh) - 1)) != 0;
    bool sub = fp22_sign(a) != fp22_sign(b);
    uint32_t sum = sub ? bg - shifted : bg + shifted; /* SW + 1 bits; bg >= shifted */
    if (!sum)
        return 0;
    unsigned lz = SW - msb_of(sum);
    uint32_t norm = sum << lz; /* leading one at bit SW */
    int e_out = (int)e_big + 1 - (int)lz;
    uint32_t sig = norm >> (GUARD + 1); /* 1.f, MW + 1 bits, below it the guard bit, then 8 */
    bool g = norm >> GUARD & 1;
    bool st = lost || (norm & ((1u << GUARD) - 1));
    bool up = g && (st || (sig & 1));
    if (up && sig == (2u << MW) - 1)
        e_out++; /* 1.11..1 rounds to 10.00..0: the fraction wraps to zero */
    sig += up;
    unsigned s_big = fp22_sign(big);
    if (e_out <= 0)
        return 0;
    if (e_out >= EXP_MAX)
        return fp22_pack(s_big, EXP_MAX, ~0u);
    return fp22_pack(s_big, (unsigned)e_out, sig);
}

uint32_t kt_mx_fp22_of(double x)
{
    if (x == 0)
        return 0;
    int e;
    double f = frexp(fabs(x), &e); /* |x| = f * 2^e, 0.5 <= f < 1 */
    uint32_t frac = (uint32_t)ldexp(f * 2 - 1, MW);
    return fp22_pack(x < 0, (unsigned)(e - 1 + KT_MX_ACC_EBIAS), frac);
}

double kt_mx_fp22_value(uint32_t v)
{
    if (!fp22_exp(v))
        return 0.0;
    double m = ldexp((double)((1u << MW) | fp22_frac(v)), -MW);
    double r = ldexp(m, (int)fp22_exp(v) - KT_MX_ACC_EBIAS);
    return fp22_sign(v) ? -r : r;
}

double kt_mx_acc_add(double tile, double chain)
{
    return kt_mx_fp22_value(kt_mx_fp22_add(kt_mx_fp22_of(tile), kt_mx_fp22_of(chain)));
}

/* EMIT's conversion: the fraction's top 10 bits rounded to nearest even on the 4 below, the
 * exponent rebiased from 63 to 15 after the rounding carry; at or below FP16 exponent 0 a zero
 * with the sign, at or above 31 the largest FP16 (65504) with the sign. */
uint16_t kt_mx_fp22_to_fp16(uint32_t v)
{
    uint16_t sign = (uint16_t)(fp22_sign(v) << 15);
    if (!fp22_exp(v))
        return sign;
    enum { DROP = MW - 10 };
    uint32_t f = fp22_frac(v);
    bool g = f >> (DROP - 1) & 1, st = (f & ((1u << (DROP - 1)) - 1)) != 0;
    uint32_t m = (f >> DROP) + (g && (st || (f >> DROP & 1)));
    int e = (int)fp22_exp(v) - (KT_MX_ACC_EBIAS - 15);
    if (m >> 10) { /* 1.11..1 rounded up: the fraction wraps to zero, the exponent goes up */
        e++;
        m = 0;
    }
    if (e <= 0)
        return sign;
    if (e >= 31)
        return (uint16_t)(sign | 0x7BFF);
    return (uint16_t)(sign | (unsigned)e << 10 | m);
}

/* An exact value mag * 2^sh (mag > 0) as kt_mx_acc_round rounds it: a leading one below
 * 2^(1 - bias) flushes to zero (before rounding), else nearest even on 15 significant bits, and
 * a rounded exponent above bias + 1 saturates to the largest magnitude. */
static inline uint32_t fp22_round_exact(uint32_t mag, int sh, unsigned sign)
{
    enum { SIG = MW + 1, E_MIN = 1 - KT_MX_ACC_EBIAS, E_MAX = KT_MX_ACC_EBIAS + 1 };
    unsigned p = msb_of(mag);
    int e = (int)p + sh; /* the leading one's weight */
    if (e < E_MIN)
        return 0;
    uint32_t keep = mag;
    if (p >= SIG) {
        unsigned d = p - (SIG - 1);
        uint32_t rem = mag & ((1u << d) - 1), half = 1u << (d - 1);
        keep = (mag >> d) + (rem > half || (rem == half && (mag >> d & 1)));
        if (keep >> SIG) { /* 1.11..1 rounded up to 10.00..0 */
            keep >>= 1;
            e++;
        }
    } else
        keep <<= SIG - 1 - p;
    if (e > E_MAX)
        return fp22_pack(sign, EXP_MAX, ~0u);
    return fp22_pack(sign, (unsigned)(e + KT_MX_ACC_EBIAS), keep);
}

/* Inlined into the sub-tile's loop below; kt_mx_chain_fp22 is the same for one chain. */
static inline uint32_t chain_fp22(const int8_t qa[KT_MX_KBLOCK], uint8_t field_a,
                                  const int8_t qb[KT_MX_KBLOCK], uint8_t field_b, unsigned anchor)
{
    int32_t dot = 0; /* |dot| <= 32 * 64 * 64: exact */
    for (int k = 0; k < KT_MX_KBLOCK; k++)
        dot += qa[k] * qb[k];
    if (!dot)
        return 0;
    uint32_t m8 = (8u | (field_a & 7)) * (8u | (field_b & 7));
    uint32_t mag = (uint32_t)(dot < 0 ? -dot : dot) * m8; /* below 2^25 */
    int sh = (field_a >> 3) + (field_b >> 3) - (int)anchor - 6;
    return fp22_round_exact(mag, sh, dot < 0);
}

uint32_t kt_mx_chain_fp22(const int8_t qa[KT_MX_KBLOCK], uint8_t field_a,
                          const int8_t qb[KT_MX_KBLOCK], uint8_t field_b, unsigned anchor)
{
    return chain_fp22(qa, field_a, qb, field_b, anchor);
}

void kt_mx_subtile_fp22(const int8_t qa[KT_MX_ENTRY_ELEMS], const uint8_t field_a[KT_MX_LANES],
                        const int8_t qb[KT_MX_ENTRY_ELEMS], const uint8_t field_b[KT_MX_LANES],
                        unsigned anchor, bool load, uint32_t t[KT_MX_LANES * KT_MX_LANES])
{
    for (unsigned i = 0; i < KT_MX_LANES; i++)
        for (unsigned j = 0; j < KT_MX_LANES; j++) {
            uint32_t c = chain_fp22(qa + i * KT_MX_KBLOCK, field_a[i], qb + j * KT_MX_KBLOCK,
                                    field_b[j], anchor);
            uint32_t *v = &t[i * KT_MX_LANES + j];
            *v = load ? c : kt_mx_fp22_add(*v, c);
        }
}
