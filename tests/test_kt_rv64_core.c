/* SPDX-License-Identifier: MIT */
/* The RV64 core on hand-encoded programs: traps and their CSRs, the halt without a handler,
 * interrupts (priority, vectored mode, WFI), counters and cycle costs per class, the M
 * extension's division corners as the ISA manual tabulates them, every kind of illegal
 * encoding, random words (none may crash the simulator), and the scratchpad write port a
 * same-cycle host write takes from a core store. */
#include "check.h"
#include "ktsim/rv64.h"
#include "ktsim/rv64_asm.h"

#include <stdlib.h>

static uint64_t ctrl_stores;
static uint64_t bus_load(void *ctx, uint32_t off, unsigned width)
{
    (void)ctx, (void)width;
    return 0x1000 + off;
}
static bool bus_store(void *ctx, uint32_t off, unsigned width, uint64_t v)
{
    (void)ctx, (void)off, (void)width, (void)v;
    ctrl_stores++;
    return off == 0;
}

static ksim_rv64 core;
enum { RANDOM_WORDS = 4096 };

static void load(const uint32_t *prog, unsigned n)
{
    ksim_rv64_cfg cfg;
    ksim_rv64_cfg_default(&cfg);
    ksim_rv64_bus bus = {NULL, bus_load, bus_store};
    ksim_rv64_free(&core);
    CHECK(ksim_rv64_init(&core, &cfg, &bus));
    for (unsigned i = 0; i < n; i++)
        ksim_rv64_imem_write(&core, i, prog[i]);
}

enum { MSTATUS = 0x300, MISA = 0x301, MIE = 0x304, MTVEC = 0x305, MEPC = 0x341, MCAUSE = 0x342,
       MTVAL = 0x343, MHARTID = 0xF14, SATP = 0x180, MINSTRET = 0xB02, MCYCLE = 0xB00 };
#define INTR (1ull << 63)

static void test_x0_and_counters(void)
{
    const uint32_t p[] = {rva_addi(0, 0, 5), rva_addi(1, 0, 7), rva_mul(2, 1, 1), rva_ld(3, 0, 0)};
    load(p, 4);
    CHECK_EQ(ksim_rv64_step(&core), KSIM_RV64_BUDGET);
    CHECK_EQ(core.x[0], 0);
    CHECK_EQ(core.retired, 1);
    CHECK_EQ(core.cycles, 1); /* alu */
    ksim_rv64_step(&core);
    ksim_rv64_step(&core);
    CHECK_EQ(core.x[2], 49);
    CHECK_EQ(core.retired, 3);
    CHECK_EQ(core.cycles, 1 + 1 + 3); /* alu, alu, mul */
}

static void test_cycle_classes(void)
{
    ksim_rv64_costs k;
    ksim_rv64_costs_default(&k);
    /* One instruction of each class; the cycle delta of each step is its class's cost. */
    const struct { uint32_t insn; unsigned cost; } rows[] = {
        {rva_addi(1, 0, 3), k.cycles[KSIM_RV64_ALU]},
        {rva_lui(10, 0x10), k.cycles[KSIM_RV64_ALU]},
        {rva_mul(2, 1, 1), k.cycles[KSIM_RV64_MUL]},
        {rva_r(1, 1, 2, 4, 3, 0x33) /* div */, k.cycles[KSIM_RV64_DIV]},
        {rva_sd(2, 10, 0), k.cycles[KSIM_RV64_STORE]},
        {rva_ld(4, 10, 0), k.cycles[KSIM_RV64_LOAD]},
        {rva_beq(1, 0, 8) /* not taken */, k.cycles[KSIM_RV64_BRANCH]},
        {rva_bne(1, 0, 8) /* taken, skips one */, k.cycles[KSIM_RV64_BRANCH] + k.cycles[KSIM_RV64_TAKEN]},
        {RVA_NOP, 0},
        {rva_jal(5, 4), k.cycles[KSIM_RV64_JUMP]},
        {rva_csrrs(6, MINSTRET, 0), k.cycles[KSIM_RV64_CSR]},
        {rva_lui(7, 0x20), k.cycles[KSIM_RV64_ALU]},
        {rva_ld(8, 7, 8), k.cycles[KSIM_RV64_LOAD] + k.cycles[KSIM_RV64_CTRL]},
    };
    enum { N = sizeof rows / sizeof rows[0] };
    uint32_t p[N];
    for (unsigned i = 0; i < N; i++)
        p[i] = rows[i].insn;
    load(p, N);
    for (unsigned i = 0; i < N; i++) {
        if (rows[i].insn == RVA_NOP)
            continue; /* skipped by the taken branch */
        uint64_t before = core.cycles;
        CHECK_EQ(ksim_rv64_step(&core), KSIM_RV64_BUDGET);
        CHECK_EQ(core.cycles - before, rows[i].cost);
    }
    CHECK_EQ(core.x[3], 3);         /* 9 / 3 */
    CHECK_EQ(core.x[4], 9);         /* the stored product, loaded back */
    CHECK_EQ(core.x[6], 9);         /* minstret counts the nine instructions before the CSR read */
    CHECK_EQ(core.x[8], 0x1000 + 8); /* a control-region load goes to the bus at offset 8 */
}

