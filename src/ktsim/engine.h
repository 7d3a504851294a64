/* SPDX-License-Identifier: MIT */
/* The host control-program engine model (main_orch, spec §5, facts §2.3), standalone: an AXI
 * slave holding NCMD commands of four fields, and an AXI master that executes them — WR, POLL
 * (retry every POLL_IVL + 1 cycles, no timeout), DONE — over read/write callbacks. No abort. */
#ifndef NPUKIT_KTSIM_ENGINE_H
#define NPUKIT_KTSIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/status.h"
#include "trace.h"

enum {
    KSIM_ENGINE_NCMD = 128,     /* command slots; the PC is 7 bits and wraps */
    KSIM_ENGINE_POLL_IVL = 31,  /* cycles between poll reads, plus one */
    KSIM_ENGINE_BYTES = 0x2000, /* the decode covers addr[15:12] == 0 and 1 */
};

/* The engine's AXI master: a failed access is ignored by the RTL (bresp/rresp unread). */
typedef struct ksim_engine_bus {
    npk_status (*read64)(void *ctx, uint64_t addr, uint64_t *value);
    npk_status (*write64)(void *ctx, uint64_t addr, uint64_t value);
    void *ctx;
} ksim_engine_bus;

typedef struct ksim_engine ksim_engine;

ksim_engine *ksim_engine_create(const ksim_engine_bus *bus, unsigned poll_ivl, unsigned addr_bits);
void ksim_engine_destroy(ksim_engine *e);
void ksim_engine_reset(ksim_engine *e);
/* Trace on track t: each program from GO to its end, each POLL from its first read to the one
 * that matched, each WR as an instant. */
void ksim_engine_set_trace(ksim_engine *e, ksim_track t);

/* The slave side (single beat; strobes ignored). */
void ksim_engine_write(ksim_engine *e, uint32_t off, uint64_t value);
uint64_t ksim_engine_read(const ksim_engine *e, uint32_t off);
/* One clock cycle. */
void ksim_engine_tick(ksim_engine *e);
bool ksim_engine_busy(const ksim_engine *e);
/* Ticks ahead that only count down a POLL's retry interval (UINT64_MAX when idle), and n of them
 * applied. */
uint64_t ksim_engine_quiet(const ksim_engine *e);
void ksim_engine_skip(ksim_engine *e, uint64_t cycles);

#endif
