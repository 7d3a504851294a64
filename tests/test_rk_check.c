/* SPDX-License-Identifier: MIT */
/* The matmul verdict (npk_rk_check_matmul): results summed in fp32 in several orders here
 * (left to right, right to left, pairwise, in 32-wide partials as a K-split does) must all pass
 * its bound, a result pushed past the bound must fail, integers are exact, and non-finite
 * values follow their own rule. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk_reference.h"

enum order { SEQ, REV, PAIRWISE, BLOCKED, ORDERS };

static float sum_range(const float *p, uint32_t lo, uint32_t hi, enum order o)
{
    float s = 0;
    if (o == SEQ)
        for (uint32_t i = lo; i < hi; i++)
            s += p[i];
    else if (o == REV)
        for (uint32_t i = hi; i-- > lo;)
            s += p[i];
    else if (o == PAIRWISE)
        s = hi - lo == 1 ? p[lo]
                         : sum_range(p, lo, lo + (hi - lo) / 2, o) +
                               sum_range(p, lo + (hi - lo) / 2, hi, o);
    else
        for (uint32_t i = lo; i < hi; i += 32)
            s += sum_range(p, i, i + 32 < hi ? i + 32 : hi, SEQ);
    return s;
}

/* C = A.B with fp16 operands, each dot product summed in fp32 in order o, written as out. */
static void fp32_matmul(const uint16_t *a, const uint16_t *b, uint32_t m, uint32_t k, uint32_t n,
                        enum order o, npk_rk_prec out, void *c)
{
    float *p = malloc(k * sizeof *p);
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            for (uint32_t q = 0; q < k; q++) /* fp16 x fp16 is exact in fp32 */
                p[q] = npk_f16_to_f32(a[(size_t)i * k + q]) * npk_f16_to_f32(b[(size_t)q * n + j]);
            float s = k ? sum_range(p, 0, k, o) : 0;
            if (out == NPK_PREC_FP32)
                ((float *)c)[(size_t)i * n + j] = s;
            else
                ((uint16_t *)c)[(size_t)i * n + j] = npk_f32_to_f16(s);
        }
    free(p);
}

static uint64_t state = 11;
static double rnd01(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(state >> 11) / 9007199254740992.0;
}

/* The operands that exposed the old fixed tolerance: fp16 bit patterns 0x56xx, values in
 * [96, 128), one byte stepping by 37. */
static void fill_96_128(uint16_t *v, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++)
        v[i] = (uint16_t)(0x5600 | ((i * 37 + seed) % 256));
}

static void test_large_operands(void)
{
    enum { M = 4, K = 256, N = 16 };
    static uint16_t a[M * K], b[K * N];
    static float c[M * N];
    fill_96_128(a, M * K, 5);
    fill_96_128(b, K * N, 11);
    double max_err = 0;
    for (int o = 0; o < ORDERS; o++) {
        fp32_matmul(a, b, M, K, N, (enum order)o, NPK_PREC_FP32, c);
        npk_rk_verdict v;
        CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, M, K, N, a, b, c, &v), NPK_OK);
        CHECK_EQ(v.outside, 0);
        CHECK(v.max_ratio <= 1);
        if (v.max_abs > max_err)
            max_err = v.max_abs;
    }
    /* the old tolerance (1e-6*K + 1e-6) * max|a| * max|b| called a correct sum wrong */
    double old = (1e-6 * K + 1e-6) * 128.0 * 128.0;
    CHECK(max_err > old);
}

static void test_random_orders(void)
{
    static const uint32_t ks[] = {1, 2, 17, 100, 1000, 4096};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        uint32_t m = 3, k = ks[t], n = 5;
        uint16_t *a = malloc((size_t)m * k * 2), *b = malloc((size_t)k * n * 2);
        float *c = malloc((size_t)m * n * 4);
        uint16_t *h = malloc((size_t)m * n * 2);
        /* positive and mixed-sign operands over several binades */
        for (size_t i = 0; i < (size_t)m * k; i++)
            a[i] = npk_f32_to_f16((float)(ldexp(rnd01(), (int)(rnd01() * 8)) * (t % 2 ? 1 : rnd01() - 0.3)));
        for (size_t i = 0; i < (size_t)k * n; i++)
            b[i] = npk_f32_to_f16((float)((rnd01() - 0.5) * 100));
        for (int o = 0; o < ORDERS; o++) {
            npk_rk_verdict v;
            fp32_matmul(a, b, m, k, n, (enum order)o, NPK_PREC_FP32, c);
            CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, m, k, n, a, b, c, &v), NPK_OK);
            CHECK_EQ(v.outside, 0);
            fp32_matmul(a, b, m, k, n, (enum order)o, NPK_PREC_FP16, h);
            CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP16, m, k, n, a, b, h, &v), NPK_OK);
            CHECK_EQ(v.outside, 0);
        }
        /* the bound is not vacuous: one element moved past it is caught, and named */
        npk_rk_verdict v;
        fp32_matmul(a, b, m, k, n, SEQ, NPK_PREC_FP32, c);
        CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, m, k, n, a, b, c, &v), NPK_OK);
        double s = 0, abs_sum = 0;
        for (uint32_t q = 0; q < k; q++) {
            double p = (double)npk_f16_to_f32(a[(size_t)1 * k + q]) * npk_f16_to_f32(b[(size_t)q * n + 2]);
            s += p;
            abs_sum += fabs(p);
        }
        c[1 * n + 2] = (float)(s + 2 * npk_rk_error_bound(NPK_PREC_FP32, k, s, abs_sum));
        CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, m, k, n, a, b, c, &v), NPK_OK);
        CHECK_EQ(v.outside, 1);
        CHECK_EQ(v.first_outside, 1 * n + 2);
        CHECK(v.max_ratio > 1);
        free(a);
        free(b);
        free(c);
        free(h);
    }
}

