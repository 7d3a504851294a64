/* SPDX-License-Identifier: MIT */
/* Half-precision conversions, bit-exact with a C compiler's (_Float16)f on x86:
 * round to nearest, ties to even, subnormals kept, NaN stays NaN (quiet). */
#include "npukit/fp16.h"

#include <string.h>

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t npk_f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;

    if (exp == 0xff) /* Inf or NaN; keep NaN quiet and non-zero */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31) /* overflow to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* Subnormal (or zero) result: shift the full significand into place. */
        if (e < -10)
            return sign;
        uint32_t m = man | 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
        half++; /* a carry into the exponent is the correct rounding (up to Inf) */
    return (uint16_t)(sign | half);
}

float npk_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0) {
        if (man == 0)
            return bits_f32(sign);
        /* Subnormal: normalise. */
        exp = 127 - 15 + 1;
        while (!(man & 0x400u)) {
            man <<= 1;
            exp--;
        }
        man &= 0x3ffu;
        return bits_f32(sign | (exp << 23) | (man << 13));
    }
    if (exp == 31)
        return bits_f32(sign | 0x7f800000u | (man << 13));
    return bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t npk_f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) /* NaN */
        return (uint16_t)((x >> 16) | 0x40u);
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return (uint16_t)(x >> 16);
}

float npk_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }
