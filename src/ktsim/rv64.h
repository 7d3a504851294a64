/* SPDX-License-Identifier: MIT */
/* The RV64 control complex's processor: an RV64IM + Zicsr + Zifencei instruction-set simulator
 * with machine-mode traps and interrupts.
 *
 * Memory map (the complex's physical addresses, set by the configuration):
 *   instruction memory  [0, imem_bytes)             fetch only; written by the host window
 *   scratchpad          [spad_base, +spad_bytes)    loads and stores
 *   control region      256 bytes at ctrl_base      loads and stores go to the bus callbacks
 * Anything else is an access fault. Accesses must be naturally aligned (misaligned ones trap).
 *
 * The instruction memory is pre-decoded: a host write re-decodes one slot, so fetch costs an
 * index, and the core can never write its own instructions (it has no path to them).
 *
 * One call to ksim_rv64_run executes instructions until a budget is spent or something stops
 * the core; ksim_rv64_step is a run of one instruction. Each executed instruction adds the
 * cycle cost of its class (ksim_rv64_costs) to the cycle counter; each one that completes
 * without trapping adds one to the retired counter.
 *
 * A synchronous exception taken while mtvec is 0 (no handler installed: its reset value)
 * halts the core with a two-bit cause (ksim_rv64_halt_cause) instead of jumping to address 0.
 * The specification leaves that encoding to the core; this is the model's. */
#ifndef NPUKIT_KTSIM_RV64_H
#define NPUKIT_KTSIM_RV64_H

#include <stdbool.h>
#include <stdint.h>

/* Instruction classes, each with a cycle cost. */
typedef enum ksim_rv64_class {
    KSIM_RV64_ALU, /* integer register/immediate arithmetic, LUI, AUIPC */
    KSIM_RV64_MUL, /* MUL* */
    KSIM_RV64_DIV, /* DIV*, REM* */
    KSIM_RV64_LOAD,
    KSIM_RV64_STORE,
    KSIM_RV64_BRANCH, /* a conditional branch, not taken */
    KSIM_RV64_TAKEN,  /* extra cycles when a branch is taken */
    KSIM_RV64_JUMP,   /* JAL, JALR */
    KSIM_RV64_CSR,    /* CSR* */
    KSIM_RV64_SYSTEM, /* FENCE, FENCE.I, ECALL, EBREAK, MRET, WFI */
    KSIM_RV64_TRAP,   /* extra cycles to enter a trap or interrupt handler */
    KSIM_RV64_CTRL,   /* extra cycles for a control-region access (uncached, a bus trip) */
    KSIM_RV64_CLASS_COUNT
} ksim_rv64_class;

typedef struct ksim_rv64_costs {
    uint32_t cycles[KSIM_RV64_CLASS_COUNT];
} ksim_rv64_costs;

/* The defaults: an in-order single-issue pipeline with an L1-speed scratchpad, a multi-cycle
 * multiplier and an iterative divider. A model, not a measurement. */
void ksim_rv64_costs_default(ksim_rv64_costs *c);
const char *ksim_rv64_class_name(ksim_rv64_class k);
int ksim_rv64_class_find(const char *name); /* -1 when no class has that name */

/* The halt cause latched in HR_STATUS[1:0]. */
typedef enum ksim_rv64_halt_cause {
    KSIM_RV64_HALT_ECALL = 0,   /* ECALL with no handler */
    KSIM_RV64_HALT_EBREAK = 1,  /* EBREAK with no handler */
    KSIM_RV64_HALT_ILLEGAL = 2, /* an illegal or unimplemented instruction with no handler */
    KSIM_RV64_HALT_FAULT = 3,   /* a misaligned or out-of-range fetch, load or store, no handler */
} ksim_rv64_halt_cause;

/* Why ksim_rv64_run returned. */
typedef enum ksim_rv64_stop {
    KSIM_RV64_BUDGET = 0, /* the instruction or cycle budget ran out */
    KSIM_RV64_HALTED,     /* the core halted (cause and pc latched) */
    KSIM_RV64_WFI,        /* WFI with no enabled interrupt pending: idle until one is */
    KSIM_RV64_BUS_STOP,   /* a control-region store asked the core to stop (a program exit) */
} ksim_rv64_stop;

/* The control region, as the core's data port sees it. off is 0..255, width 1/2/4/8 and the
 * access is naturally aligned. A store callback returns true to stop the core after it. */
typedef struct ksim_rv64_bus {
    void *ctx;
    uint64_t (*ctrl_load)(void *ctx, uint32_t off, unsigned width);
    bool (*ctrl_store)(void *ctx, uint32_t off, unsigned width, uint64_t value);
} ksim_rv64_bus;

typedef struct ksim_rv64_cfg {
    uint32_t imem_words; /* 32-bit words, a power of two */
    uint32_t spad_words; /* 64-bit words, a power of two */
    uint64_t spad_base;
    uint64_t ctrl_base; /* 256-byte aligned */
    ksim_rv64_costs costs;
} ksim_rv64_cfg;

/* The reference build: 8192 instruction words, 4096 scratchpad words at 0x1_0000, the
 * control region at 0x2_0000. */
void ksim_rv64_cfg_default(ksim_rv64_cfg *cfg);

typedef struct ksim_rv64_insn {
    uint8_t op, rd, rs1, rs2;
    uint32_t cycles; /* the cost of its class, resolved when decoded */
    int64_t imm;
    /* The straight run starting here: instructions executed back to back before (and
     * including) the next one that can change the flow, the interrupt state or the budget,
     * capped at KSIM_RV64_RUN_MAX; and the sum of their cycle costs. Kept by host writes. */
    uint32_t run_cycles;
    uint16_t run;
    /* The executor's code for op, when it dispatches by address (set by the executor: see
     * ksim_rv64.handlers). With it the record is 32 bytes on a 64-bit host, so the slot of an
     * address is a shift. */
    const void *handler;
} ksim_rv64_insn;
enum { KSIM_RV64_RUN_MAX = 64 };

