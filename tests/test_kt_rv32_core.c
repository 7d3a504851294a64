/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's core against RV32I as the ISA manual states it: 32-bit wrap,
 * shift amounts taken from the low five bits, signed and unsigned compares, LUI/AUIPC, loads
 * that sign- or zero-extend to 32 bits, branches and jumps — and the controller PE's halt model
 * (ECALL/EBREAK report a0, anything illegal, misaligned or unmapped reports its pc with cause
 * 3) and its published instruction timing. Expected values are written out from the manual's
 * definitions, not computed by the code under test. */
#include "check.h"
#include "kt/hw/kt_rv32.h"
#include "ktsim/rv32.h"
#include "ktsim/rv64_asm.h" /* the base formats are the same encodings */

enum { IMEM = 2048, SPAD = 256 };
static uint32_t imem[IMEM];
static uint32_t spad[SPAD];

/* A flat scratchpad at 0x1000_0000; every other data address faults. */
static ksim_rv32_access t_load(void *ctx, uint32_t addr, unsigned width, uint32_t *v)
{
    (void)ctx;
    if ((addr >> 28) != 1 || ((addr & 0x0fffffff) >> 2) >= SPAD)
        return KSIM_RV32_ACCESS_FAULT;
    uint32_t w = spad[(addr & 0x0fffffff) >> 2] >> (8 * (addr & 3));
    *v = width == 4 ? w : w & ((1u << (8 * width)) - 1);
    return KSIM_RV32_ACCESS_OK;
}

static ksim_rv32_access t_store(void *ctx, uint32_t addr, unsigned width, uint32_t v)
{
    (void)ctx;
    if ((addr >> 28) != 1 || ((addr & 0x0fffffff) >> 2) >= SPAD)
        return KSIM_RV32_ACCESS_FAULT;
    uint32_t *w = &spad[(addr & 0x0fffffff) >> 2];
    unsigned sh = 8 * (addr & 3);
    uint32_t mask = (width == 4 ? 0xffffffffu : (1u << (8 * width)) - 1) << sh;
    *w = (*w & ~mask) | ((v << sh) & mask);
    return KSIM_RV32_ACCESS_OK;
}

static ksim_rv32 core;

/* Load `n` words at byte address `at` and run from there until the core halts (bounded). */
static void run_at(uint32_t at, const uint32_t *prog, unsigned n)
{
    memset(imem, 0, sizeof imem);
    for (unsigned i = 0; i < n; i++)
        imem[at / 4 + i] = prog[i];
    ksim_rv32_bus bus = {NULL, t_load, t_store};
    ksim_rv32_init(&core, imem, IMEM, &bus);
    ksim_rv32_start(&core, at);
    for (unsigned i = 0; i < 10000 && ksim_rv32_step(&core) != KSIM_RV32_HALTED; i++)
        ;
    CHECK(core.halted);
}
#define RUN(...)                                                                                   \
    do {                                                                                           \
        const uint32_t p_[] = {__VA_ARGS__};                                                       \
        run_at(0, p_, sizeof p_ / sizeof p_[0]);                                                   \
    } while (0)

/* li rd, v: LUI + ADDI with the ADDI's sign folded into the upper part. */
#define LI(rd, v)                                                                                  \
    rva_lui(rd, (((uint32_t)(v) + 0x800u) >> 12) & 0xfffff),                                      \
        rva_addi(rd, rd, (int32_t)((uint32_t)(v) << 20) >> 20)

enum { T0 = 5, T1 = 6, T2 = 7, A0 = 10, A1 = 11, A2 = 12, A3 = 13, A4 = 14, A5 = 15 };

static uint32_t op_r(uint32_t f7, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2)
{
    return rva_r(f7, rs2, rs1, f3, rd, 0x33);
}
static uint32_t op_i(uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, f3, rd, 0x13);
}
static uint32_t load(uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, f3, rd, 0x03);
}
static uint32_t store(uint32_t f3, uint32_t rs2, uint32_t rs1, int32_t imm)
{
    return rva_s(imm, rs2, rs1, f3, 0x23);
}

