/* SPDX-License-Identifier: MIT */
/* The matmul cluster's emitting sweep (GEMM with `emit`, src/ktsim/unit_mat.c): its sub-tiles
 * leave through the write-back port while the unit goes on taking instructions, as upstream's
 * mx_cluster_cu does it. Sub-tile t becomes a result when the sweep's last K block issues its
 * command (ADD_EMIT); the write port collects the results one a cycle into bursts of 8, in order,
 * and sends each burst as a write request and a data word a cycle to addr + 32 t. A burst is handed
 * to the sender `hand_lat` cycles after its last sub-tile's command (one more for the short last
 * burst, which the port closes only once nothing is left outstanding), and no sooner than a cycle
 * after the previous burst's last word. The values are the sub-tiles' FP16 words as the sweep left
 * them, taken when it starts (the sweep's arithmetic is done then; a later sweep may rewrite the
 * tile while these are still leaving, as the RTL's queue holds them). */
#ifndef NPUKIT_KTSIM_MAT_EMIT_H
#define NPUKIT_KTSIM_MAT_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_flit.h"
#include "npukit/ktsim_unit.h"

enum { MG_WBURST = 8, MG_WORD_U64 = 4 };

typedef struct mg_emit {
    uint64_t (*word)[MG_WORD_U64]; /* the sub-tiles' FP16 words, cap of them */
    uint32_t cap;
    uint32_t total, sent; /* sub-tiles this sweep emits, and whose word has left */
    uint32_t burst_left;
    uint64_t base;      /* destination byte address of sub-tile 0 */
    uint64_t now, t0;   /* the engine's clock; the cycle the sweep's first command issued */
    uint32_t first_cmd; /* the sweep's command index of the first ADD_EMIT */
    uint32_t pace;      /* cycles from one command to the next */
    uint32_t hand_lat;  /* a full burst's last command to its hand to the sender */
    uint64_t free_at;   /* the sender's next possible hand */
    enum { EM_IDLE, EM_WAIT, EM_REQ, EM_DATA } st;
} mg_emit;

/* A write request for `len` (1..8) words at addr, from the unit at `self` to the memory port. */
void mg_write_req(kt_flit *f, kt_coord mem, kt_coord self, uint64_t addr, uint32_t len);
/* A write data word (`last` ends the burst). */
void mg_write_data(kt_flit *f, kt_coord mem, kt_coord self, const uint64_t w[MG_WORD_U64],
                   bool last);

/* An emitting sweep starting now: `total` sub-tiles (their words already in e->word) to `base`,
 * the first ADD_EMIT the sweep's command `first_cmd`, commands `pace` cycles apart. */
void mg_emit_start(mg_emit *e, uint64_t base, uint32_t total, uint32_t first_cmd, uint32_t pace,
                   uint32_t hand_lat);
static inline bool mg_emit_busy(const mg_emit *e) { return e->st != EM_IDLE; }
/* One cycle: the sender's flit, if any. Inline for the idle sender, whose cycle only moves its
 * clock (most of the cluster's cycles); mg_emit_step is the busy sender's. */
void mg_emit_step(mg_emit *e, ksim_shell *sh, kt_coord mem);
static inline void mg_emit_tick(mg_emit *e, ksim_shell *sh, kt_coord mem)
{
    if (mg_emit_busy(e))
        mg_emit_step(e, sh, mem);
    else
        e->now++;
}
/* How many of its next ticks only move its clock (UINT64_MAX: idle), and n such ticks at once. */
uint64_t mg_emit_quiet_busy(const mg_emit *e);
static inline uint64_t mg_emit_quiet(const mg_emit *e)
{
    return mg_emit_busy(e) ? mg_emit_quiet_busy(e) : UINT64_MAX;
}
void mg_emit_skip(mg_emit *e, uint64_t n);

#endif