static void test_halt_without_handler(void)
{
    const struct { uint32_t insn; uint8_t cause; uint64_t mcause; } rows[] = {
        {RVA_ECALL, KSIM_RV64_HALT_ECALL, 11},
        {RVA_EBREAK, KSIM_RV64_HALT_EBREAK, 3},
        {0x00000000u, KSIM_RV64_HALT_ILLEGAL, 2},
        {rva_ld(1, 0, 4) /* misaligned */, KSIM_RV64_HALT_FAULT, 4},
        {rva_ld(1, 0, 0x100) /* the instruction memory is not readable */, KSIM_RV64_HALT_FAULT, 5},
        {rva_sd(1, 0, 0x100) /* nor writable */, KSIM_RV64_HALT_FAULT, 7},
        {rva_sb(1, 0, 3) , KSIM_RV64_HALT_FAULT, 7},
        {rva_jal(0, 6) /* misaligned target */, KSIM_RV64_HALT_FAULT, 0},
    };
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t p[] = {RVA_NOP, rows[i].insn};
        load(p, 2);
        CHECK_EQ(ksim_rv64_run(&core, 10, UINT64_MAX), KSIM_RV64_HALTED);
        CHECK(core.halted);
        CHECK_EQ(core.halt_cause, rows[i].cause);
        CHECK_EQ(core.halt_pc, 4);
        CHECK_EQ(core.csr.mcause, rows[i].mcause);
        CHECK_EQ(core.retired, 1); /* the faulting instruction does not retire */
        /* A halted core stays halted until reset. */
        CHECK_EQ(ksim_rv64_step(&core), KSIM_RV64_HALTED);
    }
    /* Running off the end of the instruction memory is a fetch fault. */
    const uint32_t j[] = {rva_lui(1, 0x8), rva_jalr(0, 1, 0)};
    load(j, 2);
    CHECK_EQ(ksim_rv64_run(&core, 10, UINT64_MAX), KSIM_RV64_HALTED);
    CHECK_EQ(core.csr.mcause, 1);
    CHECK_EQ(core.halt_pc, 0x8000);
}

/* A handler at 0x100 that records mcause in x20, mepc in x21, mtval in x22, skips the
 * faulting instruction and returns. */
static void put_handler(uint32_t at)
{
    const uint32_t h[] = {
        rva_csrrs(20, MCAUSE, 0), rva_csrrs(21, MEPC, 0), rva_csrrs(22, MTVAL, 0),
        rva_addi(23, 21, 4), rva_csrrw(0, MEPC, 23), rva_addi(24, 24, 1), RVA_MRET,
    };
    for (unsigned i = 0; i < sizeof h / sizeof h[0]; i++)
        ksim_rv64_imem_write(&core, at / 4 + i, h[i]);
}

