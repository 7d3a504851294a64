/* SPDX-License-Identifier: MIT */
/* An MXFP7 entry's packing (mxfp.h): four lanes' significands and scales into four 32-byte
 * words and back. The simulator packs every entry a memory port quantises and unpacks every
 * entry a matmul cluster fills, so the work is done a group of eight slots at a time in 64-bit
 * integer steps (the same on every machine), and B's packing, whose slots interleave the
 * lanes, is a 4 x 32 byte transpose on either side of it: AVX2 shuffles where the machine has
 * them (mx_avx2.h), a byte loop elsewhere. Both give the same bytes. */
#include "kt/hw/mxfp.h"

#include <string.h>

#include "kt/hw/mx_avx2.h"
#include "npukit/kt_transport.h"

/* A word's layout, read off mxfp.h: bits 0..31 (bytes 0..3) hold the four lanes' scale fields,
 * lane i in byte 3 - i; the 32 slots of 7 bits fill bits 32..255 from the top down. Eight slots
 * make 56 bits, so the slots form four groups of seven whole bytes: group g (slots 8g..8g+7) is
 * bytes 25 - 7g..31 - 7g, little-endian, slot 8g + j at bits 49 - 7j..55 - 7j of it. A group is
 * read as the eight bytes from 24 - 7g shifted down by one byte (inside the word for every g),
 * and written as the same eight bytes, group 0 first: each later group's store puts its top
 * byte over the byte below the previous group, and group 3's lowest byte is a scale byte,
 * written last. */
enum {
    GROUPS = 4,
    GROUP_SLOTS = 8,
    GROUP_BYTES = 7,
    K_PER_WORD = 8,
    SCALE_BYTES = 4,
    WORDS = KT_MX_ENTRY_OUT / KT_MX_WORD,
};

static unsigned group_below(unsigned g) { return 24 - GROUP_BYTES * g; }

static uint64_t bswap64(uint64_t v) { return __builtin_bswap64(v); }

/* Eight significands (byte j: slot j, bit 7 ignored) as a group's 56 bits: reversed so that
 * slot j's byte is byte 7 - j, then the 7-bit fields closed up in three halvings. */
static uint64_t group_pack(uint64_t bytes)
{
    uint64_t x = bswap64(bytes) & 0x7F7F7F7F7F7F7F7Full;
    x = (x & 0x007F007F007F007Full) | (x & 0x7F007F007F007F00ull) >> 1;
    x = (x & 0x00003FFF00003FFFull) | (x & 0x3FFF00003FFF0000ull) >> 2;
    return (x & 0x000000000FFFFFFFull) | (x & 0x0FFFFFFF00000000ull) >> 4;
}

/* The inverse: the fields spread back to a byte each, sign-extended (bit 6 copied into bit 7,
 * which is 7-bit two's complement widened to 8), and put back in slot order. */
static uint64_t group_unpack(uint64_t v)
{
    uint64_t x = v & 0x00FFFFFFFFFFFFFFull;
    x = (x & 0x000000000FFFFFFFull) | (x << 4 & 0x0FFFFFFF00000000ull);
    x = (x & 0x00003FFF00003FFFull) | (x << 2 & 0x3FFF00003FFF0000ull);
    x = (x & 0x007F007F007F007Full) | (x << 1 & 0x7F007F007F007F00ull);
    x |= (x & 0x4040404040404040ull) << 1;
    return bswap64(x);
}

/* Where group g of word w finds its eight significands: in A's packing the group is lane g,
 * K 8w..8w+7 of q (lane * 32 + k); in B's it is K 8w + 2g and 8w + 2g + 1, four lanes each,
 * which is eight consecutive bytes of q transposed (k * 4 + lane). */
static unsigned group_src(bool b_layout, unsigned w, unsigned g)
{
    return b_layout ? (w * K_PER_WORD + 2 * g) * KT_MX_LANES : g * KT_MX_KBLOCK + w * K_PER_WORD;
}

