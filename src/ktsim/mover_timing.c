/* SPDX-License-Identifier: MIT */
/* The mover's timing as data: one row per mode, fitted over a sweep of sizes measured on the RTL
 * (upstream's saxpy_mesh top, KohakuTPU 7703ee8, under Verilator 5.006, one clock domain, its
 * axi_ram as DRAM; the moves built by kt_mv_build and written through S_AXI_CTRL; cycles from the
 * GO write's data handshake until the mover's busy falls):
 *
 *   words        1    4   16   64   256  1024  2048
 *   copy        34   43   79  223   552  1374  2470
 *   fill        23   29   53  149   409  1201  2257
 *   gather      49   86  229  823              (rows of one word; 8 indices an index word)
 *   generate   108  378 1458 5778
 *
 * A short copy pays about 3 cycles a word and a short fill 2, until 128 words (a whole read
 * burst, BURST_MAX); beyond that the engines stream, 137 cycles per 128 words for a copy and 33
 * per 32 for a fill. A gather waits 11 cycles for each index word and 11 for each row (its
 * address depends on the data). Generate runs Philox-4x32-10: 4 cycles a round, 10 rounds a
 * 128-bit draw, two draws a word. tests/test_kt_mover_sweep.c holds every figure within 10%. */
#include "mover.h"

#include <math.h>

/* Philox-4x32-10 in mm_prng: 4 cycles a round, 10 rounds a 128-bit draw, two draws a word. */
enum {
    PHILOX_ROUND_CYCLES = 4,
    PHILOX_ROUNDS = 10,
    PHILOX_DRAWS_PER_WORD = 2,
    PHILOX_WORD_CYCLES = PHILOX_ROUND_CYCLES * PHILOX_ROUNDS * PHILOX_DRAWS_PER_WORD,
    READ_BURST_WORDS = 128, /* BURST_MAX: 4 KB of 32-byte words, the AXI4 boundary rule */
    DRAIN = 4,              /* the last write's response */
};

static const ksim_mover_timing rows[] = {
    /* 27 + 3 n + 4 up to 128 words, then 137 per 128: 79 at 16, 2470 at 2048 */
    {KT_MV_COPY, 27, 0, 0, 3, READ_BURST_WORDS, 137, 128, DRAIN,
     "RTL copy 1..2048 words 34..2470 cycles: 3 a word, streaming 137/128 past a read burst"},
    /* 23 + 11 per index word + 11 per one-word row + 4: 49 at 1 row, 819 at 64 (RTL 823) */
    {KT_MV_GATHER_MODE, 23, 11, 8, 3, 0, 0, 0, DRAIN,
     "RTL gather 1..64 one-word rows 49..823 cycles: 11 an index word, 11 a row"},
    /* 14 + 90 n + 4: exact at every size measured */
    {KT_MV_GENERATE, 14, 0, 0, 10 + PHILOX_WORD_CYCLES, 0, 0, 0, DRAIN,
     "RTL generate 1..64 words 108..5778 cycles: Philox 4 cycles/round, 10 rounds/128 bits, "
     "2 draws/word"},
    /* 17 + 2 n + 4 up to 128 words, then 33 per 32: 53 at 16, 2257 at 2048 */
    {KT_MV_FILL, 17, 0, 0, 2, READ_BURST_WORDS, 33, 32, DRAIN,
     "RTL fill 1..2048 words 23..2257 cycles: writes only, 2 a word, streaming 33/32 past 128"},
    /* no RTL figure: a transform reads and writes as a copy does */
    {KT_MV_XFORM, 27, 0, 0, 3, READ_BURST_WORDS, 137, 128, DRAIN,
     "inferred: the copy row (same read and write path); not measured"},
};

const ksim_mover_timing *ksim_mover_timing_row(unsigned mode)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].mode == mode)
            return &rows[i];
    return NULL;
}

/* ---- CTRL flags: the bursts ----
 * The rows above were measured with the driver's flags (write coalescing on, the cap at 128
 * words). Other flags change only the bursts, and so the time: measured on the mover alone
 * (mm_mover at 7703ee8 in front of upstream's axi_ram, Verilator 5.006, 132 moves: copy and fill
 * of 4..2048 words under every cap with coalescing on, and 128, 1 with it off), a run of c words
 * costs two cycles beyond its beats on its channel, and cannot start before the issue engine
 * has walked its c words (a write also waits for the whole burst to be resident):
 *
 *   copy  n + 2n / min(r, w) + r + w      fill  n + 2n / w + w
 *
 * with r the read burst (the cap, the source's contiguous run, n) and w the write burst (the
 * same over the destination, or 1 with coalescing off). Against the 132 RTL figures, the
 * default's figure plus this difference lands within 0.2 %; e.g. a copy of 2048 words takes 6289
 * cycles with coalescing off (2345 on: the driver's "7.2x" is the bursts' effect on a slower
 * memory), 4109 at a cap of 2, 2249 at 32. A gather's rows are one read burst each and its
 * time is the per-row wait (the flags moved the RTL's figure by at most 11 % over 16..64 rows
 * of 1..16 words, unmodelled); generate writes single beats whatever the flags (the RTL never
 * coalesces them); a transform's writes are one burst per entry and its row is not measured. */
enum { BURST_TURN = 2 }; /* cycles a burst costs beyond its beats */

static double burst_cycles(unsigned mode, uint8_t flags, uint64_t n, unsigned src_run,
                           unsigned dst_run)
{
    double cap = kt_mv_burst_cap(flags), N = (double)n;
    double w = flags & KT_MV_FLAG_WCOAL ? fmin(cap, fmin(dst_run, N)) : 1.0;
    if (mode == KT_MV_FILL)
        return N + BURST_TURN * N / w + w;
    double r = fmin(cap, fmin(src_run, N));
    return N + BURST_TURN * N / fmin(r, w) + r + w;
}

int64_t ksim_mover_flags_delta(unsigned mode, uint8_t flags, uint64_t words, unsigned src_run,
                               unsigned dst_run)
{
    if ((mode != KT_MV_COPY && mode != KT_MV_FILL) || !words || !src_run || !dst_run)
        return 0;
    return llround(burst_cycles(mode, flags, words, src_run, dst_run) -
                   burst_cycles(mode, KSIM_MOVER_ROW_FLAGS, words, src_run, dst_run));
}
