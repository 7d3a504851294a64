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
 * Cycles follow upstream's core (rv_core at KohakuTPU 7703ee8, measured under Verilator): two
 * cycles of pipeline fill before the first instruction reaches execute, one per instruction, a
 * load-use stall of 2 cycles back to back and 1 at a spacing of one, and 3 for a branch or jump
 * the predictor got wrong. The predictor is the RTL's (rv_bpred): a direct-mapped table of 32
 * entries indexed by pc[6:2] and tagged by pc[14:7], each a valid bit, a 2-bit counter (01 after
 * reset) and the last target; a branch resolved in execute moves its counter up (taken) or down,
 * a jump sets it to 11; fetch follows the stored target when the entry is valid, its tag
 * matches and the counter's high bit is set. A wrong direction, or a wrong target for a taken
 * branch or jump, costs the 3. The table lives as long as the core (it is cleared at reset, not
 * at a kick), as the RTL's does. */
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
    KSIM_RV32_COST_FILL,      /* the pipeline's fill after a kick: IF, IF2/ID before execute */
    KSIM_RV32_COST_INSN,      /* every instruction */
    KSIM_RV32_COST_MISPREDICT, /* extra: a branch or jump the predictor got wrong */
    KSIM_RV32_COST_LOAD_USE,  /* extra: the instruction right after a load reads its result
                                 (one fewer a cycle later: the stall counts cycles, so a
                                 mispredict's bubbles between them cover it) */
    KSIM_RV32_COST_COUNT
} ksim_rv32_cost;
extern const uint32_t ksim_rv32_costs[KSIM_RV32_COST_COUNT];

typedef enum ksim_rv32_stop {
    KSIM_RV32_RAN = 0,  /* one instruction retired */
    KSIM_RV32_HALTED,   /* halted (now or before) */
    KSIM_RV32_STALLED,  /* the bus held an access: nothing retired */
} ksim_rv32_stop;

/* The branch predictor (rv_bpred): entries indexed by pc[6:2], tagged by pc[14:7]. */
enum { KSIM_RV32_BTB_ENTRIES = 32, KSIM_RV32_BTB_TAG_BITS = 8 };
typedef struct ksim_rv32_btb_entry {
    bool valid;
    uint8_t counter; /* 2 bits: taken predicted at 2 and 3 */
    uint8_t tag;
    uint32_t target;
} ksim_rv32_btb_entry;
/* What fetch predicts for the instruction at pc: taken, to *target. */
bool ksim_rv32_btb_predict(const ksim_rv32_btb_entry *btb, uint32_t pc, uint32_t *target);
/* A branch or jump resolved in execute. */
void ksim_rv32_btb_update(ksim_rv32_btb_entry *btb, uint32_t pc, bool taken, bool jump,
                          uint32_t target);
void ksim_rv32_btb_reset(ksim_rv32_btb_entry *btb);

typedef struct ksim_rv32 {
    uint32_t x[32];
    uint32_t pc;
    uint64_t cycles, retired; /* since the kick */
    bool halted;
    uint8_t cause;      /* KT_RV32_CAUSE_* */
    uint32_t halt_word; /* a0 (ECALL, EBREAK) or the faulting pc */
    /* load-use: the last two loads' destinations and when their values reach execute */
    struct ksim_rv32_load {
        uint8_t rd;        /* 0: none */
        uint64_t ready_at; /* the first cycle an instruction reading rd executes unstalled */
    } loads[2];            /* the last two loads, newest first */
    ksim_rv32_btb_entry btb[KSIM_RV32_BTB_ENTRIES];
    uint64_t mispredicts; /* since the kick */
    const uint32_t *imem;
    uint32_t imem_words; /* a power of two */
    ksim_rv32_bus bus;
} ksim_rv32;

/* Power-on: registers zero, the predictor cleared, nothing running. */
void ksim_rv32_init(ksim_rv32 *c, const uint32_t *imem, uint32_t imem_words,
                    const ksim_rv32_bus *bus);
/* The kick: pc = start, counters zero (then the fill), running; the registers and the
 * predictor keep what the last program left (only power-on clears them). */
void ksim_rv32_start(ksim_rv32 *c, uint32_t pc);
/* Execute one instruction (or find it stalled, or the core halted). */
ksim_rv32_stop ksim_rv32_step(ksim_rv32 *c);

#endif