/* q (lane * 32 + k) to t (k * 4 + lane) and back. */
static void to_k_major(const int8_t q[KT_MX_ENTRY_ELEMS], int8_t t[KT_MX_ENTRY_ELEMS])
{
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        for (unsigned k = 0; k < KT_MX_KBLOCK; k++)
            t[k * KT_MX_LANES + lane] = q[lane * KT_MX_KBLOCK + k];
}

static void to_lane_major(const int8_t t[KT_MX_ENTRY_ELEMS], int8_t q[KT_MX_ENTRY_ELEMS])
{
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        for (unsigned k = 0; k < KT_MX_KBLOCK; k++)
            q[lane * KT_MX_KBLOCK + k] = t[k * KT_MX_LANES + lane];
}

#if MX_HAVE_AVX2
/* Interleaving: bytes of lanes 0/1 and 2/3 paired, the pairs paired, which leaves four K in
 * each 128-bit half; the halves are then put back in K order. */
static MX_AVX2_FN void to_k_major_avx2(const int8_t q[KT_MX_ENTRY_ELEMS],
                                       int8_t t[KT_MX_ENTRY_ELEMS])
{
    /* four named loads, not an array of vectors (see qword_transpose) */
    const __m256i *l = (const __m256i *)q;
    __m256i l0 = _mm256_loadu_si256(l), l1 = _mm256_loadu_si256(l + 1);
    __m256i l2 = _mm256_loadu_si256(l + 2), l3 = _mm256_loadu_si256(l + 3);
    /* halves: K 0..7 | 16..23 (lo) and 8..15 | 24..31 (hi), two lanes a K */
    __m256i ab_lo = _mm256_unpacklo_epi8(l0, l1), ab_hi = _mm256_unpackhi_epi8(l0, l1);
    __m256i cd_lo = _mm256_unpacklo_epi8(l2, l3), cd_hi = _mm256_unpackhi_epi8(l2, l3);
    /* four lanes a K: K 0..3 | 16..19, 4..7 | 20..23, 8..11 | 24..27, 12..15 | 28..31 */
    __m256i k0 = _mm256_unpacklo_epi16(ab_lo, cd_lo), k1 = _mm256_unpackhi_epi16(ab_lo, cd_lo);
    __m256i k2 = _mm256_unpacklo_epi16(ab_hi, cd_hi), k3 = _mm256_unpackhi_epi16(ab_hi, cd_hi);
    __m256i *o = (__m256i *)t;
    _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(k0, k1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(k2, k3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(k0, k1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(k2, k3, 0x31));
}

/* v_i = {a_i0, a_i1, a_i2, a_i3} (64-bit lanes) to out + 32 j = {a_0j, a_1j, a_2j, a_3j}. The
 * four are passed as values: gcc builds an array of vectors on the stack in 16-byte pieces and
 * reads it back in 32-byte ones, each read then waiting for the pieces' stores to complete. */
MX_AVX2 void qword_transpose(__m256i v0, __m256i v1, __m256i v2, __m256i v3, int8_t *out)
{
    __m256i lo01 = _mm256_unpacklo_epi64(v0, v1), hi01 = _mm256_unpackhi_epi64(v0, v1);
    __m256i lo23 = _mm256_unpacklo_epi64(v2, v3), hi23 = _mm256_unpackhi_epi64(v2, v3);
    __m256i *o = (__m256i *)out;
    _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(lo01, lo23, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(hi01, hi23, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(lo01, lo23, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(hi01, hi23, 0x31));
}

/* An 8-K vector of t (k * 4 + lane) as four lanes' eight K each: its 4 x 4 byte blocks
 * transposed in place, then the halves' 32-bit pieces interleaved. */
MX_AVX2 __m256i k_to_lanes(__m256i v)
{
    const __m256i tr = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4,
                                        8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, tr),
                                       _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* group_unpack on a word's four groups at once, one a 64-bit lane in group order: the groups'
 * bytes gathered from two 16-byte loads (bytes 3..18 hold groups 3 and 2, 16..31 groups 1 and
 * 0), a zero above each, then the same steps lane by lane. */
MX_AVX2 __m256i unpack_word_avx2(const uint8_t *word)
{
    const __m256i gather = _mm256_setr_epi8(8, 9, 10, 11, 12, 13, 14, -1, 1, 2, 3, 4, 5, 6, 7, -1, 9,
                                            10, 11, 12, 13, 14, 15, -1, 2, 3, 4, 5, 6, 7, 8, -1);
    const __m256i rev = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                         5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    __m256i v = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(word + 16)),
                                 _mm_loadu_si128((const __m128i *)(word + 3)));
    /* lanes now groups 2, 3, 0, 1: swapped to 0..3 by the 64-bit permute */
    __m256i x = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, gather), 0x4E);
    x = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0x000000000FFFFFFFll)),
                        _mm256_and_si256(_mm256_slli_epi64(x, 4),
                                         _mm256_set1_epi64x(0x0FFFFFFF00000000ll)));
    x = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0x00003FFF00003FFFll)),
                        _mm256_and_si256(_mm256_slli_epi64(x, 2),
                                         _mm256_set1_epi64x(0x3FFF00003FFF0000ll)));
    x = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0x007F007F007F007Fll)),
                        _mm256_and_si256(_mm256_slli_epi64(x, 1),
                                         _mm256_set1_epi64x(0x7F007F007F007F00ll)));
    x = _mm256_or_si256(
        x, _mm256_slli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x4040404040404040ll)), 1));
    return _mm256_shuffle_epi8(x, rev);
}

