/* SPDX-License-Identifier: MIT */
/* The memory mover model (mm_mover, spec §3, facts §1.10, §2.5), standalone: it takes cfg
 * pulses (client offset, value) exactly as the AUX_CFG window hands them over, reaches memory
 * through a 32-byte-word interface, and reports AUX_STAT's mover fields. One transfer per cycle.
 *
 * What is live and what is latched: the walkers' registers are the walker's own (a HDR, WINDOW or
 * AXIS pulse commits into it immediately, even mid-move — which is what a pre-strobe window's
 * zeroed neighbours do to a running move); mode, width, flags, immediate, seed, index and gather
 * registers are sampled at GO.
 *
 * Timing is a row per mode (mover_timing.c, fitted to the RTL over sizes): a start after GO, a
 * cost per index word fetched (gather), an extra cost at each gather row's first word, a cost
 * per destination word (or transform beat) that drops to a streaming rate once a long move is
 * under way, and the drain until the last write's response. */
#ifndef NPUKIT_KTSIM_MOVER_H
#define NPUKIT_KTSIM_MOVER_H

#include <stdbool.h>
#include <stdint.h>

#include "fault.h"
#include "xform_bank.h"
#include "npukit/kt_mover_hw.h"
#include "trace.h"

typedef enum ksim_mem_result {
    KSIM_MEM_OK = 0,
    KSIM_MEM_ERROR = 1, /* an AXI error response (SLVERR / DECERR) */
    KSIM_MEM_RETRY = 2, /* not accepted this cycle (back-pressure): try again next cycle */
} ksim_mem_result;

/* Memory as the mover's AXI master sees it: whole 32-byte words at 40-bit addresses. */
typedef struct ksim_mover_mem {
    ksim_mem_result (*read)(void *ctx, uint64_t addr, uint8_t out[KT_MV_WORD]);
    ksim_mem_result (*write)(void *ctx, uint64_t addr, const uint8_t in[KT_MV_WORD]);
    /* Optional: true once every write accepted so far has its response — a remote write is
     * answered when it leaves over the link, and the mover stays busy until then. */
    bool (*drained)(void *ctx);
    void *ctx;
} ksim_mover_mem;



typedef struct ksim_mover_timing {
    uint8_t mode;        /* KT_MV_COPY ... */
    uint32_t setup;      /* cycles from GO to the first transfer */
    uint32_t index_word; /* gather: cycles per index word fetched */
    uint32_t row;        /* gather: extra cycles at each row's first word */
    uint32_t word;       /* cycles per destination word (transform: per beat in or word out) */
    /* Past `stream_after` words a long move streams: each further word costs
     * stream_num / stream_den cycles (carried as a fraction; stream_den 0: never). */
    uint32_t stream_after, stream_num, stream_den;
    uint32_t drain;      /* cycles from the last transfer until busy drops (>= 1) */
    const char *source;  /* where the figure comes from */
} ksim_mover_timing;
/* The row of a mode that runs (NULL for TRANSPOSE and the undefined modes, which fault at GO). */
const ksim_mover_timing *ksim_mover_timing_row(unsigned mode);
/* The flags the rows were measured with (the driver's: write coalescing, cap 128). */
enum { KSIM_MOVER_ROW_FLAGS = KT_MV_FLAG_WCOAL };
/* Cycles a move of `words` destination words takes beyond its row under CTRL flags `flags` (may
 * be negative: a cap below 128 pipelines a short move better), given the contiguous runs of the
 * source and destination walks in words. 0 for the modes whose bursts the flags do not change. */
int64_t ksim_mover_flags_delta(unsigned mode, uint8_t flags, uint64_t words, unsigned src_run,
                               unsigned dst_run);

typedef struct ksim_mover ksim_mover;

ksim_mover *ksim_mover_create(const ksim_mover_mem *mem, ksim_fault_fn model_fault, void *user);
void ksim_mover_destroy(ksim_mover *m);
void ksim_mover_reset(ksim_mover *m);
void ksim_mover_set_mem(ksim_mover *m, const ksim_mover_mem *mem);
/* Trace each move on track t: a span from GO to busy dropping (mode, words moved, fault), and a
 * GO refused at once as an instant. */
void ksim_mover_set_trace(ksim_mover *m, ksim_track t);

/* One cfg pulse: `offset` is the client offset (the register is offset & ~7). */
void ksim_mover_cfg(ksim_mover *m, uint8_t offset, uint64_t value);
/* One clock cycle. */
void ksim_mover_tick(ksim_mover *m);
bool ksim_mover_busy(const ksim_mover *m);
/* How many of its next ticks only count down (UINT64_MAX while idle), and n of them applied. */
uint64_t ksim_mover_quiet(const ksim_mover *m);
void ksim_mover_skip(ksim_mover *m, uint64_t cycles);
/* AUX_STAT's mover fields: [63:40] moves completed, [7:4] fault, [0] busy. */
uint64_t ksim_mover_stat(const ksim_mover *m);
/* The transform bank on the mover's read-return path (xform_bank.h). */
ksim_xform_bank *ksim_mover_bank(ksim_mover *m);
/* The mover's own AXI traffic (words read and written), for tests. */
void ksim_mover_traffic(const ksim_mover *m, uint64_t *reads, uint64_t *writes);
/* The walker registers as they stand (sel 0 source, 1 destination). */
void ksim_mover_walker(const ksim_mover *m, unsigned sel, kt_mv_walker *out);

#endif
