/* SPDX-License-Identifier: MIT */
/* One runtime matmul on packed weights checked exactly against the CPU reference, for the tests
 * that place weights (address spaces, cores) and must show every placement computes right. */
#ifndef NPUKIT_TESTS_RK_MATMUL_CHECK_TESTLIB_H
#define NPUKIT_TESTS_RK_MATMUL_CHECK_TESTLIB_H

#include <stdlib.h>

#include "check.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk_operands_testlib.h"

/* m rows of random operands through weights w (packed from b, K x N): the result must equal the
 * reference element for element. Returns the call's stats. */
static inline npk_rk_stats rk_test_check_matmul(npk_rk *rt, const npk_rk_weights *w,
                                                npk_rk_prec in, npk_rk_prec out, uint32_t m,
                                                uint32_t k, uint32_t n, const void *b)
{
    void *a = rk_test_operands(in, (size_t)m * k);
    const size_t ob = out == NPK_PREC_FP16 ? 2 : 4;
    void *c = calloc((size_t)m * n, ob), *ref = calloc((size_t)m * n, ob);
    npk_rk_stats st = {0};
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, out, c, &st), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(in, out, m, k, n, a, b, ref), NPK_OK);
    CHECK_EQ(npk_rk_compare(out, c, ref, (uint64_t)m * n).mismatches, 0);
    free(a);
    free(c);
    free(ref);
    return st;
}

#endif
