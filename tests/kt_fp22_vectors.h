/* SPDX-License-Identifier: MIT */
/* A fixed generator of FP22 operand pairs ({sign, exponent[6:0], fraction[13:0]}) for the
 * accumulator adder: the same pairs fed to upstream's adder under Verilator and to
 * kt_mx_fp22_add. Classes, by index mod 8: any two values of the chains' exponent range; a
 * difference of close magnitudes (cancellation); a difference with the smaller operand 9..24
 * binades down (its low bits shifted out) and fractions with few bits set (halfway points);
 * the same as a sum; exponents near 1 (underflow); near 126 (overflow); a zero operand; any two
 * patterns at all. Plain C, also compiled as C++ by the harness. */
#ifndef NPUKIT_TESTS_KT_FP22_VECTORS_H
#define NPUKIT_TESTS_KT_FP22_VECTORS_H

#include <stdint.h>

enum { KT_FP22_CASES = 8192 };

static inline uint64_t kt_fp22_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint32_t kt_fp22_make(unsigned s, unsigned e, uint32_t f)
{
    return (uint32_t)(s & 1) << 21 | (uint32_t)(e & 0x7F) << 14 | (f & 0x3FFF);
}

/* Pair number i: *a (the tile's operand) and *b (the chain's). */
static inline void kt_fp22_pair(unsigned i, uint32_t *a, uint32_t *b)
{
    uint64_t st = 0xF22ADD00ull + i;
    uint64_t r = kt_fp22_mix(&st), q = kt_fp22_mix(&st);
    unsigned ea = 17 + (unsigned)(r % 92), sa = (unsigned)(r >> 8) & 1, sb = (unsigned)(r >> 9) & 1;
    uint32_t fa = (uint32_t)(q & 0x3FFF), fb = (uint32_t)(q >> 14 & 0x3FFF);
    /* fractions with few bits set: every other case of the binade classes */
    uint32_t sparse_a = (uint32_t)(q >> 28 & 0x3FFF) & (uint32_t)(q >> 42 & 0x3FFF);
    uint32_t sparse_b = 1u << (q >> 56 & 15) | (uint32_t)(q >> 60 & 1) << (q >> 50 & 7);
    unsigned down = 9 + (unsigned)(r >> 16) % 16;
    switch (i % 8) {
    case 0: /* any two chain-range values */
        *a = kt_fp22_make(sa, ea, fa);
        *b = kt_fp22_make(sb, 17 + (unsigned)(r >> 24) % 92, fb);
        break;
    case 1: /* cancellation: the same binade or the next, opposite signs */
        *a = kt_fp22_make(sa, ea, fa);
        *b = kt_fp22_make(!sa, ea - (unsigned)(r >> 20 & 1), fa ^ (fb & 0xFF));
        break;
    case 2: /* a difference whose smaller operand loses bits */
    case 3: /* the same as a sum */
        *a = kt_fp22_make(sa, ea, i % 16 < 8 ? sparse_a : fa);
        *b = kt_fp22_make(i % 8 == 2 ? !sa : sa, ea - down, i % 16 < 8 ? sparse_b : fb);
        if (r >> 40 & 1) { /* either side may be the larger */
            uint32_t t = *a;
            *a = *b;
            *b = t;
        }
        break;
    case 4: /* underflow: small exponents, differences of close values */
        *a = kt_fp22_make(sa, 1 + (unsigned)(r >> 24) % 20, fa);
        *b = kt_fp22_make(r >> 30 & 1 ? !sa : sa, 1 + (unsigned)(r >> 32) % 20, fb);
        break;
    case 5: /* overflow: large exponents, sums */
        *a = kt_fp22_make(sa, 120 + (unsigned)(r >> 24) % 8, fa);
        *b = kt_fp22_make(sa, 118 + (unsigned)(r >> 32) % 10, fb);
        break;
    case 6: /* a zero operand (exponent 0, any fraction and sign) */
        *a = kt_fp22_make(sa, r >> 44 & 1 ? 0 : ea, fa);
        *b = kt_fp22_make(sb, r >> 44 & 1 ? ea : 0, fb);
        break;
    default: /* any two patterns */
        *a = (uint32_t)(q & 0x3FFFFF);
        *b = (uint32_t)(q >> 22 & 0x3FFFFF);
        break;
    }
}

#endif
