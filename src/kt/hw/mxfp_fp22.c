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
#include <stddef.h>

#include "kt/hw/mx_avx2.h"
#include "kt/hw/mxfp.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

enum {
    MW = KT_MX_ACC_MANT, /* fraction bits */
    GUARD = 8,           /* spare bits below the fraction while aligning */
    SW = MW + 1 + GUARD, /* 1.f and the guard bits: 23 */
    EXP_MAX = 127,       /* a rounded exponent at or above this saturates */
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

/* Inlined into the sub-tile loop below; kt_mx_fp22_add is the same for one sum. */
static inline uint32_t fp22_add(uint32_t a, uint32_t b)
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

uint32_t kt_mx_fp22_add(uint32_t a, uint32_t b) { return fp22_add(a, b); }

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

/* kt_mx_fp22_to_fp16 over n values. With AVX2 eight a step: the exponent and fraction rounded
 * together (adding 7 plus the kept part's lowest bit, then dropping 4 bits, carries a rounded-up
 * 1.11..1 into the exponent), and the FP16 exponent's range read off the result: below 49 (FP16
 * exponent 0 or less, including FP22's zero) the sign alone, 79 or more the largest FP16. */
#if MX_HAVE_AVX2
static MX_AVX2_FN void to_fp16_avx2(const uint32_t *v, uint16_t *h, size_t n)
{
    enum { DROP = MW - 10, REBIAS = KT_MX_ACC_EBIAS - 15 };
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i r[2];
        for (unsigned k = 0; k < 2; k++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(v + i + 8 * k));
            __m256i mag = _mm256_and_si256(x, _mm256_set1_epi32((1 << (MW + 7)) - 1));
            __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(mag, DROP), _mm256_set1_epi32(1));
            __m256i c = _mm256_srli_epi32(
                _mm256_add_epi32(_mm256_add_epi32(mag, _mm256_set1_epi32((1 << (DROP - 1)) - 1)),
                                 lsb),
                DROP);
            __m256i sign = _mm256_and_si256(_mm256_srli_epi32(x, MW + 7 - 15),
                                            _mm256_set1_epi32(0x8000));
            __m256i out = _mm256_sub_epi32(c, _mm256_set1_epi32(REBIAS << 10));
            out = mx_sel(_mm256_cmpgt_epi32(c, _mm256_set1_epi32(((REBIAS + 31) << 10) - 1)),
                         _mm256_set1_epi32(0x7BFF), out);
            out = _mm256_andnot_si256(
                _mm256_cmpgt_epi32(_mm256_set1_epi32((REBIAS + 1) << 10), c), out);
            r[k] = _mm256_or_si256(out, sign);
        }
        /* the pack works within 128-bit halves: the 64-bit permute puts them in order */
        __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xD8);
        _mm256_storeu_si256((__m256i *)(h + i), p);
    }
    for (; i < n; i++)
        h[i] = kt_mx_fp22_to_fp16(v[i]);
}
#endif

