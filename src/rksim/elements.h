/* SPDX-License-Identifier: MIT */
/* Runs of packed operand elements to floats and results to packed outputs, a run at a time:
 * the per-element conversions of npk_rk_prec_load/store dominate large simulated matmuls. Both
 * are bit for bit what those functions give. */
#ifndef NPUKIT_RKSIM_ELEMENTS_H
#define NPUKIT_RKSIM_ELEMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_types.h"

/* dst[j] = npk_rk_prec_load(p, base, first + j) for j < n; fp16 bit for bit as npk_f16_to_f32
 * (signalling NaNs keep their payload). */
void rksim_load_run(npk_rk_prec p, const uint8_t *base, size_t first, size_t n, float *dst);

/* `runs` runs of `run` elements, consecutive from element 0 at src, to dst + r * stride: run r
 * is rksim_load_run(p, src, r * run, run, dst + r * stride). fp16, int8 and int4 have vector
 * paths chosen at run time (npk_dense_use_avx2, F16C); src may sit at any byte. */
void rksim_load_runs(npk_rk_prec p, const uint8_t *src, size_t run, size_t runs, float *dst,
                     size_t stride);

/* Element j < n of the output array at base (precision p) becomes cf[j] (float results) or
 * ci[j] (integer results), or 0 when both are NULL, as npk_rk_prec_store would store it. */
void rksim_store_run(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n);

/* rows runs of `lanes` results, row r from cf/ci + r * src_stride to base + r * dst_stride:
 * rksim_store_run of each row, integer outputs from floats through a vector path. */
void rksim_store_rows(npk_rk_prec p, uint8_t *base, size_t dst_stride, const float *cf,
                      const int64_t *ci, size_t src_stride, size_t lanes, size_t rows);

/* The index of the first of v[0..n) outside [-lim, lim] (NaN included), n when none is. */
size_t rksim_first_outside(const float *v, size_t n, float lim);

#endif
