/* SPDX-License-Identifier: MIT */
/* The mover's timing as data: one row per mode, calibrated to the RTL (the saxpy_mesh top under
 * Verilator, one clock domain; cycles from the GO pulse until AUX_STAT busy drops): copy of 16
 * words 81, fill of 16 words 54, gather of 4 one-word rows 87, generate of 16 words 1458. One
 * figure per mode was measured, so how each splits into a start and a per-word cost is the
 * reading written beside the row: the RTL's reads take about 13 cycles to return, stream when
 * the addresses are known ahead (copy) and wait for each other when an address depends on the
 * data (gather's index, then each row), and a write's B response closes the move. */
#include "mover.h"

/* Philox-4x32-10 in mm_prng: 4 cycles a round, 10 rounds a 128-bit draw, two draws a word. */
enum {
    PHILOX_ROUND_CYCLES = 4,
    PHILOX_ROUNDS = 10,
    PHILOX_DRAWS_PER_WORD = 2,
    PHILOX_WORD_CYCLES = PHILOX_ROUND_CYCLES * PHILOX_ROUNDS * PHILOX_DRAWS_PER_WORD,
    READ_RETURN = 13, /* one read's round trip, when nothing streams behind it */
};

static const ksim_mover_timing rows[] = {
    /* 13 + 16 * 4 + 4 = 81 */
    {KT_MV_COPY, READ_RETURN, 0, 0, 4, 4,
     "RTL copy 16 words 81 cycles: first read returns, then a word each 4 cycles"},
    /* 2 + 13 + 4 * (13 + 4) + 4 = 87 */
    {KT_MV_GATHER_MODE, 2, READ_RETURN, READ_RETURN, 4, 4,
     "RTL gather 4 rows 87 cycles: the index word, then each row's read, waited for"},
    /* 14 + 16 * (10 + 80) + 4 = 1458 */
    {KT_MV_GENERATE, 14, 0, 0, 10 + PHILOX_WORD_CYCLES, 4,
     "RTL generate 16 words 1458 cycles: Philox 4 cycles/round, 10 rounds/128 bits, 2 draws/word"},
    /* 2 + 16 * 3 + 4 = 54 */
    {KT_MV_FILL, 2, 0, 0, 3, 4, "RTL fill 16 words 54 cycles: writes only, 3 cycles a word"},
    /* no RTL figure: a transform reads and writes as a copy does, one beat per 4 cycles */
    {KT_MV_XFORM, READ_RETURN, 0, 0, 4, 4,
     "inferred: the copy row (same read and write path); not measured"},
};

const ksim_mover_timing *ksim_mover_timing_row(unsigned mode)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].mode == mode)
            return &rows[i];
    return NULL;
}
