/* SPDX-License-Identifier: MIT */
/* The E8M15 lane's shortcuts against its general entry: kt_e8_fma (whose normal operands take a
 * shortcut of their own) against kt_e8_alu(KT_E8_FMA), the datapath step by step (result and a
 * false predicate), over random operands weighted to the edges — zeros of both signs,
 * infinities, NaNs, the smallest and largest exponents, exponents that make the addend bypass
 * the product or fall out of the frame — and over a sweep of every addend exponent against
 * products of edge exponents, with edge and random significands and every sign pattern (so every
 * alignment, bypass boundary, cancellation, overflow and underflow of the result); and
 * kt_e8_lead1 against a bit-by-bit search at every position. */
#include "check.h"
#include "kt/hw/e8m15.h"

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 16;
}

/* An operand: a quarter from the edges, the rest with an exponent near 127 (so that sums align
 * and cancel) or anywhere. */
static uint32_t operand(uint64_t *s)
{
    static const uint32_t edges[] = {0x000000, 0x800000, 0x7F8000, 0xFF8000, 0x7FC000, 0x7F8001,
                                     0x008000, 0x808000, 0x7F7FFF, 0xFF7FFF, 0x3F8000, 0xBF8000};
    uint64_t r = next(s);
    if ((r & 3) == 0)
        return edges[(r >> 2) % (sizeof edges / sizeof edges[0])];
    uint32_t sign = (uint32_t)(r >> 8 & 1) << 23, mant = (uint32_t)(r >> 9) & 0x7FFF;
    uint32_t e = (r & 3) == 1 ? (uint32_t)(r >> 24) & 0xFF : 110 + (uint32_t)((r >> 24) % 36);
    return sign | e << 15 | mant;
}

static unsigned lead1_ref(uint64_t x)
{
    unsigned p = 0;
    while (x >>= 1)
        p++;
    return p;
}

/* kt_e8_fma against the datapath at one operand triple: 1 when they differ. */
static unsigned fma_differs(uint32_t a, uint32_t b, uint32_t c)
{
    bool pred = true;
    uint32_t want = kt_e8_alu(KT_E8_FMA, a, b, c, &pred);
    return kt_e8_fma(a, b, c) != want || pred || kt_e8_fma_datapath(a, b, c) != want;
}

/* Every addend exponent against the products of edge exponents (the zero, subnormal-range and
 * special ones included), each with significands at the edges and one random, every sign. */
static unsigned sweep(uint64_t *s)
{
    static const uint32_t ex[] = {0, 1, 2, 8, 63, 64, 100, 117, 127, 128, 190, 253, 254, 255};
    enum { NEX = sizeof ex / sizeof ex[0] };
    unsigned differ = 0;
    for (unsigned i = 0; i < NEX; i++)
        for (unsigned j = 0; j < NEX; j++)
            for (uint32_t ec = 0; ec < 256; ec++)
                for (unsigned m = 0; m < 64; m++) {
                    uint32_t r = (uint32_t)next(s), mant[3];
                    for (unsigned k = 0; k < 3; k++) {
                        unsigned pick = m >> (2 * k) & 3;
                        mant[k] = pick == 0   ? 0
                                  : pick == 1 ? 0x7FFF
                                  : pick == 2 ? 0x4000 | (r >> (5 * k) & 1)
                                              : (uint32_t)(next(s) & 0x7FFF);
                    }
                    uint32_t a = ex[i] << 15 | mant[0], b = ex[j] << 15 | mant[1];
                    uint32_t c = ec << 15 | mant[2];
                    for (uint32_t sg = 0; sg < 4; sg++)
                        differ += fma_differs(a | (sg & 1) << 23, b, c | (sg >> 1) << 23);
                }
    return differ;
}

int main(void)
{
    uint64_t s = 0xE8;
    unsigned differ = 0;
    for (int i = 0; i < 2000000; i++) {
        uint32_t a = operand(&s), b = operand(&s), c = operand(&s);
        differ += fma_differs(a, b, c);
    }
    CHECK_EQ(differ, 0u);
    CHECK_EQ(sweep(&s), 0u);
    CHECK_EQ(kt_e8_lead1(0), 0u);
    for (unsigned p = 0; p < 64; p++) {
        uint64_t x = 1ull << p;
        CHECK_EQ(kt_e8_lead1(x), p);
        CHECK_EQ(kt_e8_lead1(x | (x - 1)), lead1_ref(x | (x - 1)));
        CHECK_EQ(kt_e8_lead1(x | (next(&s) & (x - 1))), p);
    }
    return check_done();
}
