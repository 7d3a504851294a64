/* SPDX-License-Identifier: MIT */
/* The FP16 -> MXFP7 quantiser (src/kt/hw/mxfp.c) against two independent references:
 *   - the RTL: upstream KohakuTPU's mx_quant (commit 7703ee8, src/kohakutpu/transform/mx_quant.v)
 *     under Verilator 5.006 with its own bench (tests/mas/mx_quant_tb.v, B packing on odd
 *     entries), fed the 256 entries of kt_mxfp_vectors.h; each row of mxv_rtl_fnv there is the
 *     FNV-1a of the four words the RTL wrote for one entry (all 256 matched the model bit for
 *     bit);
 *   - arithmetic in double: the chosen scale is the smallest E5M3 value with peak / scale <= 63,
 *     and each significand is x / scale rounded to within half a step (the circuit divides by
 *     a 12-bit reciprocal, so a tie may fall either way), clamped to 63;
 * and the packing against the slot formula written out (on the vector and, forced, the portable
 * path, over random entries of every kind and random words), the unpack as its inverse, a few values
 * worked by hand, and the block quantiser (a whole block at once, eight elements a step where
 * the machine has AVX2) against the one-element quantiser the RTL vectors anchor, over random
 * blocks in every binade, with subnormals, zeros of both signs, infinities and NaNs. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "common/dense.h"
#include "kt/hw/mxfp.h"
#include "kt_mxfp_vectors.h"
#include "npukit/fp16.h"

static void entry_bytes(unsigned e, uint8_t in[KT_MX_ENTRY_IN], uint16_t v[MXV_ELEMS])
{
    mxv_entry(e, v);
    for (unsigned i = 0; i < MXV_ELEMS; i++) {
        in[2 * i] = (uint8_t)v[i];
        in[2 * i + 1] = (uint8_t)(v[i] >> 8);
    }
}

static void test_rtl_vectors(void)
{
    unsigned bad = 0;
    for (unsigned e = 0; e < MXV_ENTRIES; e++) {
        uint8_t in[KT_MX_ENTRY_IN], out[KT_MX_ENTRY_OUT];
        uint16_t v[MXV_ELEMS];
        entry_bytes(e, in, v);
        kt_mx_quant_entry(in, e & 1, out);
        if (mxv_fnv(out, sizeof out) != mxv_rtl_fnv[e] && bad++ < 5)
            fprintf(stderr, "  entry %u (kind %u, %s packing) differs from the RTL\n", e, e % 8,
                    e & 1 ? "B" : "A");
    }
    CHECK_EQ(bad, 0);
}

/* FP16 bits as a double, infinities and NaNs read as the circuit does: the top binade. */
static double half_value(uint16_t h)
{
    unsigned ef = (h >> 10) & 31, frac = h & 0x3FF;
    double m = ef ? ldexp(1024 + frac, (int)ef - 25) : ldexp(frac, -24);
    return (h & 0x8000) ? -m : m;
}

/* The next E5M3 value below s (s above the smallest). */
static double scale_below(kt_mx_scale s)
{
    if (s.m8 > 8)
        return kt_mx_scale_value((kt_mx_scale){s.exp, (uint8_t)(s.m8 - 1)});
    return kt_mx_scale_value((kt_mx_scale){(int8_t)(s.exp - 1), 15});
}

static void test_against_double(void)
{
    unsigned scale_bad = 0, q_bad = 0, blocks = 0;
    for (unsigned e = 0; e < MXV_ENTRIES; e++) {
        uint16_t v[MXV_ELEMS];
        mxv_entry(e, v);
        for (unsigned lane = 0; lane < KT_MX_LANES; lane++) {
            const uint16_t *x = v + lane * KT_MX_KBLOCK;
            int8_t q[KT_MX_KBLOCK];
            kt_mx_scale s = kt_mx_quant_block(x, q);
            double peak = 0;
            for (int k = 0; k < KT_MX_KBLOCK; k++)
                peak = fmax(peak, fabs(half_value(x[k])));
            double sv = kt_mx_scale_value(s), below = scale_below(s);
            blocks++;
            if (peak == 0) {
                scale_bad += !(s.exp == 0 && s.m8 == 8);
            } else {
                /* the smallest with peak / scale <= 63; at the field's lowest exponent the
                 * wanted one was clamped (the mantissa is the unclamped choice's) */
                scale_bad += peak / sv > 63.0;
                scale_bad += s.exp > KT_MX_SEXP_MIN && peak / below <= 63.0;
            }
            for (int k = 0; k < KT_MX_KBLOCK; k++) {
                double want = half_value(x[k]) / sv;
                if (fabs(want) <= 62.5)
                    q_bad += fabs(q[k] - want) > 0.5 + 1e-3;
                else
                    q_bad += q[k] != (want < 0 ? -63 : 63);
            }
        }
    }
    CHECK(blocks == MXV_ENTRIES * KT_MX_LANES);
    CHECK_EQ(scale_bad, 0);
    CHECK_EQ(q_bad, 0);
}

