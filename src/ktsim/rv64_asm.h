/* SPDX-License-Identifier: MIT */
/* Encoders for RV64 instruction words, for programs written inline in C (benchmarks, tests of
 * the core that must run without a RISC-V toolchain). Each function returns the 32-bit word of
 * one instruction, by the base ISA's formats. Header-only: tiny and pure. */
#ifndef NPUKIT_KTSIM_RV64_ASM_H
#define NPUKIT_KTSIM_RV64_ASM_H

#include <stdint.h>

static inline uint32_t rva_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd,
                             uint32_t opc)
{
    return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
static inline uint32_t rva_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc)
{
    return ((uint32_t)imm << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
static inline uint32_t rva_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc)
{
    uint32_t u = (uint32_t)imm;
    return ((u >> 5 & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 31) << 7) | opc;
}
static inline uint32_t rva_b(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 12 & 1) << 31) | ((u >> 5 & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
           (f3 << 12) | ((u >> 1 & 15) << 8) | ((u >> 11 & 1) << 7) | 0x63;
}
static inline uint32_t rva_u(uint32_t imm20, uint32_t rd, uint32_t opc)
{
    return (imm20 << 12) | (rd << 7) | opc;
}
static inline uint32_t rva_j(int32_t off, uint32_t rd)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 20 & 1) << 31) | ((u >> 1 & 0x3ff) << 21) | ((u >> 11 & 1) << 20) |
           ((u >> 12 & 0xff) << 12) | (rd << 7) | 0x6f;
}

/* The instructions programs in this repository write by hand. */
static inline uint32_t rva_addi(uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, 0, rd, 0x13);
}
static inline uint32_t rva_andi(uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, 7, rd, 0x13);
}
static inline uint32_t rva_slli(uint32_t rd, uint32_t rs1, uint32_t sh)
{
    return rva_i((int32_t)sh, rs1, 1, rd, 0x13);
}
static inline uint32_t rva_srli(uint32_t rd, uint32_t rs1, uint32_t sh)
{
    return rva_i((int32_t)sh, rs1, 5, rd, 0x13);
}
static inline uint32_t rva_add(uint32_t rd, uint32_t rs1, uint32_t rs2)
{
    return rva_r(0, rs2, rs1, 0, rd, 0x33);
}
static inline uint32_t rva_sub(uint32_t rd, uint32_t rs1, uint32_t rs2)
{
    return rva_r(0x20, rs2, rs1, 0, rd, 0x33);
}
static inline uint32_t rva_xor(uint32_t rd, uint32_t rs1, uint32_t rs2)
{
    return rva_r(0, rs2, rs1, 4, rd, 0x33);
}
static inline uint32_t rva_mul(uint32_t rd, uint32_t rs1, uint32_t rs2)
{
    return rva_r(1, rs2, rs1, 0, rd, 0x33);
}
static inline uint32_t rva_lui(uint32_t rd, uint32_t imm20)
{
    return rva_u(imm20 & 0xfffff, rd, 0x37);
}
static inline uint32_t rva_ld(uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, 3, rd, 0x03);
}
static inline uint32_t rva_lw(uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, 2, rd, 0x03);
}
static inline uint32_t rva_sd(uint32_t rs2, uint32_t rs1, int32_t imm)
{
    return rva_s(imm, rs2, rs1, 3, 0x23);
}
static inline uint32_t rva_sb(uint32_t rs2, uint32_t rs1, int32_t imm)
{
    return rva_s(imm, rs2, rs1, 0, 0x23);
}
static inline uint32_t rva_beq(uint32_t rs1, uint32_t rs2, int32_t off)
{
    return rva_b(off, rs2, rs1, 0);
}
static inline uint32_t rva_bne(uint32_t rs1, uint32_t rs2, int32_t off)
{
    return rva_b(off, rs2, rs1, 1);
}
static inline uint32_t rva_jal(uint32_t rd, int32_t off) { return rva_j(off, rd); }
static inline uint32_t rva_jalr(uint32_t rd, uint32_t rs1, int32_t imm)
{
    return rva_i(imm & 0xfff, rs1, 0, rd, 0x67);
}
static inline uint32_t rva_csrrw(uint32_t rd, uint32_t csr, uint32_t rs1)
{
    return rva_i((int32_t)csr, rs1, 1, rd, 0x73);
}
static inline uint32_t rva_csrrs(uint32_t rd, uint32_t csr, uint32_t rs1)
{
    return rva_i((int32_t)csr, rs1, 2, rd, 0x73);
}
static inline uint32_t rva_csrrsi(uint32_t rd, uint32_t csr, uint32_t imm)
{
    return rva_i((int32_t)csr, imm, 6, rd, 0x73);
}
static inline uint32_t rva_csrrci(uint32_t rd, uint32_t csr, uint32_t imm)
{
    return rva_i((int32_t)csr, imm, 7, rd, 0x73);
}
enum {
    RVA_ECALL = 0x00000073u,
    RVA_EBREAK = 0x00100073u,
    RVA_MRET = 0x30200073u,
    RVA_WFI = 0x10500073u,
    RVA_NOP = 0x00000013u,
};

#endif
