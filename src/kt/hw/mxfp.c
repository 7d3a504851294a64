/* SPDX-License-Identifier: MIT */
/* FP16 -> MXFP7 block quantisation, bit for bit as the memory path's quantiser (mxfp.h). The
 * steps follow the circuit's own arithmetic, which is why they read as integer work rather
 * than as x / scale: the peak is an unsigned max of the low 15 bits (sign-magnitude order), the
 * scale comes from the renormalised peak significand by fixed thresholds, and the division by
 * the scale is a multiply by one of eight reciprocals followed by an 8-bit window. */
#include "kt/hw/mxfp.h"

#include "kt/hw/mx_avx2.h"

#include <math.h>
#include <stddef.h>

/* round(4096 * 8 / m8) for m8 = 8..15: the scale mantissa's reciprocal, 12 fraction bits. */
static const uint16_t recip_m8[8] = {4096, 3641, 3277, 2979, 2731, 2520, 2341, 2185};

/* The scale from the renormalised peak significand sig (1024..2047, the peak being
 * sig * 2^(e - 25)): the mantissa in eighths is ceil(sig / 126), because peak / 63 =
 * (sig / 126) / 8 * 2^(e - 21) — 9 at the least; above 15 * 126 the quotient spills into the
 * next binade (16 -> 8, 17 -> 9, exponent + 1). The circuit compares sig with the multiples of
 * 126; the quotient is the same count. */
enum { SIG_DIV = 126, M8_SPILL = 16 };
enum { SIG_ONE = 1024, T_BASE = 21 };

/* An FP16 magnitude as the circuit decodes it: subnormals keep their bits (not flushed) with
 * an effective exponent of 1; infinities and NaNs read as the largest binade. */
static void decode16(uint16_t h, int *e, unsigned *sig)
{
    unsigned ef = (h >> 10) & 0x1F, frac = h & 0x3FF;
    *e = ef ? (int)ef : 1;
    *sig = ef ? (SIG_ONE | frac) : frac;
}

/* Without a branch on the data: on real blocks the peak's significand lands between the
 * multiples of 126 at random, and branches on it mispredict (about one a block, more than the
 * rest of the block's work). */
kt_mx_scale kt_mx_block_scale(uint16_t peak)
{
    int ep;
    unsigned sig;
    decode16(peak & 0x7FFF, &ep, &sig);
    if (!sig)
        return (kt_mx_scale){0, 8}; /* no peak to scale from: unit scale, every q is 0 */
    /* a subnormal peak, renormalised into [1024, 2048): its leading one moved up to bit 10 */
    unsigned lead = 31u - (unsigned)__builtin_clz(sig);
    unsigned up = lead < 10 ? 10 - lead : 0;
    sig <<= up;
    ep -= (int)up;
    unsigned c = (sig + SIG_DIV - 1) / SIG_DIV, spill = c >= M8_SPILL;
    unsigned m8 = c - 8 * spill;
    int sexp = ep - T_BASE + (int)spill;
    /* a block whose peak is itself far subnormal wants a scale the 5-bit field cannot hold:
     * clamped, the peak lands below 63 instead of the exponent wrapping */
    sexp = sexp < KT_MX_SEXP_MIN ? KT_MX_SEXP_MIN : sexp;
    sexp = sexp > KT_MX_SEXP_MAX ? KT_MX_SEXP_MAX : sexp;
    return (kt_mx_scale){(int8_t)sexp, (uint8_t)m8};
}

uint8_t kt_mx_scale_field(kt_mx_scale s)
{
    return (uint8_t)((((unsigned)(s.exp + KT_MX_SBIAS) & 0x1F) << 3) | (s.m8 & 7));
}

kt_mx_scale kt_mx_scale_of_field(uint8_t field)
{
    return (kt_mx_scale){(int8_t)((field >> 3) - KT_MX_SBIAS), (uint8_t)(8 | (field & 7))};
}

double kt_mx_scale_value(kt_mx_scale s) { return ldexp(s.m8 / 8.0, s.exp); }

/* Inlined into the block loop below; kt_mx_quant_elem is the same for one element. */
static inline int8_t quant_elem(uint16_t h, kt_mx_scale s)
{
    int e;
    unsigned sig;
    decode16(h & 0x7FFF, &e, &sig);
    /* x = sig * 2^(e - 25), scale = m8 / 8 * 2^exp: q = sig * recip * 2^(e - 25 - exp - 12),
     * i.e. the product's bits from 15 + t up, t = 21 + exp - e. The product is below 2^23, so
     * t >= 8 leaves nothing and t < 0 means the element is above the block's peak. */
    int t = T_BASE + s.exp - e;
    if (!sig || t >= 8)
        return 0;
    unsigned mag = KT_MX_QMAX;
    if (t >= 0) {
        uint32_t prod = (uint32_t)sig * recip_m8[(s.m8 - 8) & 7];
        unsigned x8 = (unsigned)(prod >> 15) >> t;
        unsigned sum = (x8 >> 1) + (x8 & 1); /* round half up */
        if (sum < 64)
            mag = sum;
    }
    return (int8_t)((h & 0x8000) ? -(int)mag : (int)mag);
}

