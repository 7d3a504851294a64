/* SPDX-License-Identifier: MIT */
/* An fp32 A packed straight into an fp16 feature block (npk_rk_pack_a_f32): every element of
 * the block checked against the fact sheet's offsets (facts D.2, written out here) holding the
 * scalar npk_f32_to_f16 of the user's element, the padding zero, the bytes a line stride skips
 * and the bytes past the block untouched; on the vector path the CPU has and on the portable
 * one; values covering fp16's edges (ties, subnormals, overflow, infinities, NaNs); the report
 * of a finite float beyond fp16's range, for each edge value at each place of a block; and
 * every refusal. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/dense.h" /* npk_dense_force_portable */
#include "npukit/fp16.h"
#include "rk/layout/rk_layout.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Values where rounding to fp16 has something to get wrong, then random ones of every scale. */
static float edge_value(size_t i)
{
    static const uint32_t edges[] = {
        0x00000000, 0x80000000,             /* +-0 */
        0x3f801000, 0x3f803000,             /* 1 + 2^-11 (tie to even: down), 1 + 3 2^-11 (up) */
        0x477fe000, 0x477fefff, 0x477ff000, /* 65504, just below the overflow tie, the tie */
        0x47800000, 0x7f7fffff, 0xff7fffff, /* 65536, the largest floats */
        0x7f800000, 0xff800000,             /* infinities */
        0x7fc00001, 0xffc12345, 0x7f800001, /* NaNs: quiet with payloads, signalling */
        0x33800000, 0x33000000, 0x33000001, /* 2^-24 (least fp16 subnormal), its half, above */
        0x387fc000, 0x38800000, 0xb87fe000, /* around the least fp16 normal, 2^-14 */
        0x00000001, 0x80800000,             /* float subnormal, least float normal */
    };
    if (i < sizeof edges / sizeof edges[0])
        return bits_f32(edges[i]);
    /* sign, an exponent over fp16's range and a little beyond, any mantissa */
    const uint32_t e = 127 - 28 + rnd() % 46;
    return bits_f32((rnd() & 0x80000000u) | e << 23 | (rnd() & 0x7fffff));
}

static float *random_floats(size_t n)
{
    float *a = malloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] = edge_value(i % 97 == 0 ? i / 97 : 1000);
    return a;
}

/* facts D.2: line [M][stride], cube [Kp/8][M][8] (fp16 C2 = 8) */
static size_t fact_index(npk_rk_mode mode, size_t rows, size_t stride, size_t m, size_t k)
{
    return mode == NPK_MODE_LINE ? m * stride + k : (k / 8) * rows * 8 + m * 8 + k % 8;
}

enum { GUARD = 64, FILL = 0xa5 };

/* Rows [m0, m1) and K [k0, k1) of a rows x cols fp32 matrix (pitch) into a block of `mode`
 * (block rows, line stride; 0: the usual), checked element by element. */
