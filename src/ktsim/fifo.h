/* SPDX-License-Identifier: MIT */
/* A bounded FIFO of flits, as every queue in the model is (router inputs, instruction and
 * receive FIFOs, TX/RX). Each entry remembers the cycle it arrived, so a consumer can model
 * the one-cycle registered latency of a hardware FIFO. Header-only: it is tiny. */
#ifndef NPUKIT_KTSIM_FIFO_H
#define NPUKIT_KTSIM_FIFO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "npukit/kt_flit.h"

typedef struct ksim_fifo {
    kt_flit *slot;
    uint64_t *arrived;
    unsigned depth, head, count;
} ksim_fifo;

static inline bool ksim_fifo_init(ksim_fifo *q, unsigned depth)
{
    q->slot = calloc(depth ? depth : 1, sizeof *q->slot);
    q->arrived = calloc(depth ? depth : 1, sizeof *q->arrived);
    q->depth = depth;
    q->head = q->count = 0;
    return q->slot && q->arrived;
}

static inline void ksim_fifo_free(ksim_fifo *q)
{
    free(q->slot);
    free(q->arrived);
    q->slot = NULL;
    q->arrived = NULL;
}

static inline bool ksim_fifo_full(const ksim_fifo *q) { return q->count >= q->depth; }
static inline bool ksim_fifo_empty(const ksim_fifo *q) { return q->count == 0; }

static inline bool ksim_fifo_push(ksim_fifo *q, const kt_flit *f, uint64_t cycle)
{
    if (ksim_fifo_full(q))
        return false;
    unsigned i = q->head + q->count; /* < 2 * depth: a compare, not a division */
    if (i >= q->depth)
        i -= q->depth;
    q->slot[i] = *f;
    q->arrived[i] = cycle;
    q->count++;
    return true;
}

/* The head entry (valid only when not empty). */
static inline const kt_flit *ksim_fifo_head(const ksim_fifo *q) { return &q->slot[q->head]; }
static inline uint64_t ksim_fifo_head_arrived(const ksim_fifo *q) { return q->arrived[q->head]; }

/* The head is visible to a consumer from the cycle after it arrived. */
static inline bool ksim_fifo_ready(const ksim_fifo *q, uint64_t cycle)
{
    return q->count && q->arrived[q->head] < cycle;
}

/* The same, for a consumer behind `extra` more register stages (an async FIFO's crossing). */
static inline bool ksim_fifo_ready_after(const ksim_fifo *q, uint64_t cycle, unsigned extra)
{
    return q->count && q->arrived[q->head] + extra < cycle;
}

static inline void ksim_fifo_pop(ksim_fifo *q)
{
    if (!q->count)
        return;
    if (++q->head == q->depth)
        q->head = 0;
    q->count--;
}

static inline void ksim_fifo_clear(ksim_fifo *q) { q->head = q->count = 0; }

#endif