static void test_illegal_encodings(void)
{
    /* Each of these must trap as illegal, with mtval = the word. */
    static const uint32_t illegal[] = {
        0x00000000u,                 /* all zero */
        0xffffffffu,                 /* all one */
        0x00004501u,                 /* a compressed instruction (no C extension) */
        0x02b57553u,                 /* fadd.d (no F/D) */
        0x00b5302fu,                 /* amoadd.d (no A) */
        0x7c0020f3u,                 /* csrr on a CSR the core does not have */
        0xf1409073u,                 /* csrw mhartid: a read-only CSR */
        0x30101073u | (1u << 7) ,    /* csrw misa with rd: misa is WARL, this is legal: checked below */
        0x60b50533u,                 /* add with funct7 0x30 */
        0x02b50533u | (1u << 29),    /* funct7 0x21 */
        0x10200073u,                 /* sret (no supervisor mode) */
        0x000000f3u,                 /* ecall with rd != 0 */
        0x00052083u | (7u << 12),    /* load funct3 7 */
        0x00b52023u | (4u << 12),    /* store funct3 4 */
        0x00b50063u | (2u << 12),    /* branch funct3 2 */
        0x40051513u,                 /* slli with funct6 0x10 */
        0x0000705bu,                 /* an unused major opcode */
        0x02b5053bu | (1u << 12),    /* OP-32 M-form funct3 1 */
        0x00050067u | (1u << 12),    /* jalr funct3 1 */
    };
    for (unsigned i = 0; i < sizeof illegal / sizeof illegal[0]; i++) {
        const uint32_t p[] = {rva_addi(1, 0, 0x100), rva_csrrw(0, MTVEC, 1), illegal[i], rva_addi(2, 0, 1),
                              rva_jal(0, 0)};
        load(p, 5);
        put_handler(0x100);
        ksim_rv64_run(&core, 40, UINT64_MAX);
        bool legal = illegal[i] == (0x30101073u | (1u << 7));
        if (legal) {
            CHECK_EQ(core.x[24], 0);
            CHECK_EQ(core.x[1], (2ull << 62) | (1u << 8) | (1u << 12)); /* old misa read */
            continue;
        }
        if (core.x[20] != 2)
            fprintf(stderr, "word 0x%08x was not illegal\n", illegal[i]);
        CHECK_EQ(core.x[20], 2);
        CHECK_EQ(core.x[21], 8);
        CHECK_EQ(core.x[22], illegal[i]);
        CHECK_EQ(core.x[2], 1); /* resumed after the handler */
        CHECK(!core.halted);
    }
}

static void test_trap_csrs(void)
{
    const uint32_t p[] = {
        rva_addi(1, 0, 0x100), rva_csrrw(0, MTVEC, 1),
        rva_csrrsi(0, MSTATUS, 8),          /* MIE = 1 */
        RVA_ECALL,                          /* → handler: MIE saved to MPIE, cleared */
        rva_csrrs(5, MSTATUS, 0),           /* after MRET: MIE restored */
        rva_csrrs(6, MISA, 0), rva_csrrs(7, MHARTID, 0),
        rva_addi(8, 0, 0x7ff), rva_csrrw(0, MEPC, 8), rva_csrrs(9, MEPC, 0),
        rva_addi(8, 0, 0x103), rva_csrrw(0, MTVEC, 8), rva_csrrs(10, MTVEC, 0),
        rva_lui(8, 0x80001), rva_csrrw(0, SATP, 8), rva_csrrs(11, SATP, 0),
        rva_csrrw(12, MCYCLE, 0), rva_csrrs(13, MCYCLE, 0), rva_jal(0, 0),
    };
    load(p, sizeof p / sizeof p[0]);
    put_handler(0x100);
    ksim_rv64_run(&core, 3 + 8 + 14, UINT64_MAX);
    CHECK_EQ(core.x[20], 11);
    CHECK_EQ(core.x[21], 12);
    CHECK_EQ(core.x[5] & 0x88, 0x88);           /* MIE and MPIE */
    CHECK_EQ(core.x[5] & 0x1800, 0x1800);       /* MPP reads machine */
    CHECK_EQ(core.x[6], (2ull << 62) | (1u << 8) | (1u << 12));
    CHECK_EQ(core.x[7], 0);
    CHECK_EQ(core.x[9], 0x7fc);                 /* mepc[1:0] are zero */
    CHECK_EQ(core.x[10], 0x100);                /* a reserved mtvec mode reads back direct */
    CHECK_EQ(core.x[11], 0xffffffff80001000ull);
    CHECK_EQ(core.x[13], 2);                    /* mcycle = 0, then the reading CSR's 2 cycles */
}

