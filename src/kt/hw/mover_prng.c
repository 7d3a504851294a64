/* SPDX-License-Identifier: MIT */
/* The mover's data patterns: GENERATE's counter-based PRNG (Philox-4x32-10, the mm_prng
 * construction of facts §1.10) and FILL's replicated immediate. Both are pure functions of
 * their inputs, so a host can check a generated or filled buffer without reading it twice. */
#include "npukit/kt_mover_hw.h"

static void mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

void kt_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    /* Round multipliers and the Weyl key increments of the published Philox-4x32 definition. */
    const uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u, w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        if (round) {
            k0 += w0;
            k1 += w1;
        }
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo32(m0, c[0], &hi0, &lo0);
        mulhilo32(m1, c[2], &hi1, &lo1);
        uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = lo1;
        c[2] = n2;
        c[3] = lo0;
    }
    for (int i = 0; i < 4; i++)
        out[i] = c[i];
}

void kt_mv_generate_word(uint64_t seed, uint64_t dst_addr, uint8_t out[KT_MV_WORD])
{
    uint64_t word = dst_addr >> 5; /* the absolute destination word address */
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    for (unsigned half = 0; half < 2; half++) {
        /* counter = {92'b0, wordaddr[34:32], half, wordaddr[31:0]} */
        uint32_t ctr[4] = {(uint32_t)word, (uint32_t)(half | ((word >> 32) & 7u) << 1), 0, 0};
        uint32_t r[4];
        kt_philox4x32_10(ctr, key, r);
        for (unsigned i = 0; i < 4; i++)
            for (unsigned b = 0; b < 4; b++)
                out[half * 16 + i * 4 + b] = (uint8_t)(r[i] >> (8 * b)); /* half 0 = low 128 bits */
    }
}

void kt_mv_fill_word(kt_mv_width width, uint32_t imm, uint8_t out[KT_MV_WORD])
{
    unsigned bytes = width == KT_MV_W8 ? 1 : width == KT_MV_W16 ? 2 : 4;
    for (unsigned i = 0; i < KT_MV_WORD; i++)
        out[i] = (uint8_t)(imm >> (8 * (i % bytes)));
}
