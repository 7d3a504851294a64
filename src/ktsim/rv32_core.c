/* SPDX-License-Identifier: MIT */
/* The RV32I interpreter (rv32.h). Every value is a uint32_t: additions wrap at 2^32 by C's
 * unsigned rules, signed comparisons and the arithmetic shift convert explicitly, and the
 * decoder refuses exactly what upstream's rv_id refuses (reserved funct3/funct7 values, any
 * SYSTEM word other than ECALL and EBREAK, an opcode outside RV32I). */
#include "rv32.h"

#include <string.h>

#include "kt/hw/kt_rv32.h"

const uint32_t ksim_rv32_costs[KSIM_RV32_COST_COUNT] = {
    [KSIM_RV32_COST_FILL] = 2,
    [KSIM_RV32_COST_INSN] = 1,
    [KSIM_RV32_COST_MISPREDICT] = 3,
    [KSIM_RV32_COST_LOAD_USE] = 2,
};

enum {
    OP_LOAD = 0x03,
    OP_MISC = 0x0f,
    OP_IMM = 0x13,
    OP_AUIPC = 0x17,
    OP_STORE = 0x23,
    OP_REG = 0x33,
    OP_LUI = 0x37,
    OP_BRANCH = 0x63,
    OP_JALR = 0x67,
    OP_JAL = 0x6f,
    OP_SYSTEM = 0x73,
};

void ksim_rv32_init(ksim_rv32 *c, const uint32_t *imem, uint32_t imem_words,
                    const ksim_rv32_bus *bus)
{
    *c = (ksim_rv32){0};
    c->imem = imem;
    c->imem_words = imem_words;
    c->bus = *bus;
    ksim_rv32_btb_reset(c->btb);
    c->halted = true; /* out of reset: idle until a kick */
}

void ksim_rv32_start(ksim_rv32 *c, uint32_t pc)
{
    /* The register file has no reset (the RTL's is a RAM): a program starts with what the last
     * one left, zeros only after power-on. */
    c->pc = pc;
    c->cycles = ksim_rv32_costs[KSIM_RV32_COST_FILL];
    c->retired = c->mispredicts = 0;
    c->halted = false;
    c->cause = KT_RV32_CAUSE_NONE;
    c->halt_word = 0;
    memset(c->loads, 0, sizeof c->loads);
}

static uint32_t sext(uint32_t v, unsigned bits) { return (v ^ (1u << (bits - 1))) - (1u << (bits - 1)); }

static int32_t as_signed(uint32_t v)
{
    /* two's complement without implementation-defined conversion */
    return v & 0x80000000u ? -(int32_t)(~v) - 1 : (int32_t)v;
}

/* An arithmetic right shift of a 32-bit value by 0..31. */
static uint32_t sra(uint32_t v, unsigned sh)
{
    uint32_t fill = (v & 0x80000000u) && sh ? ~(0xffffffffu >> sh) : 0;
    return (v >> sh) | fill;
}

static uint32_t imm_i(uint32_t w) { return sext(w >> 20, 12); }
static uint32_t imm_s(uint32_t w) { return sext(((w >> 25) << 5) | ((w >> 7) & 31), 12); }
static uint32_t imm_b(uint32_t w)
{
    return sext(((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3f) << 5) |
                    (((w >> 8) & 15) << 1),
                13);
}
static uint32_t imm_j(uint32_t w)
{
    return sext(((w >> 31) << 20) | (((w >> 12) & 0xff) << 12) | (((w >> 20) & 1) << 11) |
                    (((w >> 21) & 0x3ff) << 1),
                21);
}

static ksim_rv32_stop halt(ksim_rv32 *c, uint8_t cause, uint32_t word)
{
    c->halted = true;
    c->cause = cause;
    c->halt_word = word;
    c->cycles += ksim_rv32_costs[KSIM_RV32_COST_INSN];
    c->retired++; /* the halting instruction retires (it raised the halt) */
    return KSIM_RV32_HALTED;
}

static ksim_rv32_stop fault(ksim_rv32 *c) { return halt(c, KT_RV32_CAUSE_FAULT, c->pc); }

/* The ALU of OP and OP-IMM; alt is funct7 = 0x20 (SUB, SRA). Shift amounts are b's low five
 * bits, whatever the register holds above them. */
static uint32_t alu(uint32_t f3, bool alt, uint32_t a, uint32_t b)
{
    switch (f3) {
    case 0: return alt ? a - b : a + b;
    case 1: return a << (b & 31);
    case 2: return as_signed(a) < as_signed(b);
    case 3: return a < b;
    case 4: return a ^ b;
    case 5: return alt ? sra(a, b & 31) : a >> (b & 31);
    case 6: return a | b;
    default: return a & b;
    }
}

static bool branch_taken(uint32_t f3, uint32_t a, uint32_t b, bool *legal)
{
    *legal = true;
    switch (f3) {
    case 0: return a == b;
    case 1: return a != b;
    case 4: return as_signed(a) < as_signed(b);
    case 5: return as_signed(a) >= as_signed(b);
    case 6: return a < b;
    case 7: return a >= b;
    }
    *legal = false;
    return false;
}

/* The load-use stall an instruction reaching execute at `at` pays for reading rs (0: none). */
static uint32_t load_use(const ksim_rv32 *c, unsigned rs, uint64_t at)
{
    uint32_t stall = 0;
    for (unsigned i = 0; rs && i < 2; i++)
        if (c->loads[i].rd == rs && c->loads[i].ready_at > at &&
            c->loads[i].ready_at - at > stall)
            stall = (uint32_t)(c->loads[i].ready_at - at);
    return stall;
}

