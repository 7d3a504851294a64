/* SPDX-License-Identifier: MIT */
/* The E8M15 lane's shortcuts against its general entry: kt_e8_fma (whose normal operands take a
 * shortcut of their own) against kt_e8_alu(KT_E8_FMA), the datapath step by step (result and a
 * false predicate), over random operands weighted to the edges — zeros of both signs,
 * infinities, NaNs, the smallest and largest exponents, exponents that make the addend bypass
 * the product or fall out of the frame — and over a sweep of every addend exponent against
 * products of edge exponents, with edge and random significands and every sign pattern (so every
 * alignment, bypass boundary, cancellation, overflow and underflow of the result); the chunk
 * conversions against the lane-by-lane ones over every FP16 value and every E8M15 value (in
 * chunks of 16 consecutive values, so each binade's chunks take the shortcut or not as a whole,
 * and once more with each chunk's first lane swapped for a special, which must send the chunk
 * lane by lane); kt_e8_fma_n (four lanes at a time with AVX2, with masks for the branches)
 * against the datapath over the same operands, in runs of every length from 1 to 19 so that
 * every tail and every lane position of a special is taken, on the vector path and with the
 * portable path pinned; and kt_e8_lead1 against a bit-by-bit search at every position. */
#include "check.h"
#include "common/dense.h"
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

/* Triples gathered for kt_e8_fma_n, checked against the datapath a buffer at a time. */
enum { RUN_BUF = 4096 };
static uint32_t run_a[RUN_BUF], run_b[RUN_BUF], run_c[RUN_BUF];
static unsigned run_used, run_len = 1;

/* kt_e8_fma_n over the gathered triples, in runs of 1, 2, .. 19 elements (each run's start
 * moving on by its length): the elements whose result differs from the datapath's. */
static unsigned run_flush(void)
{
    uint32_t out[RUN_BUF];
    for (unsigned i = 0; i < run_used;) {
        unsigned n = run_used - i < run_len ? run_used - i : run_len;
        kt_e8_fma_n(run_a + i, run_b + i, run_c + i, out + i, n);
        i += n;
        run_len = run_len % 19 + 1;
    }
    unsigned differ = 0;
    for (unsigned i = 0; i < run_used; i++)
        differ += out[i] != kt_e8_alu(KT_E8_FMA, run_a[i], run_b[i], run_c[i], NULL);
    run_used = 0;
    return differ;
}

static unsigned run_add(uint32_t a, uint32_t b, uint32_t c)
{
    run_a[run_used] = a;
    run_b[run_used] = b;
    run_c[run_used] = c;
    return ++run_used == RUN_BUF ? run_flush() : 0;
}

/* kt_e8_fma and, gathered, kt_e8_fma_n against the datapath at one triple. */
static unsigned both_differ(uint32_t a, uint32_t b, uint32_t c)
{
    return fma_differs(a, b, c) + run_add(a, b, c);
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
                        differ += both_differ(a | (sg & 1) << 23, b, c | (sg >> 1) << 23);
                }
    return differ + run_flush();
}

/* Every FP16 value through kt_e8_from_f16_chunk, 16 consecutive values a chunk, with lane 0 as
 * it comes or replaced by `lane0` (when not 0xFFFFFFFF): the lanes that differ from
 * kt_e8_from_f16. */
static unsigned from_f16_chunks(uint32_t lane0)
{
    unsigned differ = 0;
    for (uint32_t base = 0; base < 0x10000; base += KT_E8_CHUNK) {
        uint8_t in[2 * KT_E8_CHUNK];
        uint32_t out[KT_E8_CHUNK];
        for (unsigned l = 0; l < KT_E8_CHUNK; l++) {
            uint32_t h = l == 0 && lane0 != 0xFFFFFFFFu ? lane0 : base + l;
            in[2 * l] = (uint8_t)h;
            in[2 * l + 1] = (uint8_t)(h >> 8);
        }
        kt_e8_from_f16_chunk(out, in);
        for (unsigned l = 0; l < KT_E8_CHUNK; l++)
            differ += out[l] != kt_e8_from_f16((uint16_t)(in[2 * l] | in[2 * l + 1] << 8));
    }
    return differ;
}

/* E8M15 values through kt_e8_to_f16_chunk, likewise: every one (`stride` KT_E8_CHUNK) or a
 * chunk every `stride` values. */
static unsigned to_f16_chunks(uint32_t lane0, uint32_t stride)
{
    unsigned differ = 0;
    for (uint32_t base = 0; base < 1u << 24; base += stride) {
        uint32_t in[KT_E8_CHUNK];
        uint8_t out[2 * KT_E8_CHUNK];
        for (unsigned l = 0; l < KT_E8_CHUNK; l++)
            in[l] = l == 0 && lane0 != 0xFFFFFFFFu ? lane0 : base + l;
        kt_e8_to_f16_chunk(out, in);
        for (unsigned l = 0; l < KT_E8_CHUNK; l++)
            differ += (uint16_t)(out[2 * l] | out[2 * l + 1] << 8) != kt_e8_to_f16(in[l]);
    }
    return differ;
}

int main(void)
{
    /* as they come; a zero, a subnormal, an infinity, a NaN in lane 0 (from); a zero, the top
     * binade, an underflow, a NaN in lane 0 (to) */
    CHECK_EQ(from_f16_chunks(0xFFFFFFFFu), 0u);
    CHECK_EQ(from_f16_chunks(0x8000), 0u);
    CHECK_EQ(from_f16_chunks(0x0001), 0u);
    CHECK_EQ(from_f16_chunks(0x7C00), 0u);
    CHECK_EQ(from_f16_chunks(0xFE00), 0u);
    CHECK_EQ(to_f16_chunks(0xFFFFFFFFu, KT_E8_CHUNK), 0u);
    CHECK_EQ(to_f16_chunks(0x000000, 0x1F0), 0u);
    CHECK_EQ(to_f16_chunks(142u << 15 | 0x7FFF, 0x1F0), 0u);
    CHECK_EQ(to_f16_chunks(0x800000 | 100u << 15 | 0x1234, 0x1F0), 0u);
    CHECK_EQ(to_f16_chunks(0x7FC000, 0x1F0), 0u);

    uint64_t s = 0xE8;
    unsigned differ = 0;
    for (int i = 0; i < 1000000; i++) {
        uint32_t a = operand(&s), b = operand(&s), c = operand(&s);
        differ += both_differ(a, b, c);
    }
    differ += run_flush();
    CHECK_EQ(differ, 0u);
    CHECK_EQ(sweep(&s), 0u);
    /* kt_e8_fma_n once more on the portable path (the loop), over fresh random triples */
    npk_dense_force_portable(true);
    differ = 0;
    for (int i = 0; i < 200000; i++) {
        uint32_t a = operand(&s), b = operand(&s), c = operand(&s);
        differ += run_add(a, b, c);
    }
    CHECK_EQ(differ + run_flush(), 0u);
    npk_dense_force_portable(false);
    CHECK_EQ(kt_e8_lead1(0), 0u);
    for (unsigned p = 0; p < 64; p++) {
        uint64_t x = 1ull << p;
        CHECK_EQ(kt_e8_lead1(x), p);
        CHECK_EQ(kt_e8_lead1(x | (x - 1)), lead1_ref(x | (x - 1)));
        CHECK_EQ(kt_e8_lead1(x | (next(&s) & (x - 1))), p);
    }
    return check_done();
}
