/* SPDX-License-Identifier: MIT */
/* libFuzzer target: any bytes as a regcmd capture -> parse, decode, diff against itself and
 * against its first half. Must never crash, leak or read out of bounds. */
#include <stdio.h>

#include "npukit/rk_decode.h"
#include "npukit/rk_regcmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    npk_rk_program p;
    if (npk_rk_program_parse(data, size, &p) != NPK_OK)
        return 0;
    npk_rk_decode_print(devnull, p.entries, p.count);
    npk_rk_diff_print(devnull, p.entries, p.count, p.entries, p.count);
    npk_rk_diff_print(devnull, p.entries, p.count, p.entries, p.count / 2);
    npk_rk_program_free(&p);
    return 0;
}
