/* SPDX-License-Identifier: MIT */
/* The verdict on a matmul result: exact integers, and for floats a per-element bound that
 * holds for any order of fp32 summation (see rk_reference.h for the rule it implements). The
 * exact values and sum|a*b| come block by block from npk_rk_ref_blocks (dgemm). */
#include <math.h>

#include "npukit/fp16.h"
#include "npukit/rk_reference.h"
#include "reference_internal.h"

/* A floating output format: its significand bits after the point, the exponent of its smallest
 * normal, and its largest finite value. */
typedef struct float_format {
    npk_rk_prec prec;
    int mant_bits, emin;
    double max_finite;
} float_format;

static const float_format formats[] = {
    {NPK_PREC_FP32, 23, -126, 3.4028234663852886e38},
    {NPK_PREC_FP16, 10, -14, 65504.0},
};

/* fp16 products are exact in fp32 and are summed in fp32 (facts I.1). */
#define ACC_UNIT_ROUNDOFF 0x1p-24

static const float_format *format_of(npk_rk_prec p)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].prec == p)
            return &formats[i];
    return NULL;
}

/* One unit in the last place of |x| in format f (the subnormal spacing below the normals). */
static double ulp(const float_format *f, double x)
{
    int e = 0;
    if (x != 0)
        frexp(fabs(x), &e); /* |x| = g * 2^e, g in [0.5, 1) */
    int top = x == 0 || e - 1 < f->emin ? f->emin : e - 1;
    return ldexp(1.0, top - f->mant_bits);
}

double npk_rk_error_bound(npk_rk_prec out, uint32_t k, double s, double abs_sum)
{
    const float_format *f = format_of(out);
    if (!f)
        return 0; /* integer outputs are exact */
    double ku = k * ACC_UNIT_ROUNDOFF;
    if (ku >= 1)
        return INFINITY;
    double acc = ku / (1 - ku) * abs_sum;
    /* the double reference's own rounding: at most K * 2^-53 * S, counted generously */
    double ref = k * 0x1p-52 * abs_sum;
    double narrow = out == NPK_PREC_FP32 ? 0 : ulp(f, fabs(s) + acc) / 2;
    return acc + ref + narrow + ulp(f, s);
}

/* The exact integer result as the hardware stores it: a 32-bit output wraps, a narrower one
 * (int4's int16 accumulator) saturates at its largest magnitude. */
static double stored_integer(npk_rk_prec out, int64_t s)
{
    unsigned bits = npk_rk_prec_bits(out);
    if (bits < 32) {
        int64_t top = ((int64_t)1 << (bits - 1)) - 1;
        return s > top ? (double)top : s < -top ? (double)-top : (double)s;
    }
    return (int32_t)(uint32_t)s;
}

/* s as the output format stores it: to fp32 first (the accumulator), then to the output. */
static double rounded_to(npk_rk_prec out, double s)
{
    uint8_t buf[4];
    npk_rk_prec_store(out, buf, 0, (float)s);
    return npk_rk_prec_load(out, buf, 0);
}

void npk_rk_judge_element(npk_rk_verdict *v, npk_rk_prec out, uint32_t k, size_t idx, double got,
                          double s, double abs_sum)
{
    const float_format *f = format_of(out);
    double bound = npk_rk_error_bound(out, k, s, abs_sum);
    bool inside;
    double ratio;
    if (!isfinite(s)) {
        /* every order of summation gives the same NaN or Inf */
        inside = isnan(s) ? isnan(got) : got == s;
        ratio = inside ? 0 : INFINITY;
    } else if (!isfinite(got)) {
        /* only an fp16 narrowing that may overflow can give an Inf (of s's sign) */
        inside = f && isinf(got) && (got > 0) == (s > 0) && fabs(s) + bound > f->max_finite;
        ratio = inside ? 0 : INFINITY;
    } else {
        double d = fabs(got - s);
        if (d > v->max_abs)
            v->max_abs = d;
        double r = d / (fabs(s) > 1 ? fabs(s) : 1);
        if (r > v->max_rel)
            v->max_rel = r;
        inside = d <= bound;
        ratio = bound > 0 ? d / bound : d > 0 ? INFINITY : 0;
    }
    if (isfinite(s) && fabs(s) > v->ref_max)
        v->ref_max = fabs(s);
    if (ratio > v->max_ratio)
        v->max_ratio = ratio;
    double want = f ? rounded_to(out, s) : s;
    if (!(got == want || (isnan(got) && isnan(want))))
        v->mismatches++;
    /* blocks arrive in any order: keep the lowest index outside */
    if (!inside && (v->outside++ == 0 || idx < v->first_outside))
        v->first_outside = idx;
}

/* Judge one block of the reference product against the result. */
typedef struct judge_ctx {
    npk_rk_prec out;
    uint32_t k, n;
    const void *got;
    npk_rk_verdict *v;
} judge_ctx;

static void judge_block(void *ctx, uint32_t i0, uint32_t rows, uint32_t j0, uint32_t cols,
                        const double *s, const double *abs_sum, size_t ld)
{
    const judge_ctx *j = ctx;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            size_t idx = (size_t)(i0 + r) * j->n + j0 + c, at = r * ld + c;
            double got = npk_rk_prec_load(j->out, j->got, idx);
            if (abs_sum)
                npk_rk_judge_element(j->v, j->out, j->k, idx, got, s[at], abs_sum[at]);
            else /* integers: the sum is exact (reference_internal.h) */
                npk_rk_judge_element(j->v, j->out, j->k, idx, got,
                                     stored_integer(j->out, (int64_t)s[at]), 0);
        }
}

npk_status npk_rk_check_matmul(npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k, uint32_t n,
                               const void *a, const void *b, const void *got, npk_rk_verdict *v)
{
    if (!a || !b || !got || !v)
        return npk_fail(NPK_EINVAL, "matmul check: NULL operand");
    *v = (npk_rk_verdict){0, 0, 0, 0, 0, 0, (uint64_t)m * n};
    if (in == NPK_PREC_FP16) {
        if (out != NPK_PREC_FP32 && out != NPK_PREC_FP16)
            return npk_fail(NPK_EINVAL, "matmul check: fp16 inputs give fp32 or fp16, not %s",
                            npk_rk_prec_name(out) ? npk_rk_prec_name(out) : "?");
    } else {
        if (in != NPK_PREC_INT8 && in != NPK_PREC_INT4)
            return npk_fail(NPK_EINVAL, "matmul check: inputs must be fp16, int8 or int4");
        if (out != NPK_PREC_INT32 && out != NPK_PREC_INT16)
            return npk_fail(NPK_EINVAL, "matmul check: integer inputs give int32 or int16, not %s",
                            npk_rk_prec_name(out) ? npk_rk_prec_name(out) : "?");
    }
    judge_ctx j = {out, k, n, got, v};
    return npk_rk_ref_blocks(in, m, k, n, a, b, in == NPK_PREC_FP16, judge_block, &j);
}
