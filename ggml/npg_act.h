/* SPDX-License-Identifier: MIT */
/* The host arithmetic over every activation element of a call (npg_act.c): the fp16 form's
 * range check, and the int8 row form's digits (a row as int8 with one scale) and its exact
 * int32 sums scaled back to floats. Plain C with no ggml types, so a test can build it alone. Each
 * has a vector body (SSE2 on x86-64) and the scalar one it must match bit for bit (the _scalar
 * forms, kept as the reference; other targets use them). */
#ifndef NPUKIT_GGML_NPG_ACT_H
#define NPUKIT_GGML_NPG_ACT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* int8's symmetric range: -127..127 (-128 is left out so that a row and its negation quantise
 * alike). */
#define NPG_INT8_MAX 127.0f
/* A row whose largest magnitude is below this has inverse scales (127 / max, and 254 / scale
 * for the second digit) beyond float's range: such rows are left to the host. */
#define NPG_INT8_MIN_AMAX 1e-30f
/* The second digit's unit: half of int8's range per half step of the first digit, so that the
 * first digit's rounding error (at most s / 2) fits in -127..127 second-digit units. */
#define NPG_DIGIT2 254.0f

/* Whether a finite value of x (K floats) has a magnitude above `limit` (NaN and infinities are
 * passed over: fp16 holds them). */
bool npg_finite_above(const float *x, int64_t k, float limit);
bool npg_finite_above_scalar(const float *x, int64_t k, float limit);

/* x (K finite floats) as int8 q with one scale: x ~ scale * q, |q| <= 127; false when a value
 * is not finite, or all are so small (largest below 1e-30, not 0) that the inverse scales
 * would overflow. */
bool npg_quantise_row(const float *x, int64_t k, int8_t *q, float *scale);
bool npg_quantise_row_scalar(const float *x, int64_t k, int8_t *q, float *scale);

/* x as two digits with one scale s: q1 as npg_quantise_row gives, q2 = round((x - s q1) 254 / s)
 * clamped to -127..127, so x ~ s (q1 + q2 / 254). False as npg_quantise_row. */
bool npg_int8_digits(const float *x, int64_t k, int8_t *q1, int8_t *q2, float *scale);
bool npg_int8_digits_scalar(const float *x, int64_t k, int8_t *q1, int8_t *q2, float *scale);

/* n results from the int32 sums of a row's two digits (p1, p2: n int32 values each, any
 * alignment): out[j] = (float)(p1[j] + p2[j] / 254) * a_scale * w_scale[j], the sum in double.
 * out may be p1 (in place). */
void npg_int8_rescale_row(const void *p1, const void *p2, size_t n, float a_scale,
                          const float *w_scale, float *out);
void npg_int8_rescale_row_scalar(const void *p1, const void *p2, size_t n, float a_scale,
                                 const float *w_scale, float *out);
#endif