int8_t kt_mx_quant_elem(uint16_t h, kt_mx_scale s) { return quant_elem(h, s); }

/* quant_elem over a block, eight elements a step, and the block's peak (mx_avx2.h). */
#if MX_HAVE_AVX2
static MX_AVX2_FN uint16_t peak_avx2(const uint16_t x[KT_MX_KBLOCK])
{
    const __m256i low15 = _mm256_set1_epi16(0x7FFF);
    __m256i m =
        _mm256_max_epu16(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)x), low15),
                         _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + 16)), low15));
    __m128i h = _mm_max_epu16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    /* the largest of eight is the complement of the smallest complement */
    __m128i inv = _mm_xor_si128(h, _mm_set1_epi16(-1));
    return (uint16_t)(0xFFFF - _mm_extract_epi16(_mm_minpos_epu16(inv), 0));
}

/* Sixteen elements a vector, in 16-bit lanes. The product sig * recip needs 23 bits, but only
 * its bits from 15 + t up are kept, so it is taken in two high-half multiplies: (sig << 5) *
 * (recip << 3) >> 16 is the product's bits from 8 up (below 2^15), and a multiply by
 * 2^(9 - t) >> 16 drops 7 + t more. 2^(9 - t) comes from two byte tables indexed by t clamped to
 * 8 (no bits left); a negative t indexes past the tables' reach and reads 0, its clamp applied
 * after. */
static MX_AVX2_FN void quant_avx2(const uint16_t x[KT_MX_KBLOCK], kt_mx_scale s,
                                  int8_t q[KT_MX_KBLOCK])
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi16(1);
    const __m256i qmax = _mm256_set1_epi16(KT_MX_QMAX);
    const __m256i recip = _mm256_set1_epi16((short)(recip_m8[(s.m8 - 8) & 7] << 3));
    const __m256i t_base = _mm256_set1_epi16((short)(T_BASE + s.exp));
    /* 2^(9 - t) for t = 0..7, its low bytes and its high bytes (0 from t = 8 on) */
    const __m256i pow_lo = _mm256_setr_epi8(0, 0, (char)128, 64, 32, 16, 8, 4, 0, 0, 0, 0, 0, 0, 0, 0,
                                            0, 0, (char)128, 64, 32, 16, 8, 4, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i pow_hi = _mm256_setr_epi8(2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0,
                                            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    __m256i v[KT_MX_KBLOCK / 16];
    for (unsigned c = 0; c < KT_MX_KBLOCK / 16; c++) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(x + 16 * c));
        /* decode16 */
        __m256i ef = _mm256_and_si256(_mm256_srli_epi16(h, 10), _mm256_set1_epi16(0x1F));
        __m256i normal = _mm256_min_epu16(ef, one);
        __m256i sig = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(0x3FF)),
                                      _mm256_slli_epi16(normal, 10));
        __m256i t = _mm256_sub_epi16(t_base, _mm256_max_epu16(ef, one));
        __m256i ti = _mm256_min_epi16(t, _mm256_set1_epi16(8));
        __m256i pw = _mm256_or_si256(_mm256_shuffle_epi8(pow_lo, ti),
                                     _mm256_slli_epi16(_mm256_shuffle_epi8(pow_hi, ti), 8));
        __m256i p8 = _mm256_mulhi_epu16(_mm256_slli_epi16(sig, 5), recip);
        __m256i x8 = _mm256_mulhi_epu16(p8, pw);
        __m256i sum = _mm256_add_epi16(_mm256_srli_epi16(x8, 1), _mm256_and_si256(x8, one));
        /* past 63 after rounding, or above the block's peak (t < 0): the clamp */
        __m256i mag = _mm256_or_si256(_mm256_min_epu16(sum, qmax),
                                      _mm256_and_si256(_mm256_cmpgt_epi16(zero, t), qmax));
        mag = _mm256_andnot_si256(_mm256_cmpeq_epi16(sig, zero), mag);
        v[c] = _mm256_sign_epi16(mag, h); /* h's sign bit: negative; h = 0 has mag 0 */
    }
    /* 32 x 16 bits to 32 x 8 in order: the pack works within 128-bit halves */
    __m256i b = _mm256_permute4x64_epi64(_mm256_packs_epi16(v[0], v[1]), 0xD8);
    _mm256_storeu_si256((__m256i *)q, b);
}
#endif

