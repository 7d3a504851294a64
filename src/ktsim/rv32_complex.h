/* SPDX-License-Identifier: MIT */
/* The RV32 control processor (CPU_RV64 = 0, control-registers §3.1) as a compute unit: the
 * RV32I core (rv32.h) with its instruction window and scratchpad, the local control words, and
 * the node range — MVGO and its descriptor executor, the node word, the occupants' registers.
 * It is the unit kind "rv32" (CU_TYPE 'RV'), so it sits behind the ordinary compute-unit shell:
 * CU_CAPS/CU_STATUS/CU_COUNTERS/CU_DBG are answered there, CU_DATA writes its windows, a CU_INST
 * with op 1 is a kick and the completion carries the halt word.
 *
 * The rest of the node (the mover's cfg port and status, the transform occupants) is reached
 * through ksim_rv32_side, which the machine sets after building the unit; without it the
 * executor's writes go nowhere and the node word reads idle. */
#ifndef NPUKIT_KTSIM_RV32_COMPLEX_H
#define NPUKIT_KTSIM_RV32_COMPLEX_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/ktsim.h"
#include "npukit/ktsim_unit.h"
#include "rv32.h"
#include "rv32_l1.h"

typedef struct ksim_rv32_side {
    void *ctx;
    /* one pulse on the mover's cfg port (the executor's register write) */
    void (*mover_cfg)(void *ctx, uint8_t offset, uint64_t value);
    /* AUX_STAT's mover fields ([7:4] fault, [0] busy; kt_mv_status_decode) */
    uint64_t (*mover_stat)(void *ctx);
    /* occupant id's register reg (4 bytes); false: nothing answers there (reads 0, writes vanish) */
    bool (*occ_read)(void *ctx, unsigned id, uint8_t reg, uint32_t *value);
    bool (*occ_write)(void *ctx, unsigned id, uint8_t reg, uint32_t value);
    /* the occupant fault code for the node word's [11:8] (NULL: none) */
    uint8_t (*occ_fault)(void *ctx);
    /* DRAM behind the L1, 32-byte lines at offset addr[30:0] (NULL: the region faults) */
    bool (*dram_read)(void *ctx, uint64_t offset, uint8_t line[KSIM_RV32_L1_LINE]);
    bool (*dram_write)(void *ctx, uint64_t offset, const uint8_t line[KSIM_RV32_L1_LINE]);
} ksim_rv32_side;

/* The descriptor executor (mv_exec): idle, fetching word `word` of the descriptor, or waiting the
 * one cycle after its last write in which the mover raises busy. */
typedef enum ksim_rv32_exec_state { KSIM_RV32_EXEC_IDLE, KSIM_RV32_EXEC_FETCH, KSIM_RV32_EXEC_WAIT } ksim_rv32_exec_state;

typedef struct ksim_rv32c {
    ksim_rv32 core;
    ksim_rv32_side side;
    kt_coord at;
    uint32_t *imem, *spad;
    uint32_t imem_words, spad_words;
    ksim_rv32_l1 l1;
    uint64_t now;         /* unit ticks */
    uint64_t start_tick;  /* the tick the core's cycle 0 falls in */
    bool running;         /* kicked and not yet completed */
    bool kick_pending;    /* a kick taken, the core starts next tick (K_START) */
    bool done_pending;    /* an instruction to retire at once (not a kick) */
    uint8_t op;
    uint32_t kick_pc, arg;
    /* the executor */
    ksim_rv32_exec_state exec;
    uint32_t exec_ptr; /* scratchpad word index of the descriptor */
    uint32_t exec_word, exec_n;
    uint32_t exec_off, exec_lo, exec_hi;
    uint64_t moves_issued, pulses, dropped_pulses;
    /* a CU_DATA burst being received */
    bool rx_active, rx_drop;
    uint8_t rx_buf;
    uint32_t rx_off, rx_left, rx_flags;
    kt_coord rx_src, rx_ack;
    uint64_t dropped_bursts;
    bool signal_pending;
    kt_flit signal;
    /* a peer push (a store to the peer window): its CU_DATA descriptor and word, leaving as one
     * burst; the next push or peer store waits until both have gone */
    kt_flit push[2];
    unsigned push_left;
    uint64_t pushes;
} ksim_rv32c;

/* The unit kind "rv32" of the unit-type table. */
extern const ksim_unit_ops ksim_unit_rv32;

/* The machine's wiring: the unit behind a shell of kind rv32 gets the rest of its node. */
void ksim_rv32c_set_side(ksim_rv32c *c, const ksim_rv32_side *side);

/* Write the windows directly (tests, loaders that bypass the mesh): word index, modulo size. */
void ksim_rv32c_imem_write(ksim_rv32c *c, uint32_t index, uint32_t word);
void ksim_rv32c_spad_write(ksim_rv32c *c, uint32_t index, uint32_t word);
uint32_t ksim_rv32c_spad_read(const ksim_rv32c *c, uint32_t index);

/* The rv32 unit a machine has at `at`, or NULL. */
ksim_rv32c *ktsim_rv32(ktsim *s, kt_coord at);

/* The node word as the processor reads it at MVGO. */
uint32_t ksim_rv32c_node_word(const ksim_rv32c *c);

#endif
