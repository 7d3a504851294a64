/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's core: an RV32I instruction-set simulator with the halt model of
 * upstream's controller PE (rv_pe) — no CSRs, no traps, no interrupts. ECALL and EBREAK halt with
 * the committed a0 as the halt word; an illegal encoding, a misaligned access or jump target, or
 * an access the bus refuses halts with the pc as the word (kt_rv32.h: KT_RV32_CAUSE_*). FENCE and
 * FENCE.I (all of MISC-MEM) execute as no-ops.
 *
 * A separate small interpreter rather than an XLEN = 32 mode of the RV64 core: the two share
 * the base encodings but not the machine around them (the RV64 core traps through CSRs into
 * handlers, pre-decodes a host-written memory and dispatches by threaded code), and RV32I's
 * 32-bit wrap, 5-bit shift amounts and sign-extending loads are simplest to keep exact in
 * uint32_t arithmetic throughout.
 *
 * Fetch reads the instruction memory the complex owns (addr[31:28] = 0, the word index taken
 * modulo its size, as the RTL's truncated address does). Every data access goes to the bus; it
 * may refuse it (a fault: halt) or hold it (a stall: the instruction is retried next cycle,
 * nothing retires — a store to MVGO while a move is under way).
 *
 * Cycles follow upstream's published instruction timing (docs/arch/pe/performance.md at
 * KohakuTPU 7703ee8): one per instruction, a load-use stall of 2 cycles back to back and 1 at a
 * spacing of one, and 3 for a taken branch or a jump. The branch predictor is not modelled:
 * every taken branch pays as unpredicted, an upper bound on a loop the BTB has learned. */
#ifndef NPUKIT_KTSIM_RV32_H
#define NPUKIT_KTSIM_RV32_H

#include <stdbool.h>
#include <stdint.h>

typedef enum ksim_rv32_access {
    KSIM_RV32_ACCESS_OK = 0,
    KSIM_RV32_ACCESS_FAULT, /* refused: the core halts with cause 3 */
    KSIM_RV32_ACCESS_STALL, /* not this cycle: retry the instruction next cycle */
} ksim_rv32_access;

/* The data side: naturally aligned accesses of 1, 2 or 4 bytes (the core checks alignment). A
 * load returns the 32-bit word's bytes as the width asks, zero-extended; the core sign-extends. */
typedef struct ksim_rv32_bus {
    void *ctx;
    ksim_rv32_access (*load)(void *ctx, uint32_t addr, unsigned width, uint32_t *value);
    ksim_rv32_access (*store)(void *ctx, uint32_t addr, unsigned width, uint32_t value);
} ksim_rv32_bus;

/* Cycle costs, one row per event (a table, so a preset or test can read what is charged). */
typedef enum ksim_rv32_cost {
    KSIM_RV32_COST_INSN,      /* every instruction */
    KSIM_RV32_COST_TAKEN,     /* extra: a taken branch, JAL, JALR (no predictor modelled) */
    KSIM_RV32_COST_LOAD_USE1, /* extra: the instruction right after a load reads its result */
    KSIM_RV32_COST_LOAD_USE2, /* extra: one instruction between */
    KSIM_RV32_COST_COUNT
} ksim_rv32_cost;
extern const uint32_t ksim_rv32_costs[KSIM_RV32_COST_COUNT];

typedef enum ksim_rv32_stop {
    KSIM_RV32_RAN = 0,  /* one instruction retired */
    KSIM_RV32_HALTED,   /* halted (now or before) */
    KSIM_RV32_STALLED,  /* the bus held an access: nothing retired */
} ksim_rv32_stop;

typedef struct ksim_rv32 {
    uint32_t x[32];
    uint32_t pc;
    uint64_t cycles, retired; /* since the kick */
    bool halted;
    uint8_t cause;      /* KT_RV32_CAUSE_* */
    uint32_t halt_word; /* a0 (ECALL, EBREAK) or the faulting pc */
    /* load-use: the destination of the last two retired loads (0: none), newest first */
    uint8_t load_rd[2];
    const uint32_t *imem;
    uint32_t imem_words; /* a power of two */
    ksim_rv32_bus bus;
} ksim_rv32;

void ksim_rv32_init(ksim_rv32 *c, const uint32_t *imem, uint32_t imem_words,
                    const ksim_rv32_bus *bus);
/* The kick: registers zero, pc = start, counters zero, running. */
void ksim_rv32_start(ksim_rv32 *c, uint32_t pc);
/* Execute one instruction (or find it stalled, or the core halted). */
ksim_rv32_stop ksim_rv32_step(ksim_rv32 *c);

#endif
