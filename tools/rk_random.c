/* SPDX-License-Identifier: MIT */
/* The CLI's random operands (rk_random.h). */
#include "rk_random.h"

#include "common/dense.h"

/* splitmix64: small, seedable, the same numbers on every machine. Its state only advances by a
 * constant, so the i-th number after state s is mix(s + i * GAMMA): a fill computes every
 * element on its own, in loops the compiler vectorises. */
enum { RAND_BATCH = 1024 };
static const uint64_t GAMMA = 0x9E3779B97F4A7C15ull;

static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* n <= RAND_BATCH elements from the numbers after state s: fp16 values as floats in [-1, 1)
 * (53 random bits over 2^52, minus 1, exact in a double, then rounded to float), the integer
 * dtypes as their low bits (int8: the low byte; int4, and any other: the low nibble minus 8). */
static inline void batch_body(npk_rk_prec p, uint64_t s, size_t n, float *f, uint8_t *bytes)
{
    if (p == NPK_PREC_FP16)
        for (size_t j = 0; j < n; j++)
            f[j] = (float)((double)(int64_t)(mix(s + (j + 1) * GAMMA) >> 11) /
                               4503599627370496.0 -
                           1.0);
    else if (p == NPK_PREC_INT8)
        for (size_t j = 0; j < n; j++)
            bytes[j] = (uint8_t)mix(s + (j + 1) * GAMMA);
    else
        for (size_t j = 0; j < n; j++)
            bytes[j] = (uint8_t)((int)(mix(s + (j + 1) * GAMMA) % 16) - 8);
}

static void batch_portable(npk_rk_prec p, uint64_t s, size_t n, float *f, uint8_t *bytes)
{
    batch_body(p, s, n, f, bytes);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* the same loops with 64-bit multiplies and conversions eight at a time */
__attribute__((target("avx512f,avx512dq"))) static void
batch_avx512(npk_rk_prec p, uint64_t s, size_t n, float *f, uint8_t *bytes)
{
    batch_body(p, s, n, f, bytes);
}
#endif

void rk_fill_random(npk_rk_prec p, void *dst, uint64_t count, uint64_t *seed)
{
    void (*batch)(npk_rk_prec, uint64_t, size_t, float *, uint8_t *) = batch_portable;
#if defined(__x86_64__) && defined(__GNUC__)
    /* npk_dense_use_avx2 is false when the portable paths are forced (tests) */
    if (npk_dense_use_avx2() && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq"))
        batch = batch_avx512;
#endif
    float f[RAND_BATCH];
    for (uint64_t i = 0; i < count; i += RAND_BATCH) {
        const size_t n = count - i < RAND_BATCH ? (size_t)(count - i) : RAND_BATCH;
        const uint64_t s = *seed + i * GAMMA;
        if (p == NPK_PREC_FP16) { /* converted by the vector path, bit for bit npk_f32_to_f16 */
            batch(p, s, n, f, NULL);
            npk_f32_to_f16_n(f, (uint16_t *)dst + i, n);
        } else if (p == NPK_PREC_INT16) { /* the low 16 bits */
            for (size_t j = 0; j < n; j++)
                ((int16_t *)dst)[i + j] = (int16_t)(uint16_t)mix(s + (j + 1) * GAMMA);
        } else {
            batch(p, s, n, NULL, (uint8_t *)dst + i);
        }
    }
    *seed += count * GAMMA;
}
