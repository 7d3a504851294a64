/* SPDX-License-Identifier: MIT */
/* The int4 weight form's host arithmetic (npg_int4.h). */
#include <math.h>
#include <string.h>

#include "npg_int4.h"

int64_t npg_int4_slices(int64_t k, int64_t slice)
{
    return slice > 0 ? (k + slice - 1) / slice : 0;
}

static int8_t clamp_to(double v, int lo, int hi) { return (int8_t)(v < lo ? lo : v > hi ? hi : v); }

bool npg_int4_weights(const float *w, int64_t k, int64_t slice, int8_t *q, float *scale)
{
    if (slice <= 0)
        return false;
    for (int64_t g = 0, k0 = 0; k0 < k; g++, k0 += slice) {
        const int64_t k1 = k0 + slice < k ? k0 + slice : k;
        float pos = 0, neg = 0; /* the largest value above and below zero, as magnitudes */
        for (int64_t i = k0; i < k1; i++) {
            if (!isfinite(w[i]))
                return false;
            pos = fmaxf(pos, w[i]);
            neg = fmaxf(neg, -w[i]);
        }
        /* the larger side at -8: a negative scale when it is the positive one */
        const float s = neg >= pos ? neg / -NPG_INT4_W_MIN : -pos / -NPG_INT4_W_MIN;
        scale[g] = s;
        for (int64_t i = k0; i < k1; i++)
            q[i] = s != 0 ? clamp_to(rint((double)w[i] / s), NPG_INT4_W_MIN, NPG_INT4_W_MAX) : 0;
    }
    return true;
}

bool npg_int4_digits(const float *x, int64_t k, int64_t slice, int digits, int8_t *q, float *scale)
{
    if (slice <= 0 || digits < 1 || digits > NPG_INT4_MAX_DIGITS)
        return false;
    for (int64_t g = 0, k0 = 0; k0 < k; g++, k0 += slice) {
        const int64_t k1 = k0 + slice < k ? k0 + slice : k;
        float amax = 0;
        for (int64_t i = k0; i < k1; i++) {
            if (!isfinite(x[i]))
                return false;
            amax = fmaxf(amax, fabsf(x[i]));
        }
        const double s = (double)amax / NPG_INT4_DIGIT_MAX;
        scale[g] = (float)s;
        const double s_used = scale[g]; /* the digits are of the scale as stored */
        for (int64_t i = k0; i < k1; i++) {
            /* each digit rounds what the ones before left, in double: exact enough that the
             * last digit's error is its own rounding */
            double rest = s_used > 0 ? x[i] / s_used : 0, unit = 1;
            for (int d = 0; d < digits; d++, unit /= NPG_INT4_DIGIT_BASE) {
                const int8_t v =
                    clamp_to(rint(rest / unit), -NPG_INT4_DIGIT_MAX, NPG_INT4_DIGIT_MAX);
                q[(int64_t)d * k + i] = v;
                rest -= v * unit;
            }
        }
    }
    return true;
}

void npg_int4_value(const int8_t *q, const float *scale, int64_t k, int64_t slice, int digits,
                    float *out)
{
    for (int64_t i = 0; i < k; i++) {
        double v = 0, unit = 1;
        for (int d = 0; d < digits; d++, unit /= NPG_INT4_DIGIT_BASE)
            v += q[(int64_t)d * k + i] * unit;
        out[i] = (float)(v * scale[i / slice]);
    }
}

void npg_int4_digit_rows(const int8_t *q, const float *scale, int64_t token, int64_t m, int64_t k,
                         int64_t groups, int digits, int8_t *rows, float *row_scale)
{
    double unit = 1;
    for (int d = 0; d < digits; d++, unit /= NPG_INT4_DIGIT_BASE) {
        const int64_t row = d * m + token;
        memcpy(rows + row * k, q + d * k, (size_t)k);
        for (int64_t g = 0; g < groups; g++)
            row_scale[row * groups + g] = (float)(scale[g] * unit);
    }
}

npk_rk_qweights_desc npg_int4_desc(const int8_t *qw, const float *ws, int64_t k, int64_t n,
                                   int64_t slice, int64_t m_hint)
{
    return (npk_rk_qweights_desc){.in = NPK_PREC_INT4,
                                  .k = (uint32_t)k,
                                  .n = (uint32_t)n,
                                  .b = qw,
                                  .layout = NPK_RK_TRANSPOSED,
                                  .group = (uint32_t)slice,
                                  .scale = ws,
                                  .scale_count = (uint64_t)(n * npg_int4_slices(k, slice)),
                                  .m_hint = (uint32_t)m_hint};
}

float npg_int4_combine(const int32_t *p, int digits, int64_t groups, const float *xs,
                       const float *ws)
{
    double y = 0;
    for (int64_t g = 0; g < groups; g++) {
        double sum = 0, unit = 1;
        for (int d = 0; d < digits; d++, unit /= NPG_INT4_DIGIT_BASE)
            sum += p[d * groups + g] * unit;
        y += sum * ((double)xs[g] * ws[g]);
    }
    return (float)y;
}