static void test_hand_values(void)
{
    /* 1.0: significand 1024 of binade 15 is at most 1134 -> m8 9, exponent 15 - 21 = -6;
     * scale 9/8 * 2^-6 = 0.017578125, 1 / scale = 56.9 -> 57; field {14, 1} = 0x71 */
    kt_mx_scale s = kt_mx_block_scale(0x3C00);
    CHECK_EQ(s.exp, -6);
    CHECK_EQ(s.m8, 9);
    CHECK_EQ(kt_mx_scale_field(s), 0x71);
    CHECK_EQ(kt_mx_quant_elem(0x3C00, s), 57);
    CHECK_EQ((uint8_t)kt_mx_quant_elem(0xBC00, s), (uint8_t)-57);
    CHECK_EQ(kt_mx_quant_elem(0x3800, s), 28); /* 0.5 / scale = 28.44 */
    /* 65504 (0x7BFF): significand 2047 > 2016 spills: m8 9, exponent 30 - 20 = 10 ->
     * scale 1152, 65504 / 1152 = 56.9 -> 57 */
    s = kt_mx_block_scale(0x7BFF);
    CHECK_EQ(s.exp, 10);
    CHECK_EQ(s.m8, 9);
    CHECK_EQ(kt_mx_quant_elem(0x7BFF, s), 57);
    /* the smallest subnormal: renormalised to 1024 at binade 1 - 10 = -9, exponent -30 clamps
     * to -20: scale 9/8 * 2^-20, 2^-24 / scale = 0.0556 -> 0 */
    s = kt_mx_block_scale(0x0001);
    CHECK_EQ(s.exp, -20);
    CHECK_EQ(kt_mx_quant_elem(0x0001, s), 0);
    /* an all-zero block: unit scale, field {20, 0} */
    s = kt_mx_block_scale(0x8000);
    CHECK_EQ(kt_mx_scale_field(s), 0xA0);
    CHECK_EQ(kt_mx_quant_elem(0x8000, s), 0);
    /* an element above the block's peak saturates at 63, keeping its sign */
    s = kt_mx_block_scale(0x3C00);
    CHECK_EQ(kt_mx_quant_elem(0x4400, s), 63);
    CHECK_EQ((uint8_t)kt_mx_quant_elem(0xC400, s), (uint8_t)-63);
    /* fields round trip */
    for (unsigned f = 0; f < 256; f++)
        CHECK_EQ(kt_mx_scale_field(kt_mx_scale_of_field((uint8_t)f)), f);
}

/* Slot s of word w as the packing rule states it, read straight from the bits. */
static int slot_at(const uint8_t *out, unsigned w, unsigned s)
{
    unsigned v = 0;
    for (unsigned b = 0; b < 7; b++) {
        unsigned bit = 249 - 7 * s + b;
        v |= (unsigned)(out[w * 32 + bit / 8] >> (bit % 8) & 1) << b;
    }
    return v & 0x40 ? (int)v - 128 : (int)v;
}

/* An entry packed by the rule written out bit by bit: slot s of word w at bits 249 - 7s..255 - 7s,
 * lane i's scale field in byte 3 - i of every word. */
static void pack_ref(const int8_t q[MXV_ELEMS], const uint8_t field[4], bool b,
                     uint8_t out[KT_MX_ENTRY_OUT])
{
    memset(out, 0, KT_MX_ENTRY_OUT);
    for (unsigned w = 0; w < 4; w++) {
        for (unsigned k = 0; k < 8; k++)
            for (unsigned lane = 0; lane < 4; lane++) {
                unsigned s = b ? k * 4 + lane : lane * 8 + k;
                unsigned v = (unsigned)q[lane * 32 + 8 * w + k] & 0x7F;
                for (unsigned bit = 0; bit < 7; bit++) {
                    unsigned at = 249 - 7 * s + bit;
                    out[w * 32 + at / 8] |= (uint8_t)((v >> bit & 1) << (at % 8));
                }
            }
        for (unsigned lane = 0; lane < 4; lane++)
            out[w * 32 + 3 - lane] = field[lane];
    }
}