static MX_AVX2_FN void unpack_avx2(const uint8_t in[KT_MX_ENTRY_OUT], bool b_layout,
                                   int8_t q[KT_MX_ENTRY_ELEMS])
{
    /* A: word w's groups are lanes 0..3 at K 8w, a transpose away from q; B: word w is the
     * eight K of t at 8w */
    __m256i p0 = unpack_word_avx2(in), p1 = unpack_word_avx2(in + KT_MX_WORD);
    __m256i p2 = unpack_word_avx2(in + 2 * KT_MX_WORD), p3 = unpack_word_avx2(in + 3 * KT_MX_WORD);
    if (b_layout) {
        p0 = k_to_lanes(p0);
        p1 = k_to_lanes(p1);
        p2 = k_to_lanes(p2);
        p3 = k_to_lanes(p3);
    }
    qword_transpose(p0, p1, p2, p3, q);
}

/* group_pack on a word's four groups (64-bit lanes in group order), written as the scalar
 * path writes them. */
MX_AVX2 void pack_word_avx2(__m256i v, uint8_t *word)
{
    const __m256i rev = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                         5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    __m256i x = _mm256_and_si256(_mm256_shuffle_epi8(v, rev), _mm256_set1_epi8(0x7F));
    x = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0x007F007F007F007Fll)),
                        _mm256_srli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x7F007F007F007F00ll)), 1));
    x = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0x00003FFF00003FFFll)),
                        _mm256_srli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x3FFF00003FFF0000ll)), 2));
    x = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi64x(0x000000000FFFFFFFll)),
                        _mm256_srli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x0FFFFFFF00000000ll)), 4));
    /* the groups taken out of the register, not stored and read back in pieces */
    x = _mm256_slli_epi64(x, 8);
    __m128i lo = _mm256_castsi256_si128(x), hi = _mm256_extracti128_si256(x, 1);
    uint64_t g[GROUPS] = {(uint64_t)_mm_cvtsi128_si64(lo), (uint64_t)_mm_extract_epi64(lo, 1),
                          (uint64_t)_mm_cvtsi128_si64(hi), (uint64_t)_mm_extract_epi64(hi, 1)};
    for (unsigned i = 0; i < GROUPS; i++)
        memcpy(word + group_below(i), &g[i], 8);
}

