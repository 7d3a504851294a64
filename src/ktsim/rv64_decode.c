/* SPDX-License-Identifier: MIT */
/* Decoding one 32-bit RV64IM + Zicsr + Zifencei instruction into the executor's form.
 *
 * The major opcode picks a row; inside a row funct3 (and funct7 for register-register forms)
 * indexes a table of operations. An encoding no table names decodes as RV_ILLEGAL, which the
 * executor turns into an illegal-instruction trap: no word can crash the simulator. */
#include "rv64.h"
#include "rv64_ops.h"

/* Field extraction, as the base ISA lays them out. */
static uint32_t f_rd(uint32_t w) { return (w >> 7) & 31; }
static uint32_t f_rs1(uint32_t w) { return (w >> 15) & 31; }
static uint32_t f_rs2(uint32_t w) { return (w >> 20) & 31; }
static uint32_t f_funct3(uint32_t w) { return (w >> 12) & 7; }
static uint32_t f_funct7(uint32_t w) { return w >> 25; }

static int64_t sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    return (int64_t)((v ^ m) - m);
}
static int64_t imm_i(uint32_t w) { return sext(w >> 20, 12); }
static int64_t imm_s(uint32_t w) { return sext(((w >> 25) << 5) | ((w >> 7) & 31), 12); }
static int64_t imm_b(uint32_t w)
{
    uint32_t v = ((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 63) << 5) |
                 (((w >> 8) & 15) << 1);
    return sext(v, 13);
}
static int64_t imm_u(uint32_t w) { return sext(w & 0xfffff000u, 32); }
static int64_t imm_j(uint32_t w)
{
    uint32_t v = ((w >> 31) << 20) | (((w >> 12) & 255) << 12) | (((w >> 20) & 1) << 11) |
                 (((w >> 21) & 1023) << 1);
    return sext(v, 21);
}

/* funct3 → operation, per major opcode (0 = no such instruction). */
static const uint8_t op_load[8] = {RV_LB, RV_LH, RV_LW, RV_LD, RV_LBU, RV_LHU, RV_LWU, 0};
static const uint8_t op_store[8] = {RV_SB, RV_SH, RV_SW, RV_SD, 0, 0, 0, 0};
static const uint8_t op_branch[8] = {RV_BEQ, RV_BNE, 0, 0, RV_BLT, RV_BGE, RV_BLTU, RV_BGEU};
static const uint8_t op_imm[8] = {RV_ADDI, RV_SLLI, RV_SLTI, RV_SLTIU,
                                  RV_XORI, RV_SRLI, RV_ORI,  RV_ANDI};
static const uint8_t op_csr[8] = {0, RV_CSRRW,  RV_CSRRS,  RV_CSRRC,
                                  0, RV_CSRRWI, RV_CSRRSI, RV_CSRRCI};
/* Register-register forms: [funct7 row][funct3]; row 0 = funct7 0, 1 = 0x20, 2 = 0x01 (M). */
static const uint8_t op_reg[3][8] = {
    {RV_ADD, RV_SLL, RV_SLT, RV_SLTU, RV_XOR, RV_SRL, RV_OR, RV_AND},
    {RV_SUB, 0, 0, 0, 0, RV_SRA, 0, 0},
    {RV_MUL, RV_MULH, RV_MULHSU, RV_MULHU, RV_DIV, RV_DIVU, RV_REM, RV_REMU},
};
static const uint8_t op_reg32[3][8] = {
    {RV_ADDW, RV_SLLW, 0, 0, 0, RV_SRLW, 0, 0},
    {RV_SUBW, 0, 0, 0, 0, RV_SRAW, 0, 0},
    {RV_MULW, 0, 0, 0, RV_DIVW, RV_DIVUW, RV_REMW, RV_REMUW},
};
/* SYSTEM with funct3 0: the whole word names the instruction. */
static const struct {
    uint32_t word;
    uint8_t op;
} op_system[] = {
    {0x00000073u, RV_ECALL},
    {0x00100073u, RV_EBREAK},
    {0x30200073u, RV_MRET},
    {0x10500073u, RV_WFI},
};

static int funct7_row(uint32_t f7) { return f7 == 0 ? 0 : f7 == 0x20 ? 1 : f7 == 0x01 ? 2 : -1; }

/* The class (and so the cycle cost) of each operation. */
static ksim_rv64_class op_class(unsigned op)
{
    if (op >= RV_LB && op <= RV_LWU)
        return KSIM_RV64_LOAD;
    if (op >= RV_SB && op <= RV_SD)
        return KSIM_RV64_STORE;
    if (op >= RV_BEQ && op <= RV_BGEU)
        return KSIM_RV64_BRANCH;
    if (op == RV_JAL || op == RV_JALR)
        return KSIM_RV64_JUMP;
    if (op == RV_MUL || op == RV_MULH || op == RV_MULHSU || op == RV_MULHU || op == RV_MULW)
        return KSIM_RV64_MUL;
    if ((op >= RV_DIV && op <= RV_REMU) || (op >= RV_DIVW && op <= RV_REMUW))
        return KSIM_RV64_DIV;
    if (op >= RV_CSRRW && op <= RV_CSRRCI)
        return KSIM_RV64_CSR;
    if (op >= RV_FENCE && op <= RV_WFI)
        return KSIM_RV64_SYSTEM;
    return KSIM_RV64_ALU;
}

