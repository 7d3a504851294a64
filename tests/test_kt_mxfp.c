/* SPDX-License-Identifier: MIT */
/* The FP16 -> MXFP7 quantiser (src/kt/hw/mxfp.c) against two independent references:
 *   - the RTL: upstream KohakuTPU's mx_quant (commit 7703ee8, src/kohakutpu/transform/mx_quant.v)
 *     under Verilator 5.006 with its own bench (tests/mas/mx_quant_tb.v, B packing on odd
 *     entries), fed the 256 entries of kt_mxfp_vectors.h; each row below is the FNV-1a of the
 *     four words the RTL wrote for one entry (all 256 matched the model bit for bit);
 *   - arithmetic in double: the chosen scale is the smallest E5M3 value with peak / scale <= 63,
 *     and each significand is x / scale rounded to within half a step (the circuit divides by
 *     a 12-bit reciprocal, so a tie may fall either way), clamped to 63;
 * and the packing against the slot formula written out, the unpack as its inverse, and a few
 * values worked by hand. */
#include <math.h>

#include "check.h"
#include "kt/hw/mxfp.h"
#include "kt_mxfp_vectors.h"
#include "npukit/fp16.h"

static const uint32_t rtl_fnv[MXV_ENTRIES] = {    0xabb4a465, 0x42ed7221, 0x2befa250, 0x21aee2f4, 0x21ceb7e7, 0xe2d7fb1d,
    0x0e059fc7, 0x7001de4d, 0xec1f7ae5, 0x4f0866b2, 0x13db6f65, 0xcf03ece5,
    0xf60a6c98, 0x3f05ee34, 0x45483d30, 0xde15faa2, 0xa590fb08, 0x8909e318,
    0x9e99f8b8, 0xbde50df5, 0xc72bae4b, 0xe760a2f6, 0x8dadb35b, 0x3138dca7,
    0x96ea8b38, 0x868c930f, 0x33b08f27, 0xead560db, 0xd69e9803, 0xedd74443,
    0x517e4aa9, 0xbb871ed8, 0x4792613e, 0x122e66be, 0x9f84b92e, 0x7a40fcae,
    0x7e10e273, 0xfc2235bc, 0x47ae2442, 0xe4c3d67f, 0x01672c5f, 0x1967737a,
    0xe3d2c403, 0x3684dba6, 0xf93a7eb0, 0xd2323070, 0x61e4a814, 0x3d124590,
    0x00cb5009, 0x2911e979, 0xc8ab5c92, 0xa9a2dcb0, 0xf41f7485, 0xa9488657,
    0xa9fd0dae, 0xc9dd5887, 0x3719ee4e, 0xd808abb5, 0xee6ea36f, 0x3c2aa718,
    0x0dfdb91e, 0xf4f76540, 0x037d2de4, 0x28ba81ad, 0x1194417c, 0xf03cc0d7,
    0x1c827a88, 0xec80487a, 0x11cf4a85, 0x13e19bac, 0x77eb31ad, 0x4e87d107,
    0x1cd20341, 0x8487f3bb, 0xe815e713, 0x564163fa, 0x9d46d21a, 0x8d769d89,
    0xa89ddd1f, 0xe8f02584, 0xe2d7cc3e, 0x12abc831, 0x329aedbe, 0x4d73edb2,
    0xaaed351e, 0xee66db64, 0xc2af4ebe, 0xda5b0e70, 0x9f056ef7, 0x9b66df0b,
    0x8062ed48, 0x8ca01bd2, 0x034d073b, 0x5fdc26fc, 0x67fa6e0b, 0x2f53a6f5,
    0x126efbc5, 0x9278de7d, 0x56448a54, 0xfce61aa4, 0x39835ceb, 0xb10b3179,
    0xaba21117, 0x42da9b26, 0x252a5d7b, 0xb188f41b, 0xbbe84574, 0x76d62e27,
    0x4a0a1d65, 0x27c1b0f9, 0xa9bdb7c6, 0x2e07d163, 0xa25e0fc0, 0x7af52b67,
    0x082c151f, 0x7cc5e4d0, 0x519417e3, 0x1a0c19db, 0x64dd3557, 0x38b0ac7f,
    0xc4dfbe04, 0x82cc3ad5, 0xeb602dac, 0x25916e47, 0x9f6803ba, 0x889335c7,
    0x23feb537, 0x83c66365, 0xca897a1f, 0x34452a34, 0xd096e64d, 0x35ef3520,
    0x1bf6b409, 0xc00f65c0, 0x29b0c79d, 0x6f100039, 0x2d1d135d, 0xaa931a7e,
    0x0bbd4dba, 0xb946349c, 0xc9c899c3, 0x709bd215, 0x39ec541c, 0xe01f3de1,
    0x2e080506, 0xbdd64b78, 0x99350f77, 0x7ceeac1a, 0x75d092ea, 0xbae07394,
    0x659df5f8, 0x041426cd, 0x14863f46, 0x36c269b0, 0xa8ae9270, 0x07040f68,
    0x758f7bae, 0x3ab953b7, 0x89b932be, 0x29a9875a, 0xc7787701, 0xc6434eba,
    0xc31a9749, 0xe3709e88, 0xa6aa68d1, 0xc94fb0e3, 0x7238446d, 0x39a5c5d5,
    0x12227546, 0x4922db6a, 0x74fff2e4, 0x6c1badce, 0xf50c6923, 0x5e2368ac,
    0x8bc79395, 0xafceda81, 0x7bd7e9ab, 0xd5f53eec, 0x87234a6f, 0x4c4fa7e7,
    0x41a17ec2, 0x29afa4e4, 0xc55f23c2, 0x513f709f, 0x865b1052, 0x68523c36,
    0xb4f76867, 0xd66a2676, 0x331e3722, 0x92c59b43, 0x78eeca2c, 0xd080dfd6,
    0x1211b7ad, 0x506de82a, 0xb85e0983, 0x41acabdd, 0xf668fed7, 0xe6009938,
    0x2f25adab, 0xccbc6008, 0x500d452b, 0xa5934942, 0x5c1d13a0, 0x5857b1bb,
    0xa4d7790f, 0x341bf04f, 0xdf6d4ed1, 0x4dac7611, 0xfbd2f9de, 0xdd2ff19e,
    0xbccabc26, 0xabcca6e4, 0x6bdca230, 0xb58a1251, 0x620cad6d, 0xcdfad496,
    0x8cf5fbd7, 0xd982d126, 0xd3982a08, 0x6db1f1b1, 0x69986c71, 0x9a422540,
    0xbb99c886, 0x5978de05, 0x5f1214ed, 0x2249a485, 0xa8519d3e, 0x1af25d64,
    0x22591ae7, 0xad152ebf, 0xfc4bb285, 0xdc8bccc9, 0x9ab57a44, 0xd2f04960,
    0x4d830786, 0xf662d0b6, 0x4aa33bb7, 0x56dd416e, 0xc0d23ee1, 0x138503ef,
    0xc3c517c2, 0x5bd2b0b3, 0x6b414989, 0x6476877d, 0xe3b239d6, 0x696cda9d,
    0xfb4e7dde, 0x2d31a5a9, 0xec255b42, 0x95eb1091, 0x6397b17e, 0xb40dfb24,
    0xc191a50f, 0x97cee69a, 0xa4c2a5b7, 0xd84f0606
};

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
        if (mxv_fnv(out, sizeof out) != rtl_fnv[e] && bad++ < 5)
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

