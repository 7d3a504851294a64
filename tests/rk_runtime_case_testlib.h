/* SPDX-License-Identifier: MIT */
/* One runtime matmul of random operands on a simulator, judged by the CPU reference
 * (npk_rk_check_matmul): the runtime is configured by a callback before the weights are packed. */
#ifndef NPUKIT_TESTS_RK_RUNTIME_CASE_TESTLIB_H
#define NPUKIT_TESTS_RK_RUNTIME_CASE_TESTLIB_H

#include "check.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk_operands_testlib.h"

typedef npk_status (*rk_case_setup)(npk_rk *rt, const void *arg);

/* C = A . B through npk_rk_matmul on `device` at M x K x N of `in` (output the dtype's default:
 * fp32 or int32); setup (may be NULL) configures the runtime first. Returns the call's status
 * (after a failed setup: its status); on NPK_OK *st holds the stats and *v the verdict. */
static inline npk_status rk_case_run(const char *device, npk_rk_prec in, uint32_t m, uint32_t k,
                                     uint32_t n, rk_case_setup setup, const void *arg,
                                     npk_rk_stats *st, npk_rk_verdict *v)
{
    const npk_rk_prec out = in == NPK_PREC_FP16 ? NPK_PREC_FP32 : NPK_PREC_INT32;
    void *a = rk_test_operands(in, (size_t)m * k), *b = rk_test_operands(in, (size_t)k * n);
    void *c = calloc((size_t)m * n, 4);
    npk_rk *rt = NULL;
    npk_rk_weights *w = NULL;
    npk_status s = a && b && c ? npk_rk_open(device, &rt) : NPK_ENOMEM;
    if (s == NPK_OK && setup)
        s = setup(rt, arg);
    if (s == NPK_OK)
        s = npk_rk_weights_pack(rt, in, k, n, b, m, &w);
    if (s == NPK_OK)
        s = npk_rk_matmul(rt, w, m, a, out, c, st);
    if (s == NPK_OK) {
        CHECK_EQ(npk_rk_check_matmul(in, out, m, k, n, a, b, c, v), NPK_OK);
        CHECK_EQ(v->outside, 0);
        if (in != NPK_PREC_FP16)
            CHECK_EQ(v->mismatches, 0); /* integers are exact */
    }
    if (w)
        npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(c);
    return s;
}

#endif