void kt_mx_fp22_to_fp16_n(const uint32_t *v, uint16_t *h, size_t n)
{
#if MX_HAVE_AVX2
    if (mx_avx2())
        return to_fp16_avx2(v, h, n);
#endif
    for (size_t i = 0; i < n; i++)
        h[i] = kt_mx_fp22_to_fp16(v[i]);
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

uint32_t kt_mx_fp22_round(uint32_t mag, int sh, unsigned sign)
{
    return fp22_round_exact(mag, sh, sign);
}

/* A chain from its integer dot product: dot * m8A * m8B * 2^(EA + EB - anchor - 6), rounded. */
static inline uint32_t chain_of_dot(int32_t dot, uint8_t field_a, uint8_t field_b, unsigned anchor)
{
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
    int32_t dot = 0; /* |dot| <= 32 * 64 * 64: exact */
    for (int k = 0; k < KT_MX_KBLOCK; k++)
        dot += qa[k] * qb[k];
    return chain_of_dot(dot, field_a, field_b, anchor);
}

/* The sixteen dot products of a sub-tile, dot[i * 4 + j] = A lane i . B lane j over the K
 * block. Integer sums, so every path gives the same numbers: with 16-byte vectors, the
 * significands widened to 16 bits and multiplied pairwise into 32-bit sums (no product or pair
 * sum comes near 2^31); elsewhere one element at a time. 512 multiply-adds a sub-tile. */
#if defined(__SSE2__)
static void widen_lane(const int8_t *q, __m128i w[4])
{
    __m128i lo = _mm_loadu_si128((const __m128i *)q),
            hi = _mm_loadu_si128((const __m128i *)(q + 16));
    /* each byte paired with itself, then shifted down: sign extension in SSE2 */
    w[0] = _mm_srai_epi16(_mm_unpacklo_epi8(lo, lo), 8);
    w[1] = _mm_srai_epi16(_mm_unpackhi_epi8(lo, lo), 8);
    w[2] = _mm_srai_epi16(_mm_unpacklo_epi8(hi, hi), 8);
    w[3] = _mm_srai_epi16(_mm_unpackhi_epi8(hi, hi), 8);
}

static __m128i lane_dot(const __m128i a[4], const __m128i b[4])
{
    __m128i s = _mm_add_epi32(_mm_madd_epi16(a[0], b[0]), _mm_madd_epi16(a[1], b[1]));
    return _mm_add_epi32(s, _mm_add_epi32(_mm_madd_epi16(a[2], b[2]), _mm_madd_epi16(a[3], b[3])));
}

static void subtile_dots(const int8_t *qa, const int8_t *qb, int32_t dot[KT_MX_LANES * KT_MX_LANES])
{
    __m128i a[KT_MX_LANES][4], b[KT_MX_LANES][4];
    for (unsigned l = 0; l < KT_MX_LANES; l++) {
        widen_lane(qa + l * KT_MX_KBLOCK, a[l]);
        widen_lane(qb + l * KT_MX_KBLOCK, b[l]);
    }
    for (unsigned i = 0; i < KT_MX_LANES; i++) {
        __m128i s0 = lane_dot(a[i], b[0]), s1 = lane_dot(a[i], b[1]);
        __m128i s2 = lane_dot(a[i], b[2]), s3 = lane_dot(a[i], b[3]);
        /* the four partial sums of each, added across: row i's four dots in order */
        __m128i u0 = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
        __m128i u1 = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
        __m128i r = _mm_add_epi32(_mm_unpacklo_epi64(u0, u1), _mm_unpackhi_epi64(u0, u1));
        _mm_storeu_si128((__m128i *)(dot + i * KT_MX_LANES), r);
    }
}
#elif defined(__ARM_NEON)
static void subtile_dots(const int8_t *qa, const int8_t *qb, int32_t dot[KT_MX_LANES * KT_MX_LANES])
{
    int8x16_t a[KT_MX_LANES][2], b[KT_MX_LANES][2];
    for (unsigned l = 0; l < KT_MX_LANES; l++)
        for (unsigned h = 0; h < 2; h++) {
            a[l][h] = vld1q_s8(qa + l * KT_MX_KBLOCK + 16 * h);
            b[l][h] = vld1q_s8(qb + l * KT_MX_KBLOCK + 16 * h);
        }
    for (unsigned i = 0; i < KT_MX_LANES; i++)
        for (unsigned j = 0; j < KT_MX_LANES; j++) {
            int32x4_t s = vdupq_n_s32(0);
            for (unsigned h = 0; h < 2; h++) {
                s = vpadalq_s16(s, vmull_s8(vget_low_s8(a[i][h]), vget_low_s8(b[j][h])));
                s = vpadalq_s16(s, vmull_s8(vget_high_s8(a[i][h]), vget_high_s8(b[j][h])));
            }
            dot[i * KT_MX_LANES + j] = vaddvq_s32(s);
        }
}
#else
static void subtile_dots(const int8_t *qa, const int8_t *qb, int32_t dot[KT_MX_LANES * KT_MX_LANES])
{
    for (unsigned i = 0; i < KT_MX_LANES; i++)
        for (unsigned j = 0; j < KT_MX_LANES; j++) {
            int32_t d = 0;
            for (int k = 0; k < KT_MX_KBLOCK; k++)
                d += qa[i * KT_MX_KBLOCK + k] * qb[j * KT_MX_KBLOCK + k];
            dot[i * KT_MX_LANES + j] = d;
        }
}
#endif

/* The chains' rounding and the adder for a whole sub-tile at once, eight lanes a step, without
 * a branch: the scalar code's branches on random data mispredict often enough to cost more
 * than the arithmetic. Every lane computes every case and keeps its own by masks, and each step
 * is the scalar code's, in the same order (tests/test_kt_mx_chain.c holds the sub-tile to the
 * per-chain reference; both paths give the same bits). A leading one is found through a float
 * conversion: x with the bit below each run of ones cleared (x & ~(x >> 1)) keeps its top bit
 * and cannot round up into the next power of two, so the float's exponent is the bit's index.
 * x86-64 with AVX2 only (mx_avx2.h); elsewhere the scalar loop. */
#if MX_HAVE_AVX2
MX_AVX2 __m256i v_msb(__m256i x) /* x > 0 */
{
    __m256i top = _mm256_andnot_si256(_mm256_srli_epi32(x, 1), x);
    __m256i bits = _mm256_castps_si256(_mm256_cvtepi32_ps(top));
    return _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127));
}

