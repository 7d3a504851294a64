/* SPDX-License-Identifier: MIT */
/* The lane's seeds (see e8m15.h): 2^x, log2 x, 1/x and 1/sqrt(x), computed the way upstream's
 * vec_alu computes them (KohakuTPU 7703ee8), so that results match it bit for bit.
 *
 * Each function is reduced to one octave, cut into 32 segments; a segment holds a quadratic in
 * the offset u (12 bits, u / 4096 in [0, 1)) whose three coefficients interpolate the function at
 * the segment's three Chebyshev nodes, rounded to 22-bit integers at weights 2^-20 (c0), 2^-24
 * (c1) and 2^-28 (c2). The hardware keeps those 160 rows in a ROM; here they are derived from the
 * same definition once, and tests/test_kt_vec_seed.c holds them to a digest of the RTL's ROM.
 *
 * Evaluation is two Horner steps on the lane's DSPs, each keeping a 16-bit slice rounded half
 * up: h = (c2 u + c1 2^16 + 2^15) >> 16, then F = (h u + c0' 2^16 + 2^15) >> 16, where c0'
 * carries what the function adds exactly at F's weight (2^x's leading 1.0, log2's integer part).
 * F goes through the lane's normaliser and rounder with a per-function exponent base.
 *
 * The identities 2^k, log2 2^k, 1/2^k and 1/sqrt(2^2k) all fall at the origin of segment 0,
 * where the fitted polynomial is close but not exact: there c0 is replaced by the exact value
 * (as the hardware's mux does), since u = 0 makes F = c0'.
 *
 * Range reduction of 2^x: x becomes a fixed-point number with 17 fraction bits — the
 * significand shifted right by 134 - e (at most 26), rounded half up in magnitude, negated for a
 * negative x — whose integer part k is the result's exponent and whose fraction indexes the
 * table. |x| >= 256 is infinity or zero; 128 <= |x| < 256 passes through the 25-bit reduction and
 * wraps there, as it does in the hardware (2^128 is not infinity but a wrapped power). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "kt/hw/e8m15.h"

enum {
    SEGS = 32,        /* segments per octave: the top five bits of the offset */
    U_BITS = 12,      /* the offset within a segment */
    Q0 = 20,          /* c0's weight, and F's */
    Q1 = 24,          /* c1's */
    Q2 = 28,          /* c2's */
    SLICE = 16,       /* both Horner steps keep bits [.. : 16] of their sum */
    H_BITS = 22,      /* the first step's slice */
    F_BITS = 30,      /* the second's */
    EXP2_FRAC = 17,   /* fraction bits of the reduced 2^x argument */
    EXP2_BITS = 25,   /* its width, sign included */
    EXP2_TOP_E = 134, /* e above which |x| >= 256: the result leaves the range */
    EXP2_MAX_SH = 26, /* the reduction's shifter width */
    EBASE_EXP2 = 107, /* result exponent = position of F's leading one + ebase (+ k for 2^x) */
    EBASE_LOG2 = 107,
    EBASE_INV = 234,   /* minus e */
    EBASE_RSQRT = 107, /* minus floor((e - 127) / 2) */
    E8_BIAS = 127,
};

typedef struct seed_row {
    int32_t c[3];
} seed_row;

/* The function one segment interpolates, at offset t in [0, 1) of segment `idx` (rsqrt: bit 5
 * of idx selects the octave [2, 4), for an odd unbiased exponent). */
static double seg_fn(kt_e8_op op, unsigned idx, double t)
{
    double x = ((idx % SEGS) + t) / SEGS; /* the position within the octave, [0, 1) */
    if (op == KT_E8_EXP2)
        return exp2(x) - 1.0; /* the leading 1.0 is added exactly, outside */
    if (op == KT_E8_LOG2)
        return log2(1.0 + x);
    if (op == KT_E8_INV)
        return 1.0 / (1.0 + x);
    return 1.0 / sqrt((idx >= SEGS ? 2.0 : 1.0) * (1.0 + x)); /* RSQRT */
}

/* The quadratic through the function at the three Chebyshev nodes of [0, 1], by divided
 * differences, expanded into powers of t. */
static void fit(kt_e8_op op, unsigned idx, double coef[3])
{
    const double pi = acos(-1.0);
    double t[3], y[3];
    for (int j = 0; j < 3; j++) {
        t[j] = 0.5 + 0.5 * cos((2 * j + 1) * pi / 6.0);
        y[j] = seg_fn(op, idx, t[j]);
    }
    double d01 = (y[1] - y[0]) / (t[1] - t[0]), d12 = (y[2] - y[1]) / (t[2] - t[1]);
    double d012 = (d12 - d01) / (t[2] - t[0]);
    /* y0 + d01 (t - t0) + d012 (t - t0)(t - t1) */
    coef[2] = d012;
    coef[1] = d01 - d012 * (t[0] + t[1]);
    coef[0] = y[0] - d01 * t[0] + d012 * t[0] * t[1];
}

static seed_row rows[4][2 * SEGS];

static void build_rows(void)
{
    static const int weight[3] = {Q0, Q1, Q2};
    for (int f = 0; f < 4; f++) {
        kt_e8_op op = (kt_e8_op)(KT_E8_EXP2 + f);
        unsigned n = op == KT_E8_RSQRT ? 2 * SEGS : SEGS;
        for (unsigned idx = 0; idx < n; idx++) {
            double coef[3];
            fit(op, idx, coef);
            for (int j = 0; j < 3; j++) /* to nearest, ties to even */
                rows[f][idx].c[j] = (int32_t)nearbyint(ldexp(coef[j], weight[j]));
        }
    }
}

