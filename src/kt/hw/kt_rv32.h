/* SPDX-License-Identifier: MIT */
/* The KohakuTPU RV32 control processor as data (CPU_RV64 = 0, the default build): the
 * processor's address map, its local control words, the node range through which it reaches the
 * mover and the transform occupants (control-registers §3.1), the MVGO descriptor, and the
 * compute-unit protocol it speaks (kick, halt, CU_DATA windows). Plain constants only, so a
 * program running on the processor includes this same header as the driver and the simulator.
 *
 * The RV64 complex's status words are in kt_rv64.h and are laid out differently: the two are
 * decoded by separate tables (kt_rv32_node_fields here), never by one decoder (§7.2). */
#ifndef NPUKIT_KT_RV32_H
#define NPUKIT_KT_RV32_H

/* ---- the address map: addr[31:28] selects the region (the rv_pe memory stage) ---- */
#define KT_RV32_REGION_SHIFT 28
#define KT_RV32_IMEM_BASE 0x00000000u /* fetch only: a data access here faults */
#define KT_RV32_SPAD_BASE 0x10000000u /* scratchpad: one cycle, always hits */
#define KT_RV32_CTL_BASE 0x20000000u  /* local control words, addr[7:2] decodes */
#define KT_RV32_NODE_BASE 0xF0000000u /* the node range, decoded ahead of the L1 (§3.1) */
#define KT_RV32_PEER_BASE 0x30000000u /* push-only window into other units' windows */
#define KT_RV32_DRAM_BASE 0x80000000u /* DRAM through the L1: offset addr[30:0] */
/* A peer-window address: unit (x, y), its instruction window (imem 1) or scratchpad, word `word`
 * of that window. */
#define KT_RV32_PEER_ADDR(x, y, imem, word)                                                        \
    (KT_RV32_PEER_BASE | ((unsigned)(x) << 24) | ((unsigned)(y) << 20) | ((unsigned)(imem) << 19) | \
     ((unsigned)(word) << 2))
#define KT_RV32_IMEM_WORDS 2048u      /* the reference build: 32-bit words each */
#define KT_RV32_SPAD_WORDS 2048u

/* ---- local control (word offsets from KT_RV32_CTL_BASE; the region aliases every 256 B) ---- */
#define KT_RV32_CTL_STATUS 0x00u  /* R: [0] flush busy, [1] writes outstanding */
#define KT_RV32_CTL_FLUSH 0x04u   /* W: write back the L1 (blocking) */
#define KT_RV32_CTL_INVAL 0x08u   /* W: drop the L1 (blocking) */
#define KT_RV32_CTL_CAUSE 0x0Cu   /* R: the last halt's cause */
#define KT_RV32_CTL_COREID 0x10u  /* R: {y, x} */
#define KT_RV32_CTL_ARG 0x14u     /* R: the word the kick carried */
#define KT_RV32_CTL_CYCLE 0x18u   /* R: cycles since the kick */
#define KT_RV32_CTL_INSTRET 0x1Cu /* R: instructions retired since the kick */
#define KT_RV32_CTL_WROUT 0x20u   /* R: writes not yet acknowledged */

/* ---- the node range (§3.1): bit 16 splits it ---- */
#define KT_RV32_MVGO 0xF0000000u     /* W: descriptor pointer and go; R: the node word */
#define KT_RV32_OCC_BASE 0xF0010000u /* | (id << 8) | reg: occupant id's register, 4 bytes */
#define KT_RV32_OCC_ID_SHIFT 8
#define KT_RV32_OCC_IDS 16u /* XFORM_ID is four bits; 0 is the bypass */
#define KT_RV32_OCC_ADDR(id, reg) (KT_RV32_OCC_BASE | ((unsigned)(id) << 8) | (unsigned)(reg))

/* The transform bank's registers (KohakuTPU's xform_bank): byte offsets within an occupant's
 * range, of which only [7:2] decodes. */
#define KT_RV32_OCC_REG_FAULT 0x00u    /* R: the bank's fault bits (every id); W: clear them */
#define KT_RV32_OCC_REG_GEOMETRY 0x04u /* R: id's occupant's geometry (rv32_regs.h), 0: none */
#define KT_RV32_OCC_REG_DECODE 0xFCu   /* the register-select bits of the offset */
#define KT_RV32_OCC_FAULT_NO_OCCUPANT 0x1u /* a transform named an id that holds no occupant */

/* The node word read at MVGO: [0] busy, [7:4] mover fault, [11:8] occupant fault. */
#define KT_RV32_NODE_BUSY 0x1u
#define KT_RV32_NODE_MOVER_FAULT_SHIFT 4
#define KT_RV32_NODE_OCC_FAULT_SHIFT 8
#define KT_RV32_NODE_FAULT_MASK 0xFu

/* The MVGO descriptor, 32-bit words in the scratchpad: word 0 = n (low 16 bits), then n
 * triples {24'b0, offset[7:0]}, value[31:0], value[63:32] — one mover register write each. */
#define KT_RV32_DESC_N_MASK 0xFFFFu
#define KT_RV32_DESC_OFFSET_MASK 0xFFu
#define KT_RV32_DESC_WORDS(n) (1u + 3u * (unsigned)(n))

/* ---- the compute-unit protocol (rv_pe) ---- */
#define KT_RV32_CU_TYPE 0x5256u /* 'RV' */
#define KT_RV32_KICK_OP 0x01u   /* CU_INST payload [255:248]; [247:216] start pc, [215:184] arg */
/* CU_DATA buffer ids: 32-byte granules, or one byte-enabled 32-bit word. */
#define KT_RV32_BUF_SPAD 0u
#define KT_RV32_BUF_IMEM 1u
#define KT_RV32_BUF_SPAD_WORD 4u
#define KT_RV32_BUF_IMEM_WORD 5u

/* Halt causes (CTL_CAUSE) and the halt word each reports. */
#define KT_RV32_CAUSE_NONE 0u
#define KT_RV32_CAUSE_ECALL 1u  /* halt word = a0; completion code INST_COMPLETE */
#define KT_RV32_CAUSE_EBREAK 2u /* halt word = a0; completion as a fault */
#define KT_RV32_CAUSE_FAULT 3u  /* illegal, misaligned or unmapped: halt word = the pc */

#endif