/* One entry of FP16 through quantise-and-pack against the block quantiser and pack_ref, and the
 * unpack as its inverse; counts the differences. */
static unsigned check_entry(const uint16_t v[MXV_ELEMS], bool b)
{
    uint8_t in[KT_MX_ENTRY_IN], out[KT_MX_ENTRY_OUT], want[KT_MX_ENTRY_OUT];
    for (unsigned i = 0; i < MXV_ELEMS; i++) {
        in[2 * i] = (uint8_t)v[i];
        in[2 * i + 1] = (uint8_t)(v[i] >> 8);
    }
    kt_mx_quant_entry(in, b, out);
    int8_t q[MXV_ELEMS], uq[MXV_ELEMS];
    uint8_t field[KT_MX_LANES], ufield[KT_MX_LANES];
    kt_mx_scale us[KT_MX_LANES];
    for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
        field[lane] = kt_mx_scale_field(kt_mx_quant_block(v + lane * 32, q + lane * 32));
    pack_ref(q, field, b, want);
    unsigned bad = memcmp(out, want, sizeof out) != 0;
    for (unsigned w = 0; w < 4; w++)
        for (unsigned k = 0; k < 8; k++)
            for (unsigned lane = 0; lane < 4; lane++)
                bad += slot_at(out, w, b ? k * 4 + lane : lane * 8 + k) != q[lane * 32 + 8 * w + k];
    kt_mx_unpack_entry(out, b, uq, us);
    bad += memcmp(uq, q, sizeof q) != 0;
    for (unsigned lane = 0; lane < 4; lane++)
        bad += kt_mx_scale_field(us[lane]) != field[lane];
    kt_mx_unpack_q(out, b, uq, ufield);
    bad += memcmp(uq, q, sizeof q) != 0 || memcmp(ufield, field, sizeof field) != 0;
    return bad;
}

/* Any four words read back (every slot value, -64 included, and any scale bytes): the unpack
 * against slot_at, and packing what was read gives the words again but for the scale bytes
 * of words 1..3, which the reading takes from word 0. */
static unsigned check_words(const uint8_t in[KT_MX_ENTRY_OUT], bool b)
{
    int8_t q[MXV_ELEMS];
    uint8_t field[KT_MX_LANES], again[KT_MX_ENTRY_OUT], want[KT_MX_ENTRY_OUT];
    kt_mx_unpack_q(in, b, q, field);
    unsigned bad = 0;
    for (unsigned w = 0; w < 4; w++)
        for (unsigned k = 0; k < 8; k++)
            for (unsigned lane = 0; lane < 4; lane++)
                bad += slot_at(in, w, b ? k * 4 + lane : lane * 8 + k) != q[lane * 32 + 8 * w + k];
    for (unsigned lane = 0; lane < 4; lane++)
        bad += field[lane] != in[3 - lane];
    kt_mx_pack_entry(q, field, b, again);
    memcpy(want, in, sizeof want);
    for (unsigned w = 1; w < 4; w++)
        memcpy(want + w * 32, in, 4);
    bad += memcmp(again, want, sizeof want) != 0;
    pack_ref(q, field, b, want);
    bad += memcmp(again, want, sizeof want) != 0;
    return bad;
}

/* FP16 of one of a few kinds: any bits (infinities, NaNs), a few binades, subnormals and zeros,
 * mostly zeros of either sign, the largest finite values. */
static uint16_t edge_half(uint64_t *st, unsigned kind, unsigned base)
{
    uint64_t r = mxv_next(st);
    uint16_t h = (uint16_t)r;
    switch (kind % 6) {
    case 0: return h;
    case 1: return (uint16_t)((h & 0x83FF) | ((base + (r >> 20) % 4) % 32) << 10);
    case 2: return h & 0x83FF;
    case 3: return (r >> 24 & 3) ? h & 0x8000 : h;
    case 4: return (uint16_t)((h & 0x8000) | ((r >> 24 & 1) ? 0x7BFF : 0x7C00 | (h & 0x3FF)));
    }
    return (uint16_t)((h & 0x8000) | 0x3C00); /* all of one magnitude, either sign */
}