static MX_AVX2_FN void pack_avx2(const int8_t q[KT_MX_ENTRY_ELEMS], bool b_layout,
                                 uint8_t out[KT_MX_ENTRY_OUT])
{
    int8_t t[KT_MX_ENTRY_ELEMS];
    if (b_layout)
        to_k_major_avx2(q, t);
    else { /* the transpose that unpack_avx2 ends with, undone */
        const __m256i *l = (const __m256i *)q;
        qword_transpose(_mm256_loadu_si256(l), _mm256_loadu_si256(l + 1),
                        _mm256_loadu_si256(l + 2), _mm256_loadu_si256(l + 3), t);
    }
    for (unsigned w = 0; w < WORDS; w++)
        pack_word_avx2(_mm256_loadu_si256((const __m256i *)(t + w * KT_MX_WORD)),
                       out + w * KT_MX_WORD);
}
#endif

/* The scale bytes of every word, after the groups (group 3's store reaches byte 3). */
static void set_fields(uint8_t out[KT_MX_ENTRY_OUT], const uint8_t field[KT_MX_LANES])
{
    for (unsigned w = 0; w < WORDS; w++)
        for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
            out[w * KT_MX_WORD + SCALE_BYTES - 1 - lane] = field[lane];
}

void kt_mx_pack_entry(const int8_t q[KT_MX_ENTRY_ELEMS], const uint8_t field[KT_MX_LANES],
                      bool b_layout, uint8_t out[KT_MX_ENTRY_OUT])
{
#if MX_HAVE_AVX2
    if (mx_avx2()) {
        pack_avx2(q, b_layout, out);
        return set_fields(out, field);
    }
#endif
    int8_t t[KT_MX_ENTRY_ELEMS];
    const int8_t *src = q;
    if (b_layout) {
        to_k_major(q, t);
        src = t;
    }
    for (unsigned w = 0; w < WORDS; w++) {
        uint8_t *o = out + w * KT_MX_WORD;
        for (unsigned g = 0; g < GROUPS; g++) {
            uint64_t bytes = kt_le64((const uint8_t *)src + group_src(b_layout, w, g));
            kt_put_le64(o + group_below(g), group_pack(bytes) << 8);
        }
    }
    set_fields(out, field);
}

void kt_mx_quant_entry(const uint8_t in[KT_MX_ENTRY_IN], bool b_layout,
                       uint8_t out[KT_MX_ENTRY_OUT])
{
    int8_t q[KT_MX_ENTRY_ELEMS];
    uint8_t field[KT_MX_LANES];
    kt_mx_quant_lanes_le(in, q, field);
    kt_mx_pack_entry(q, field, b_layout, out);
}

void kt_mx_unpack_q(const uint8_t in[KT_MX_ENTRY_OUT], bool b_layout,
                    int8_t q[KT_MX_ENTRY_ELEMS], uint8_t field[KT_MX_LANES])
{
    /* every word repeats the scales; the first word's are read */
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        field[lane] = in[SCALE_BYTES - 1 - lane];
#if MX_HAVE_AVX2
    if (mx_avx2())
        return unpack_avx2(in, b_layout, q);
#endif
    int8_t t[KT_MX_ENTRY_ELEMS];
    int8_t *dst = b_layout ? t : q;
    for (unsigned w = 0; w < WORDS; w++)
        for (unsigned g = 0; g < GROUPS; g++) {
            uint64_t v = kt_le64(in + w * KT_MX_WORD + group_below(g)) >> 8;
            kt_put_le64((uint8_t *)dst + group_src(b_layout, w, g), group_unpack(v));
        }
    if (b_layout)
        to_lane_major(t, q);
}

void kt_mx_unpack_entry(const uint8_t in[KT_MX_ENTRY_OUT], bool b_layout,
                        int8_t q[KT_MX_ENTRY_ELEMS], kt_mx_scale scale[KT_MX_LANES])
{
    uint8_t field[KT_MX_LANES];
    kt_mx_unpack_q(in, b_layout, q, field);
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        scale[lane] = kt_mx_scale_of_field(field[lane]);
}