static void test_shifts(void)
{
    /* by register: only rs2[4:0] counts, so 33 shifts by 1 and 32 by 0 */
    RUN(LI(T0, 1), LI(T1, 33), op_r(0, 1, A0, T0, T1),              /* sll 1 << 33 = 2 */
        LI(T2, 0x80000000u), LI(T1, 32), op_r(0, 5, A1, T2, T1),      /* srl by 32 = by 0 */
        LI(T1, 35), op_r(0x20, 5, A2, T2, T1),                        /* sra by 35 = by 3 */
        op_r(0, 5, A3, T2, T1),                                       /* srl by 3 */
        LI(T1, -1), op_r(0x20, 5, A4, T2, T1),                        /* sra by 31 */
        op_i(1, A5, T0, 31), RVA_ECALL);                              /* slli 31 */
    CHECK_EQ(core.x[A0], 2);
    CHECK_EQ(core.x[A1], 0x80000000u);
    CHECK_EQ(core.x[A2], 0xF0000000u);
    CHECK_EQ(core.x[A3], 0x10000000u);
    CHECK_EQ(core.x[A4], 0xFFFFFFFFu);
    CHECK_EQ(core.x[A5], 0x80000000u);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_ECALL);
    /* SRAI keeps funct7 0x20 in the immediate */
    RUN(LI(T0, 0x80000010u), rva_i(0x400 | 4, T0, 5, A0, 0x13), rva_srli(A1, T0, 4), RVA_ECALL);
    CHECK_EQ(core.x[A0], 0xF8000001u);
    CHECK_EQ(core.x[A1], 0x08000001u);
    /* an immediate shift amount of 32 or more needs shamt[5], which RV32I reserves: illegal */
    RUN(LI(T0, 1), rva_i(32, T0, 1, A0, 0x13), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    CHECK_EQ(core.halt_word, 8); /* the SLLI's pc */
    CHECK_EQ(core.x[A0], 0);     /* a faulting instruction commits nothing */
    RUN(LI(T0, 1), rva_i(0x400 | 32, T0, 5, A0, 0x13), RVA_ECALL); /* SRAI by 32 */
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    RUN(LI(T0, 1), rva_i(0x400 | 1, T0, 1, A0, 0x13), RVA_ECALL); /* SLLI with funct7 0x20 */
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
}

static void test_compares(void)
{
    RUN(LI(T0, -1), LI(T1, 1), op_r(0, 2, A0, T0, T1), /* slt -1 < 1 */
        op_r(0, 3, A1, T0, T1),                         /* sltu 0xffffffff < 1 */
        op_i(2, A2, T1, -1),                            /* slti 1 < -1 */
        op_i(3, A3, 0, -1),                             /* sltiu 0 < 0xffffffff */
        op_i(3, A4, T1, 1),                             /* sltiu 1 < 1 (seqz of 1) */
        op_i(3, A5, 0, 1), RVA_ECALL);                  /* sltiu 0 < 1 (seqz of 0) */
    CHECK_EQ(core.x[A0], 1);
    CHECK_EQ(core.x[A1], 0);
    CHECK_EQ(core.x[A2], 0);
    CHECK_EQ(core.x[A3], 1);
    CHECK_EQ(core.x[A4], 0);
    CHECK_EQ(core.x[A5], 1);
    /* INT32_MIN against INT32_MAX both ways */
    RUN(LI(T0, 0x80000000u), LI(T1, 0x7fffffff), op_r(0, 2, A0, T0, T1), op_r(0, 3, A1, T0, T1),
        op_r(0, 2, A2, T1, T0), op_r(0, 3, A3, T1, T0), RVA_ECALL);
    CHECK_EQ(core.x[A0], 1);
    CHECK_EQ(core.x[A1], 0);
    CHECK_EQ(core.x[A2], 0);
    CHECK_EQ(core.x[A3], 1);
}

static void test_wrap(void)
{
    RUN(LI(T0, 0x7fffffff), op_i(0, A0, T0, 1),  /* addi overflows to INT32_MIN */
        op_r(0x20, 0, A1, 0, T0),                  /* 0 - INT32_MAX */
        op_i(0, A2, 0, -1),                        /* addi sign-extends its immediate */
        op_r(0x20, 0, A3, A1, T0),                 /* -INT32_MAX - INT32_MAX = 2 (mod 2^32) */
        rva_lui(A4, 0xfffff), op_i(4, A5, 0, -2048), RVA_ECALL); /* lui; xori sign-extends */
    CHECK_EQ(core.x[A0], 0x80000000u);
    CHECK_EQ(core.x[A1], 0x80000001u);
    CHECK_EQ(core.x[A2], 0xffffffffu);
    CHECK_EQ(core.x[A3], 2);
    CHECK_EQ(core.x[A4], 0xfffff000u);
    CHECK_EQ(core.x[A5], 0xfffff800u);
    /* AUIPC adds to its own pc and wraps at 2^32: at 0x1000, 0xfffff << 12 gives 0 */
    const uint32_t p[] = {rva_u(0xfffff, A0, 0x17), rva_u(0x00001, A1, 0x17), RVA_ECALL};
    run_at(0x1000, p, 3);
    CHECK_EQ(core.x[A0], 0);
    CHECK_EQ(core.x[A1], 0x2004);
    /* writes to x0 vanish */
    RUN(op_i(0, 0, 0, 5), op_i(0, A0, 0, 0), RVA_ECALL);
    CHECK_EQ(core.x[0], 0);
    CHECK_EQ(core.x[A0], 0);
}