/* The packing on every path the machine has (the vector kernels and, forced, the portable
 * code), over the RTL vectors' entries, random entries of every kind and random words. */
static void test_packing(void)
{
    for (int portable = 0; portable < 2; portable++) {
        npk_dense_force_portable(portable);
        unsigned bad = 0;
        for (unsigned e = 0; e < 16; e++) {
            uint8_t in[KT_MX_ENTRY_IN];
            uint16_t v[MXV_ELEMS];
            entry_bytes(e, in, v);
            for (int b = 0; b < 2; b++)
                bad += check_entry(v, b);
        }
        uint64_t st = 99;
        for (unsigned n = 0; n < 3000; n++) {
            uint16_t v[MXV_ELEMS];
            unsigned kind = n % 7, base = (unsigned)(mxv_next(&st) % 32);
            for (unsigned i = 0; i < MXV_ELEMS; i++) /* kind 6: each lane its own kind */
                v[i] = edge_half(&st, kind == 6 ? (i / 32 + n) : kind, base);
            bad += check_entry(v, n & 1);
            uint8_t w[KT_MX_ENTRY_OUT];
            for (unsigned i = 0; i < sizeof w; i++)
                w[i] = (uint8_t)mxv_next(&st);
            bad += check_words(w, n & 1);
        }
        printf("packing (%s path): %u differences\n", portable ? "portable" : "default", bad);
        CHECK_EQ(bad, 0);
    }
    npk_dense_force_portable(false);
}

/* The cost of the format against the FP32 source, over Gaussian-like blocks (fp16 of sums of
 * uniforms): no element off by more than half a step plus fp16's own rounding, and the whole
 * set's RMS error under 1.5% of its RMS value (a rounding error spread evenly over a step of
 * peak / 63 has an RMS of step / sqrt(12), 0.46% of the peak; a block of 32 Gaussian values
 * peaks about 2.4 RMS out, so about 1.1% of the RMS is expected). */
static void test_error_bound(void)
{
    uint64_t st = 7;
    double err2 = 0, val2 = 0;
    for (int blk = 0; blk < 512; blk++) {
        uint16_t x[32];
        int8_t q[32];
        float f[32];
        for (int k = 0; k < 32; k++) {
            double u = 0;
            for (int j = 0; j < 4; j++)
                u += (double)(mxv_next(&st) >> 11) / 9007199254740992.0 - 0.5;
            f[k] = (float)u;
            x[k] = npk_f32_to_f16(f[k]);
        }
        kt_mx_scale s = kt_mx_quant_block(x, q);
        double sv = kt_mx_scale_value(s);
        for (int k = 0; k < 32; k++) {
            double err = fabs(q[k] * sv - f[k]);
            /* never more than half a step plus fp16's own rounding */
            CHECK(err <= 0.5 * sv + fabs(f[k]) * 0x1p-11 + 1e-12);
            err2 += err * err;
            val2 += (double)f[k] * f[k];
        }
    }
    printf("MXFP7 RMS error against fp32: %.3f%% of RMS\n", 100 * sqrt(err2 / val2));
    CHECK(sqrt(err2 / val2) < 0.015);
}

static void test_block_matches_elements(void)
{
    uint64_t st = 2024;
    unsigned bad = 0;
    for (int n = 0; n < 200000; n++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        unsigned kind = (unsigned)(st >> 60), base = (unsigned)(st >> 40) % 32;
        uint16_t x[KT_MX_KBLOCK];
        for (int k = 0; k < KT_MX_KBLOCK; k++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            uint16_t h = (uint16_t)(st >> 30);
            unsigned e = base + (unsigned)(st >> 50) % 6; /* a block spanning a few binades */
            if (kind < 8)
                h = (uint16_t)((h & 0x83FF) | (e > 31 ? 31 : e) << 10);
            else if (kind < 10)
                h &= 0x83FF; /* subnormals and zeros */
            else if (kind < 12 && (st >> 20 & 3))
                h &= 0x8000; /* mostly zeros of either sign */
            x[k] = h;           /* else anything, infinities and NaNs included */
        }
        uint16_t peak = 0;
        for (int k = 0; k < KT_MX_KBLOCK; k++)
            peak = (x[k] & 0x7FFF) > peak ? x[k] & 0x7FFF : peak;
        kt_mx_scale want = kt_mx_block_scale(peak);
        int8_t q[KT_MX_KBLOCK];
        kt_mx_scale got = kt_mx_quant_block(x, q);
        bad += got.exp != want.exp || got.m8 != want.m8;
        for (int k = 0; k < KT_MX_KBLOCK; k++)
            bad += q[k] != kt_mx_quant_elem(x[k], want);
    }
    CHECK_EQ(bad, 0);
}

