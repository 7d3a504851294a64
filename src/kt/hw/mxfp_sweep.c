/* SPDX-License-Identifier: MIT */
/* The matmul cluster's sweep arithmetic on prepared operands (mxfp.h, kt_mx_opnd): a sub-tile's
 * chains over all its K blocks, each rounded to FP22 and summed by the accumulation unit's adder,
 * with the same bits as kt_mx_subtile_fp22 block after block (tests/test_kt_mx_chain.c holds the
 * two together, and a broken copy of either step to failing).
 *
 * What makes it cheaper than the block-at-a-time kernel: the scale mantissas are multiplied into
 * the significands once per entry (an entry is read by every sub-tile of its row or column), so
 * the dot products come out scaled; the tile's sixteen values stay in two registers for all K
 * blocks; and both roundings find their leading one and round to nearest even through a float
 * conversion of an exact integer: the conversion is exact below 2^24, its exponent is the
 * leading one's position, and adding 0xFF plus the kept part's lowest bit to the float's bits
 * rounds the 23-bit fraction to 14 bits with the carry running into the exponent, which is the
 * FP22 pattern once the exponent is rebiased. */
#include "kt/hw/mxfp.h"

#include "kt/hw/mx_avx2.h"

enum {
    MW = KT_MX_ACC_MANT,
    FP22_MAG = (1 << (MW + 7)) - 1, /* exponent and fraction: 0x1FFFFF */
    EXP_ONE = 1 << MW,              /* exponent field 1: the smallest non-zero pattern */
    FLT_DROP = 23 - MW,             /* float fraction bits below FP22's */
    FLT_BIAS = 127,
    /* the float of a chain's magnitude m has exponent field p + 127 for m's leading one p, the
     * chain's FP22 exponent field is p + sh + 63: 64 apart */
    CHAIN_REBIAS = FLT_BIAS - KT_MX_ACC_EBIAS,
    /* the adder's sum carries the larger operand's leading one at bit 22 (1.f and 8 guard bits):
     * FP22 exponent e_big + p - 22 from float exponent p + 127 */
    SUM_REBIAS = FLT_BIAS + 22,
    SUM_LEAD = 22,
};

#if MX_HAVE_AVX2
static MX_AVX2_FN void scale_avx2(const int8_t q[KT_MX_ENTRY_ELEMS],
                                  const uint8_t field[KT_MX_LANES], int16_t v[KT_MX_ENTRY_ELEMS])
{
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++) {
        __m256i m8 = _mm256_set1_epi16((short)(8 | (field[lane] & 7)));
        for (unsigned h = 0; h < 2; h++) {
            unsigned at = lane * KT_MX_KBLOCK + 16 * h;
            __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(q + at)));
            _mm256_storeu_si256((__m256i *)(v + at), _mm256_mullo_epi16(x, m8));
        }
    }
}
#endif

void kt_mx_opnd_of(const int8_t q[KT_MX_ENTRY_ELEMS], const uint8_t field[KT_MX_LANES],
                   kt_mx_opnd *o)
{
#if MX_HAVE_AVX2
    if (mx_avx2())
        scale_avx2(q, field, o->v);
    else
#endif
        for (unsigned lane = 0; lane < KT_MX_LANES; lane++) {
            int m8 = 8 | (field[lane] & 7);
            for (unsigned k = 0; k < KT_MX_KBLOCK; k++)
                o->v[lane * KT_MX_KBLOCK + k] = (int16_t)(q[lane * KT_MX_KBLOCK + k] * m8);
        }
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        o->field[lane] = field[lane];
    for (unsigned c = 0; c < 8; c++) {
        o->row[0][c] = field[c / 4] >> 3;
        o->row[1][c] = field[2 + c / 4] >> 3;
        o->col[c] = field[c % 4] >> 3;
    }
}

/* ---- the portable path: kt_mx_subtile_fp22's own steps on the scaled dots ---- */

static void run_portable(const kt_mx_opnd *const *a, const kt_mx_opnd *const *b, unsigned nk,
                         unsigned anchor, bool load, uint32_t t[KT_MX_LANES * KT_MX_LANES])
{
    for (unsigned kb = 0; kb < nk; kb++)
        for (unsigned i = 0; i < KT_MX_LANES; i++)
            for (unsigned j = 0; j < KT_MX_LANES; j++) {
                const int16_t *va = a[kb]->v + i * KT_MX_KBLOCK, *vb = b[kb]->v + j * KT_MX_KBLOCK;
                int32_t d = 0; /* |d| <= 32 * 960 * 960: exact */
                for (unsigned k = 0; k < KT_MX_KBLOCK; k++)
                    d += va[k] * vb[k];
                int sh = (a[kb]->field[i] >> 3) + (b[kb]->field[j] >> 3) - (int)anchor - 6;
                uint32_t c = d ? kt_mx_fp22_round((uint32_t)(d < 0 ? -d : d), sh, d < 0) : 0;
                uint32_t *v = &t[i * KT_MX_LANES + j];
                *v = load && kb == 0 ? c : kt_mx_fp22_add(*v, c);
            }
}