static void test_interrupts(void)
{
    /* main: enable MSIP and MEIP, MIE, then spin (x3 counts); handler at 0x100 counts in x24
     * and returns to mepc unchanged (it masks the source it took in mie). */
    const uint32_t p[] = {
        rva_addi(1, 0, 0x100), rva_csrrw(0, MTVEC, 1),
        rva_addi(2, 0, 0x7ff), rva_addi(2, 2, 0x9), rva_csrrw(0, MIE, 2), /* 0x808 */
        rva_csrrsi(0, MSTATUS, 8),
        rva_addi(3, 3, 1), rva_jal(0, -4),
    };
    load(p, sizeof p / sizeof p[0]);
    const uint32_t h[] = {rva_csrrs(20, MCAUSE, 0), rva_csrrs(21, MEPC, 0), rva_addi(24, 24, 1),
                          rva_csrrw(0, MIE, 0), RVA_MRET};
    for (unsigned i = 0; i < 5; i++)
        ksim_rv64_imem_write(&core, 0x40 + i, h[i]);
    ksim_rv64_run(&core, 20, UINT64_MAX);
    CHECK_EQ(core.x[24], 0);
    CHECK(core.x[3] > 0);
    ksim_rv64_set_irq(&core, true, true); /* both: external has priority */
    ksim_rv64_run(&core, 1, UINT64_MAX);
    CHECK_EQ(core.pc, 0x104);
    ksim_rv64_run(&core, 10, UINT64_MAX);
    CHECK_EQ(core.x[24], 1);
    CHECK_EQ(core.x[20], INTR | 11);
    CHECK(core.x[21] == 0x18 || core.x[21] == 0x1c);
    /* mie is now 0: levels stay high, nothing is taken. */
    uint64_t spins = core.x[3];
    ksim_rv64_run(&core, 20, UINT64_MAX);
    CHECK_EQ(core.x[24], 1);
    CHECK(core.x[3] > spins);

    /* Vectored mode: an interrupt goes to base + 4·cause. */
    const uint32_t v[] = {
        rva_addi(1, 0, 0x101), rva_csrrw(0, MTVEC, 1), rva_addi(2, 0, 8), rva_csrrw(0, MIE, 2),
        rva_csrrsi(0, MSTATUS, 8), rva_addi(3, 3, 1), rva_jal(0, -4),
    };
    load(v, sizeof v / sizeof v[0]);
    ksim_rv64_imem_write(&core, (0x100 + 4 * 3) / 4, rva_addi(25, 0, 3));
    ksim_rv64_run(&core, 10, UINT64_MAX);
    ksim_rv64_set_irq(&core, true, false);
    ksim_rv64_run(&core, 1, UINT64_MAX);
    CHECK_EQ(core.pc, 0x100 + 4 * 3 + 4);
    CHECK_EQ(core.x[25], 3);
    CHECK_EQ(core.csr.mcause, INTR | 3);
    CHECK_EQ(core.csr.mstatus & 8, 0); /* interrupts masked inside the handler */

    /* WFI with nothing pending stops the core; a pending enabled source wakes it even with
     * mstatus.MIE clear (then execution simply continues after the WFI). */
    const uint32_t w[] = {rva_addi(2, 0, 8), rva_csrrw(0, MIE, 2), RVA_WFI, rva_addi(4, 0, 9)};
    load(w, 4);
    CHECK_EQ(ksim_rv64_run(&core, 100, UINT64_MAX), KSIM_RV64_WFI);
    CHECK_EQ(core.pc, 12);
    CHECK_EQ(ksim_rv64_run(&core, 100, UINT64_MAX), KSIM_RV64_WFI);
    ksim_rv64_idle_until(&core, 1000);
    CHECK_EQ(core.cycles, 1000);
    ksim_rv64_set_irq(&core, false, true); /* external is not enabled in mie */
    CHECK_EQ(ksim_rv64_run(&core, 100, UINT64_MAX), KSIM_RV64_WFI);
    ksim_rv64_set_irq(&core, true, false);
    ksim_rv64_run(&core, 1, UINT64_MAX);
    CHECK_EQ(core.x[4], 9);
}