MX_AVX2 __m256i v_pack(__m256i sign, __m256i e, __m256i f)
{
    __m256i frac = _mm256_and_si256(f, _mm256_set1_epi32((1 << MW) - 1));
    return _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi32(sign, MW + 7), _mm256_slli_epi32(e, MW)), frac);
}

/* chain_of_dot, eight at once (fa, fb: the lanes' scale fields). */
MX_AVX2 __m256i v_chain(__m256i dot, __m256i fa, __m256i fb, __m256i anchor)
{
    enum { SIG = MW + 1, E_MIN = 1 - KT_MX_ACC_EBIAS, E_MAX = KT_MX_ACC_EBIAS + 1 };
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i seven = _mm256_set1_epi32(7), eight = _mm256_set1_epi32(8);
    __m256i m8 = _mm256_mullo_epi32(_mm256_or_si256(eight, _mm256_and_si256(fa, seven)),
                                    _mm256_or_si256(eight, _mm256_and_si256(fb, seven)));
    __m256i mag = _mm256_mullo_epi32(_mm256_abs_epi32(dot), m8);
    __m256i sh =
        _mm256_sub_epi32(_mm256_add_epi32(_mm256_srli_epi32(fa, 3), _mm256_srli_epi32(fb, 3)),
                         _mm256_add_epi32(anchor, _mm256_set1_epi32(6)));
    __m256i sign = _mm256_srli_epi32(dot, 31);
    __m256i p = v_msb(_mm256_max_epi32(mag, one));
    __m256i e = _mm256_add_epi32(p, sh);
    /* below the range before rounding: zero */
    __m256i gone = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(E_MIN), e),
                                   _mm256_cmpeq_epi32(dot, zero));
    /* p >= SIG: round away d = p - (SIG - 1) bits, nearest even; else shift up */
    __m256i d = _mm256_sub_epi32(p, _mm256_set1_epi32(SIG - 1));
    __m256i wide = _mm256_cmpgt_epi32(d, zero);
    __m256i dr = _mm256_max_epi32(d, one);
    __m256i hi = _mm256_srlv_epi32(mag, dr);
    __m256i rem = _mm256_and_si256(mag, _mm256_sub_epi32(_mm256_sllv_epi32(one, dr), one));
    __m256i half = _mm256_sllv_epi32(one, _mm256_sub_epi32(dr, one));
    __m256i up =
        _mm256_or_si256(_mm256_cmpgt_epi32(rem, half),
                        _mm256_and_si256(_mm256_cmpeq_epi32(rem, half),
                                         _mm256_cmpeq_epi32(_mm256_and_si256(hi, one), one)));
    __m256i keep = _mm256_sub_epi32(hi, up); /* up is -1 where it rounds up */
    __m256i carry = _mm256_cmpgt_epi32(_mm256_srli_epi32(keep, SIG), zero);
    keep = mx_sel(carry, _mm256_srli_epi32(keep, 1), keep);
    e = _mm256_sub_epi32(e, _mm256_and_si256(carry, wide)); /* carry is -1: e + 1 */
    keep = mx_sel(wide, keep, _mm256_sllv_epi32(mag, _mm256_sub_epi32(_mm256_setzero_si256(), d)));
    __m256i r = v_pack(sign, _mm256_add_epi32(e, _mm256_set1_epi32(KT_MX_ACC_EBIAS)), keep);
    r = mx_sel(_mm256_cmpgt_epi32(e, _mm256_set1_epi32(E_MAX)),
               v_pack(sign, _mm256_set1_epi32(EXP_MAX), _mm256_set1_epi32(-1)), r);
    return _mm256_andnot_si256(gone, r);
}