/* 2^13*2^13 + 1 - 2^13*2^13 summed left to right in fp32 loses the 1: relative error 1,
 * which a relative fp16 tolerance called wrong; the order-independent bound allows it. */
static void test_cancellation(void)
{
    uint16_t a[3] = {npk_f32_to_f16(8192), npk_f32_to_f16(1), npk_f32_to_f16(-8192)};
    uint16_t b[3] = {npk_f32_to_f16(8192), npk_f32_to_f16(1), npk_f32_to_f16(8192)};
    float c;
    uint16_t h;
    npk_rk_verdict v;
    fp32_matmul(a, b, 1, 3, 1, SEQ, NPK_PREC_FP32, &c);
    CHECK(c == 0);
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 3, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    CHECK_EQ(v.mismatches, 1);
    CHECK(v.max_rel == 1);
    fp32_matmul(a, b, 1, 3, 1, SEQ, NPK_PREC_FP16, &h);
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP16, 1, 3, 1, a, b, &h, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    c = 64; /* beyond 3 * 2^-24 * 2^27 (+ ulps) */
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 3, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
}

static void test_nonfinite(void)
{
    const uint16_t inf = 0x7c00, nan = 0x7e00, one = 0x3c00, zero = 0;
    npk_rk_verdict v;
    float c;
    uint16_t a[2] = {inf, one}, b[2] = {one, one};
    c = INFINITY; /* Inf operand: every order gives +Inf */
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 2, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    c = 1e30f; /* a finite answer where the product is infinite */
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 2, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
    CHECK(isinf(v.max_ratio));
    b[0] = zero; /* Inf * 0 is NaN */
    c = NAN;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 2, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    c = INFINITY;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 2, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
    a[0] = nan;
    b[0] = one;
    c = NAN;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 2, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    /* finite operands: a NaN or Inf result is wrong */
    a[0] = one;
    for (int i = 0; i < 3; i++) {
        c = i == 0 ? NAN : i == 1 ? INFINITY : -INFINITY;
        CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 2, 1, a, b, &c, &v), NPK_OK);
        CHECK_EQ(v.outside, 1);
    }
    /* fp16 output of 256*256 + 256*256 = 131072 overflows: +Inf is the right answer, -Inf not */
    uint16_t big[2] = {npk_f32_to_f16(256), npk_f32_to_f16(256)};
    uint16_t h = inf;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP16, 1, 2, 1, big, big, &h, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    CHECK_EQ(v.mismatches, 0);
    h = 0xfc00;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP16, 1, 2, 1, big, big, &h, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
}

static void test_integers(void)
{
    npk_rk_verdict v;
    int8_t a[4] = {-128, 127, 3, -7}, b[4] = {-128, 2, 5, 1};
    int32_t c = 16384 + 254 + 15 - 7;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_INT8, NPK_PREC_INT32, 1, 4, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside + v.mismatches, 0);
    c++;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_INT8, NPK_PREC_INT32, 1, 4, 1, a, b, &c, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
    CHECK(v.max_abs == 1);
    /* int4 into the int16 accumulator saturates at +32767 (1024 * 7 * 7 = 50176) */
    enum { K4 = 1024 };
    static int8_t a4[K4], b4[K4];
    for (int i = 0; i < K4; i++)
        a4[i] = b4[i] = 7;
    int16_t c16 = 32767;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_INT4, NPK_PREC_INT16, 1, K4, 1, a4, b4, &c16, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    int32_t c32 = 50176;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_INT4, NPK_PREC_INT32, 1, K4, 1, a4, b4, &c32, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
}

static void test_arguments(void)
{
    npk_rk_verdict v;
    float c = 0;
    uint16_t a = 0, b = 0;
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, 1, 1, 1, NULL, &b, &c, &v), NPK_EINVAL);
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_INT32, 1, 1, 1, &a, &b, &c, &v), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not int32");
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_INT8, NPK_PREC_FP32, 1, 1, 1, &a, &b, &c, &v), NPK_EINVAL);
    CHECK_EQ(npk_rk_check_matmul(NPK_PREC_BF16, NPK_PREC_FP32, 1, 1, 1, &a, &b, &c, &v), NPK_EINVAL);
    /* the bound: integers exact, none at K*u >= 1, at least one ulp of the reference */
    CHECK(npk_rk_error_bound(NPK_PREC_INT32, 100, 5, 5) == 0);
    CHECK(isinf(npk_rk_error_bound(NPK_PREC_FP32, 1u << 24, 1, 1)));
    CHECK(npk_rk_error_bound(NPK_PREC_FP32, 1, 1, 0) == 0x1p-23);
    CHECK(npk_rk_error_bound(NPK_PREC_FP32, 1, 0, 0) == 0x1p-149);
    CHECK(npk_rk_error_bound(NPK_PREC_FP16, 1, 1, 0) == 0x1p-10 + 0x1p-11);
}

int main(void)
{
    test_large_operands();
    test_random_orders();
    test_cancellation();
    test_nonfinite();
    test_integers();
    test_arguments();
    return check_done();
}
