/* SPDX-License-Identifier: MIT */
/* The vector core's lanes (upstream's vec_lanes) for its sequencer (vec_core.c): beats in
 * flight, the per-register count of writes pending, and the chain registers each stage reads.
 *
 * A beat is a chunk of 16 elements (FLAT) or a phase of 16 / depth of them (D2: 8, D4: 4), each
 * element through `depth` chained stages. The register file is read when the beat issues; stage
 * k reads its opcode, source selects and S/K constants from the live chain registers
 * `stage_read + k * alu_lat` cycles later, so a chain gathered while an earlier one is still in
 * flight changes the later stages of the earlier one's last beats (measured on the RTL). A beat
 * writes back (its register, or for a compare its predicates) `wb_lat` cycles after it issues,
 * and the pending count — five bits, as the RTL's — falls then. */
#ifndef NPUKIT_KTSIM_VEC_LANES_H
#define NPUKIT_KTSIM_VEC_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_vec.h"

enum { VL_MAX_DEPTH = 4, VL_VERSIONS = 8, VL_BEATS = 96 };

/* One stage's chain registers, as written from cycle `from` on. */
typedef struct vl_stage {
    uint64_t from;
    uint8_t op;
    uint8_t sel[3];    /* sa, sb, sc */
    uint32_t konst[3]; /* the S / K value of each select */
} vl_stage;

typedef struct vl_beat {
    uint64_t issue, wb;
    uint8_t wd, pr, chunk, phase, depth, pm;
    bool cmp;
    bool exp2_leaf; /* EXPSUM's: 2^x of each first source into the phase's 8 slots (depth 1) */
    uint16_t tmask, pmask;
    uint32_t in[KT_VEC_LANES][3]; /* the register file's values read at issue, per slot */
} vl_beat;

typedef struct vc_lanes {
    uint32_t alu_lat, stage_read; /* a stage's latency; issue to stage 0's register read */
    uint32_t wb_lat[3];           /* issue to write-back in FLAT, D2, D4 */
    uint32_t pipe_lat;            /* the last issue to the lanes reading empty */
    vl_stage hist[VL_MAX_DEPTH][VL_VERSIONS]; /* per stage, oldest first */
    unsigned nhist[VL_MAX_DEPTH];
    vl_beat beat[VL_BEATS]; /* the beats in flight, each where it was issued into */
    uint8_t q[VL_BEATS];    /* their slots in issue order */
    unsigned nq;
    uint8_t spare[VL_BEATS]; /* the free slots */
    unsigned nspare;
    uint8_t pend[KT_VEC_VREGS];
    int inc; /* the register a beat issued this cycle will write, or -1 */
    uint64_t pipe_free_at;
    uint64_t next_wb; /* the earliest write-back queued (UINT64_MAX: none) */
} vc_lanes;

void vl_reset(vc_lanes *l);
/* Stage k's chain registers written in cycle `now` (read from now + 1 on). */
void vl_set_stage(vc_lanes *l, unsigned k, uint64_t now, const vl_stage *s);
/* A beat issued in cycle `now` (b->issue, b->wb filled here). */
void vl_issue(vc_lanes *l, uint64_t now, vl_beat *b);
/* The end of cycle `now`: beats writing back now compute their stages and write v (or p); the
 * pending counts move. A cycle in which no beat writes back and none issued changes nothing:
 * the commonest case, answered inline (vl_end_cycle_work does the rest). */
void vl_end_cycle_work(vc_lanes *l, uint64_t now, uint32_t v[][KT_VEC_VLMAX],
                       uint8_t p[][KT_VEC_VLMAX]);
static inline void vl_end_cycle(vc_lanes *l, uint64_t now, uint32_t v[][KT_VEC_VLMAX],
                                uint8_t p[][KT_VEC_VLMAX])
{
    if (l->inc >= 0 || now >= l->next_wb)
        vl_end_cycle_work(l, now, v, p);
}
/* A beat that writes nothing (a reduction's) entering the lanes in cycle `now`. */
static inline void vl_touch(vc_lanes *l, uint64_t now) { l->pipe_free_at = now + l->pipe_lat; }
/* A TREE reduction of kind 0..5 (SUM, MAX, MIN, SUMSQ, DOT, EXPSUM) over `nchunk` chunks of va
 * (and vb for the products), as the tree combines them: each beat's elements in pairs (SUMSQ,
 * DOT, EXPSUM: each element's product or 2^x, eight a beat), then 4, 2, 1, into its own
 * accumulator, the sixteen accumulators the same way at the end. */
uint32_t vl_reduce(unsigned kind, const uint32_t *va, const uint32_t *vb, unsigned nchunk);
static inline bool vl_pending(const vc_lanes *l, unsigned reg) { return l->pend[reg] != 0; }
static inline bool vl_empty(const vc_lanes *l, uint64_t now)
{
    return now >= l->pipe_free_at && !l->nq;
}

#endif
