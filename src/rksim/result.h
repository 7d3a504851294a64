/* SPDX-License-Identifier: MIT */
/* The outcome of one core's part of a job or of one operation, and the one way every part of
 * the simulator records a failure in it. */
#ifndef NPUKIT_RKSIM_RESULT_H
#define NPUKIT_RKSIM_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rksim.h"

/* The result of one core's part of a job, or of one operation. */
typedef struct rksim_core_result {
    rksim_outcome outcome;
    uint32_t completed; /* tasks whose completion the PC counted */
    uint32_t ops;
    uint32_t hazards; /* RKSIM_HZ_BIT of each hazard that fired */
    uint64_t fault_iova;
    double model_us;
    char message[200];
} rksim_core_result;

/* printf into r->message and set the outcome; returns false for use in `return fail(...)`. */
bool rksim_result_fail(rksim_core_result *r, rksim_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A DMA access of `len` bytes at `iova` that no live buffer holds (what: "feature read", ...):
 * the fault, its address, and the one message every engine gives for it; returns false. */
bool rksim_result_dma_fault(rksim_core_result *r, const char *what, uint64_t iova, uint64_t len);

#endif
