/* SPDX-License-Identifier: MIT */
/* E8M15 arithmetic, following the lane's datapath (see e8m15.h): operand selection and the
 * specials of its first cycle, the exponent arithmetic of its first DSP, the addend's alignment
 * into a 48-bit frame, the product and sum of its last DSP, then one leading-one search, one
 * normalising shift and one rounder. */
#include "kt/hw/e8m15.h"

#include <math.h>

enum { E8_EMAX = 0xFF };

static unsigned sgn(uint32_t v) { return v >> 23 & 1; }
static unsigned expo(uint32_t v) { return v >> KT_E8_MBITS & 0xFF; }
static unsigned mant(uint32_t v) { return v & 0x7FFF; }
static bool is_nan(uint32_t v) { return expo(v) == E8_EMAX && mant(v); }
static bool is_inf(uint32_t v) { return expo(v) == E8_EMAX && !mant(v); }
static uint32_t with_sign(uint32_t v, unsigned s) { return (v & 0x7FFFFF) | (uint32_t)s << 23; }

/* The ordered compare of the lane's first cycle: sign-magnitude, so magnitudes order as the
 * unsigned bits [22:0]; NaN is unordered; +0 equals -0. */
typedef struct cmp {
    bool lt, gt, eq, nan;
} cmp;

static cmp compare(uint32_t a, uint32_t b)
{
    cmp r = {false, false, false, is_nan(a) || is_nan(b)};
    uint32_t ma = a & 0x7FFFFF, mb = b & 0x7FFFFF;
    r.eq = (ma == 0 && mb == 0) || (ma == mb && sgn(a) == sgn(b));
    if (!r.nan && !r.eq)
        r.lt = sgn(a) != sgn(b) ? sgn(a) : (sgn(a) ? ma > mb : ma < mb);
    r.gt = !r.nan && !r.eq && !r.lt;
    return r;
}

/* va * vb + vc through the FMA with the zero flags the operand selection chose. */
static uint32_t fma_lane(uint32_t va, uint32_t vb, uint32_t vc, bool va_z, bool vb_z)
{
    unsigned ea = expo(va), eb = expo(vb), ec = expo(vc);
    bool pz = va_z || vb_z, cz = ec == 0;
    unsigned ea_eff = pz ? 1 : ea, eb_eff = pz ? 1 : eb;
    unsigned sab = sgn(va) ^ sgn(vb), neg = sab ^ sgn(vc);
    bool cancels = neg && !pz && !cz;

    /* specials */
    bool p_nan = is_nan(va) || is_nan(vb) || (is_inf(va) && vb_z) || (va_z && is_inf(vb));
    bool p_inf = (is_inf(va) || is_inf(vb)) && !p_nan;
    bool f_nan = p_nan || is_nan(vc) || (p_inf && is_inf(vc) && sab != sgn(vc));
    bool f_inf = (p_inf || is_inf(vc)) && !f_nan;
    if (f_nan)
        return KT_E8_NAN;
    if (f_inf)
        return (uint32_t)(p_inf ? sab : sgn(vc)) << 23 | (uint32_t)E8_EMAX << KT_E8_MBITS;

    /* alignment: an addend far above the product bypasses it; one far below leaves a sticky
     * bit (a zero addend is shifted all the way out and, its hidden bit being 1, still does) */
    int s_raw = (int)(ea_eff + eb_eff) - (int)ec - KT_E8_ALIGN_BIAS;
    bool byp = s_raw < 0 && !cz;
    unsigned s = cz ? KT_E8_FRAME : byp ? 0 : (s_raw > KT_E8_FRAME ? KT_E8_FRAME : (unsigned)s_raw);
    uint64_t gc = 0x8000u | mant(vc);
    uint64_t algn = (gc << KT_E8_ADDEND_UP) >> s;
    unsigned dropped = s > KT_E8_ADDEND_UP ? s - KT_E8_ADDEND_UP : 0; /* addend bits shifted out */
    bool stk = dropped && (gc & (dropped >= 16 ? 0xFFFFu : (1u << dropped) - 1));
    int ebase = byp ? (int)ec - KT_E8_EXP_BIAS_BYP : (int)(ea_eff + eb_eff) - KT_E8_EXP_BIAS_FMA;

    uint64_t ga = (byp || pz) ? 0 : (0x8000u | mant(va)), gb = 0x8000u | mant(vb);
    const uint64_t m48 = (1ull << KT_E8_FRAME) - 1;
    uint64_t prod = ga * gb;
    uint64_t p = (neg ? algn - prod : algn + prod) & m48;
    bool res_neg = neg && s != 0 && (p >> (KT_E8_FRAME - 1) & 1);
    uint64_t mag = res_neg ? ((~p + 1) & ((1ull << KT_E8_NEG_BITS) - 1)) : p;
    unsigned sign = neg ? (res_neg ? sab : sgn(vc)) : sab;

    if (!mag)
        return (uint32_t)(sign && !cancels) << 23;
    return kt_e8_round(mag, ebase, stk, sign);
}

