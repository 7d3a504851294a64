/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the line-protocol server fed any byte stream as a client's commands (every
 * command with any arguments, long lines, half lines, control bytes). It must answer each with
 * V/OK/E or close, never crash or read out of bounds. */
#include "serve_fuzzlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const kt_serve_target *tg = fuzz_target();
    int out;
    int in = fuzz_stream(data, size, &out);
    kt_serve_line_session(tg, in, out); /* closes both */
    npk_clear_error();
    return 0;
}
