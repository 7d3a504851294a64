/* SPDX-License-Identifier: MIT */
/* NPUKIT_TRACE=FILE: the runtime's phases as Chrome / Perfetto trace events (JSON). The host's
 * spans (pack, synth, sync, submit, accumulate) run on the wall clock, one track per core;
 * each job's NPU time runs on a second timeline, the timing model's (labelled a model), placed
 * no earlier than its submit; warm-ups and resets are instant events. */
#ifndef NPUKIT_RK_TRACE_H
#define NPUKIT_RK_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* Whether tracing is on (the first call opens the file NPUKIT_TRACE names). */
bool npk_rk_trace_on(void);
/* A host span [t0_ns, t1_ns) of npk_now_ns() on core's track. */
void npk_rk_trace_host(unsigned core, const char *name, uint64_t t0_ns, uint64_t t1_ns);
/* A job of `tasks` tasks whose modelled NPU time is npu_ns, submitted at host time submit_ns. */
void npk_rk_trace_npu(unsigned core, uint32_t tasks, uint64_t npu_ns, uint64_t submit_ns);
/* An instant event (a warm-up, a reset) on core's host track. */
void npk_rk_trace_instant(unsigned core, const char *name, uint64_t t_ns);
/* Finish the file (also done at exit); later events open nothing. */
void npk_rk_trace_close(void);

#endif