static void test_packing(void)
{
    for (unsigned e = 0; e < 16; e++) {
        uint8_t in[KT_MX_ENTRY_IN], out[KT_MX_ENTRY_OUT];
        uint16_t v[MXV_ELEMS];
        entry_bytes(e, in, v);
        for (int b = 0; b < 2; b++) {
            kt_mx_quant_entry(in, b, out);
            int8_t q[KT_MX_LANES][KT_MX_KBLOCK], uq[MXV_ELEMS];
            uint8_t field[KT_MX_LANES];
            kt_mx_scale us[KT_MX_LANES];
            for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
                field[lane] = kt_mx_scale_field(kt_mx_quant_block(v + lane * 32, q[lane]));
            unsigned bad = 0;
            for (unsigned w = 0; w < 4; w++) {
                for (unsigned k = 0; k < 8; k++)
                    for (unsigned lane = 0; lane < 4; lane++)
                        bad += slot_at(out, w, b ? k * 4 + lane : lane * 8 + k) != q[lane][8 * w + k];
                for (unsigned lane = 0; lane < 4; lane++)
                    bad += out[w * 32 + 3 - lane] != field[lane]; /* bits [31 - 8 lane -: 8] */
            }
            kt_mx_unpack_entry(out, b, uq, us);
            for (unsigned i = 0; i < MXV_ELEMS; i++)
                bad += uq[i] != q[i / 32][i % 32];
            for (unsigned lane = 0; lane < 4; lane++)
                bad += kt_mx_scale_field(us[lane]) != field[lane];
            CHECK_EQ(bad, 0);
        }
    }
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

int main(void)
{
    test_rtl_vectors();
    test_against_double();
    test_hand_values();
    test_packing();
    test_error_bound();
    return check_done();
}
