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

#endif
