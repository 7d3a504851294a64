/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's L1 over DRAM (addr[31] set, below the node range): upstream's
 * rv_l1 — direct mapped, 32-byte lines, write-back and write-allocate, one blocking miss at a
 * time. It is the processor's private copy: a line another agent writes in DRAM is not seen
 * until the program drops it (CTL_INVAL), and what the program stores is not in DRAM until the
 * line is evicted or written back (CTL_FLUSH) — the hand-off upstream's programming guide gives
 * (flush, doorbell, invalidate, read). Functionally exact; the miss's cycles are an estimate (a
 * unit setting), not a measurement. */
#ifndef NPUKIT_KTSIM_RV32_L1_H
#define NPUKIT_KTSIM_RV32_L1_H

#include <stdbool.h>
#include <stdint.h>

enum { KSIM_RV32_L1_LINE = 32 };

/* DRAM as the L1 reaches it (the machine's, at offset addr[30:0]); false: the access failed. */
typedef struct ksim_rv32_l1_mem {
    void *ctx;
    bool (*read)(void *ctx, uint64_t offset, uint8_t line[KSIM_RV32_L1_LINE]);
    bool (*write)(void *ctx, uint64_t offset, const uint8_t line[KSIM_RV32_L1_LINE]);
} ksim_rv32_l1_mem;

typedef struct ksim_rv32_l1 {
    uint32_t lines; /* a power of two */
    uint32_t *tag;  /* the line's address above its index */
    uint8_t *valid, *dirty;
    uint8_t (*data)[KSIM_RV32_L1_LINE];
    uint32_t miss_cycles;
    uint64_t ready_at;   /* a miss under way: the tick its line is in */
    uint32_t miss_addr;  /* ... for this address */
    uint64_t hits, misses, writebacks;
} ksim_rv32_l1;

typedef enum ksim_rv32_l1_result { KSIM_RV32_L1_OK, KSIM_RV32_L1_WAIT, KSIM_RV32_L1_FAULT } ksim_rv32_l1_result;

bool ksim_rv32_l1_init(ksim_rv32_l1 *l1, uint32_t lines, uint32_t miss_cycles);
void ksim_rv32_l1_free(ksim_rv32_l1 *l1);
/* Power-on: every line invalid (the RTL's sweep). */
void ksim_rv32_l1_reset(ksim_rv32_l1 *l1);
/* An access of `width` bytes at addr (aligned) at tick `now`: a hit at once; a miss waits
 * miss_cycles (writing the victim back if dirty, then filling) and then completes; a DRAM
 * error faults it. Loads return the bytes zero-extended. */
ksim_rv32_l1_result ksim_rv32_l1_load(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem, uint64_t now,
                                      uint32_t addr, unsigned width, uint32_t *value);
ksim_rv32_l1_result ksim_rv32_l1_store(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem,
                                       uint64_t now, uint32_t addr, unsigned width,
                                       uint32_t value);
/* CTL_FLUSH: every dirty line written back (it stays valid and is clean); false on a DRAM
 * error. CTL_INVAL: every line dropped, dirty ones included. */
bool ksim_rv32_l1_flush(ksim_rv32_l1 *l1, const ksim_rv32_l1_mem *mem);
void ksim_rv32_l1_invalidate(ksim_rv32_l1 *l1);

#endif
