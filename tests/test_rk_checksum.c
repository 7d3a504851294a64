/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The bound-weights check: npk_rk_checksum is XXH3-64 (the published value of no bytes, and the
 * library's own XXH3_64bits over every length class XXH3 treats apart), equal bytes at other
 * addresses sum equal, and one changed byte anywhere (first, middle, last) changes the sum.
 * Through the runtime: a row-major int8 B bound to a buffer, one byte of it changed between
 * calls, is repacked and the result follows it (a CPU dot product as the reference). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "check.h"
#include "npukit/rk.h"

/* xxHash's documented XXH3_64bits of no bytes (seed 0). */
#define XXH3_EMPTY 0x2D06800538D394C2ull

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (uint8_t)(seed >> 24);
    }
}

static void test_values(void)
{
    uint8_t one = 0;
    CHECK_EQ(npk_rk_checksum(NULL, 0), XXH3_EMPTY);
    CHECK_EQ(npk_rk_checksum(&one, 0), XXH3_EMPTY);
    CHECK_EQ(npk_rk_checksum(NULL, 5), XXH3_EMPTY); /* NULL bytes: the sum of none */
    /* XXH3 reads inputs of 0-16, 17-128, 129-240 and longer bytes each its own way; the long
     * one in stripes of 64 and blocks of 1 KiB, with a last partial stripe. */
    static const size_t sizes[] = {
        1,   3,   4,   8,   9,    16,   17,   64,       127,        128,
        129, 200, 240, 241, 1023, 1024, 1025, 4096 + 5, 65536 + 63, (1u << 20) + 13};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        uint8_t *a = malloc(n + 1), *b = malloc(n + 1);
        fill(a, n, (uint32_t)n);
        memcpy(b + 1, a, n); /* the same bytes at another (unaligned) address */
        uint64_t sum = npk_rk_checksum(a, n);
        CHECK_EQ(sum, XXH3_64bits(a, n));
        CHECK_EQ(npk_rk_checksum(b + 1, n), sum);
        const size_t at[] = {0, n / 2, n - 1};
        for (int i = 0; i < 3; i++)
            for (unsigned flip = 1; flip <= 0x80; flip <<= 7) {
                a[at[i]] ^= (uint8_t)flip;
                if (npk_rk_checksum(a, n) == sum)
                    fprintf(stderr, "size %zu: byte %zu ^ 0x%x not seen\n", n, at[i], flip);
                CHECK(npk_rk_checksum(a, n) != sum);
                a[at[i]] ^= (uint8_t)flip;
            }
        CHECK_EQ(npk_rk_checksum(a, n), sum);
        if (n > 1)
            CHECK(npk_rk_checksum(a, n - 1) != sum); /* the length counts */
        free(a);
        free(b);
    }
}

/* C = A . B for M = 1 in int32: the reference. */
static void dot(uint32_t k, uint32_t n, const int8_t *a, const int8_t *b, int32_t *c)
{
    for (uint32_t j = 0; j < n; j++) {
        int32_t s = 0;
        for (uint32_t i = 0; i < k; i++)
            s += a[i] * b[(size_t)i * n + j];
        c[j] = s;
    }
}

static void test_bound_weights(void)
{
    const uint32_t k = 256, n = 96;
    npk_rk *rt = NULL;
    npk_rk_buffer *bb = NULL;
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_buffer_create(rt, (uint64_t)k * n, &bb), NPK_OK);
    if (!rt || !bb)
        return;
    int8_t *b = npk_rk_buffer_host(bb), a[256];
    int32_t c[96], ref[96];
    for (uint32_t i = 0; i < k; i++)
        a[i] = (int8_t)((int)(i % 7) - 3);
    fill((uint8_t *)b, (size_t)k * n, 7);
    CHECK_EQ(npk_rk_weights_bind(rt, NPK_PREC_INT8, k, n, bb, 0, NPK_RK_ROWS, 1, &w), NPK_OK);
    npk_rk_stats st = {0};
    CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, &st), NPK_OK);
    CHECK_EQ(st.b_repacks, 1);
    const size_t at[] = {0, (size_t)k * n / 2 + 5, (size_t)k * n - 1};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, &st), NPK_OK);
        CHECK_EQ(st.b_repacks, 0); /* unchanged: checked, not repacked */
        b[at[i]] = (int8_t)(b[at[i]] + 1);
        CHECK_EQ(npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, &st), NPK_OK);
        CHECK_EQ(st.b_repacks, 1);
        dot(k, n, a, b, ref);
        CHECK(memcmp(c, ref, sizeof c) == 0);
    }
    npk_rk_weights_free(rt, w);
    npk_rk_buffer_free(bb);
    npk_rk_close(rt);
}

int main(void)
{
    test_values();
    test_bound_weights();
    return check_done();
}
