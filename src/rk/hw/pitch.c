/* SPDX-License-Identifier: MIT */
/* The feature row pitches the line form is described at (rk_types.h), each with its source. */
#include <stdio.h>

#include "npukit/rk_types.h"

static const char production[] =
    "facts C.1 #28 (0x107c LINE_STRIDE = K*eb/16 in every working program)";
static const char probe[] = "spec \"0x107c CNA_DMA_CON1.LINE_STRIDE — the matmul reads STRIDED\": "
                            "probe ORK_F16_ROWPITCH, 512/512 bit-exact at 2x/4x/8x pitch";
static const char int4_line[] =
    "spec \"0x107c — entries per activation slice\" (int4 K/16, int8's 16-element entry, "
    "confirmed by fuzz, Exp-2026-07-07) and CNA_DMA_CON1 (the lever of the mc_phys = 2H "
    "zero-line padding); that the second half of each K-byte pitch is a zero line is inferred";

static const npk_rk_pitch_row rows[] = {
    {NPK_PREC_FP16, 1, true, production}, {NPK_PREC_FP16, 2, true, probe},
    {NPK_PREC_FP16, 4, true, probe},      {NPK_PREC_FP16, 8, true, probe},
    {NPK_PREC_INT8, 1, true, production}, {NPK_PREC_INT4, 2, false, int4_line},
};
enum { ROWS = sizeof rows / sizeof rows[0] };

const npk_rk_pitch_row *npk_rk_pitch_row_of(npk_rk_prec p, unsigned factor)
{
    for (unsigned i = 0; i < ROWS; i++)
        if (rows[i].prec == p && rows[i].factor == factor)
            return &rows[i];
    return NULL;
}

const npk_rk_pitch_row *npk_rk_pitch_row_at(unsigned i) { return i < ROWS ? &rows[i] : NULL; }

const char *npk_rk_pitch_list(npk_rk_prec p, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = 0;
    for (unsigned i = 0; i < ROWS && n < size; i++)
        if (rows[i].prec == p)
            n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? ", " : "", rows[i].factor);
    if (!n && size)
        snprintf(buf, size, "none");
    return buf;
}