/* The operation a word encodes (RV_ILLEGAL when none); fills the operand fields. */
static unsigned decode_op(uint32_t w, ksim_rv64_insn *o)
{
    uint32_t f3 = f_funct3(w), f7 = f_funct7(w);
    int row;
    o->rd = (uint8_t)f_rd(w);
    o->rs1 = (uint8_t)f_rs1(w);
    o->rs2 = (uint8_t)f_rs2(w);
    o->imm = 0;
    if ((w & 3) != 3)
        return RV_ILLEGAL; /* a compressed encoding: the core has no C extension */
    switch ((w >> 2) & 31) {
    case 0x0D: o->imm = imm_u(w); return RV_LUI;
    case 0x05: o->imm = imm_u(w); return RV_AUIPC;
    case 0x1B: o->imm = imm_j(w); return (o->imm & 3) ? RV_JUMP_MISALIGNED : RV_JAL;
    case 0x19: o->imm = imm_i(w); return f3 == 0 ? RV_JALR : RV_ILLEGAL;
    case 0x18:
        o->imm = imm_b(w);
        if (!op_branch[f3])
            return RV_ILLEGAL;
        return (o->imm & 3) ? RV_JUMP_MISALIGNED : op_branch[f3];
    case 0x00: o->imm = imm_i(w); return op_load[f3];
    case 0x08: o->imm = imm_s(w); return op_store[f3];
    case 0x04:
        o->imm = imm_i(w);
        if (f3 == 1) /* SLLI: funct6 must be zero; the shift amount is six bits */
            return (w >> 26) == 0 ? (o->imm &= 63, RV_SLLI) : RV_ILLEGAL;
        if (f3 == 5) {
            unsigned f6 = w >> 26;
            o->imm &= 63;
            return f6 == 0 ? RV_SRLI : f6 == 0x10 ? RV_SRAI : RV_ILLEGAL;
        }
        return op_imm[f3];
    case 0x06:
        o->imm = imm_i(w);
        if (f3 == 0)
            return RV_ADDIW;
        o->imm &= 31;
        if (f3 == 1)
            return f7 == 0 ? RV_SLLIW : RV_ILLEGAL;
        if (f3 == 5)
            return f7 == 0 ? RV_SRLIW : f7 == 0x20 ? RV_SRAIW : RV_ILLEGAL;
        return RV_ILLEGAL;
    case 0x0C: row = funct7_row(f7); return row < 0 ? RV_ILLEGAL : op_reg[row][f3];
    case 0x0E: row = funct7_row(f7); return row < 0 ? RV_ILLEGAL : op_reg32[row][f3];
    case 0x03:
        /* Reserved FENCE encodings behave as FENCE; FENCE.I is Zifencei. */
        return f3 == 0 ? RV_FENCE : f3 == 1 ? RV_FENCE_I : RV_ILLEGAL;
    case 0x1C:
        if (f3 == 0) {
            for (unsigned i = 0; i < sizeof op_system / sizeof op_system[0]; i++)
                if (op_system[i].word == w)
                    return op_system[i].op;
            return RV_ILLEGAL;
        }
        if (!op_csr[f3])
            return RV_ILLEGAL;
        {
            bool ro;
            int r = ksim_rv64_csr_find(w >> 20, &ro);
            /* A CSR that does not exist, or a write to a read-only one, is illegal. CSRRS and
             * CSRRC with rs1 = x0 (or a zero immediate) do not write. */
            bool writes = (op_csr[f3] == RV_CSRRW || op_csr[f3] == RV_CSRRWI) || o->rs1 != 0;
            if (r < 0 || (ro && writes))
                return RV_ILLEGAL;
            o->imm = r;
        }
        return op_csr[f3];
    default: return RV_ILLEGAL;
    }
}

void ksim_rv64_decode(const ksim_rv64_costs *costs, uint32_t word, ksim_rv64_insn *out)
{
    unsigned op = decode_op(word, out);
    out->op = (uint8_t)op;
    /* A trapping encoding costs a system instruction; the trap entry adds its own cost. */
    if (op == RV_ILLEGAL || op == RV_JUMP_MISALIGNED)
        out->cycles = costs->cycles[KSIM_RV64_SYSTEM];
    else
        out->cycles = costs->cycles[op_class(op)];
    if (out->rd == 0)
        out->rd = 32; /* writes to x0 land in the sink register */
}
