/* SPDX-License-Identifier: MIT */
/* The streamed copies (common/stream_copy.h) against memcpy, byte for byte: every destination
 * and source alignment within 16 bytes, lengths around the 64-byte blocks and the size below
 * which npk_stream_copy_any is a plain copy, and the bytes around the destination untouched. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/stream_copy.h"

enum { ROOM = 3 * 4096 + 256, GUARD = 0xa5 };

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (uint8_t)(seed >> 24);
    }
}

/* One copy of n bytes to dst + dofs from src + sofs; false when any byte differs from memcpy's
 * or a byte outside the destination changed. */
static bool one(size_t dofs, size_t sofs, size_t n)
{
    static _Alignas(64) uint8_t src[ROOM], got[ROOM], want[ROOM];
    fill(src, sizeof src, (uint32_t)(dofs * 131 + sofs * 7 + n));
    memset(got, GUARD, sizeof got);
    memset(want, GUARD, sizeof want);
    memcpy(want + dofs, src + sofs, n);
    npk_stream_copy_any(got + dofs, src + sofs, n);
    return memcmp(got, want, sizeof got) == 0;
}

int main(void)
{
    static const size_t lengths[] = {0,    1,    15,   16,   63,   64,   65,   4095,
                                     4096, 4097, 4111, 4160, 8191, 8192, 8256, 12345};
    unsigned bad = 0, runs = 0;
    for (size_t d = 0; d < 16; d++)
        for (size_t s = 0; s < 16; s += 5)
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++, runs++)
                bad += !one(d, s, lengths[l]);
    CHECK_EQ(bad, 0u);
    CHECK(runs == 16 * 4 * (sizeof lengths / sizeof lengths[0]));

    /* the inline form: whole 64-byte blocks to a 16-byte aligned destination */
    static _Alignas(64) uint8_t a[8192 + 64], b[8192 + 64];
    fill(a, sizeof a, 7);
    memset(b, GUARD, sizeof b);
    npk_stream_copy(b + 16, a + 3, 8192);
    npk_stream_done();
    CHECK(memcmp(b + 16, a + 3, 8192) == 0);
    CHECK(b[15] == GUARD && b[16 + 8192] == GUARD);
    return check_done();
}
