/* SPDX-License-Identifier: MIT */
/* Copies of data the CPU will not read again soon: a packed operand or a tile written once and
 * read next by the NPU (or the simulator, or another core's copy of a buffer). An ordinary
 * store first reads every destination line into the cache, a third of the memory traffic of a
 * copy larger than the caches; x86-64's non-temporal stores skip that read (as memcpy does,
 * but only for copies past a threshold of several megabytes). Elsewhere these are ordinary
 * copies. */
#ifndef NPUKIT_COMMON_STREAM_COPY_H
#define NPUKIT_COMMON_STREAM_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Copy `bytes` (a multiple of 64) from src to a 16-byte aligned dst; npk_stream_done() must
 * follow the last call before the data is handed on. Inline: the layout kernels call it per
 * 2 KiB tile. */
static inline void npk_stream_copy(uint8_t *dst, const uint8_t *src, size_t bytes)
{
#if defined(__SSE2__)
    for (size_t i = 0; i < bytes; i += 64)
        for (size_t j = 0; j < 64; j += 16)
            _mm_stream_si128((__m128i *)(void *)(dst + i + j),
                             _mm_loadu_si128((const __m128i *)(const void *)(src + i + j)));
#else
    memcpy(dst, src, bytes);
#endif
}

/* Orders the non-temporal stores of npk_stream_copy before everything after it. */
static inline void npk_stream_done(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* The same for any alignment and length (the edges copied ordinarily), fenced: the bytes are
 * in memory, in order, when it returns. Copies below a few cache lines are plain memcpy. */
void npk_stream_copy_any(void *dst, const void *src, size_t bytes);

#endif