static void test_division_table(void)
{
    /* The M extension's table of division special cases (64-bit and W forms). */
    const uint32_t p[] = {
        rva_addi(1, 0, 7), rva_addi(2, 0, 0), rva_addi(3, 0, -1), rva_addi(4, 0, 1), rva_slli(4, 4, 63),
        rva_r(1, 2, 1, 4, 10, 0x33),  /* div 7/0 = -1 */
        rva_r(1, 2, 1, 5, 11, 0x33),  /* divu 7/0 = 2^64-1 */
        rva_r(1, 2, 1, 6, 12, 0x33),  /* rem 7%0 = 7 */
        rva_r(1, 2, 1, 7, 13, 0x33),  /* remu 7%0 = 7 */
        rva_r(1, 3, 4, 4, 14, 0x33),  /* div min/-1 = min */
        rva_r(1, 3, 4, 6, 15, 0x33),  /* rem min/-1 = 0 */
        rva_addi(5, 0, 1), rva_slli(5, 5, 31),
        rva_r(1, 3, 5, 4, 16, 0x3b),  /* divw 0x80000000/-1 = sext(0x80000000) */
        rva_r(1, 3, 5, 6, 17, 0x3b),  /* remw = 0 */
        rva_r(1, 2, 1, 5, 18, 0x3b),  /* divuw 7/0 = sext(0xffffffff) = -1 */
        rva_r(1, 3, 3, 3, 19, 0x33),  /* mulhu (2^64-1)^2 high = 2^64-2 */
        rva_r(1, 3, 3, 1, 20, 0x33),  /* mulh (-1)(-1) high = 0 */
        rva_r(1, 3, 3, 2, 21, 0x33),  /* mulhsu (-1)(2^64-1) high = -1 */
    };
    load(p, sizeof p / sizeof p[0]);
    ksim_rv64_run(&core, sizeof p / sizeof p[0], UINT64_MAX);
    CHECK_EQ(core.x[10], UINT64_MAX);
    CHECK_EQ(core.x[11], UINT64_MAX);
    CHECK_EQ(core.x[12], 7);
    CHECK_EQ(core.x[13], 7);
    CHECK_EQ(core.x[14], 1ull << 63);
    CHECK_EQ(core.x[15], 0);
    CHECK_EQ(core.x[16], 0xffffffff80000000ull);
    CHECK_EQ(core.x[17], 0);
    CHECK_EQ(core.x[18], UINT64_MAX);
    CHECK_EQ(core.x[19], UINT64_MAX - 1);
    CHECK_EQ(core.x[20], 0);
    CHECK_EQ(core.x[21], UINT64_MAX);
}

