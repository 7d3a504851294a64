/* SPDX-License-Identifier: MIT */
/* The FP16 entries the MXFP7 quantiser is checked on: 256 entries of 4 lanes x 32 K, drawn by a
 * fixed generator so that the same inputs can be fed to the RTL (upstream's mx_quant under its
 * own bench, mx_quant_tb.v, B packing on odd entries) and to the model. Eight kinds of entry,
 * by entry index mod 8, aim at the places a quantiser goes wrong: ordinary values, any 16 bits
 * (infinities, NaNs, subnormals), subnormal-only blocks, blocks of zeros beside a full lane,
 * exponents spread over the whole range, narrow ranges at a random binade, the extremes
 * (largest, smallest subnormal, -0, infinity, NaN), and peaks on the scale thresholds. */
#ifndef NPUKIT_TESTS_KT_MXFP_VECTORS_H
#define NPUKIT_TESTS_KT_MXFP_VECTORS_H

#include <stdint.h>

enum { MXV_ENTRIES = 256, MXV_ELEMS = 128 };

static uint64_t mxv_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint16_t mxv_half(unsigned sign, unsigned exp, unsigned frac)
{
    return (uint16_t)((sign & 1) << 15 | (exp & 31) << 10 | (frac & 0x3FF));
}

/* Entry e's 128 FP16 values, element (lane, k) at lane * 32 + k. */
static void mxv_entry(unsigned e, uint16_t v[MXV_ELEMS])
{
    static const uint16_t extremes[] = {0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x3C00,
                                        0x0400, 0x03FF, 0x7C00, 0x7E00, 0x8000};
    /* renormalised peak significands on each side of the scale thresholds */
    static const uint16_t edges[] = {1024, 1134, 1135, 1260, 1261, 1386, 1387, 1512, 1513,
                                     1638, 1639, 1764, 1765, 1890, 1891, 2016, 2017, 2047};
    uint64_t s = 0x6B74u + e;
    unsigned base = 1 + (unsigned)(mxv_next(&s) % 28);
    for (unsigned i = 0; i < MXV_ELEMS; i++) {
        uint64_t r = mxv_next(&s);
        unsigned sign = r & 1, frac = (r >> 1) & 0x3FF, lane = i / 32;
        switch (e % 8) {
        case 0: v[i] = mxv_half(sign, 10 + (unsigned)((r >> 11) % 9), frac); break;
        case 1: v[i] = (uint16_t)(r >> 16); break;
        case 2: v[i] = mxv_half(sign, 0, frac); break;
        case 3: v[i] = lane == 1 ? mxv_half(sign, (unsigned)((r >> 11) % 31), frac) : 0; break;
        case 4: v[i] = (r >> 20) % 64 ? mxv_half(sign, (unsigned)((r >> 11) % 31), frac) : 0; break;
        case 5: v[i] = mxv_half(sign, base + (unsigned)((r >> 11) % 3), frac); break;
        case 6:
            v[i] = i % 3 ? extremes[(r >> 11) % (sizeof extremes / sizeof extremes[0])]
                         : (uint16_t)(r >> 16);
            break;
        default:
            if (i % 32 == 0) {
                unsigned sig = edges[(e / 8 + lane) % (sizeof edges / sizeof edges[0])];
                v[i] = mxv_half(sign, 1 + (unsigned)((r >> 11) % 30), sig - 1024);
            } else {
                v[i] = mxv_half(sign, (unsigned)((r >> 11) % 31), frac);
                /* below the lane's first element: that one is the peak */
                if ((v[i] & 0x7FFF) > (v[i - i % 32] & 0x7FFF))
                    v[i] = (uint16_t)((v[i - i % 32] & 0x7FFF) >> 1 | (v[i] & 0x8000));
            }
            break;
        }
    }
}

/* FNV-1a over bytes: the recorded form of one entry's output. */
static uint32_t mxv_fnv(const uint8_t *p, unsigned n)
{
    uint32_t h = 2166136261u;
    for (unsigned i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* What upstream's mx_quant (KohakuTPU 7703ee8, under Verilator 5.006 with its own bench
 * mx_quant_tb.v) wrote for entry e, A packing on even entries and B on odd: the FNV-1a of its four
 * output words. */
static const uint32_t mxv_rtl_fnv[MXV_ENTRIES] = {
    0xabb4a465, 0x42ed7221, 0x2befa250, 0x21aee2f4, 0x21ceb7e7, 0xe2d7fb1d,
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

#endif
