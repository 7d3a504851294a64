/* SPDX-License-Identifier: MIT */
/* KohakuTPU memory mover, driver side (spec §3, facts §1.10).
 *
 * A move is data: two walkers (source and destination), a mode, an element width, flags, an
 * immediate, a PRNG seed and an optional index buffer. kt_mv_build turns it into the ordered
 * (client offset, value) writes the mover's cfg port takes, ending with CTRL|GO; kt_mv_validate
 * refuses, before anything is issued, every move the hardware would fault on or would run as an
 * illegal burst. Issuing is one whole 64-bit write per register into AUX_CFG (0x800 + offset),
 * then a poll of AUX_STAT until busy drops; a fault is reported by name.
 *
 * The mover walks 32-byte words: every count counts words, every address and stride is a byte
 * quantity that must be a multiple of 32.
 */
#ifndef NPUKIT_KT_MOVER_H
#define NPUKIT_KT_MOVER_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_mover_hw.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kt_mv_move {
    kt_mv_mode mode;
    kt_mv_width width;
    uint8_t flags;
    uint32_t imm;          /* fill value and padding */
    uint64_t seed;         /* GENERATE key */
    kt_mv_walker src, dst; /* the destination walker defines the iteration space */
    uint64_t index_base;   /* GATHER: the index buffer in device memory (32-byte aligned) */
    uint16_t index_count;
    const uint32_t *indices; /* GATHER: the index values, when known, to check the source range */
    uint32_t gather_pitch;   /* bytes between the rows two indices name */
    uint16_t gather_words;   /* words fetched per index */
} kt_mv_move;

typedef struct kt_mv_write {
    uint8_t offset; /* client offset inside AUX_CFG */
    uint64_t value;
} kt_mv_write;

/* A one-dimensional walker of `words` contiguous words at `base` (the common case). */
NPUKIT_API kt_mv_walker kt_mv_linear(uint64_t base, uint16_t words);
/* Ready-made moves (validated by kt_mv_build like any other). */
NPUKIT_API kt_mv_move kt_mv_copy(uint64_t dst, uint64_t src, uint16_t words);
NPUKIT_API kt_mv_move kt_mv_fill(uint64_t dst, uint16_t words, kt_mv_width width, uint32_t value);
NPUKIT_API kt_mv_move kt_mv_generate(uint64_t dst, uint16_t words, uint64_t seed);
/* A converting move (mode 5) of `entries` contiguous entries through transform slot `xform_id`
 * (kt_mv_slot_find: its IN beats in, OUT words out each), the occupant's mode `xform_mode`: the
 * source walks entries x IN words, the destination entries of OUT words each, back to back. */
NPUKIT_API kt_mv_move kt_mv_transform(uint64_t dst, uint64_t src, uint16_t entries,
                                      uint8_t xform_id, uint8_t xform_mode);
NPUKIT_API kt_mv_move kt_mv_gather(uint64_t dst, uint64_t src, const uint32_t *indices, uint16_t count,
                        uint64_t index_base, uint32_t pitch, uint16_t words_per_index);

/* Refuse what the hardware would fault on or cannot run: transpose and undefined modes, element
 * width 3, too many indices, a source or destination (base, stride, pitch, index buffer) not
 * 32-byte aligned, an address outside the 40-bit space, a bound axis in a transform, a gather
 * without its rows. The message names the field, its value and the limit. */
NPUKIT_API npk_status kt_mv_validate(const kt_mv_move *m);

/* The ordered writes: HDR(src), (DIM, AXIS) per dimension, both WINDOWs, HDR(dst), its (DIM,
 * AXIS) pairs and WINDOWs, INDEX/GATHER/SEED/IMM where the mode uses them, CTRL|GO last. Both
 * windows of both walkers are always written: windows persist across moves in the hardware. */
NPUKIT_API npk_status kt_mv_build(const kt_mv_move *m, kt_mv_write *out, size_t cap, size_t *n);

/* Issue the writes into the window at `ctrl_base` (one whole write64 each, in order) — the
 * window must belong to a current bitstream: on a pre-strobe one the descriptor registers share
 * 32-byte flits with CTRL and each write zeroes three others (see the simulator's reproduction).
 * Refuses an offset outside the mover's half of AUX_CFG. */
NPUKIT_API npk_status kt_mv_issue(kt_transport *t, uint64_t ctrl_base, const kt_mv_write *w, size_t n);

typedef struct kt_mv_result {
    kt_mv_status before, after;
    uint32_t polls;
} kt_mv_result;

/* Validate, build, read AUX_STAT (a move must not be started on a busy mover), issue, and poll
 * AUX_STAT until busy drops (at most `poll_budget` reads, 0 = 100000). A fault fails with
 * NPK_EFAULT naming the code ("mover fault 6 (alignment)"); a move that ends without the
 * completed count advancing fails with NPK_EPROTO. `res` may be NULL. */
NPUKIT_API npk_status kt_mv_run(kt_transport *t, uint64_t ctrl_base, const kt_mv_move *m, uint32_t poll_budget,
                     kt_mv_result *res);
/* kt_mv_run calling idle(idle_user) between two AUX_STAT reads that found the mover busy (a host
 * that sleeps, a simulator that runs; NULL: back to back). */
NPUKIT_API npk_status kt_mv_run_idle(kt_transport *t, uint64_t ctrl_base, const kt_mv_move *m,
                          uint32_t poll_budget, void (*idle)(void *), void *idle_user,
                          kt_mv_result *res);

#ifdef __cplusplus
}
#endif
#endif
