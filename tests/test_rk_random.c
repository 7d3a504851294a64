/* SPDX-License-Identifier: MIT */
/* The CLI's random operands (tools/rk_random.c) are splitmix64's sequence, one number an
 * element in order, whatever the batching, vector path and threads: checked against the
 * generator stepped one number at a time, across batch boundaries, over consecutive fills that
 * carry the seed on, a fill that two threads share, and with the portable path forced. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/rk_random.c"
#include "check.h"
#include "npukit/fp16.h"

/* splitmix64 as published: the state advances by the golden-ratio constant, then the mix */
static uint64_t ref_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* element i of a fill from the reference generator, as the bytes the fill stores */
static void ref_element(npk_rk_prec p, uint64_t r, uint8_t *out)
{
    if (p == NPK_PREC_FP16) {
        uint16_t h = npk_f32_to_f16((float)((double)(r >> 11) / 4503599627370496.0 - 1.0));
        memcpy(out, &h, 2);
    } else if (p == NPK_PREC_INT16) {
        int16_t v = (int16_t)(uint16_t)r;
        memcpy(out, &v, 2);
    } else if (p == NPK_PREC_INT8) {
        out[0] = (uint8_t)r;
    } else {
        out[0] = (uint8_t)(int8_t)((int)(r % 16) - 8);
    }
}

static size_t fills_checked;

/* two consecutive fills of counts c1, c2 against the reference's numbers in order */
static void check_fills(npk_rk_prec p, uint64_t seed, uint64_t c1, uint64_t c2)
{
    const size_t eb = p == NPK_PREC_FP16 || p == NPK_PREC_INT16 ? 2 : 1;
    uint8_t *got = malloc((size_t)(c1 + c2) * eb + 1), *want = malloc((size_t)(c1 + c2) * eb + 1);
    if (!got || !want) {
        CHECK(!"out of memory");
        free(got), free(want);
        return;
    }
    uint64_t s = seed, rs = seed;
    rk_fill_random(p, got, c1, &s);
    rk_fill_random(p, got + c1 * eb, c2, &s);
    for (uint64_t i = 0; i < c1 + c2; i++)
        ref_element(p, ref_next(&rs), want + i * eb);
    CHECK_EQ(s, rs); /* the seed is carried on past every number used */
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)(c1 + c2) * eb; i++)
        bad += got[i] != want[i];
    if (bad)
        fprintf(stderr, "%s seed %llu fills %llu + %llu: %zu bytes differ\n", npk_rk_prec_name(p),
                (unsigned long long)seed, (unsigned long long)c1, (unsigned long long)c2, bad);
    CHECK_EQ(bad, 0);
    fills_checked++;
    free(got), free(want);
}

static void check_all(void)
{
    const npk_rk_prec ps[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4, NPK_PREC_INT16};
    /* around a batch (1024), and a fill starting mid-batch of the numbers */
    const uint64_t counts[][2] = {{0, 0}, {1, 0}, {0, 7}, {7, 9},      {1023, 1},
                                  {1024, 1024}, {1025, 3000}, {5000, 1}};
    /* a seed whose state wraps around 2^64 within the fill */
    const uint64_t seeds[] = {1, 0xfffffffffffff000ull, 12345};
    for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
            for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++)
                check_fills(ps[pi], seeds[si], counts[ci][0], counts[ci][1]);
        /* a fill large enough for two threads (from 2^20 elements), its halves not a whole
         * number of batches */
        check_fills(ps[pi], 7, (1u << 20) + 1000, 5);
    }
}

int main(void)
{
    check_all();
    /* the portable loops: the conversion and the generator without vector paths */
    npk_dense_force_portable(true);
    check_all();
    npk_dense_force_portable(false);
    CHECK_EQ(fills_checked, 2 * 4 * (8 * 3 + 1));
    return check_done();
}