static void check_block(npk_rk_mode mode, size_t rows, size_t cols, size_t pitch, size_t m0,
                        size_t m1, size_t k0, size_t k1, size_t brows, size_t stride)
{
    float *a = random_floats(rows * pitch);
    const size_t kp = npk_rk_k_padded(k1 - k0);
    npk_rk_block blk = npk_rk_a_block(NPK_PREC_FP16, mode, brows ? brows : m1 - m0, k1 - k0);
    if (mode == NPK_MODE_LINE && stride)
        blk.stride = stride;
    const size_t bytes = npk_rk_a_bytes(&blk, k1 - k0);
    CHECK(bytes > 0);
    uint8_t *buf = malloc(bytes + 2 * GUARD);
    memset(buf, FILL, bytes + 2 * GUARD);
    uint16_t *dst = (uint16_t *)(void *)(buf + GUARD);
    const npk_rk_cmatrix am = {a, rows, cols, pitch};
    bool beyond = false, want_beyond = false;
    CHECK_EQ(npk_rk_pack_a_f32(&blk, &am, (npk_rk_range){m0, m1}, (npk_rk_range){k0, k1}, dst,
                               bytes, &beyond),
             NPK_OK);
    for (size_t m = m0; m < m1; m++) /* only the packed region counts */
        for (size_t k = k0; k < k1; k++)
            want_beyond |= isfinite(a[m * pitch + k]) && fabsf(a[m * pitch + k]) > 65504.0f;
    CHECK_EQ(beyond, want_beyond);
    /* what each element must hold: FILL where a line stride skips, 0 for padding */
    uint16_t *want = malloc(bytes);
    memset(want, FILL, bytes);
    const size_t line = mode == NPK_MODE_LINE ? blk.stride : 0;
    for (size_t m = 0; m < blk.rows; m++)
        for (size_t k = 0; k < kp; k++) {
            const size_t idx = fact_index(mode, blk.rows, line, m, k);
            want[idx] = m < m1 - m0 && k < k1 - k0
                            ? npk_f32_to_f16(a[(m0 + m) * pitch + k0 + k])
                            : 0;
        }
    size_t bad = 0;
    for (size_t i = 0; i < bytes / 2; i++)
        bad += dst[i] != want[i];
    CHECK_EQ(bad, 0);
    for (size_t i = 0; i < GUARD; i++)
        CHECK(buf[i] == FILL && buf[GUARD + bytes + i] == FILL);
    free(want);
    free(buf);
    free(a);
}

static void shapes(void)
{
    static const size_t ks[] = {1, 7, 8, 9, 31, 32, 33, 100, 257, 4096};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const size_t k = ks[i];
        check_block(NPK_MODE_LINE, 5, k, k, 0, 5, 0, k, 0, 0);
        check_block(NPK_MODE_LINE, 9, k + 3, k + 5, 2, 7, 3, k + 3, 0, 0);
        check_block(NPK_MODE_LINE, 3, k, k, 1, 3, 0, k, 0, npk_rk_k_padded(k) + 32); /* stride */
        check_block(NPK_MODE_CUBE, 8, k, k, 0, 8, 0, k, 0, 0);
        check_block(NPK_MODE_CUBE, 11, k + 1, k + 4, 2, 9, 1, k + 1, 12, 0); /* padding rows */
    }
    check_block(NPK_MODE_LINE, 1, 11008, 11008, 0, 1, 0, 11008, 0, 0); /* a decode row */
}

/* The packed block equals npk_rk_pack_a of the matrix converted first: the same bits as the
 * two passes it replaces. */
static void same_as_converted(void)
{
    const size_t rows = 6, cols = 200;
    float *a = random_floats(rows * cols);
    uint16_t *h = malloc(rows * cols * sizeof *h);
    for (size_t i = 0; i < rows * cols; i++)
        h[i] = npk_f32_to_f16(a[i]);
    for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++) {
        const npk_rk_block blk = npk_rk_a_block(NPK_PREC_FP16, (npk_rk_mode)mode, 8, cols);
        const size_t bytes = npk_rk_a_bytes(&blk, cols);
        uint8_t *x = malloc(bytes), *y = malloc(bytes);
        const npk_rk_range m = {0, rows}, k = {0, cols};
        CHECK_EQ(npk_rk_pack_a_f32(&blk, &(npk_rk_cmatrix){a, rows, cols, cols}, m, k, x, bytes, NULL),
                 NPK_OK);
        CHECK_EQ(npk_rk_pack_a(&blk, &(npk_rk_cmatrix){h, rows, cols, cols}, m, k, y, bytes),
                 NPK_OK);
        CHECK(memcmp(x, y, bytes) == 0);
        free(x);
        free(y);
    }
    free(h);
    free(a);
}

/* One special value at each of several places of an otherwise small matrix: the packing
 * reports it beyond fp16 exactly when it is finite and above 65504 in magnitude, in either
 * mode (the line's row, the cube's chunks of 128 and its last plane). */
