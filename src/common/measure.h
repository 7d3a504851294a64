/* SPDX-License-Identifier: MIT */
/* Measuring: a monotonic clock and the median the benchmarks report (noisy machines: compare
 * medians of runs measured side by side). */
#ifndef NPUKIT_MEASURE_H
#define NPUKIT_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t npk_now_ns(void);
/* Nanoseconds of CPU time the calling thread has used: a rate per CPU second is what a busy
 * machine leaves comparable, where other processes stretch the wall clock. */
uint64_t npk_thread_cpu_ns(void);
/* Milliseconds of the monotonic clock. */
double npk_now_ms(void);
/* Median of v[0..n) (sorts v in place); 0 for n == 0. */
double npk_median(double *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif
