/* SPDX-License-Identifier: MIT */
/* Random matmul operands for the runtime tests: fp16 values k/8 for k in [-8, 8] (exact in any
 * summation order at the tests' K), int8 over its full range, int4 in [-8, 7]. A test defines
 * RK_TEST_SEED before including this to pick its own sequence. */
#ifndef NPUKIT_TESTS_RK_OPERANDS_TESTLIB_H
#define NPUKIT_TESTS_RK_OPERANDS_TESTLIB_H

#include <stdint.h>
#include <stdlib.h>

#include "npukit/fp16.h"
#include "npukit/rk_types.h"

#ifndef RK_TEST_SEED
#define RK_TEST_SEED 1
#endif

static uint64_t rk_test_seed = RK_TEST_SEED;

static inline uint32_t rk_test_rnd(void)
{
    rk_test_seed = rk_test_seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rk_test_seed >> 33);
}

/* count random elements of precision p (malloc'd; NULL when out of memory). */
static inline void *rk_test_operands(npk_rk_prec p, size_t count)
{
    if (p == NPK_PREC_FP16) {
        uint16_t *v = malloc(count * 2);
        for (size_t i = 0; v && i < count; i++)
            v[i] = npk_f32_to_f16((float)((int)(rk_test_rnd() % 17) - 8) / 8.0f);
        return v;
    }
    int8_t *v = malloc(count);
    for (size_t i = 0; v && i < count; i++)
        v[i] = p == NPK_PREC_INT8 ? (int8_t)(rk_test_rnd() & 0xff)
                                  : (int8_t)((int)(rk_test_rnd() % 16) - 8);
    return v;
}

#endif
