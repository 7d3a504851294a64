/* SPDX-License-Identifier: MIT */
/* KohakuTPU: booting and running the RV32 control processor (CPU_RV64 = 0) the way the hardware
 * boots it — there is no loader: its program image and data arrive as CU_DATA bursts into its
 * instruction window and scratchpad, then a kick (CU_INST op 1) starts it, and its completion
 * (NODE_STATUS: the halt word, a fault for EBREAK or a faulting halt) ends it. Every flit goes
 * through the mailbox, in order, so the kick cannot pass the data it announces on the way; the
 * unit itself also holds a kick while a burst is part-way in.
 *
 * The flits carry the driver's reply coordinate as their source (kt_options.reply_to), so the
 * completion and any DATA_RECEIVED reach the orchestrator and never the processor's own (0,0).
 * The same boot runs from the host or, as host control programs, in the host control-program
 * engine (spec §5: the mailbox is part of the control window the engine writes). */
#ifndef NPUKIT_KT_RV32_API_H
#define NPUKIT_KT_RV32_API_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt.h"
#include "npukit/kt_hostprog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flits of one engine program: each is a mailbox send of 8 commands (two POLLs for room, five
 * TX_FLIT words, TX_KICK) within the engine's 128, leaving room for the completion's POLL and
 * DONE. */
enum { KT_RV32_ENGINE_FLITS = 15 };

/* Write n 32-bit words into window `buf` (the CU_DATA buffer: 1 the instruction window, 0 the
 * scratchpad) of the processor at `at` (CU_CAPS type 'RV'), from word index `word` (a multiple
 * of 8: a 32-byte granule), in bursts of at most 256 granules; the last granule is padded with
 * zeros. Refuses a range past window_words (the unit's window, 2048 words each at the reference
 * build) — the unit would drop the burst. */
NPUKIT_API npk_status kt_rv32_write(kt_dev *d, kt_coord at, unsigned buf, uint32_t word,
                                    const uint32_t *words, size_t n, uint32_t window_words);
/* The flits kt_rv32_write sends, into out[max] (*n_out of them), checked the same way;
 * kt_rv32_write_flits_needed(n) is how many n words take. */
NPUKIT_API npk_status kt_rv32_write_flits(const kt_dev *d, kt_coord at, unsigned buf,
                                          uint32_t word, const uint32_t *words, size_t n,
                                          uint32_t window_words, kt_flit *out, size_t max,
                                          size_t *n_out);
NPUKIT_API size_t kt_rv32_write_flits_needed(size_t n);
/* The kick for the unit at `at`: start at `pc` with `arg` (the program reads it at CTL_ARG). */
NPUKIT_API npk_status kt_rv32_kick(const kt_dev *d, kt_coord at, uint32_t pc, uint32_t arg,
                                   kt_flit *f);

typedef struct kt_rv32_result {
    uint32_t halt_word; /* a0 for ECALL/EBREAK, the faulting pc otherwise */
    bool faulted;       /* EBREAK or a faulting halt (the completion was SIG_FAULT) */
    uint32_t polls;     /* NODE_STATUS reads until the completion; engine: reads of its CTRL */
    uint32_t programs;  /* engine programs the boot took (0 from the host) */
} kt_rv32_result;

/* Kick the unit at `at` at `pc` with `arg` and wait for its completion, reading NODE_STATUS at
 * most max_polls times (NPK_ETIMEDOUT naming the unit after that). */
NPUKIT_API npk_status kt_rv32_run(kt_dev *d, kt_coord at, uint32_t pc, uint32_t arg,
                                  uint32_t max_polls, kt_rv32_result *res);

/* A program for the processor: `text` into the instruction window from word 0 and `data` (may
 * be empty) into the scratchpad from word 0. */
typedef struct kt_rv32_image {
    const uint32_t *text;
    size_t text_words;
    const uint32_t *data;
    size_t data_words;
} kt_rv32_image;

/* How kt_rv32_boot_run sends: from the host, or through the host control-program engine at
 * engine_base on the device's transport. */
typedef struct kt_rv32_boot_opts {
    bool engine;
    uint64_t engine_base;
    uint32_t max_polls; /* reads of NODE_STATUS (host) or of the engine's CTRL; 0 = 100000 */
} kt_rv32_boot_opts;

/* Boot `img` on the unit at `at` (windows of the reference build's size), kick it at `pc` with
 * `arg` and wait for its completion. From the host: kt_rv32_write, kt_rv32_run. Through the
 * engine: host control programs, each flit a mailbox send, at most KT_RV32_ENGINE_FLITS a
 * program, the last program ending with the kick and a POLL of the unit's NODE_STATUS for the
 * completion; the host then reads the halt word once. */
NPUKIT_API npk_status kt_rv32_boot_run(kt_dev *d, const kt_rv32_boot_opts *o, kt_coord at,
                                       const kt_rv32_image *img, uint32_t pc, uint32_t arg,
                                       kt_rv32_result *res);

/* A mailbox send as host-program commands: wait for room (PROG_STAT.run and TX_STATUS.tx_full
 * both 0, as kt_mailbox_send does), the flit's five TX_FLIT words, TX_KICK. */
NPUKIT_API npk_status kt_hp_mailbox_send(kt_hostprog *p, const kt_dev *d, const kt_flit *f);

#ifdef __cplusplus
}
#endif

#endif
