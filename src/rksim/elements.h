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

/* Element j < n of the output array at base (precision p) becomes cf[j] (float results) or
 * ci[j] (integer results), or 0 when both are NULL, as npk_rk_prec_store would store it. */
void rksim_store_run(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n);

#endif
