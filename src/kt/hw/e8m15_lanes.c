/* SPDX-License-Identifier: MIT */
/* The lanes' fused multiply-add over many elements (see e8m15.h): with AVX2 four lanes at a
 * time, each lane the steps of kt_e8_fma's shortcut for normal operands with masks in place of
 * its branches (which mispredict on real data: the addend's bypass, the signs, the rounding);
 * any lane with an operand that is not normal is done again by kt_e8_fma itself. Elsewhere the
 * scalar loop. */
#include "kt/hw/e8m15.h"
#include "kt/hw/mx_avx2.h"

#if MX_HAVE_AVX2
/* Four lanes: a, b and c widened to 64 bits. Returns the results in the low 32 bits of each lane
 * and sets *special to the lanes (bit i) whose operands the shortcut does not cover. */
MX_AVX2_FN static __m256i fma4(__m256i a, __m256i b, __m256i c, int *special)
{
    const __m256i ff = _mm256_set1_epi64x(0xFF), m15 = _mm256_set1_epi64x(0x7FFF);
    const __m256i hid = _mm256_set1_epi64x(0x8000), one = _mm256_set1_epi64x(1);
    const __m256i zero = _mm256_setzero_si256();
    __m256i ea = _mm256_and_si256(_mm256_srli_epi64(a, 15), ff);
    __m256i eb = _mm256_and_si256(_mm256_srli_epi64(b, 15), ff);
    __m256i ec = _mm256_and_si256(_mm256_srli_epi64(c, 15), ff);
    /* an exponent of 0 or 255 in any operand: the datapath's lane */
    __m256i sp = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi64(ea, zero), _mm256_cmpeq_epi64(ea, ff)),
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi64(eb, zero), _mm256_cmpeq_epi64(eb, ff)),
                        _mm256_or_si256(_mm256_cmpeq_epi64(ec, zero), _mm256_cmpeq_epi64(ec, ff))));
    *special = _mm256_movemask_pd(_mm256_castsi256_pd(sp));

    __m256i eab = _mm256_add_epi64(ea, eb);
    __m256i shift =
        _mm256_sub_epi64(_mm256_sub_epi64(eab, ec), _mm256_set1_epi64x(KT_E8_ALIGN_BIAS));
    __m256i byp = _mm256_cmpgt_epi64(zero, shift); /* the addend alone is the result */
    __m256i frame = _mm256_set1_epi64x(KT_E8_FRAME);
    __m256i s = mx_sel(_mm256_cmpgt_epi64(shift, frame), frame, mx_sel(byp, zero, shift));
    __m256i gc = _mm256_or_si256(hid, _mm256_and_si256(c, m15));
    __m256i prod = _mm256_mul_epu32(_mm256_or_si256(hid, _mm256_and_si256(a, m15)),
                                    _mm256_or_si256(hid, _mm256_and_si256(b, m15)));
    __m256i algn = _mm256_srlv_epi64(_mm256_slli_epi64(gc, KT_E8_ADDEND_UP), s);
    /* addend bits below the frame: 1 << max(s - 32, 0), less one, masks them */
    __m256i below = _mm256_sub_epi64(s, _mm256_set1_epi64x(KT_E8_ADDEND_UP));
    below = mx_sel(_mm256_cmpgt_epi64(below, zero), below, zero);
    __m256i lost = _mm256_and_si256(gc, _mm256_sub_epi64(_mm256_sllv_epi64(one, below), one));
    __m256i sticky = _mm256_xor_si256(_mm256_cmpeq_epi64(lost, zero), _mm256_set1_epi64x(-1));

    __m256i sab = _mm256_and_si256(_mm256_srli_epi64(_mm256_xor_si256(a, b), 23), one);
    __m256i sc = _mm256_and_si256(_mm256_srli_epi64(c, 23), one);
    __m256i same = _mm256_cmpeq_epi64(sab, sc);
    const __m256i m48 = _mm256_set1_epi64x((1ll << KT_E8_FRAME) - 1);
    __m256i p = _mm256_and_si256(_mm256_sub_epi64(algn, prod), m48);
    /* a difference the product outweighs: the magnitude negated, the product's sign */
    __m256i top = _mm256_cmpeq_epi64(_mm256_srli_epi64(p, KT_E8_FRAME - 1), one);
    __m256i flip = _mm256_andnot_si256(_mm256_cmpeq_epi64(s, zero), top);
    __m256i negp = _mm256_and_si256(_mm256_sub_epi64(zero, p),
                                    _mm256_set1_epi64x((1ll << KT_E8_NEG_BITS) - 1));
    __m256i mag = mx_sel(same, _mm256_add_epi64(algn, prod), mx_sel(flip, negp, p));
    __m256i sign = mx_sel(_mm256_or_si256(same, flip), sab, sc);
    __m256i cancel = _mm256_andnot_si256(same, _mm256_cmpeq_epi64(mag, zero)); /* exact: +0 */

    /* the leading one: the magnitude (below 2^48) made a double exactly, its exponent read */
    const __m256i magic = _mm256_set1_epi64x(0x4330000000000000ll);
    __m256d d =
        _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(mag, magic)), _mm256_castsi256_pd(magic));
    __m256i pos =
        _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(d), 52), _mm256_set1_epi64x(1023));
    __m256i nrm = _mm256_and_si256(
        _mm256_sllv_epi64(mag, _mm256_sub_epi64(_mm256_set1_epi64x(KT_E8_FRAME - 1), pos)), m48);
    __m256i sig = _mm256_and_si256(_mm256_srli_epi64(nrm, 32), _mm256_set1_epi64x(0xFFFF));
    __m256i g = _mm256_and_si256(_mm256_srli_epi64(nrm, 31), one);
    __m256i st = _mm256_or_si256(
        _mm256_xor_si256(
            _mm256_cmpeq_epi64(_mm256_and_si256(nrm, _mm256_set1_epi64x(0x7FFFFFFF)), zero),
            _mm256_set1_epi64x(-1)),
        sticky);
    /* round to nearest even: up when the guard is set and (sticky or the kept lsb) */
    __m256i up =
        _mm256_and_si256(g, _mm256_or_si256(_mm256_and_si256(st, one), _mm256_and_si256(sig, one)));
    __m256i r = _mm256_add_epi64(sig, up);
    __m256i carry = _mm256_and_si256(_mm256_srli_epi64(r, 16), one);
    __m256i e = _mm256_add_epi64(_mm256_add_epi64(pos, carry),
                                 _mm256_sub_epi64(eab, _mm256_set1_epi64x(KT_E8_EXP_BIAS_FMA)));
    __m256i sgn = _mm256_slli_epi64(sign, 23);
    __m256i frac = _mm256_andnot_si256(_mm256_cmpeq_epi64(carry, one), _mm256_and_si256(r, m15));
    __m256i res = _mm256_or_si256(sgn, _mm256_or_si256(_mm256_slli_epi64(e, 15), frac));
    res = mx_sel(_mm256_cmpgt_epi64(e, _mm256_set1_epi64x(254)),
                 _mm256_or_si256(sgn, _mm256_set1_epi64x(0xFF << 15)), res);
    res = mx_sel(_mm256_cmpgt_epi64(one, e), sgn, res);
    res = mx_sel(cancel, zero, res);
    return mx_sel(byp, _mm256_and_si256(c, _mm256_set1_epi64x(0xFFFFFF)), res);
}

MX_AVX2_FN static unsigned fma_n_avx2(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                      uint32_t *out, unsigned n)
{
    unsigned i = 0;
    for (; i + 4 <= n; i += 4) {
        int special;
        __m256i r =
            fma4(_mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(a + i))),
                 _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(b + i))),
                 _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(c + i))), &special);
        /* the four low halves, in order */
        __m256i lo = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0));
        _mm_storeu_si128((__m128i *)(out + i), _mm256_castsi256_si128(lo));
        for (; special; special &= special - 1) {
            unsigned l = i + (unsigned)__builtin_ctz((unsigned)special);
            out[l] = kt_e8_fma(a[l], b[l], c[l]);
        }
    }
    return i;
}
#endif

void kt_e8_fma_n(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *out, unsigned n)
{
    unsigned i = 0;
#if MX_HAVE_AVX2
    if (mx_avx2())
        i = fma_n_avx2(a, b, c, out, n);
#endif
    for (; i < n; i++)
        out[i] = kt_e8_fma(a[i], b[i], c[i]);
}
