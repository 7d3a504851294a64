/* SPDX-License-Identifier: MIT */
/* The RV64 core's straight runs (instructions dispatched back to back without the budget,
 * cycle-limit, interrupt and fetch-range tests) must not change what the core does: random
 * programs of arithmetic, multiplies, divides, scratchpad loads and stores, branches, jumps and
 * illegal words run on two cores, one an instruction at a time (every instruction checked),
 * the other in chunks with random instruction budgets and cycle limits, and the host rewrites
 * random words of both between chunks. After every chunk the two must agree on every register,
 * pc, counter, halt state and scratchpad byte. */
#include <string.h>

#include "check.h"
#include "ktsim/rv64.h"
#include "ktsim/rv64_asm.h"

enum { PROG_WORDS = 192, SPAD_SLOTS = 64, CHUNKS = 400 };

static uint64_t bus_load(void *ctx, uint32_t off, unsigned width)
{
    (void)ctx, (void)width;
    return off;
}
static bool bus_store(void *ctx, uint32_t off, unsigned width, uint64_t v)
{
    (void)ctx, (void)off, (void)width, (void)v;
    return false;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* One random instruction for word i: registers x1..x9, x10 holds the scratchpad base and x11
 * the control region's. Branches and jumps stay inside the program. Control-region accesses
 * leave a run in its middle; misaligned and out-of-range loads trap there (and halt: no
 * handler), so the instructions counted with the run up front must be given back exactly. */
static uint32_t random_word(unsigned i)
{
    uint32_t rd = 1 + rnd(9), r1 = 1 + rnd(10), r2 = 1 + rnd(10);
    int32_t hop = ((int32_t)rnd(PROG_WORDS) - (int32_t)i) * 4;
    switch (rnd(16)) {
    case 0: return rva_mul(rd, r1, r2);
    case 1: return rva_r(1, r2, r1, 4, rd, 0x33); /* DIV */
    case 2: return rva_ld(rd, 10, (int32_t)rnd(SPAD_SLOTS) * 8);
    case 3: return rva_sd(r2, 10, (int32_t)rnd(SPAD_SLOTS) * 8);
    case 4: return rva_beq(r1, r2, hop);
    case 5: return rva_bne(r1, r2, hop);
    case 6: return rnd(4) ? rva_jal(rd, hop) : 0; /* 0: an illegal word (halts: no handler) */
    case 7: return rva_ld(rd, 11, (int32_t)rnd(4) * 8); /* the control region */
    case 8: return rva_xor(rd, r1, r2);
    case 9: /* a control-region store, or a misaligned load */
        return rnd(16) ? rva_sd(r2, 11, (int32_t)rnd(4) * 8)
                      : rva_ld(rd, 10, (int32_t)rnd(SPAD_SLOTS) * 8 + 4);
    case 10: /* a byte store, or a load from the instruction memory (an access fault) */
        return rnd(16) ? rva_sb(r2, 10, (int32_t)rnd(SPAD_SLOTS * 8)) : rva_ld(rd, 0, 64);
    case 11: return rva_lw(rd, 10, (int32_t)rnd(SPAD_SLOTS * 2) * 4);
    default: return rva_addi(rd, r1, (int32_t)rnd(2048) - 1024);
    }
}

static void load_both(ksim_rv64 *c, unsigned n, uint32_t index, uint32_t word)
{
    for (unsigned k = 0; k < n; k++)
        ksim_rv64_imem_write(&c[k], index, word);
}

static bool same_state(const ksim_rv64 *a, const ksim_rv64 *b)
{
    return !memcmp(a->x, b->x, sizeof a->x) && a->pc == b->pc && a->cycles == b->cycles &&
           a->retired == b->retired && a->halted == b->halted &&
           a->halt_cause == b->halt_cause && a->halt_pc == b->halt_pc &&
           a->store_valid == b->store_valid && a->store_cycle == b->store_cycle &&
           a->store_off == b->store_off && a->store_width == b->store_width &&
           !memcmp(a->spad, b->spad, a->spad_bytes);
}

int main(void)
{
    ksim_rv64_cfg cfg;
    ksim_rv64_cfg_default(&cfg);
    ksim_rv64_bus bus = {NULL, bus_load, bus_store};
    ksim_rv64 c[2]; /* c[0] steps, c[1] runs in chunks */
    for (unsigned k = 0; k < 2; k++)
        CHECK(ksim_rv64_init(&c[k], &cfg, &bus));

    unsigned mismatches = 0, halts = 0, fault_halts = 0;
    uint64_t executed = 0;
    for (unsigned program = 0; program < 12; program++) {
        load_both(c, 2, 0, rva_lui(10, 0x10)); /* x10 = scratchpad base */
        load_both(c, 2, 1, rva_lui(11, 0x20)); /* x11 = control region */
        for (unsigned i = 2; i < PROG_WORDS; i++)
            load_both(c, 2, i, random_word(i));
        for (unsigned k = 0; k < 2; k++)
            ksim_rv64_reset(&c[k]);
        for (unsigned chunk = 0; chunk < CHUNKS; chunk++) {
            if (c[1].halted) {
                halts++;
                fault_halts += c[1].halt_cause == KSIM_RV64_HALT_FAULT;
                for (unsigned k = 0; k < 2; k++)
                    ksim_rv64_reset(&c[k]);
            }
            /* Budgets from 1 to past a whole run; cycle limits that land inside runs. */
            uint64_t budget = 1 + rnd(150);
            uint64_t limit = rnd(3) ? c[1].cycles + 1 + rnd(200) : UINT64_MAX;
            uint64_t before = c[1].retired;
            ksim_rv64_stop s1 = ksim_rv64_run(&c[1], budget, limit);
            /* The reference: the same budget and limit, one checked instruction at a time. */
            ksim_rv64_stop s0 = KSIM_RV64_BUDGET;
            for (uint64_t n = 0; n < budget && c[0].cycles < limit; n++) {
                s0 = ksim_rv64_step(&c[0]);
                if (s0 != KSIM_RV64_BUDGET)
                    break;
            }
            executed += c[1].retired - before;
            if (s0 != s1 || !same_state(&c[0], &c[1]))
                mismatches++;
            /* A host write into the program, possibly inside the run about to execute. */
            if (rnd(4) == 0) {
                uint32_t at = 2 + rnd(PROG_WORDS - 2);
                load_both(c, 2, at, random_word(at));
            }
        }
    }
    CHECK_EQ(mismatches, 0);
    CHECK(executed > 100000); /* the programs ran long enough to mean something */
    CHECK(halts > 0);         /* and the illegal words were reached */
    CHECK(fault_halts > 0);   /* and the faulting loads */
    for (unsigned k = 0; k < 2; k++)
        ksim_rv64_free(&c[k]);
    return check_done();
}
