/* SPDX-License-Identifier: MIT */
/* The KohakuTPU RV64 control complex as data: its address map, the host window's registers,
 * the processor's control region and the dispatch mailbox (control-registers §6-§7, the load
 * window of the RV64 node). Plain constants only, so programs that run on the complex include
 * this same header as the host driver and the simulator do. */
#ifndef NPUKIT_KT_RV64_H
#define NPUKIT_KT_RV64_H

/* ---- the processor's physical address map (the reference build) ---- */
#define KT_RV64_IMEM_WORDS 8192u /* 32-bit instruction words, at address 0 */
#define KT_RV64_SPAD_BASE 0x10000u
#define KT_RV64_SPAD_WORDS 4096u   /* 64-bit scratchpad words */
#define KT_RV64_CTRL_BASE 0x20000u /* the 256-byte control region */

/* ---- the host window (§6): hs_addr[31:28] selects the region ---- */
#define KT_RV64_HS_REGION_SHIFT 28
#define KT_RV64_HS_IMEM 0x0u /* write only, one 32-bit word per write (low half) */
#define KT_RV64_HS_SPAD 0x1u /* write only, 64-bit, byte-enabled */
#define KT_RV64_HS_CTRL 0x2u /* the host registers below */

/* Host registers, offsets hs_addr[7:0] (reads ignore the region bits). */
#define KT_RV64_HR_BOOT 0x00u    /* W [0]: 1 boots (pulse), 0 stops */
#define KT_RV64_HR_PC 0x08u      /* W: stored, never used (the core starts at 0) */
#define KT_RV64_HR_DBELL 0x10u   /* W [0]: the software-interrupt level */
#define KT_RV64_HR_STATUS 0x18u  /* R {exited[3], halted[2], cause[1:0]} */
#define KT_RV64_HR_EXIT 0x20u    /* R the word last stored to R_EXIT */
#define KT_RV64_HR_HALTPC 0x28u  /* R */
#define KT_RV64_HR_CYCLES 0x30u  /* R 64-bit */
#define KT_RV64_HR_RETIRED 0x38u /* R 64-bit */
#define KT_RV64_STATUS_EXITED 0x8u
#define KT_RV64_STATUS_HALTED 0x4u
#define KT_RV64_STATUS_CAUSE 0x3u

/* ---- the load window: the card host's way to the port, at node control window + 0x8000 ---- */
#define KT_RV64_LOAD_WINDOW 0x8000u
#define KT_RV64_LOAD_WINDOW_SIZE 0x1000u
/* 0x000-0x03F pass through to the host registers above; then: */
#define KT_RV64_LW_STDIN 0x040u     /* W: push one byte into the 64-deep stdin queue */
#define KT_RV64_LW_LOAD_CTL 0x080u  /* W: [0] region (0 imem, 1 scratchpad), [23:8] byte offset */
#define KT_RV64_LW_LOAD_DATA 0x088u /* W: one word into the region, then advance */
#define KT_RV64_LW_CONS 0x090u      /* R {valid[8], byte[7:0]} of the console FIFO; W pops */
#define KT_RV64_STDIN_DEPTH 64u
#define KT_RV64_CONS_DEPTH 256u
#define KT_RV64_CONS_VALID 0x100u

/* ---- the control region (§7), offsets from KT_RV64_CTRL_BASE ---- */
#define KT_RV64_R_EXIT 0x00u      /* W: sets exited, latches the word */
#define KT_RV64_R_CONSOLE 0x08u   /* W [7:0]: one console byte, lost if nobody looks */
#define KT_RV64_R_DBELL 0x10u     /* R {63'0, HR_DBELL} */
#define KT_RV64_R_SATP 0x18u      /* R: mirror of satp */
#define KT_RV64_R_MOVER 0x20u     /* R {busy[32], fault[31:28], moves done[27:0]} */
#define KT_RV64_R_DBCOUNT 0x28u   /* R: four inbound doorbell counts, 16 bits per mesh */
#define KT_RV64_R_STDIN 0x30u     /* R {valid[8], byte[7:0]}; W pops (the load window's queue) */
#define KT_RV64_R_MBOX 0x40u      /* 0x40-0x7F: the dispatch mailbox */
#define KT_RV64_R_MOVER_CFG 0x80u /* 0x80-0xBF: mover registers 0x00-0x3F */
#define KT_RV64_R_ILINK_CFG 0xC0u /* 0xC0-0xFF: interlink registers 0x80 + k */
#define KT_RV64_MOVER_BUSY (1ull << 32)
#define KT_RV64_MOVER_FAULT_SHIFT 28
#define KT_RV64_MOVER_DONE_MASK 0x0fffffffull

/* Interlink registers through the window (0xC0 + k writes interlink register 0x80 + k). */
#define KT_RV64_R_ILINK_CTRL 0xC0u /* [0] enable, [1] clear doorbell counts, [2] clear fault */
#define KT_RV64_R_ILINK_MESHID 0xC8u
#define KT_RV64_R_ILINK_RING 0xD0u /* [1:0] destination mesh, [15:8] tag; the write rings */

/* ---- the dispatch mailbox (§7.5): registers at R_MBOX + 8 * index ---- */
#define KT_RV64_M_DST 0x40u  /* [3:0] x, [11:8] y */
#define KT_RV64_M_ARG0 0x48u /* payload [63:0] */
#define KT_RV64_M_ARG1 0x50u
#define KT_RV64_M_ARG2 0x58u
#define KT_RV64_M_ARG3 0x60u /* payload [255:192]; a unit's opcode is the top nibble */
#define KT_RV64_M_GO 0x68u   /* W: build the CU_INST and offer it (ignored while offered) */
#define KT_RV64_M_STAT 0x70u /* R [7:0] queued, [15] offered, [31] sticky overflow */
#define KT_RV64_M_HEAD 0x78u /* R the oldest completion (0 when empty); W pops */
#define KT_RV64_MSTAT_QUEUED 0xffu
#define KT_RV64_MSTAT_OFFERED 0x8000u
#define KT_RV64_MSTAT_OVERFLOW 0x80000000u
#define KT_RV64_CQ_DEPTH 16u
/* A completion word: {8'0, src_y[55:52], src_x[51:48], code[47:40], arg[39:8], 8'0}. */
#define KT_RV64_CQ_SRC_Y(w) (((w) >> 52) & 0xf)
#define KT_RV64_CQ_SRC_X(w) (((w) >> 48) & 0xf)
#define KT_RV64_CQ_CODE(w) (((w) >> 40) & 0xff)
#define KT_RV64_CQ_ARG(w) (((w) >> 8) & 0xffffffffu)

#endif