#if MX_HAVE_AVX2
MX_AVX2 __m256i k32(int v) { return _mm256_set1_epi32(v); }

/* The float bits of x (0 <= x < 2^24, exact) with the fraction rounded to FP22's 14 bits, nearest
 * even, shifted down so that the exponent field sits above the 14 fraction bits. */
MX_AVX2 __m256i round_via_float(__m256i x)
{
    __m256i bits = _mm256_castps_si256(_mm256_cvtepi32_ps(x));
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, FLT_DROP), k32(1));
    return _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(bits, k32((1 << (FLT_DROP - 1)) - 1)), lsb), FLT_DROP);
}

/* Eight chains from their scaled dots d and exponent sums sh64 = EA + EB - anchor - 6 - 64. A
 * magnitude at or above 2^24 (at most 25 bits) is halved first with the lost bit kept as a
 * sticky bit, which the 15-bit rounding cannot tell from the full value. */
MX_AVX2 __m256i chain_avx2(__m256i d, __m256i sh64)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i mag = _mm256_abs_epi32(d);
    __m256i big = _mm256_srli_epi32(mag, 24);
    __m256i m = _mm256_or_si256(_mm256_srlv_epi32(mag, big), _mm256_and_si256(mag, big));
    __m256i rebias = _mm256_add_epi32(sh64, big);
    __m256i bits = _mm256_castps_si256(_mm256_cvtepi32_ps(m));
    /* the exponent before rounding: below 1 flushes */
    __m256i e_pre = _mm256_add_epi32(_mm256_srli_epi32(bits, 23), rebias);
    __m256i r = _mm256_add_epi32(round_via_float(m), _mm256_slli_epi32(rebias, MW));
    r = _mm256_min_epi32(r, k32(FP22_MAG)); /* above exponent 127: the largest magnitude */
    __m256i gone = _mm256_or_si256(_mm256_cmpgt_epi32(k32(1), e_pre), _mm256_cmpeq_epi32(d, zero));
    __m256i sign = _mm256_srli_epi32(_mm256_and_si256(d, k32(INT32_MIN)), 31 - (MW + 7));
    return _mm256_andnot_si256(gone, _mm256_or_si256(r, sign));
}

/* kt_mx_fp22_add, eight at once. The smaller operand shifted right by the exponent difference
 * (a shift of 32 or more leaves 0, as the adder's clamp at 23 does for a 23-bit operand), `lost`
 * where shifting back does not restore it, ORed in as the sum's lowest bit: when bits were lost
 * the difference is at least 9, the sum's leading one at bit 21 or above, and bit 0 lies under
 * the rounding's sticky bits. */
MX_AVX2 __m256i add_avx2(__m256i a, __m256i b)
{
    const __m256i one = k32(1), mag = k32(FP22_MAG);
    __m256i ma = _mm256_and_si256(a, mag), mb = _mm256_and_si256(b, mag);
    __m256i za = _mm256_cmpgt_epi32(k32(EXP_ONE), ma), zb = _mm256_cmpgt_epi32(k32(EXP_ONE), mb);
    __m256i x = _mm256_xor_si256(a, b);
    /* the larger magnitude's sign: a's unless b's magnitude is greater (ties take a) */
    __m256i s_big = _mm256_and_si256(
        _mm256_xor_si256(a, _mm256_and_si256(x, _mm256_cmpgt_epi32(mb, ma))), k32(1 << (MW + 7)));
    __m256i big = _mm256_max_epi32(ma, mb), small = _mm256_min_epi32(ma, mb);
    __m256i e_big = _mm256_srli_epi32(big, MW);
    __m256i diff = _mm256_sub_epi32(e_big, _mm256_srli_epi32(small, MW));
    const __m256i frac = k32(EXP_ONE - 1), lead = k32(EXP_ONE);
    __m256i bg = _mm256_slli_epi32(_mm256_or_si256(_mm256_and_si256(big, frac), lead), 8);
    __m256i sml = _mm256_slli_epi32(_mm256_or_si256(_mm256_and_si256(small, frac), lead), 8);
    __m256i shifted = _mm256_srlv_epi32(sml, diff);
    __m256i lost = _mm256_add_epi32(_mm256_cmpeq_epi32(_mm256_sllv_epi32(shifted, diff), sml), one);
    __m256i neg = _mm256_srai_epi32(_mm256_slli_epi32(x, 31 - (MW + 7)), 31); /* signs differ */
    __m256i sum = _mm256_add_epi32(bg, _mm256_sub_epi32(_mm256_xor_si256(shifted, neg), neg));
    __m256i r = _mm256_add_epi32(round_via_float(_mm256_or_si256(sum, lost)),
                                 _mm256_slli_epi32(_mm256_sub_epi32(e_big, k32(SUM_REBIAS)), MW));
    /* exponent 127 or more: the largest magnitude; 0 or less (or a zero sum): zero */
    __m256i flush = _mm256_cmpgt_epi32(k32(EXP_ONE), r);
    __m256i sat = _mm256_cmpgt_epi32(r, k32(127 * EXP_ONE - 1));
    r = _mm256_and_si256(_mm256_or_si256(r, sat), mag);
    r = _mm256_andnot_si256(flush, _mm256_or_si256(r, s_big));
    /* a zero operand passes the other; two give 0 */
    r = mx_sel(zb, a, r);
    r = mx_sel(za, b, r);
    return _mm256_andnot_si256(_mm256_and_si256(za, zb), r);
}