static void test_loads(void)
{
    memset(spad, 0, sizeof spad);
    spad[0] = 0x80ff7f80u; /* bytes 80 7f ff 80 */
    spad[1] = 0x7fff8000u; /* halves 8000 7fff */
    RUN(LI(T0, 0x10000000u), load(0, A0, T0, 0), /* lb 0x80 */
        load(4, A1, T0, 0),                       /* lbu 0x80 */
        load(0, A2, T0, 1),                       /* lb 0x7f */
        load(0, A3, T0, 2),                       /* lb 0xff */
        load(1, A4, T0, 4),                       /* lh 0x8000 */
        load(5, A5, T0, 4),                       /* lhu 0x8000 */
        load(1, T1, T0, 6),                       /* lh 0x7fff */
        load(2, T2, T0, 0), RVA_ECALL);           /* lw */
    CHECK_EQ(core.x[A0], 0xffffff80u);
    CHECK_EQ(core.x[A1], 0x80);
    CHECK_EQ(core.x[A2], 0x7f);
    CHECK_EQ(core.x[A3], 0xffffffffu);
    CHECK_EQ(core.x[A4], 0xffff8000u);
    CHECK_EQ(core.x[A5], 0x8000);
    CHECK_EQ(core.x[T1], 0x7fff);
    CHECK_EQ(core.x[T2], 0x80ff7f80u);
    /* stores of each width land in their byte lanes; the rest of the word is kept */
    spad[2] = 0x11223344u;
    RUN(LI(T0, 0x10000008u), LI(T1, 0xa5a5c3c3u), store(0, T1, T0, 3), store(1, T1, T0, 0),
        store(2, T1, T0, 4), RVA_ECALL);
    CHECK_EQ(spad[2], 0xc322c3c3u);
    CHECK_EQ(spad[3], 0xa5a5c3c3u);
    /* misaligned accesses fault (no fixup); the offending pc is the halt word */
    RUN(LI(T0, 0x10000002u), load(2, A0, T0, 0), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    CHECK_EQ(core.halt_word, 8);
    RUN(LI(T0, 0x10000001u), load(1, A0, T0, 0), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    RUN(LI(T0, 0x10000001u), store(1, A0, T0, 0), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    /* an address the bus refuses (the instruction window, from the data side) */
    RUN(load(2, A0, 0, 0), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    CHECK_EQ(core.halt_word, 0);
}

static void test_control_flow(void)
{
    /* every branch condition, taken and not: each taken one skips an addi that would add 100 */
    RUN(LI(T0, -1), LI(T1, 1), op_i(0, A0, 0, 0),
        rva_b(8, T1, T0, 4), op_i(0, A0, A0, 100),   /* blt -1 < 1: taken */
        rva_b(8, T1, T0, 6), op_i(0, A0, A0, 1),     /* bltu 0xffffffff < 1: not taken */
        rva_b(8, T0, T1, 7), op_i(0, A0, A0, 100),   /* bgeu 1 >= 0xffffffff: no -> +2 below */
        rva_b(8, T1, T0, 5), op_i(0, A0, A0, 2),     /* bge -1 >= 1: not taken */
        rva_b(8, T0, T0, 0), op_i(0, A0, A0, 100),   /* beq: taken */
        rva_b(8, T1, T0, 1), op_i(0, A0, A0, 100),   /* bne: taken */
        RVA_ECALL);
    CHECK_EQ(core.x[A0], 1 + 100 + 2); /* bgeu fell through into its +100 */
    /* JAL links pc + 4; JALR clears bit 0 of the sum */
    RUN(rva_jal(A0, 8), RVA_ECALL, LI(T0, 0x19), rva_jalr(A1, T0, 0), RVA_EBREAK,
        op_i(0, A2, 0, 7), RVA_ECALL);
    CHECK_EQ(core.x[A0], 4);
    CHECK_EQ(core.x[A1], 0x14);
    CHECK_EQ(core.x[A2], 7);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_ECALL);
    /* a backward branch loop: sum 1..10 */
    RUN(op_i(0, A0, 0, 0), op_i(0, T0, 0, 10), op_r(0, 0, A0, A0, T0), op_i(0, T0, T0, -1),
        rva_bne(T0, 0, -8), RVA_ECALL);
    CHECK_EQ(core.x[A0], 55);
    /* a jump target off the word grid halts (the model's refusal) with that target */
    RUN(rva_jal(0, 6), RVA_ECALL, RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
    CHECK_EQ(core.halt_word, 6);
}

static void test_halts_and_illegal(void)
{
    RUN(op_i(0, A0, 0, 42), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_ECALL);
    CHECK_EQ(core.halt_word, 42);
    CHECK_EQ(core.retired, 2); /* the halting instruction retires */
    RUN(op_i(0, A0, 0, -3), RVA_EBREAK);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_EBREAK);
    CHECK_EQ(core.halt_word, 0xfffffffdu);
    /* FENCE and FENCE.I run as no-ops */
    RUN(0x0ff0000fu, 0x0000100fu, op_i(0, A0, 0, 1), RVA_ECALL);
    CHECK_EQ(core.cause, KT_RV32_CAUSE_ECALL);
    CHECK_EQ(core.x[A0], 1);
    /* outside RV32I: each halts at its own pc with cause 3 */
    const uint32_t illegal[] = {
        rva_mul(A0, A0, A0),    /* M is absent */
        rva_ld(A0, 0, 0),       /* RV64 only */
        rva_sd(A0, 0, 0),       /* RV64 only */
        load(6, A0, 0, 0),      /* lwu: RV64 only */
        rva_csrrs(A0, 0xc00, 0), /* no CSRs */
        RVA_MRET, RVA_WFI,
        0x0000001bu,            /* addiw: RV64 only */
        0x00000001u,            /* a compressed encoding */
        0x00000000u,            /* the all-zero word */
        0xffffffffu,
        rva_b(8, 0, 0, 2),      /* branch funct3 2 */
        rva_i(0, 0, 1, A0, 0x67), /* jalr funct3 1 */
        op_r(0x20, 1, A0, A0, A0), /* sll with funct7 0x20 */
        op_r(0x01, 7, A0, A0, A0), /* and with funct7 1 (remu) */
        0x00200073u,            /* SYSTEM with imm 2 */
        0x000000f3u,            /* ECALL with rd set */
    };
    for (unsigned i = 0; i < sizeof illegal / sizeof illegal[0]; i++) {
        const uint32_t p[] = {RVA_NOP, illegal[i], RVA_ECALL};
        run_at(0x40, p, 3);
        CHECK_EQ(core.cause, KT_RV32_CAUSE_FAULT);
        CHECK_EQ(core.halt_word, 0x44);
    }
}

static void test_timing(void)
{
    /* two cycles of fill, then one each; +3 for a branch or jump the predictor gets wrong (a
     * fresh predictor says not taken: a first JAL pays, a not-taken branch does not); +2 for a
     * load read by the next instruction and +1 with one between (rv_core, measured; the sweeps
     * are in test_kt_rv32_timing) */
    memset(spad, 0, sizeof spad);
    RUN(RVA_NOP, RVA_NOP, RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 3);
    RUN(rva_jal(0, 4), RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 2 + 3);
    CHECK_EQ(core.mispredicts, 1);
    RUN(op_i(0, T0, 0, 1), rva_beq(T0, 0, 8), RVA_NOP, RVA_ECALL); /* not taken */
    CHECK_EQ(core.cycles, 2 + 4);
    CHECK_EQ(core.mispredicts, 0);
    RUN(LI(T0, 0x10000000u), load(2, A0, T0, 0), op_i(0, A1, A0, 1), RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 5 + 2);
    RUN(LI(T0, 0x10000000u), load(2, A0, T0, 0), RVA_NOP, op_i(0, A1, A0, 1), RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 6 + 1);
    RUN(LI(T0, 0x10000000u), load(2, A0, T0, 0), RVA_NOP, RVA_NOP, op_i(0, A1, A0, 1), RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 7);
    /* a load into x0 stalls nobody */
    RUN(LI(T0, 0x10000000u), load(2, 0, T0, 0), op_i(0, A1, 0, 1), RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 5);
    /* a mispredicted branch's bubbles cover a load's latency: the use after it does not stall */
    RUN(LI(T0, 0x10000000u), load(2, A0, T0, 0), rva_beq(0, 0, 8), RVA_NOP,
        op_i(0, A1, A0, 1), RVA_ECALL);
    CHECK_EQ(core.cycles, 2 + 6 + 3); /* rv_core: 11 */
}

int main(void)
{
    test_shifts();
    test_compares();
    test_wrap();
    test_loads();
    test_control_flow();
    test_halts_and_illegal();
    test_timing();
    return check_done();
}
