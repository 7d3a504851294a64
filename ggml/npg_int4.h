/* SPDX-License-Identifier: MIT */
/* The int4 weight form's host arithmetic (npg_int4.c), measured by bench_ggml part 2 against
 * the int8 row form and ggml's CPU backend (docs/ggml.md, "The int4 form"). The NPU multiplies
 * int4 x int4 into int16 partials that stay exact while a task's K is at most 511
 * (npk_rk_int4_k_max: 511 x 64 <= 32767), so weights and activations carry a scale per K slice
 * of at most that length and every slice's exact integer sum is scaled on the host:
 *
 *   weights      w[n][k] ~ ws[n][g] * qw[n][k],          qw in [-8, 7], g = k / slice;
 *   activations  x[m][k] ~ xs[m][g] * sum_d qd[m][k] / 14^d,  qd in [-7, 7], d = 0..digits-1;
 *   result       y[m][n] = sum_g xs[m][g] ws[n][g] sum_d P[d][g][m][n] / 14^d,
 *                P[d][g] = sum over k in slice g of qd[m][k] qw[n][k]  (exact integers).
 *
 * Plain C with no ggml types (the runtime's, npukit/rk.h), so a test can build it alone. */
#ifndef NPUKIT_GGML_NPG_INT4_H
#define NPUKIT_GGML_NPG_INT4_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk.h"

/* The weights' int4 range: all of it, -8..7, the larger side of a slice at -8 (ggml's Q4_0
 * rule, so a Q4_0 block held in a slice of 32 comes back exactly). */
#define NPG_INT4_W_MIN (-8)
#define NPG_INT4_W_MAX 7
/* An activation digit's range: symmetric, -7..7, so that a row and its negation quantise alike
 * and the next digit's unit can be 1/14 of this one's (a digit's rounding error, at most half
 * its unit, is then at most 7 units of the next). */
#define NPG_INT4_DIGIT_MAX 7
#define NPG_INT4_DIGIT_BASE 14.0
/* The most activation digits the form runs (each digit is another row of the matmul). */
#define NPG_INT4_MAX_DIGITS 4

/* K slices of `slice` elements over K: ceil(K / slice). */
int64_t npg_int4_slices(int64_t k, int64_t slice);

/* A row w (K floats) as int4 q (int8_t in [-8, 7]) with one signed scale per slice:
 * w ~ scale[g] q. A slice of zeros has scale 0. False when a value is not finite. */
bool npg_int4_weights(const float *w, int64_t k, int64_t slice, int8_t *q, float *scale);

/* A row x (K floats) as `digits` (1..NPG_INT4_MAX_DIGITS) int4 digits per element with one
 * scale per slice: digit d of element i at q[d K + i], x ~ scale[g] sum_d q_d / 14^d,
 * |q_d| <= 7. False when a value is not finite or digits is out of range. */
bool npg_int4_digits(const float *x, int64_t k, int64_t slice, int digits, int8_t *q, float *scale);

/* A quantised row back as floats: out[i] = scale[g] sum_d q[d K + i] / 14^d (weights: one
 * digit). The value the NPU's integer sums stand for, element by element. */
void npg_int4_value(const int8_t *q, const float *scale, int64_t k, int64_t slice, int digits,
                    float *out);

/* A token's digits (q: digits rows of K, as npg_int4_digits writes them, with its `groups`
 * slice scales) laid out as rows of one matmul of digits x M rows: digit d of token `token` at
 * row d M + token, its scales (row_scale: [digits M][groups]) the slice's over 14^d, so that
 * every row's partial sums scale alike and the digits' results add up to the token's. */
void npg_int4_digit_rows(const int8_t *q, const float *scale, int64_t token, int64_t m, int64_t k,
                         int64_t groups, int digits, int8_t *rows, float *row_scale);

/* The runtime's per-group description of int4 weights qw [N][K] (values -8..7, B transposed)
 * with scales ws [N][groups], a group per slice, for calls of m_hint rows. */
npk_rk_qweights_desc npg_int4_desc(const int8_t *qw, const float *ws, int64_t k, int64_t n,
                                   int64_t slice, int64_t m_hint);

/* One result from the exact integer sums of a (token, weight row) pair: p[d * groups + g] the
 * sum of slice g's digit-d products, xs[g] and ws[g] the two scales. Summed in double: the
 * digits' sums are exact integers, each slice's weighting rounds once. */
float npg_int4_combine(const int32_t *p, int digits, int64_t groups, const float *xs,
                       const float *ws);
#endif
