/* SPDX-License-Identifier: MIT */
/* The operations the RV64 decoder produces and the executor dispatches on. One value per
 * instruction the core implements, plus ILLEGAL (anything else) and JUMP_MISALIGNED (a JAL or
 * branch whose target is not 4-byte aligned: with no compressed instructions that traps on the
 * jump itself). */
#ifndef NPUKIT_KTSIM_RV64_OPS_H
#define NPUKIT_KTSIM_RV64_OPS_H

enum ksim_rv64_op {
    RV_ILLEGAL = 0,
    RV_LUI, RV_AUIPC, RV_JAL, RV_JALR,
    RV_BEQ, RV_BNE, RV_BLT, RV_BGE, RV_BLTU, RV_BGEU,
    RV_LB, RV_LH, RV_LW, RV_LD, RV_LBU, RV_LHU, RV_LWU,
    RV_SB, RV_SH, RV_SW, RV_SD,
    RV_ADDI, RV_SLTI, RV_SLTIU, RV_XORI, RV_ORI, RV_ANDI, RV_SLLI, RV_SRLI, RV_SRAI,
    RV_ADDIW, RV_SLLIW, RV_SRLIW, RV_SRAIW,
    RV_ADD, RV_SUB, RV_SLL, RV_SLT, RV_SLTU, RV_XOR, RV_SRL, RV_SRA, RV_OR, RV_AND,
    RV_ADDW, RV_SUBW, RV_SLLW, RV_SRLW, RV_SRAW,
    RV_MUL, RV_MULH, RV_MULHSU, RV_MULHU, RV_DIV, RV_DIVU, RV_REM, RV_REMU,
    RV_MULW, RV_DIVW, RV_DIVUW, RV_REMW, RV_REMUW,
    RV_FENCE, RV_FENCE_I, RV_ECALL, RV_EBREAK, RV_MRET, RV_WFI,
    /* CSR ops carry the CSR's model row in imm's low 32 bits and, for the immediate forms,
     * the 5-bit immediate in rs1. */
    RV_CSRRW, RV_CSRRS, RV_CSRRC, RV_CSRRWI, RV_CSRRSI, RV_CSRRCI,
    RV_JUMP_MISALIGNED,
    RV_OP_COUNT
};

#endif