/* Every FP16 value, either sign, as an element of blocks under 96 peaks (every 343rd magnitude
 * and the edges: the smallest subnormals, the first normal, 1.0, the largest finite, infinity, the
 * NaNs), 31 to a block after its peak, against kt_mx_quant_elem under the block's scale. */
static void test_every_element(void)
{
    uint16_t peaks[96];
    unsigned np = 0;
    const uint16_t edge[] = {1, 2, 3, 0x3FF, 0x400, 0x401, 0x3C00, 0x7BFF, 0x7C00, 0x7C01, 0x7FFF};
    for (unsigned i = 0; i < sizeof edge / sizeof edge[0]; i++)
        peaks[np++] = edge[i];
    for (unsigned p = 100; np < 96; p += 343)
        peaks[np++] = (uint16_t)p;
    unsigned bad = 0, blocks = 0;
    for (unsigned i = 0; i < np; i++) {
        kt_mx_scale s = kt_mx_block_scale(peaks[i]);
        uint16_t x[KT_MX_KBLOCK];
        unsigned n = 0;
        x[n++] = peaks[i];
        for (uint32_t h = 0; h <= 0xFFFF; h++) {
            if ((h & 0x7FFF) <= peaks[i])
                x[n++] = (uint16_t)h;
            if (n == KT_MX_KBLOCK || (h == 0xFFFF && n > 1)) {
                while (n < KT_MX_KBLOCK)
                    x[n++] = 0;
                int8_t q[KT_MX_KBLOCK];
                kt_mx_scale got = kt_mx_quant_block(x, q);
                bad += got.exp != s.exp || got.m8 != s.m8;
                for (int k = 0; k < KT_MX_KBLOCK; k++)
                    if (q[k] != kt_mx_quant_elem(x[k], s) && bad++ < 5)
                        fprintf(stderr, "peak 0x%04x element 0x%04x: %d, kt_mx_quant_elem %d\n",
                                peaks[i], x[k], q[k], kt_mx_quant_elem(x[k], s));
                blocks++;
                n = 1;
            }
        }
    }
    printf("every element: %u blocks under %u peaks, %u differences\n", blocks, np, bad);
    CHECK_EQ(bad, 0);
}

/* The block scale for every peak magnitude (infinities and NaNs read as the largest binade),
 * either sign: the smallest E5M3 scale with peak / scale <= 63, found by walking the scales up
 * from far below the field, its exponent clamped to the field's lowest; a zero peak the unit
 * scale. */
static void test_every_peak(void)
{
    unsigned bad = 0;
    for (uint32_t p = 0; p <= 0x7FFF; p++) {
        kt_mx_scale s = kt_mx_block_scale((uint16_t)p), neg = kt_mx_block_scale((uint16_t)(p | 0x8000));
        bool ok = s.exp == neg.exp && s.m8 == neg.m8 && s.m8 >= 8 && s.m8 <= 15 &&
                  s.exp >= KT_MX_SEXP_MIN && s.exp <= KT_MX_SEXP_MAX;
        double peak = half_value((uint16_t)p);
        if (peak == 0)
            ok = ok && s.exp == 0 && s.m8 == 8;
        else { /* the wanted scale, the exponent unbounded, from the smallest value up */
            int e = -40;
            unsigned m8 = 8;
            while (peak / kt_mx_scale_value((kt_mx_scale){(int8_t)e, (uint8_t)m8}) > 63.0)
                if (++m8 == 16) {
                    m8 = 8;
                    e++;
                }
            ok = ok && s.m8 == m8 && s.exp == (e < KT_MX_SEXP_MIN ? KT_MX_SEXP_MIN : e);
        }
        if (!ok && bad++ < 5)
            fprintf(stderr, "peak 0x%04x: scale 2^%d * %u/8\n", (unsigned)p, s.exp, s.m8);
    }
    CHECK_EQ(bad, 0u);
}

int main(void)
{
    test_rtl_vectors();
    test_against_double();
    test_hand_values();
    test_packing();
    test_error_bound();
    test_block_matches_elements();
    test_every_element();
    test_every_peak();
    return check_done();
}