uint32_t kt_e8_fma_datapath(uint32_t a, uint32_t b, uint32_t c)
{
    return fma_lane(a, b, c, expo(a) == 0, expo(b) == 0);
}

uint32_t kt_e8_alu(kt_e8_op op, uint32_t a, uint32_t b, uint32_t c, bool *pred)
{
    bool az = expo(a) == 0, bz = expo(b) == 0;
    /* the compare feeds MAX, MIN and the compares only: the other ops skip it */
    bool ordered = op == KT_E8_MAX || op == KT_E8_MIN || op == KT_E8_CMPLT || op == KT_E8_CMPGT ||
                   op == KT_E8_CMPEQ;
    cmp k = ordered ? compare(a, b) : (cmp){false, false, false, false};
    bool p = op == KT_E8_CMPLT   ? k.lt
             : op == KT_E8_CMPGT ? k.gt
             : op == KT_E8_CMPEQ ? k.eq && !k.nan
                                 : false;
    if (pred)
        *pred = p;
    /* va feeds the multiplier, vb is 1.0 unless the op is a real product, vc is the addend */
    uint32_t va = a, vb = KT_E8_ONE, vc = KT_E8_ZERO;
    bool va_z = az, vb_z = false;
    switch (op) {
    case KT_E8_NEG: va = with_sign(a, !sgn(a)); break;
    case KT_E8_ABS: va = with_sign(a, 0); break;
    case KT_E8_ADD: vc = c; break;
    case KT_E8_SUB: vc = with_sign(c, !sgn(c)); break;
    case KT_E8_MUL:
        vb = b;
        vb_z = bz;
        break;
    case KT_E8_FMA:
        vb = b;
        vb_z = bz;
        vc = c;
        break;
    case KT_E8_FNMA:
        va = with_sign(a, !sgn(a));
        vb = b;
        vb_z = bz;
        vc = c;
        break;
    case KT_E8_MAX:
        va = k.lt ? b : a;
        va_z = k.lt ? bz : az;
        break;
    case KT_E8_MIN:
        va = k.gt ? b : a;
        va_z = k.gt ? bz : az;
        break;
    case KT_E8_SEL: {
        bool pick_a = (c & 0x7FFFFF) != 0;
        va = pick_a ? a : b;
        va_z = pick_a ? az : bz;
        break;
    }
    case KT_E8_CMPLT:
    case KT_E8_CMPGT:
    case KT_E8_CMPEQ:
        va = p ? KT_E8_ONE : KT_E8_ZERO;
        va_z = !p;
        break;
    case KT_E8_EXP2:
    case KT_E8_LOG2:
    case KT_E8_INV:
    case KT_E8_RSQRT: return kt_e8_seed(op, a);
    case KT_E8_MOV:
    case KT_E8_OP_COUNT: break;
    }
    return fma_lane(va, vb, vc, va_z, vb_z);
}

uint32_t kt_e8_from_f32(uint32_t f)
{
    uint32_t s = f >> 31, e = f >> 23 & 0xFF, m = f & 0x7FFFFF;
    if (!e)
        return s << 23;
    if (e == 0xFF)
        return s << 23 | (uint32_t)E8_EMAX << KT_E8_MBITS | (m ? 0x4000 | (m >> 8 & 0x3FFF) : 0);
    uint32_t keep = m >> 8, guard = m >> 7 & 1, stick = (m & 0x7F) != 0;
    uint32_t rnd = keep + (guard & (stick | (keep & 1)));
    uint32_t carry = rnd >> 15 & 1, e2 = e + carry;
    if (e2 >= E8_EMAX)
        return s << 23 | (uint32_t)E8_EMAX << KT_E8_MBITS;
    return s << 23 | e2 << KT_E8_MBITS | (carry ? 0 : (rnd & 0x7FFF));
}

uint32_t kt_e8_to_f32(uint32_t v) { return expo(v) ? (v & 0xFFFFFF) << 8 : (uint32_t)sgn(v) << 31; }

double kt_e8_value(uint32_t v)
{
    unsigned e = expo(v);
    double sign = sgn(v) ? -1.0 : 1.0;
    if (!e)
        return sign * 0.0;
    if (e == E8_EMAX)
        return mant(v) ? NAN : sign * INFINITY;
    return sign * ldexp((double)(0x8000u | mant(v)), (int)e - KT_E8_BIAS - KT_E8_MBITS);
}