static const seed_row *row(kt_e8_op op, unsigned idx)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_rows);
    return &rows[op - KT_E8_EXP2][idx];
}

static bool is_seed(kt_e8_op op) { return op >= KT_E8_EXP2 && op <= KT_E8_RSQRT; }

bool kt_e8_seed_row(kt_e8_op op, unsigned idx, int32_t c[3])
{
    if (!is_seed(op) || idx >= (op == KT_E8_RSQRT ? 2u * SEGS : (unsigned)SEGS))
        return false;
    const seed_row *r = row(op, idx);
    for (int j = 0; j < 3; j++)
        c[j] = r->c[j];
    return true;
}

/* Two's complement of the low `bits` bits, as a signed value. */
static int64_t sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    v &= (m << 1) - 1;
    return (int64_t)(v ^ m) - (int64_t)m;
}

/* floor(v / 2^n), which an arithmetic shift is, for either sign. */
static int64_t floor_shift(int64_t v, unsigned n)
{
    int64_t d = (int64_t)1 << n;
    return v >= 0 ? v / d : -((-v + d - 1) / d);
}

/* Where the seed is taken: the table's segment and offset, what c0 gains exactly, whether the
 * point is an identity, and the result's exponent base and sign. */
typedef struct seed_point {
    unsigned idx, u;
    int64_t c0_extra;
    bool ident;
    int ebase;
} seed_point;

static seed_point reduce(kt_e8_op op, unsigned s, unsigned e, unsigned m)
{
    seed_point p = {.idx = m >> 10, .u = (m & 0x3FF) << 2};
    if (op == KT_E8_EXP2) {
        unsigned sh = EXP2_TOP_E - e > EXP2_MAX_SH ? EXP2_MAX_SH : EXP2_TOP_E - e;
        uint32_t r = ((0x8000u | m) << 10) >> sh; /* x with 18 fraction bits */
        uint32_t half = r >> 1, g = r & 1;
        /* rounded half up in magnitude; a negative x is -(|x| rounded), which is the split into
         * floor and a fraction in [0, 1) */
        uint32_t v = s ? ~half + (g ^ 1) : half + g;
        int64_t x = sext(v, EXP2_BITS);
        unsigned f = (unsigned)(x & ((1 << EXP2_FRAC) - 1));
        p.idx = f >> U_BITS;
        p.u = f & ((1u << U_BITS) - 1);
        p.c0_extra = (int64_t)1 << Q0;
        p.ebase = (int)floor_shift(x, EXP2_FRAC) + EBASE_EXP2;
    } else if (op == KT_E8_LOG2) {
        p.c0_extra = ((int64_t)e - E8_BIAS) * ((int64_t)1 << Q0);
        p.ebase = EBASE_LOG2;
    } else if (op == KT_E8_INV) {
        p.ebase = EBASE_INV - (int)e;
    } else {                 /* RSQRT */
        bool odd = !(e & 1); /* e - 127 odd */
        p.idx |= odd ? SEGS : 0;
        p.ebase = EBASE_RSQRT - (int)floor_shift((int)e - E8_BIAS, 1);
    }
    p.ident = p.idx % SEGS == 0 && p.u == 0 && p.idx < SEGS;
    return p;
}

/* The specials, decided from the operand alone: true when *out holds the answer. */
static bool special(kt_e8_op op, unsigned s, unsigned e, unsigned m, uint32_t *out)
{
    const uint32_t inf = 0x7F8000;
    bool zero = e == 0, nan = e == 0xFF && m, infin = e == 0xFF && !m;
    bool neg = s && !zero; /* a negative number: log2 and rsqrt of it are NaN */
    if (nan || (neg && (op == KT_E8_LOG2 || op == KT_E8_RSQRT)))
        return *out = KT_E8_NAN, true;
    if (op == KT_E8_EXP2) {
        if (infin || e > EXP2_TOP_E)
            return *out = s ? 0 : inf, true;
        return false;
    }
    if (!zero && !infin)
        return false;
    if (op == KT_E8_LOG2) /* log2 0 = -inf */
        *out = inf | (uint32_t)zero << 23;
    else if (op == KT_E8_INV)
        *out = (zero ? inf : 0) | (uint32_t)s << 23;
    else /* RSQRT: -0 gives +inf, as the hardware gives every rsqrt special sign 0 */
        *out = zero ? inf : 0;
    return true;
}

uint32_t kt_e8_seed(kt_e8_op op, uint32_t a)
{
    unsigned s = a >> 23 & 1, e = a >> 15 & 0xFF, m = a & 0x7FFF;
    uint32_t out;
    if (!is_seed(op))
        return KT_E8_NAN;
    if (special(op, s, e, m, &out))
        return out;
    seed_point p = reduce(op, s, e, m);
    const seed_row *r = row(op, p.idx);
    /* at an identity c0 is the exact value: 1.0 for 1/x and 1/sqrt(x), 0 for the others */
    int64_t c0 = p.ident ? (op == KT_E8_INV || op == KT_E8_RSQRT ? (int64_t)1 << Q0 : 0) : r->c[0];
    c0 += p.c0_extra;
    const int64_t round_half = (int64_t)1 << (SLICE - 1), slice = (int64_t)1 << SLICE;
    int64_t h =
        sext((uint64_t)floor_shift((int64_t)r->c[2] * p.u + r->c[1] * slice + round_half, SLICE),
             H_BITS);
    int64_t f = sext((uint64_t)floor_shift(h * p.u + c0 * slice + round_half, SLICE), F_BITS);
    unsigned sign = op == KT_E8_LOG2 ? f < 0 : op == KT_E8_INV ? s : 0;
    return kt_e8_round((uint64_t)(f < 0 ? -f : f), p.ebase, false, sign);
}