static kt_mx_scale quant_block(const uint16_t x[KT_MX_KBLOCK], int8_t q[KT_MX_KBLOCK], bool avx2)
{
#if MX_HAVE_AVX2
    if (avx2) {
        kt_mx_scale s = kt_mx_block_scale(peak_avx2(x));
        quant_avx2(x, s, q);
        return s;
    }
#endif
    (void)avx2;
    uint16_t peak = 0;
    for (int k = 0; k < KT_MX_KBLOCK; k++)
        if ((x[k] & 0x7FFF) > peak)
            peak = x[k] & 0x7FFF; /* magnitude order is the unsigned order of bits [14:0] */
    kt_mx_scale s = kt_mx_block_scale(peak);
    for (int k = 0; k < KT_MX_KBLOCK; k++)
        q[k] = quant_elem(x[k], s);
    return s;
}

/* Whether the vector kernels run: asked once per call (the check is not free next to a block). */
static bool use_avx2(void)
{
#if MX_HAVE_AVX2
    return mx_avx2();
#else
    return false;
#endif
}

kt_mx_scale kt_mx_quant_block(const uint16_t x[KT_MX_KBLOCK], int8_t q[KT_MX_KBLOCK])
{
    return quant_block(x, q, use_avx2());
}

void kt_mx_quant_lanes(const uint16_t x[KT_MX_ENTRY_ELEMS], int8_t q[KT_MX_ENTRY_ELEMS],
                       uint8_t field[KT_MX_LANES])
{
    bool avx2 = use_avx2();
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        field[lane] = kt_mx_scale_field(
            quant_block(x + lane * KT_MX_KBLOCK, q + lane * KT_MX_KBLOCK, avx2));
}

/* The vector kernels load 32 bytes at a time straight from the entry's bytes (little-endian
 * FP16, as the kernels' lanes hold it): a copy into a uint16_t array first would be stored in
 * narrower pieces than they load, and each load would wait for those stores to complete. */
void kt_mx_quant_lanes_le(const uint8_t in[KT_MX_ENTRY_IN], int8_t q[KT_MX_ENTRY_ELEMS],
                          uint8_t field[KT_MX_LANES])
{
#if MX_HAVE_AVX2
    if (mx_avx2()) {
        for (unsigned lane = 0; lane < KT_MX_LANES; lane++) {
            const uint16_t *x = (const uint16_t *)(const void *)(in + 2 * lane * KT_MX_KBLOCK);
            field[lane] = kt_mx_scale_field(quant_block(x, q + lane * KT_MX_KBLOCK, true));
        }
        return;
    }
#endif
    uint16_t x[KT_MX_ENTRY_ELEMS];
    for (unsigned i = 0; i < KT_MX_ENTRY_ELEMS; i++)
        x[i] = (uint16_t)(in[2 * i] | in[2 * i + 1] << 8);
    kt_mx_quant_lanes(x, q, field);
}

double kt_mx_chain(const int8_t qa[KT_MX_KBLOCK], uint8_t field_a, const int8_t qb[KT_MX_KBLOCK],
                   uint8_t field_b, unsigned anchor)
{
    int32_t dot = 0; /* |dot| <= 32 * 63 * 63: exact */
    for (int k = 0; k < KT_MX_KBLOCK; k++)
        dot += qa[k] * qb[k];
    int ea = field_a >> 3, eb = field_b >> 3;
    int m8 = (8 | (field_a & 7)) * (8 | (field_b & 7));
    return ldexp((double)dot * m8, ea + eb - (int)anchor - 6);
}

/* x to `mant` fraction bits, nearest even, exponent within [emin, emax]. */
static double round_float(double x, int mant, int emin, int emax, double sat)
{
    if (x == 0 || isnan(x))
        return x;
    int e;
    frexp(x, &e); /* x = f * 2^e, 0.5 <= |f| < 1: the leading bit is 2^(e-1) */
    if (e - 1 < emin)
        return 0.0 * x; /* no subnormals: flushed, keeping the sign */
    double r = ldexp(nearbyint(ldexp(x, mant - (e - 1))), (e - 1) - mant);
    frexp(r, &e);
    if (e - 1 > emax || fabs(r) > sat)
        return x < 0 ? -sat : sat;
    return r;
}

double kt_mx_acc_round(double x)
{
    /* largest FP22: (2 - 2^-14) * 2^64 */
    double sat = ldexp(2.0 - ldexp(1.0, -KT_MX_ACC_MANT), KT_MX_ACC_EBIAS + 1);
    return round_float(x, KT_MX_ACC_MANT, 1 - KT_MX_ACC_EBIAS, KT_MX_ACC_EBIAS + 1, sat);
}

uint16_t kt_mx_acc_to_fp16(double x) { return kt_mx_fp22_to_fp16(kt_mx_fp22_of(x)); }
