/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the card-daemon server fed any byte stream as one client's requests (frames,
 * half frames, oversized headers, JSON of any shape, invalid UTF-8, every op with any
 * arguments). It must answer or close, never crash, leak or read out of bounds. */
#include "serve_fuzzlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const kt_serve_target *tg = fuzz_target();
    int out;
    int in = fuzz_stream(data, size, &out);
    kt_serve_daemon(tg, -1, in, out, NULL); /* closes both when the client's stream ends */
    npk_clear_error();
    return 0;
}