/* A pair of rows' eight dots (lanes: row i's four columns, then row i + 1's), rows i and i + 1 of
 * entry a against entry b's four lanes: per row, each column's sixteen pair sums added across in
 * two rounds of horizontal adds, leaving the two 128-bit halves' partial sums, which the pair's
 * permutes line up and add. The operands are read from memory where they are used (the
 * multiply-adds take one from memory): held in registers they would not all fit. */
MX_AVX2 __m256i ld16(const int16_t *p) { return _mm256_loadu_si256((const __m256i *)p); }

MX_AVX2 __m256i row_dots(const int16_t *a, const int16_t *b)
{
    __m256i u[2];
    for (unsigned r = 0; r < 2; r++) {
        const int16_t *x = a + r * KT_MX_KBLOCK;
        __m256i x0 = ld16(x), x1 = ld16(x + 16), s[4];
        for (unsigned j = 0; j < 4; j++)
            s[j] = _mm256_add_epi32(_mm256_madd_epi16(x0, ld16(b + j * KT_MX_KBLOCK)),
                                    _mm256_madd_epi16(x1, ld16(b + j * KT_MX_KBLOCK + 16)));
        u[r] = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    }
    return _mm256_add_epi32(_mm256_permute2x128_si256(u[0], u[1], 0x20),
                            _mm256_permute2x128_si256(u[0], u[1], 0x31));
}

/* Block kb's two chain vectors: rows 0..1 and 2..3. */
MX_AVX2 void block_chains(const kt_mx_opnd *pa, const kt_mx_opnd *pb, __m256i bias, __m256i c[2])
{
    __m256i col = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)pb->col), bias);
    for (unsigned p = 0; p < 2; p++) {
        __m256i d = row_dots(pa->v + 2 * p * KT_MX_KBLOCK, pb->v);
        __m256i sh64 = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)pa->row[p]), col);
        c[p] = chain_avx2(d, sh64);
    }
}

static MX_AVX2_FN void run_avx2(const kt_mx_opnd *const *a, const kt_mx_opnd *const *b,
                                unsigned nk, unsigned anchor, bool load,
                                uint32_t t[KT_MX_LANES * KT_MX_LANES])
{
    const __m256i bias = k32((int)anchor + 6 + CHAIN_REBIAS);
    __m256i acc[2], c[2];
    unsigned kb = 0;
    if (load && nk) { /* the first block loads the tile: no sum */
        block_chains(a[0], b[0], bias, acc);
        kb = 1;
    } else {
        acc[0] = _mm256_loadu_si256((const __m256i *)t);
        acc[1] = _mm256_loadu_si256((const __m256i *)(t + 8));
    }
    for (; kb < nk; kb++) {
        block_chains(a[kb], b[kb], bias, c);
        acc[0] = add_avx2(acc[0], c[0]);
        acc[1] = add_avx2(acc[1], c[1]);
    }
    _mm256_storeu_si256((__m256i *)t, acc[0]);
    _mm256_storeu_si256((__m256i *)(t + 8), acc[1]);
}
#endif

void kt_mx_subtile_run(const kt_mx_opnd *const *a, const kt_mx_opnd *const *b, unsigned nk,
                       unsigned anchor, bool load, uint32_t t[KT_MX_LANES * KT_MX_LANES])
{
#if MX_HAVE_AVX2
    if (mx_avx2())
        return run_avx2(a, b, nk, anchor, load, t);
#endif
    run_portable(a, b, nk, anchor, load, t);
}
