/* SPDX-License-Identifier: MIT */
/* The CLI's random operands (rk_random.h). */
#include "rk_random.h"

#include <pthread.h>
#include <stdbool.h>

#include "common/dense.h"

/* splitmix64: small, seedable, the same numbers on every machine. Its state only advances by a
 * constant, so the i-th number after state s is mix(s + i * GAMMA): a fill computes every
 * element on its own, in loops the compiler vectorises. */
enum { RAND_BATCH = 1024, SPLIT_ELEMENTS = 1 << 20 /* from which a second thread fills half */ };
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

typedef void batch_fn(npk_rk_prec, uint64_t, size_t, float *, uint8_t *);

/* Elements [from, to) of a fill whose numbers follow state s0. */
typedef struct part {
    batch_fn *batch;
    npk_rk_prec p;
    void *dst;
    uint64_t s0, from, to;
} part;

static void fill_part(const part *pt)
{
    float f[RAND_BATCH];
    for (uint64_t i = pt->from; i < pt->to; i += RAND_BATCH) {
        const size_t n = pt->to - i < RAND_BATCH ? (size_t)(pt->to - i) : RAND_BATCH;
        const uint64_t s = pt->s0 + i * GAMMA;
        if (pt->p == NPK_PREC_FP16) { /* converted by the vector path, bit for bit npk_f32_to_f16 */
            pt->batch(pt->p, s, n, f, NULL);
            npk_f32_to_f16_n(f, (uint16_t *)pt->dst + i, n);
        } else if (pt->p == NPK_PREC_INT16) { /* the low 16 bits */
            for (size_t j = 0; j < n; j++)
                ((int16_t *)pt->dst)[i + j] = (int16_t)(uint16_t)mix(s + (j + 1) * GAMMA);
        } else {
            pt->batch(pt->p, s, n, NULL, (uint8_t *)pt->dst + i);
        }
    }
}

static void *fill_thread(void *arg)
{
    fill_part(arg);
    return NULL;
}

void rk_fill_random(npk_rk_prec p, void *dst, uint64_t count, uint64_t *seed)
{
    batch_fn *batch = batch_portable;
#if defined(__x86_64__) && defined(__GNUC__)
    /* npk_dense_use_avx2 is false when the portable paths are forced (tests) */
    if (npk_dense_use_avx2() && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq"))
        batch = batch_avx512;
#endif
    /* a large fill (a one-shot command's B: tens of MiB, first touches included) in two halves,
     * the second on a thread of its own; any split gives the same numbers */
    const uint64_t half = count >= SPLIT_ELEMENTS ? count / 2 / RAND_BATCH * RAND_BATCH : count;
    part first = {batch, p, dst, *seed, 0, half}, second = {batch, p, dst, *seed, half, count};
    pthread_t th;
    const bool two = half < count && !pthread_create(&th, NULL, fill_thread, &second);
    fill_part(&first);
    if (two)
        pthread_join(th, NULL);
    else
        fill_part(&second);
    *seed += count * GAMMA;
}