/* fp22_add, eight at once. */
MX_AVX2 __m256i v_add(__m256i a, __m256i b)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i emask = _mm256_set1_epi32(0x7F), fmask = _mm256_set1_epi32((1 << MW) - 1);
    const __m256i mag_mask = _mm256_set1_epi32(0x1FFFFF);
    __m256i ea = _mm256_and_si256(_mm256_srli_epi32(a, MW), emask);
    __m256i eb = _mm256_and_si256(_mm256_srli_epi32(b, MW), emask);
    __m256i za = _mm256_cmpeq_epi32(ea, zero), zb = _mm256_cmpeq_epi32(eb, zero);
    /* a_ge: {exponent, fraction} of a at least b's; ties take a */
    __m256i a_ge = _mm256_xor_si256(
        _mm256_cmpgt_epi32(_mm256_and_si256(b, mag_mask), _mm256_and_si256(a, mag_mask)),
        _mm256_set1_epi32(-1));
    __m256i big = mx_sel(a_ge, a, b), small = mx_sel(a_ge, b, a);
    __m256i e_big = mx_sel(a_ge, ea, eb), e_small = mx_sel(a_ge, eb, ea);
    __m256i diff = _mm256_sub_epi32(e_big, e_small);
    __m256i lead = _mm256_set1_epi32(1 << MW);
    __m256i bg = _mm256_slli_epi32(_mm256_or_si256(lead, _mm256_and_si256(big, fmask)), GUARD);
    __m256i sml = _mm256_slli_epi32(_mm256_or_si256(lead, _mm256_and_si256(small, fmask)), GUARD);
    __m256i sh = _mm256_min_epi32(diff, _mm256_set1_epi32(SW));
    __m256i shifted = _mm256_srlv_epi32(sml, sh);
    __m256i lost = _mm256_xor_si256(
        _mm256_cmpeq_epi32(_mm256_and_si256(sml, _mm256_sub_epi32(_mm256_sllv_epi32(one, sh), one)),
                           zero),
        _mm256_set1_epi32(-1));
    __m256i sub = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_srli_epi32(_mm256_xor_si256(a, b), MW + 7), one), one);
    __m256i sum = mx_sel(sub, _mm256_sub_epi32(bg, shifted), _mm256_add_epi32(bg, shifted));
    __m256i lz = _mm256_sub_epi32(_mm256_set1_epi32(SW), v_msb(_mm256_max_epi32(sum, one)));
    __m256i norm = _mm256_sllv_epi32(sum, lz);
    __m256i e_out = _mm256_sub_epi32(_mm256_add_epi32(e_big, one), lz);
    __m256i sig = _mm256_srli_epi32(norm, GUARD + 1);
    __m256i g = _mm256_and_si256(_mm256_srli_epi32(norm, GUARD), one);
    __m256i low = _mm256_and_si256(norm, _mm256_set1_epi32((1 << GUARD) - 1));
    __m256i st = _mm256_or_si256(
        lost, _mm256_xor_si256(_mm256_cmpeq_epi32(low, zero), _mm256_set1_epi32(-1)));
    __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(sig, one), one);
    __m256i up = _mm256_and_si256(_mm256_cmpeq_epi32(g, one), _mm256_or_si256(st, odd));
    __m256i wrap = _mm256_and_si256(up, _mm256_cmpeq_epi32(sig, _mm256_set1_epi32((2 << MW) - 1)));
    e_out = _mm256_sub_epi32(e_out, wrap); /* -1 masks: + 1 */
    sig = _mm256_sub_epi32(sig, up);
    __m256i s_big = _mm256_and_si256(_mm256_srli_epi32(big, MW + 7), one);
    __m256i r = v_pack(s_big, e_out, sig);
    r = mx_sel(_mm256_cmpgt_epi32(e_out, _mm256_set1_epi32(EXP_MAX - 1)),
               v_pack(s_big, _mm256_set1_epi32(EXP_MAX), _mm256_set1_epi32(-1)), r);
    r = _mm256_andnot_si256(
        _mm256_or_si256(_mm256_cmpgt_epi32(one, e_out), _mm256_cmpeq_epi32(sum, zero)), r);
    r = mx_sel(zb, a, r);
    r = mx_sel(za, b, r);
    return _mm256_andnot_si256(_mm256_and_si256(za, zb), r); /* both zero: 0 */
}

