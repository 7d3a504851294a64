/* SPDX-License-Identifier: MIT */
/* The vector core's sequencer (upstream's vec_core) for the 'VC' unit (unit_vec.c): the
 * architectural state, and one step per cycle through the same states the RTL's sequencer walks,
 * so that a kernel takes the RTL's cycles — fetch F1/F2/DEC, EXEC, the ALU's beats behind the
 * per-register pending-write interlock, the load/store walks, the fill and drain walks and
 * their memory handshakes, VBAR, VHALT waiting for the lanes to drain. Values are computed when
 * an instruction issues (the interlock and the lane drains make that invisible); the lane
 * arithmetic is src/kt/hw/e8m15.c.
 *
 * The core's memory side is abstract, as the RTL's is: a read request (address, L1 tag) and a
 * write request (address, word) each held valid until the unit's send path takes it; the unit
 * lands read responses in L1 (vc_core_land). The unit frames them as flits. */
#ifndef NPUKIT_KTSIM_VEC_CORE_H
#define NPUKIT_KTSIM_VEC_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt_vec.h"
#include "vec_lanes.h"

enum {
    VC_WORD = 32,
    VC_IDLE = 0, /* the sequencer's idle state (vec_core.c's S_IDLE) */
};

/* A descriptor walk (upstream's vec_agu): base + offset + sum of idx * stride, dim 0 fastest. */
typedef struct vc_walk {
    uint64_t base;
    int64_t off;
    uint32_t bound[KT_VEC_DIMS];
    int32_t stride[KT_VEC_DIMS];
    uint32_t idx[KT_VEC_DIMS];
    bool busy;
} vc_walk;

typedef struct vc_core {
    vc_lanes lanes; /* its latencies set by the unit before the first reset */

    /* architectural state */
    uint32_t imem[KT_VEC_IMEM_WORDS];
    kt_vec_insn dimem[KT_VEC_IMEM_WORDS]; /* each IMEM word decoded when it is written */
    uint64_t dbase[KT_VEC_DESCS];
    int32_t dstride[KT_VEC_DESCS][KT_VEC_DIMS];
    uint16_t dbound[KT_VEC_DESCS][KT_VEC_DIMS];
    uint32_t v[KT_VEC_VREGS][KT_VEC_VLMAX]; /* E8M15 */
    uint32_t s[KT_VEC_SREGS];
    uint32_t k[4];
    uint8_t p[4][KT_VEC_VLMAX];
    unsigned vl, mode;
    uint8_t l1[KT_VEC_L1_WORDS][VC_WORD];

    /* the sequencer */
    int st;
    unsigned pc, wait;
    kt_vec_insn d;
    uint32_t ir;
    kt_vec_insn ird; /* ir decoded */
    unsigned chunk, half, beats, nbeat;
    bool lp_act;
    unsigned lp_top, lp_end;
    uint32_t lp_cnt;
    unsigned l1_cur;
    uint64_t st_addr;             /* the word an FP32 store's halves land on */
    uint8_t port_reg, port_chunk; /* the register port's address at the last ALU beat */
    uint32_t mem_left;
    vc_walk walk;
    uint64_t now;
    /* the instruction the lanes run: the first word's register sources, the last word's
     * destination, predication and kind, the words gathered so far */
    unsigned ra, rb, rc, wd, pm, pr, have;
    bool cmp;
    uint32_t red;       /* a reduction's result, written when its tail leaves the tree */
    unsigned red_kind;  /* the running reduction's kind (EXPSUM's beats also write back) */
    uint32_t tree_tail; /* the timing row's: the tail's issue to its result */

    /* the memory side: a request is valid from the cycle after it is set until the unit's
     * send path has taken it (rd_taken / wr_taken, the RTL's *_req_ready) */
    bool rd_valid, rd_taken, wr_valid, wr_taken;
    uint64_t rd_addr, wr_addr, req_at;
    unsigned rd_tag;
    uint8_t wr_data[VC_WORD];
    unsigned fill_out;
    /* a drain to a node (the VDRAIN overlay): its CU_DATA descriptor's fields */
    bool nd_valid, nd_sig;
    uint8_t nd_x, nd_y, nd_buf, nd_ack, nd_len;
    uint16_t nd_off;

    /* status */
    bool busy, halted, fault, cd_err;
    uint8_t fault_code;
    uint32_t cycles;       /* CU_DBG: the kernel's cycles, cleared at each start */
    char model_error[160]; /* an instruction the model does not represent, for the unit */
} vc_core;

void vc_core_reset(vc_core *c);
/* IMEM and DESC (the CU_INST words the unit decoded). */
void vc_core_imem(vc_core *c, unsigned addr, uint32_t word);
void vc_core_desc(vc_core *c, unsigned ad, unsigned fld, uint64_t value);
/* RUN: the start pulse, seen by the sequencer in its idle state. */
void vc_core_start(vc_core *c, unsigned pc);
/* One cycle. */
void vc_core_step(vc_core *c);
/* A fill response (its L1 word) landing, and the count of outstanding fills falling. */
void vc_core_land(vc_core *c, unsigned l1_word, const uint8_t *data);
void vc_core_fill_retired(vc_core *c);
/* How many of its next steps touch nothing outside the core — they count down (its clock, the
 * wait, the kernel's cycles, a load or store walk's phases), hold, or change only its own
 * registers, register file, L1 and lanes (a walk, the ALU's beats, the fetch, ...) — and raise
 * no request, report nothing and neither start nor stop a kernel (UINT64_MAX: nothing happens
 * until a fill response retires or a RUN starts it); and n such steps at once, counted down
 * where they only count and taken as steps where they do more, the core left as the ticks would
 * leave it. */
uint64_t vc_core_quiet_steps(const vc_core *c);
static inline uint64_t vc_core_quiet(const vc_core *c)
{
    if (c->rd_valid || c->wr_valid || c->lanes.inc >= 0)
        return 0; /* a request for the send path, a beat's pending count to raise */
    return vc_core_quiet_steps(c);
}
void vc_core_skip(vc_core *c, uint64_t n);
/* Whether the core is idle: not running, no fill in flight, the lanes drained (a kernel that
 * faulted mid-flight leaves beats in the lanes, which keep counting down). */
static inline bool vc_core_idle(const vc_core *c)
{
    return !c->busy && c->st == VC_IDLE && !c->fill_out && vl_empty(&c->lanes, c->now);
}
/* Whether the kernel has stopped: halted or faulted, the sequencer back in its idle state. */
static inline bool vc_core_stopped(const vc_core *c)
{
    return !c->busy && c->st == VC_IDLE && (c->halted || c->fault);
}

#endif