/* The machine-mode CSR state the model keeps. */
typedef struct ksim_rv64_csrs {
    uint64_t mstatus, mie, mip, mtvec, mscratch, mepc, mcause, mtval, satp;
} ksim_rv64_csrs;

typedef struct ksim_rv64 {
    uint64_t x[33]; /* x[32] absorbs writes to x0, so x[0] stays zero without a test */
    uint64_t pc;
    uint64_t cycles, retired;
    ksim_rv64_csrs csr;
    bool irq_ready; /* mstatus.MIE && (mip & mie): an interrupt is taken before the next fetch */
    bool halted;
    bool wfi; /* stopped in WFI: runs again once an enabled interrupt is pending */
    uint8_t halt_cause;
    uint64_t halt_pc;
    /* The last scratchpad store: the cycle it issued, byte offset, width and the bytes it replaced,
     * so a host write in the same cycle can take the scratchpad's one write port instead. */
    uint64_t store_cycle;
    uint32_t store_off;
    uint8_t store_width;
    uint8_t store_old[8];
    bool store_valid;
    uint64_t lost_stores; /* core stores the host's same-cycle writes replaced */

    ksim_rv64_cfg cfg;
    ksim_rv64_bus bus;
    uint32_t imem_bytes, spad_bytes;
    uint32_t *imem;
    ksim_rv64_insn *dec;
    /* The handler table dec[].handler was filled from (NULL: not yet). The executor fills every
     * slot on its first run; a host write fills the slot it decodes. */
    const void *const *handlers;
    uint8_t *spad;
} ksim_rv64;

/* Allocate the memories (zeroed: every instruction word decodes as illegal). Returns false
 * on a bad configuration or when out of memory; ksim_rv64_free releases either way. */
bool ksim_rv64_init(ksim_rv64 *c, const ksim_rv64_cfg *cfg, const ksim_rv64_bus *bus);
void ksim_rv64_free(ksim_rv64 *c);

/* Reset: pc 0, registers and CSRs to their reset values, counters zero. Memories keep their
 * contents (the host wrote them). */
void ksim_rv64_reset(ksim_rv64 *c);

/* Host writes. An instruction word at word index i (taken modulo the memory); a scratchpad
 * word at word index i (modulo) with byte enables, in the given cycle. The caller runs the core
 * through that cycle first (every instruction issued at or before it); a core store issued in
 * that same cycle loses the write port to the host and never lands. */
void ksim_rv64_imem_write(ksim_rv64 *c, uint32_t index, uint32_t word);
void ksim_rv64_spad_write(ksim_rv64 *c, uint32_t index, uint64_t value, uint8_t strobes,
                          uint64_t cycle);
#define KSIM_RV64_NO_CYCLE UINT64_MAX /* a host write while the core is not running */

/* Let idle time pass (WFI, or a stopped core): the cycle counter moves to cycle. */
void ksim_rv64_idle_until(ksim_rv64 *c, uint64_t cycle);

/* Interrupt levels: mip.MSIP (software, bit 3) and mip.MEIP (external, bit 11). */
void ksim_rv64_set_irq(ksim_rv64 *c, bool soft, bool external);

/* Run at most max_insns instructions, stopping early when cycles reaches cycle_limit. */
ksim_rv64_stop ksim_rv64_run(ksim_rv64 *c, uint64_t max_insns, uint64_t cycle_limit);
static inline ksim_rv64_stop ksim_rv64_step(ksim_rv64 *c)
{
    return ksim_rv64_run(c, 1, UINT64_MAX);
}

/* Internal to the core's files: decode one word, CSR access, traps. */
void ksim_rv64_decode(const ksim_rv64_costs *costs, uint32_t word, ksim_rv64_insn *out);
/* Resolve a CSR number to the model's row (-1: no such CSR); whether it is read-only. */
int ksim_rv64_csr_find(uint32_t num, bool *read_only);
uint64_t ksim_rv64_csr_read(ksim_rv64 *c, int row);
void ksim_rv64_csr_write(ksim_rv64 *c, int row, uint64_t value);
/* Take a synchronous exception at pc (or halt when no handler is installed). */
void ksim_rv64_exception(ksim_rv64 *c, uint64_t cause, uint64_t tval);
/* Take the highest-priority enabled pending interrupt. */
void ksim_rv64_interrupt(ksim_rv64 *c);
void ksim_rv64_mret(ksim_rv64 *c);
void ksim_rv64_update_irq(ksim_rv64 *c);

/* The architectural exception codes the core raises. */
enum {
    KSIM_RV64_EXC_FETCH_MISALIGNED = 0,
    KSIM_RV64_EXC_FETCH_FAULT = 1,
    KSIM_RV64_EXC_ILLEGAL = 2,
    KSIM_RV64_EXC_BREAKPOINT = 3,
    KSIM_RV64_EXC_LOAD_MISALIGNED = 4,
    KSIM_RV64_EXC_LOAD_FAULT = 5,
    KSIM_RV64_EXC_STORE_MISALIGNED = 6,
    KSIM_RV64_EXC_STORE_FAULT = 7,
    KSIM_RV64_EXC_ECALL_M = 11,
};
/* mip / mie bits. */
enum { KSIM_RV64_MSIP = 1u << 3, KSIM_RV64_MTIP = 1u << 7, KSIM_RV64_MEIP = 1u << 11 };

#endif
