/* SPDX-License-Identifier: MIT */
/* Streamed copies of any alignment and length (stream_copy.h). */
#include "common/stream_copy.h"

/* Below this a copy is left to memcpy: the fence and the edges cost more than the lines the
 * non-temporal stores save. */
#define STREAM_MIN_BYTES 4096u

void npk_stream_copy_any(void *dst, const void *src, size_t bytes)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (bytes < STREAM_MIN_BYTES) {
        memcpy(d, s, bytes);
        return;
    }
    /* the head up to dst's next 16-byte boundary, then whole 64-byte blocks, then the tail */
    const size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    memcpy(d, s, head);
    const size_t body = (bytes - head) / 64 * 64;
    npk_stream_copy(d + head, s + head, body);
    memcpy(d + head + body, s + head + body, bytes - head - body);
    npk_stream_done();
}