/* subtile_dots, sixteen significands a vector: each lane's 32 widened to two vectors of 16-bit
 * values, multiplied pairwise into 32-bit sums, the partial sums of a row's four dots added
 * across in three horizontal adds and the two halves' sums added (the same integers). */
static MX_AVX2_FN void dots_avx2(const int8_t *qa, const int8_t *qb,
                                 int32_t dot[KT_MX_LANES * KT_MX_LANES])
{
    __m256i a[KT_MX_LANES][2], b[KT_MX_LANES][2];
    for (unsigned l = 0; l < KT_MX_LANES; l++)
        for (unsigned h = 0; h < 2; h++) {
            unsigned at = l * KT_MX_KBLOCK + 16 * h;
            a[l][h] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(qa + at)));
            b[l][h] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(qb + at)));
        }
    for (unsigned i = 0; i < KT_MX_LANES; i++) {
        __m256i s[KT_MX_LANES];
        for (unsigned j = 0; j < KT_MX_LANES; j++)
            s[j] = _mm256_add_epi32(_mm256_madd_epi16(a[i][0], b[j][0]),
                                    _mm256_madd_epi16(a[i][1], b[j][1]));
        /* per half: {s0, s1, s2, s3} of that half's eight products each */
        __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
        __m128i r = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
        _mm_storeu_si128((__m128i *)(dot + i * KT_MX_LANES), r);
    }
}

static MX_AVX2_FN void subtile_avx2(const int32_t dot[KT_MX_LANES * KT_MX_LANES],
                                    const uint8_t field_a[KT_MX_LANES],
                                    const uint8_t field_b[KT_MX_LANES], unsigned anchor, bool load,
                                    uint32_t t[KT_MX_LANES * KT_MX_LANES])
{
    /* rows i, i + 1 in each vector: lane k is row i + k / 4, column k % 4 */
    __m256i fb = _mm256_setr_epi32(field_b[0], field_b[1], field_b[2], field_b[3], field_b[0],
                                   field_b[1], field_b[2], field_b[3]);
    __m256i anc = _mm256_set1_epi32((int)anchor);
    for (unsigned i = 0; i < KT_MX_LANES; i += 2) {
        __m256i fa =
            _mm256_setr_epi32(field_a[i], field_a[i], field_a[i], field_a[i], field_a[i + 1],
                              field_a[i + 1], field_a[i + 1], field_a[i + 1]);
        __m256i d = _mm256_loadu_si256((const __m256i *)(dot + i * KT_MX_LANES));
        __m256i c = v_chain(d, fa, fb, anc);
        __m256i *at = (__m256i *)(t + i * KT_MX_LANES);
        _mm256_storeu_si256(at, load ? c : v_add(_mm256_loadu_si256(at), c));
    }
}
#endif

void kt_mx_subtile_fp22(const int8_t qa[KT_MX_ENTRY_ELEMS], const uint8_t field_a[KT_MX_LANES],
                        const int8_t qb[KT_MX_ENTRY_ELEMS], const uint8_t field_b[KT_MX_LANES],
                        unsigned anchor, bool load, uint32_t t[KT_MX_LANES * KT_MX_LANES])
{
    int32_t dot[KT_MX_LANES * KT_MX_LANES];
#if MX_HAVE_AVX2
    if (mx_avx2()) {
        dots_avx2(qa, qb, dot);
        return subtile_avx2(dot, field_a, field_b, anchor, load, t);
    }
#endif
    subtile_dots(qa, qb, dot);
    for (unsigned i = 0; i < KT_MX_LANES; i++)
        for (unsigned j = 0; j < KT_MX_LANES; j++) {
            uint32_t c = chain_of_dot(dot[i * KT_MX_LANES + j], field_a[i], field_b[j], anchor);
            uint32_t *v = &t[i * KT_MX_LANES + j];
            *v = load ? c : fp22_add(*v, c);
        }
}