ksim_rv32_stop ksim_rv32_step(ksim_rv32 *c)
{
    if (c->halted)
        return KSIM_RV32_HALTED;
    if ((c->pc & 3) || (c->pc >> KT_RV32_REGION_SHIFT) != 0)
        return fault(c); /* a jump target off the word grid or out of the instruction window */
    uint32_t w = c->imem[(c->pc >> 2) & (c->imem_words - 1)];
    uint32_t opc = w & 0x7f, rd = (w >> 7) & 31, f3 = (w >> 12) & 7, rs1 = (w >> 15) & 31,
             rs2 = (w >> 20) & 31, f7 = w >> 25;
    uint32_t a = c->x[rs1], b = c->x[rs2];
    uint32_t next = c->pc + 4, val = 0;
    bool writes = false, is_load = false, uses1 = false, uses2 = false, taken = false;
    bool flow = false;   /* a branch or jump: the predictor learns its outcome */
    uint32_t target = 0; /* ... and its target, taken or not (a branch's own) */
    switch (opc) {
    case OP_LUI: val = w & 0xfffff000u, writes = true; break;
    case OP_AUIPC: val = c->pc + (w & 0xfffff000u), writes = true; break;
    case OP_JAL:
        val = next, writes = true, taken = flow = true;
        next = target = c->pc + imm_j(w);
        break;
    case OP_JALR:
        if (f3)
            return fault(c);
        val = next, writes = true, taken = flow = true, uses1 = true;
        next = target = (a + imm_i(w)) & ~1u;
        break;
    case OP_BRANCH: {
        bool legal;
        uses1 = uses2 = flow = true;
        taken = branch_taken(f3, a, b, &legal);
        if (!legal)
            return fault(c);
        target = c->pc + imm_b(w);
        if (taken)
            next = target;
        break;
    }
    case OP_LOAD: {
        static const uint8_t width[8] = {1, 2, 4, 0, 1, 2, 0, 0};
        unsigned n = width[f3];
        if (!n)
            return fault(c);
        uint32_t addr = a + imm_i(w);
        if (addr & (n - 1))
            return fault(c);
        uint32_t v = 0;
        ksim_rv32_access r = c->bus.load(c->bus.ctx, addr, n, &v);
        if (r == KSIM_RV32_ACCESS_STALL)
            return KSIM_RV32_STALLED;
        if (r != KSIM_RV32_ACCESS_OK)
            return fault(c);
        val = f3 < 4 && n < 4 ? sext(v, 8 * n) : v;
        writes = is_load = uses1 = true;
        break;
    }
    case OP_STORE: {
        if (f3 > 2)
            return fault(c);
        unsigned n = 1u << f3;
        uint32_t addr = a + imm_s(w);
        if (addr & (n - 1))
            return fault(c);
        uint32_t v = n == 4 ? b : b & ((1u << (8 * n)) - 1);
        ksim_rv32_access r = c->bus.store(c->bus.ctx, addr, n, v);
        if (r == KSIM_RV32_ACCESS_STALL)
            return KSIM_RV32_STALLED;
        if (r != KSIM_RV32_ACCESS_OK)
            return fault(c);
        uses1 = uses2 = true;
        break;
    }
    case OP_IMM: {
        /* shifts carry a funct7 in the immediate's top bits (SRAI's 0x20, else 0); the other
         * operations' immediate is all immediate */
        bool shift = f3 == 1 || f3 == 5, alt = f3 == 5 && f7 == 0x20;
        if (shift && f7 != 0 && !alt)
            return fault(c);
        val = alu(f3, alt, a, imm_i(w));
        writes = uses1 = true;
        break;
    }
    case OP_REG:
        if (f7 != 0 && !(f7 == 0x20 && (f3 == 0 || f3 == 5)))
            return fault(c);
        val = alu(f3, f7 == 0x20, a, b);
        writes = uses1 = uses2 = true;
        break;
    case OP_MISC: break; /* FENCE, FENCE.I: one core, one memory port, already ordered */
    case OP_SYSTEM:
        if ((w >> 21) || ((w >> 7) & 0x1fff))
            return fault(c);
        return halt(c, (w >> 20) & 1 ? KT_RV32_CAUSE_EBREAK : KT_RV32_CAUSE_ECALL, c->x[10]);
    default: return fault(c);
    }
    uint32_t stall = uses1 ? load_use(c, rs1, c->cycles) : 0;
    uint32_t stall2 = uses2 ? load_use(c, rs2, c->cycles) : 0;
    stall = stall2 > stall ? stall2 : stall;
    uint64_t at = c->cycles + stall; /* the cycle this instruction executes */
    /* Fetch went where the predictor said; execute finds out whether that was right. The
     * outcome is in the table before the same branch is fetched again (the RTL writes it the
     * cycle after execute; no program measured shows a difference). */
    uint32_t predicted_target = 0;
    bool predicted = ksim_rv32_btb_predict(c->btb, c->pc, &predicted_target);
    bool wrong = predicted != taken || (taken && predicted_target != next);
    if (flow)
        ksim_rv32_btb_update(c->btb, c->pc, taken, opc != OP_BRANCH, target);
    c->mispredicts += wrong;
    c->cycles += ksim_rv32_costs[KSIM_RV32_COST_INSN] + stall +
                 (wrong ? ksim_rv32_costs[KSIM_RV32_COST_MISPREDICT] : 0);
    if (is_load) {
        c->loads[1] = c->loads[0];
        c->loads[0] = (struct ksim_rv32_load){(uint8_t)rd,
                                              at + 1 + ksim_rv32_costs[KSIM_RV32_COST_LOAD_USE]};
    }
    if (writes && rd)
        c->x[rd] = val;
    c->pc = next;
    c->retired++;
    return KSIM_RV32_RAN;
}
