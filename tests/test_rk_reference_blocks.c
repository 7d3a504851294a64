/* SPDX-License-Identifier: MIT */
/* The blocked reference (dgemm) against plain scalar loops written here: the reference matmul
 * must give the same bits, and the verdict the same counts and first failing index, on small
 * and panel-crossing shapes. The operands are chosen so every double sum is exact (fp16 values
 * j/1024 with |j| < 2048: products are multiples of 2^-20 below 4, sums below 2^14, so no fp16
 * output overflows either), which makes the result independent of the summation order a BLAS
 * picks. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk_reference.h"

static uint64_t state = 7;
static uint32_t rnd(uint32_t span)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((state >> 33) % span);
}

/* s and sum|a*b| by the i-k-j loop in double (fp16) or int64 (integers). */
static void scalar_product(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, const void *a,
                           const void *b, double *s, double *abs_sum)
{
    for (uint32_t i = 0; i < m; i++) {
        for (uint32_t j = 0; j < n; j++)
            s[(size_t)i * n + j] = abs_sum[(size_t)i * n + j] = 0;
        for (uint32_t p = 0; p < k; p++)
            for (uint32_t j = 0; j < n; j++) {
                double x, y;
                if (in == NPK_PREC_FP16) {
                    x = npk_f16_to_f32(((const uint16_t *)a)[(size_t)i * k + p]);
                    y = npk_f16_to_f32(((const uint16_t *)b)[(size_t)p * n + j]);
                } else {
                    x = ((const int8_t *)a)[(size_t)i * k + p];
                    y = ((const int8_t *)b)[(size_t)p * n + j];
                }
                s[(size_t)i * n + j] += x * y;
                abs_sum[(size_t)i * n + j] += fabs(x * y);
            }
    }
}

static void fill(npk_rk_prec in, void *v, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (in == NPK_PREC_FP16)
            ((uint16_t *)v)[i] = npk_f32_to_f16(((float)rnd(4095) - 2047) / 1024);
        else if (in == NPK_PREC_INT8)
            ((int8_t *)v)[i] = (int8_t)((int)rnd(256) - 128);
        else
            ((int8_t *)v)[i] = (int8_t)((int)rnd(16) - 8);
    }
}

static void one_shape(npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k, uint32_t n)
{
    size_t eb = in == NPK_PREC_FP16 ? 2 : 1, mn = (size_t)m * n;
    void *a = malloc((size_t)m * k * eb + 1), *b = malloc((size_t)k * n * eb + 1);
    double *s = malloc(mn * sizeof *s), *abs_sum = malloc(mn * sizeof *abs_sum);
    uint32_t *c = malloc(mn * 4), *want = malloc(mn * 4);
    fill(in, a, (size_t)m * k);
    fill(in, b, (size_t)k * n);
    scalar_product(in, m, k, n, a, b, s, abs_sum);
    /* the reference matmul: one rounding of the exact sum */
    CHECK_EQ(npk_rk_reference_matmul(in, out, m, k, n, a, b, c), NPK_OK);
    uint64_t differ = 0;
    for (size_t i = 0; i < mn; i++) {
        uint32_t w;
        if (out == NPK_PREC_FP32) {
            float f = (float)s[i];
            memcpy(&w, &f, 4);
            differ += c[i] != w;
        } else if (out == NPK_PREC_FP16) {
            differ += ((uint16_t *)c)[i] != npk_f32_to_f16((float)s[i]);
        } else {
            differ += (int32_t)c[i] != (int32_t)(uint32_t)(int64_t)s[i];
        }
    }
    CHECK_EQ(differ, 0);
    /* the verdict: a result with every 7th element pushed 1.5 bounds away (integers: by one) */
    npk_rk_prec got_prec = in == NPK_PREC_FP16 ? out : NPK_PREC_INT32;
    uint64_t outside = 0, first = mn;
    double max_abs = 0;
    for (size_t i = 0; i < mn; i++) {
        bool push = (i * 5 + 3) % 7 == 0;
        double bound = npk_rk_error_bound(got_prec, k, s[i], abs_sum[i]);
        double g = s[i] + (push ? (in == NPK_PREC_FP16 ? 1.5 * bound : 1) : 0);
        if (got_prec == NPK_PREC_FP32)
            ((float *)want)[i] = (float)g;
        else if (got_prec == NPK_PREC_FP16)
            ((uint16_t *)want)[i] = npk_f32_to_f16((float)g);
        else
            ((int32_t *)want)[i] = (int32_t)(int64_t)g;
        double back = got_prec == NPK_PREC_FP32   ? ((float *)want)[i]
                      : got_prec == NPK_PREC_FP16 ? npk_f16_to_f32(((uint16_t *)want)[i])
                                                  : ((int32_t *)want)[i];
        double d = fabs(back - s[i]);
        max_abs = d > max_abs ? d : max_abs;
        if (d > bound) {
            outside++;
            first = first < i ? first : i;
        }
    }
    npk_rk_verdict v;
    CHECK_EQ(npk_rk_check_matmul(in, got_prec, m, k, n, a, b, want, &v), NPK_OK);
    if (v.outside != outside)
        fprintf(stderr, "shape %s->%s %ux%ux%u\n", npk_rk_prec_name(in), npk_rk_prec_name(out), m, k, n);
    CHECK_EQ(v.outside, outside);
    CHECK_EQ(v.first_outside, first);
    CHECK(v.max_abs == max_abs);
    CHECK(outside > 0 || mn < 7);
    free(a), free(b), free(s), free(abs_sum), free(c), free(want);
}

int main(void)
{
    /* small and odd shapes, then shapes that cross the 2^20-double blocks in both N and M */
    const uint32_t shapes[][3] = {{1, 1, 1}, {1, 32, 1}, {3, 5, 7}, {17, 33, 65},
                                  {64, 96, 48}, {5, 4096, 300}, {300, 4096, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        one_shape(NPK_PREC_FP16, NPK_PREC_FP32, shapes[s][0], shapes[s][1], shapes[s][2]);
        one_shape(NPK_PREC_FP16, NPK_PREC_FP16, shapes[s][0], shapes[s][1], shapes[s][2]);
        one_shape(NPK_PREC_INT8, NPK_PREC_INT32, shapes[s][0], shapes[s][1], shapes[s][2]);
        one_shape(NPK_PREC_INT4, NPK_PREC_INT32, shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    return check_done();
}