static void test_random_words(void)
{
    /* Random instruction memory, random registers pointing anywhere (including the scratchpad
     * and the control region), a handler installed or not: every step ends in a defined state. */
    srand(12345);
    load(NULL, 0);
    for (unsigned i = 0; i < RANDOM_WORDS; i++)
        ksim_rv64_imem_write(&core, i, (uint32_t)rand() ^ ((uint32_t)rand() << 16));
    uint64_t halts = 0, steps = 0;
    for (unsigned t = 0; t < 20000; t++) {
        ksim_rv64_reset(&core);
        core.pc = (uint64_t)(rand() % RANDOM_WORDS) * 4;
        for (unsigned r = 1; r < 32; r++) {
            uint64_t base = (r & 3) == 0 ? 0x10000 : (r & 3) == 1 ? 0x20000 : 0;
            core.x[r] = base + (uint64_t)(rand() % 0x9000) - 0x800;
        }
        if (t & 1)
            core.csr.mtvec = (uint64_t)(rand() % RANDOM_WORDS) * 4;
        ksim_rv64_stop st = ksim_rv64_run(&core, 64, UINT64_MAX);
        CHECK(st <= KSIM_RV64_BUS_STOP);
        halts += st == KSIM_RV64_HALTED;
        steps += core.retired;
        CHECK_EQ(core.x[0], 0);
    }
    printf("random words: %llu retired, %llu halts over 20000 starts\n", (unsigned long long)steps,
           (unsigned long long)halts);
    CHECK(halts > 0);
}

static void test_host_write_wins(void)
{
    /* x10 = the scratchpad; the store at pc 8 issues at cycle 2. */
    const uint32_t p[] = {rva_lui(10, 0x10), rva_addi(5, 0, 0x55), rva_sd(5, 10, 16), rva_sd(5, 10, 24)};
    load(p, 4);
    CHECK_EQ(ksim_rv64_run(&core, 100, 3), KSIM_RV64_BUDGET); /* through cycle 2 */
    CHECK_EQ(core.pc, 12);
    CHECK_EQ(core.spad[16], 0x55);
    /* A host write in cycle 2, even to another word: the core's store never happened. */
    ksim_rv64_spad_write(&core, 0, 0x1122334455667788ull, 0x0f, 2);
    CHECK_EQ(core.spad[16], 0);
    CHECK_EQ(core.spad[0], 0x88);
    CHECK_EQ(core.spad[4], 0); /* strobes honoured */
    CHECK_EQ(core.lost_stores, 1);
    /* The next store issues at cycle 3; a host write in cycle 4 leaves it alone. */
    ksim_rv64_run(&core, 1, UINT64_MAX);
    ksim_rv64_spad_write(&core, 1, 0x99, 0xff, 4);
    CHECK_EQ(core.spad[24], 0x55);
    CHECK_EQ(core.spad[8], 0x99);
    CHECK_EQ(core.lost_stores, 1);
}

static void test_bus_stop_and_config(void)
{
    const uint32_t p[] = {rva_lui(7, 0x20), rva_sd(0, 7, 8), rva_sd(0, 7, 0), rva_addi(1, 0, 1)};
    load(p, 4);
    ctrl_stores = 0;
    CHECK_EQ(ksim_rv64_run(&core, 100, UINT64_MAX), KSIM_RV64_BUS_STOP);
    CHECK_EQ(ctrl_stores, 2);
    CHECK_EQ(core.retired, 3); /* the stopping store retired */
    CHECK_EQ(core.pc, 12);
    /* Bad configurations are refused. */
    ksim_rv64_cfg cfg;
    ksim_rv64_bus bus = {NULL, bus_load, bus_store};
    ksim_rv64 c2;
    ksim_rv64_cfg_default(&cfg);
    cfg.imem_words = 1000;
    CHECK(!ksim_rv64_init(&c2, &cfg, &bus));
    ksim_rv64_free(&c2);
    ksim_rv64_cfg_default(&cfg);
    cfg.ctrl_base = 0x20010;
    CHECK(!ksim_rv64_init(&c2, &cfg, &bus));
    ksim_rv64_free(&c2);
    ksim_rv64_cfg_default(&cfg);
    cfg.spad_base = 0x4000; /* overlaps the instruction memory */
    CHECK(!ksim_rv64_init(&c2, &cfg, &bus));
    ksim_rv64_free(&c2);
}

int main(void)
{
    test_x0_and_counters();
    test_cycle_classes();
    test_halt_without_handler();
    test_illegal_encodings();
    test_trap_csrs();
    test_interrupts();
    test_division_table();
    test_random_words();
    test_host_write_wins();
    test_bus_stop_and_config();
    ksim_rv64_free(&core);
    return check_done();
}