static void beyond_range(void)
{
    static const struct {
        uint32_t bits;
        bool beyond;
    } values[] = {
        {0x477fe000, false}, /* 65504, fp16's largest */
        {0xc77fe000, false}, /* -65504 */
        {0x477fe001, true},  /* just above: rounds to 65504, still not the float given */
        {0x477fefff, true},  /* just below the tie to infinity */
        {0x477ff000, true},  /* the tie: infinity */
        {0xc788b800, true},  /* -70000 */
        {0x7f7fffff, true},  /* the largest float */
        {0x7f800000, false}, /* infinities and NaNs convert to themselves */
        {0xff800000, false},
        {0x7fc00001, false},
    };
    enum { ROWS = 5, COLS = 200 };
    static const size_t places[][2] = {{0, 0}, {4, 199}, {2, 127}, {2, 128}, {3, 192}, {1, 7}};
    static float a[ROWS * COLS];
    for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++) {
        const npk_rk_block blk = npk_rk_a_block(NPK_PREC_FP16, (npk_rk_mode)mode, 8, COLS);
        const size_t bytes = npk_rk_a_bytes(&blk, COLS);
        uint8_t *x = malloc(bytes);
        size_t wrong = 0, runs = 0;
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
            for (size_t p = 0; p < sizeof places / sizeof places[0]; p++, runs++) {
                for (size_t i = 0; i < ROWS * COLS; i++)
                    a[i] = 0.5f + (float)(i % 13);
                a[places[p][0] * COLS + places[p][1]] = bits_f32(values[v].bits);
                bool beyond = false;
                CHECK_EQ(npk_rk_pack_a_f32(&blk, &(npk_rk_cmatrix){a, ROWS, COLS, COLS},
                                           (npk_rk_range){0, ROWS}, (npk_rk_range){0, COLS}, x,
                                           bytes, &beyond),
                         NPK_OK);
                wrong += beyond != values[v].beyond;
                /* the same value outside the packed rows is not reported */
                beyond = false;
                const size_t r = places[p][0];
                const npk_rk_range rows = r ? (npk_rk_range){0, r} : (npk_rk_range){1, ROWS};
                CHECK_EQ(npk_rk_pack_a_f32(&blk, &(npk_rk_cmatrix){a, ROWS, COLS, COLS}, rows,
                                           (npk_rk_range){0, COLS}, x, bytes, &beyond),
                         NPK_OK);
                wrong += beyond;
            }
        CHECK_EQ(wrong, 0);
        CHECK(runs == 60);
        free(x);
    }
}

static void refusals(void)
{
    float a[4 * 64] = {0};
    uint16_t buf[4 * 64 + 1];
    const npk_rk_cmatrix am = {a, 4, 64, 64};
    const npk_rk_range m = {0, 4}, k = {0, 64};
    npk_rk_block blk = npk_rk_a_block(NPK_PREC_FP16, NPK_MODE_LINE, 4, 64);
    const size_t bytes = npk_rk_a_bytes(&blk, 64);
    npk_rk_block i8 = npk_rk_a_block(NPK_PREC_INT8, NPK_MODE_LINE, 4, 64);
    CHECK_EQ(npk_rk_pack_a_f32(&i8, &am, m, k, buf, sizeof buf, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "block precision int8");
    CHECK_EQ(npk_rk_pack_a_f32(&blk, &am, m, k, (uint8_t *)buf + 1, bytes, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not aligned to its 2-byte");
    const npk_rk_cmatrix odd = {(const uint8_t *)a + 2, 4, 60, 64};
    CHECK_EQ(npk_rk_pack_a_f32(&blk, &odd, m, (npk_rk_range){0, 60}, buf, bytes, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not aligned to its 4-byte elements");
    CHECK_EQ(npk_rk_pack_a_f32(&blk, &am, m, k, buf, bytes - 1, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_pack_a_f32(&blk, &am, m, (npk_rk_range){0, 65}, buf, bytes, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_pack_a_f32(NULL, &am, m, k, buf, bytes, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_pack_a_f32(&blk, NULL, m, k, buf, bytes, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_pack_a_f32(&blk, &am, m, k, NULL, bytes, NULL), NPK_EINVAL);
}

int main(void)
{
    /* the vector path this CPU has (if any), then the portable one */
    for (int portable = 0; portable <= 1; portable++) {
        npk_dense_force_portable(portable);
        shapes();
        same_as_converted();
        beyond_range();
    }
    npk_dense_force_portable(false);
    refusals();
    return check_done();
}
