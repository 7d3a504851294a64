/* SPDX-License-Identifier: MIT */
/* Booting the RV32 control processor the way the hardware boots it — there is no loader: its
 * program image and data arrive as CU_DATA bursts into its instruction window and scratchpad,
 * then a kick (CU_INST op 1) starts it, and its completion (NODE_STATUS: the halt word, a fault
 * for EBREAK or a faulting halt) ends it. Every flit goes through the mailbox, in order, so the
 * kick cannot pass the data it announces on the way; the unit itself also holds a kick while a
 * burst is part-way in. */
#ifndef NPUKIT_KT_RV32_BOOT_H
#define NPUKIT_KT_RV32_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt.h"

/* Write n 32-bit words into window `buf` (KT_RV32_BUF_IMEM or KT_RV32_BUF_SPAD) of the unit at
 * `at`, from word index `word` (a multiple of 8: a 32-byte granule), in bursts of at most 256
 * granules; the last granule is padded with zeros. Refuses a range past window_words (the
 * unit's window, KT_RV32_*_WORDS at the reference build) — the unit would drop the burst. */
npk_status kt_rv32_write(kt_dev *d, kt_coord at, unsigned buf, uint32_t word,
                         const uint32_t *words, size_t n, uint32_t window_words);

typedef struct kt_rv32_result {
    uint32_t halt_word; /* a0 for ECALL/EBREAK, the faulting pc otherwise */
    bool faulted;       /* EBREAK or a faulting halt (the completion was SIG_FAULT) */
    uint32_t polls;     /* NODE_STATUS reads until the completion */
} kt_rv32_result;

/* Kick the unit at `at` at `pc` with `arg` and wait for its completion, reading NODE_STATUS at
 * most max_polls times (NPK_ETIMEDOUT naming the unit after that). */
npk_status kt_rv32_run(kt_dev *d, kt_coord at, uint32_t pc, uint32_t arg, uint32_t max_polls,
                       kt_rv32_result *res);

#endif
