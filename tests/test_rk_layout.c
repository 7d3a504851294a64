/* SPDX-License-Identifier: MIT */
/* RK operand layouts: every packed element is checked against the fact sheet's offset formulas
 * (written out again here, independently of the library), plus round trips, sub-blocks, padding,
 * int4 nibble order, accumulation and every error path. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "common/dense.h" /* npk_dense_force_portable */
#include "npukit/fp16.h"
#include "rk/layout/layout_vec.h" /* npk_layout_limit_vectors */
#include "rk/layout/rk_layout.h"

static const npk_rk_prec INPUTS[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
static const npk_rk_prec OUTPUTS[] = {NPK_PREC_FP32, NPK_PREC_INT32, NPK_PREC_FP16,
                                      NPK_PREC_INT16, NPK_PREC_INT8};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static unsigned in_bits(npk_rk_prec p) { return p == NPK_PREC_FP16 ? 16 : p == NPK_PREC_INT8 ? 8 : 4; }
static size_t user_bytes(npk_rk_prec p) { return p == NPK_PREC_FP16 ? 2 : 1; }
static size_t out_bytes(npk_rk_prec p)
{
    return p == NPK_PREC_FP32 || p == NPK_PREC_INT32 ? 4 : p == NPK_PREC_INT8 ? 1 : 2;
}

/* A user matrix of random elements: fp16 any 16-bit pattern, int8 any byte, int4 in [-8, 7].
 * No element is zero, so a zero in a packed buffer is padding, never data. */
static void *random_matrix(npk_rk_prec p, size_t rows, size_t pitch)
{
    size_t n = rows * pitch;
    if (p == NPK_PREC_FP16) {
        uint16_t *m = malloc(n * 2);
        for (size_t i = 0; i < n; i++)
            m[i] = (uint16_t)(rnd() | 1);
        return m;
    }
    int8_t *m = malloc(n);
    for (size_t i = 0; i < n; i++) {
        int v = p == NPK_PREC_INT4 ? (int)(rnd() % 15) - 7 : (int)(rnd() % 255) - 127;
        m[i] = (int8_t)(v ? v : 1);
    }
    return m;
}

static long user_get(npk_rk_prec p, const void *m, size_t pitch, size_t r, size_t c)
{
    if (p == NPK_PREC_FP16)
        return ((const uint16_t *)m)[r * pitch + c];
    return ((const int8_t *)m)[r * pitch + c];
}

/* Packed element `idx` (a nibble index for int4: even index in the low nibble, facts D.1). */
static long packed_get(npk_rk_prec p, const void *buf, size_t idx)
{
    if (p == NPK_PREC_FP16)
        return ((const uint16_t *)buf)[idx];
    if (p == NPK_PREC_INT8)
        return ((const int8_t *)buf)[idx];
    unsigned nib = (((const uint8_t *)buf)[idx / 2] >> (idx % 2 ? 4 : 0)) & 0xf;
    return nib >= 8 ? (long)nib - 16 : (long)nib;
}

static size_t pad(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Facts D.1, word for word, with K the packed slice's (padded) K. */
static size_t fact_b_index(npk_rk_prec p, size_t K, size_t k, size_t n)
{
    if (p == NPK_PREC_FP16)
        return (n / 16) * 16 * K + (k / 32) * 512 + (n % 16) * 32 + (k % 32);
    if (p == NPK_PREC_INT8)
        return (n / 32) * 32 * K + (k / 32) * 1024 + (n % 32) * 32 + (k % 32);
    return (n / 64) * 64 * K + (k / 32) * 2048 + (n % 64) * 32 + (k % 32);
}
static size_t fact_n_group(npk_rk_prec p) { return p == NPK_PREC_FP16 ? 16 : p == NPK_PREC_INT8 ? 32 : 64; }

/* Facts D.2: C2 = 16/eb; Mode C offset(m,k) = (k/C2)·M·C2 + m·C2 + k%C2. */
static size_t fact_c2(npk_rk_prec p) { return p == NPK_PREC_FP16 ? 8 : p == NPK_PREC_INT8 ? 16 : 32; }
static size_t fact_a_index(npk_rk_prec p, npk_rk_mode mode, size_t M, size_t stride, size_t m,
                           size_t k)
{
    size_t c2 = fact_c2(p);
    return mode == NPK_MODE_LINE ? m * stride + k : (k / c2) * M * c2 + m * c2 + k % c2;
}

/* Facts D.3: C2o = 16/ob; Mode C offset(m,n) = (n/C2o)·M·C2o + m·C2o + n%C2o. */
static size_t fact_c_index(npk_rk_prec p, npk_rk_mode mode, size_t M, size_t stride, size_t m,
                           size_t n)
{
    size_t c2o = 16 / out_bytes(p);
    return mode == NPK_MODE_LINE ? m * stride + n : (n / c2o) * M * c2o + m * c2o + n % c2o;
}

/* A buffer with `extra` sentinel bytes after `size`, to catch writes past the block. */
enum { SENTINEL = 0xa5, EXTRA = 64 };
static uint8_t *guarded(size_t size)
{
    uint8_t *b = malloc(size + EXTRA);
    memset(b, SENTINEL, size + EXTRA);
    return b;
}
static int guard_intact(const uint8_t *b, size_t size)
{
    for (size_t i = size; i < size + EXTRA; i++)
        if (b[i] != SENTINEL)
            return 0;
    return 1;
}

/* ---- geometry ------------------------------------------------------------------------------ */

static void test_geometry(void)
{
    CHECK_EQ(npk_rk_k_padded(1), 32);
    CHECK_EQ(npk_rk_k_padded(32), 32);
    CHECK_EQ(npk_rk_k_padded(33), 64);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_FP16), 16);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_BF16), 16);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_INT16), 16);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_INT8), 32);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_INT4), 64);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_FP32), 0);
    CHECK_EQ(npk_rk_b_n_group(NPK_PREC_TF32), 0);
    CHECK_EQ(npk_rk_n_padded(NPK_PREC_INT8, 33), 64);
    CHECK_EQ(npk_rk_n_padded(NPK_PREC_INT4, 65), 128);
    CHECK_EQ(npk_rk_n_padded(NPK_PREC_INT32, 65), 0);
    /* facts D.2 C2 and D.3 C2o */
    CHECK_EQ(npk_rk_cube_channels(NPK_PREC_FP16), 8);
    CHECK_EQ(npk_rk_cube_channels(NPK_PREC_INT8), 16);
    CHECK_EQ(npk_rk_cube_channels(NPK_PREC_INT4), 32);
    CHECK_EQ(npk_rk_cube_channels(NPK_PREC_FP32), 4);
    CHECK_EQ(npk_rk_cube_channels(NPK_PREC_INT32), 4);
    CHECK_EQ(npk_rk_cube_channels(NPK_PREC_INT16), 8);
    CHECK_EQ(npk_rk_cube_channels((npk_rk_prec)42), 0);

    /* Facts D.1: every N-tile of a K-slice spans 32·Kp bytes for fp16, int8 and int4. */
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        for (size_t k = 32; k <= 320; k += 96) {
            size_t g = fact_n_group(p);
            for (size_t t = 0; t < 4; t++) {
                size_t first = npk_rk_b_index(p, k, 0, t * g) * in_bits(p) / 8;
                CHECK_EQ(npk_rk_b_tile_offset(k, t), t * 32 * pad(k, 32));
                CHECK_EQ(first, t * 32 * pad(k, 32));
            }
            CHECK_EQ(npk_rk_b_bytes(p, k, 3 * g), 3 * 32 * pad(k, 32));
            CHECK_EQ(npk_rk_b_bytes(p, k, 3 * g - 1), 3 * 32 * pad(k, 32));
        }
    }
    CHECK_EQ(npk_rk_b_bytes(NPK_PREC_FP32, 32, 16), 0);
    CHECK_EQ(npk_rk_b_index(NPK_PREC_FP32, 32, 0, 0), SIZE_MAX);

    /* The B element index is the fact sheet's, for every (k, n) of a few shapes. */
    int bad = 0;
    for (size_t i = 0; i < COUNT(INPUTS); i++)
        for (size_t K = 32; K <= 160; K += 64)
            for (size_t k = 0; k < K; k++)
                for (size_t n = 0; n < 200; n++)
                    bad += npk_rk_b_index(INPUTS[i], K, k, n) != fact_b_index(INPUTS[i], K, k, n);
    CHECK_EQ(bad, 0);
    /* A K-slice length that is not a multiple of 32 indexes as its padded Kp. */
    CHECK_EQ(npk_rk_b_index(NPK_PREC_FP16, 40, 0, 16), fact_b_index(NPK_PREC_FP16, 64, 0, 16));

    /* The spec's fp16 statement ("Operand tile layouts"): B[k0+kt·32+kk][n0+nt·16+nl] goes
     * to bb[nt·KT·16·32 + kt·16·32 + nl·32 + kk], KT = K/32. */
    const size_t K = 128, KT = K / 32;
    bad = 0;
    for (size_t nt = 0; nt < 3; nt++)
        for (size_t kt = 0; kt < KT; kt++)
            for (size_t nl = 0; nl < 16; nl++)
                for (size_t kk = 0; kk < 32; kk++)
                    bad += npk_rk_b_index(NPK_PREC_FP16, K, kt * 32 + kk, nt * 16 + nl) !=
                           nt * KT * 16 * 32 + kt * 16 * 32 + nl * 32 + kk;
    CHECK_EQ(bad, 0);

    /* Feature and output blocks: indices and sizes. */
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        npk_rk_block line = npk_rk_a_block(p, NPK_MODE_LINE, 5, 70);
        npk_rk_block cube = npk_rk_a_block(p, NPK_MODE_CUBE, 8, 70);
        CHECK_EQ(line.stride, 96);
        CHECK_EQ(cube.stride, 0);
        CHECK_EQ(npk_rk_a_bytes(&line, 70), 5 * 96 * in_bits(p) / 8);
        CHECK_EQ(npk_rk_a_bytes(&cube, 70), 8 * 96 * in_bits(p) / 8);
        bad = 0;
        for (size_t m = 0; m < 8; m++)
            for (size_t k = 0; k < 96; k++)
                bad += npk_rk_block_index(&line, m, k) != fact_a_index(p, NPK_MODE_LINE, 5, 96, m, k) ||
                       npk_rk_block_index(&cube, m, k) != fact_a_index(p, NPK_MODE_CUBE, 8, 0, m, k);
        CHECK_EQ(bad, 0);
    }
    for (size_t i = 0; i < COUNT(OUTPUTS); i++) {
        npk_rk_prec p = OUTPUTS[i];
        size_t ob = out_bytes(p), c2o = 16 / ob;
        npk_rk_block line = npk_rk_c_block(p, NPK_MODE_LINE, 6, 40);
        npk_rk_block cube = npk_rk_c_block(p, NPK_MODE_CUBE, 6, 40);
        CHECK_EQ(line.stride, 40);
        CHECK_EQ(npk_rk_c_bytes(&line, 40), 6 * 40 * ob);
        CHECK_EQ(npk_rk_c_bytes(&cube, 40), pad(40, c2o) / c2o * 6 * 16);
        line.stride = 100; /* a notched sub-block: the last row ends after its 40 columns */
        CHECK_EQ(npk_rk_c_bytes(&line, 40), (5 * 100 + 40) * ob);
        bad = 0;
        for (size_t m = 0; m < 6; m++)
            for (size_t n = 0; n < 40; n++)
                bad += npk_rk_block_index(&line, m, n) != fact_c_index(p, NPK_MODE_LINE, 6, 100, m, n) ||
                       npk_rk_block_index(&cube, m, n) != fact_c_index(p, NPK_MODE_CUBE, 6, 0, m, n);
        CHECK_EQ(bad, 0);
    }
    npk_rk_block odd = {NPK_PREC_FP16, (npk_rk_mode)7, 4, 0};
    CHECK_EQ(npk_rk_block_index(&odd, 0, 0), SIZE_MAX);
    CHECK_EQ(npk_rk_block_index(NULL, 0, 0), SIZE_MAX);
    odd.prec = (npk_rk_prec)99;
    odd.mode = NPK_MODE_CUBE;
    CHECK_EQ(npk_rk_block_index(&odd, 0, 0), SIZE_MAX);
    CHECK_EQ(npk_rk_a_bytes(&odd, 32), 0);
    CHECK_EQ(npk_rk_c_bytes(&odd, 32), 0);
}

/* ---- B ------------------------------------------------------------------------------------- */

/* Pack B's K-slice [k0,k1) × columns [n0,n1) of a rows×cols matrix (pitch > cols) and check
 * every packed element, padding included, against the fact sheet's index; then unpack into a
 * fresh matrix and compare. */
static void check_b_block(npk_rk_prec p, size_t rows, size_t cols, size_t k0, size_t k1,
                          size_t n0, size_t n1)
{
    size_t pitch = cols + 3;
    void *b = random_matrix(p, rows, pitch);
    npk_rk_cmatrix src = {b, rows, cols, pitch};
    size_t kc = k1 - k0, nc = n1 - n0, kp = pad(kc, 32), np = pad(nc, fact_n_group(p));
    size_t size = npk_rk_b_bytes(p, kc, nc);
    CHECK_EQ(size, kp * np * in_bits(p) / 8);
    uint8_t *packed = guarded(size);
    CHECK_EQ(npk_rk_pack_b(p, &src, (npk_rk_range){k0, k1}, (npk_rk_range){n0, n1}, packed, size),
             NPK_OK);
    CHECK(guard_intact(packed, size));
    int bad = 0;
    for (size_t k = 0; k < kp; k++)
        for (size_t n = 0; n < np; n++) {
            long want = k < kc && n < nc ? user_get(p, b, pitch, k0 + k, n0 + n) : 0;
            bad += packed_get(p, packed, fact_b_index(p, kp, k, n)) != want;
        }
    CHECK_EQ(bad, 0);

    void *back = calloc(rows * pitch, user_bytes(p));
    npk_rk_matrix dst = {back, rows, cols, pitch};
    CHECK_EQ(npk_rk_unpack_b(p, packed, size, &dst, (npk_rk_range){k0, k1}, (npk_rk_range){n0, n1}),
             NPK_OK);
    bad = 0;
    for (size_t k = 0; k < rows; k++)
        for (size_t n = 0; n < cols; n++) {
            int inside = k >= k0 && k < k1 && n >= n0 && n < n1;
            bad += user_get(p, back, pitch, k, n) != (inside ? user_get(p, b, pitch, k, n) : 0);
        }
    CHECK_EQ(bad, 0);
    free(back);
    free(packed);
    free(b);
}

/* Blocks of 4 MiB and more go out through streaming stores when the destination is 64-byte
 * aligned (layout_weights.c): the same bytes as the cached path, which check_b_block holds to
 * the fact sheet. Both packs of one slice, aligned and not, must be equal byte for byte. */
static void test_weights_streamed(void)
{
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        size_t K = 2048 + 40, N = ((size_t)5 << 23) / (in_bits(p) * 2048) + 7;
        void *b = random_matrix(p, K, N + 3);
        npk_rk_cmatrix src = {b, K, N, N + 3};
        npk_rk_range ks = {5, K}, ns = {3, N};
        size_t size = npk_rk_b_bytes(p, ks.end - ks.begin, ns.end - ns.begin);
        CHECK(size >= ((size_t)4 << 20));
        uint8_t *aligned = aligned_alloc(64, (size + 63) / 64 * 64);
        uint8_t *base = malloc(size + 16), *unaligned = base + 16;
        CHECK_EQ(npk_rk_pack_b(p, &src, ks, ns, aligned, size), NPK_OK);
        CHECK_EQ(npk_rk_pack_b(p, &src, ks, ns, unaligned, size), NPK_OK);
        CHECK_EQ(memcmp(aligned, unaligned, size), 0);
        free(aligned);
        free(base);
        free(b);
    }
}

static void test_weights(void)
{
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        size_t g = fact_n_group(p);
        check_b_block(p, 96, 3 * g, 0, 96, 0, 3 * g);                 /* aligned, 3 K-tiles, 3 N-groups */
        check_b_block(p, 70, 2 * g + 5, 0, 70, 0, 2 * g + 5);         /* K and N both padded */
        check_b_block(p, 200, 4 * g + 9, 37, 170, g / 2 + 1, 3 * g + 7); /* a slice, unaligned */
        check_b_block(p, 33, 1, 0, 33, 0, 1);                         /* one column */
        check_b_block(p, 64, g, 5, 6, 0, g);                          /* one K row */
    }

    /* A column range starting at N-tile t0 of the full K is the full pack's bytes from
     * tile_offset(K, t0) (facts D.1, ork multicore). */
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        size_t g = fact_n_group(p), K = 128, N = 5 * g;
        void *b = random_matrix(p, K, N);
        npk_rk_cmatrix src = {b, K, N, N};
        size_t full_size = npk_rk_b_bytes(p, K, N), part_size = npk_rk_b_bytes(p, K, 2 * g);
        uint8_t *full = malloc(full_size), *part = malloc(part_size);
        CHECK_EQ(npk_rk_pack_b(p, &src, (npk_rk_range){0, K}, (npk_rk_range){0, N}, full, full_size),
                 NPK_OK);
        CHECK_EQ(npk_rk_pack_b(p, &src, (npk_rk_range){0, K}, (npk_rk_range){2 * g, 4 * g}, part,
                               part_size),
                 NPK_OK);
        CHECK_EQ(part_size, 2 * 32 * K);
        CHECK(memcmp(part, full + npk_rk_b_tile_offset(K, 2), part_size) == 0);
        free(part);
        free(full);
        free(b);
    }

    /* bf16 and int16 weights share fp16's tiles (facts D.1): the same bits, the same bytes. */
    {
        void *b = random_matrix(NPK_PREC_FP16, 64, 48);
        npk_rk_cmatrix src = {b, 64, 48, 48};
        size_t size = npk_rk_b_bytes(NPK_PREC_FP16, 64, 48);
        CHECK_EQ(npk_rk_b_bytes(NPK_PREC_BF16, 64, 48), size);
        uint8_t *f16 = malloc(size), *other = malloc(size);
        CHECK_EQ(npk_rk_pack_b(NPK_PREC_FP16, &src, (npk_rk_range){0, 64}, (npk_rk_range){0, 48},
                               f16, size),
                 NPK_OK);
        CHECK_EQ(npk_rk_pack_b(NPK_PREC_BF16, &src, (npk_rk_range){0, 64}, (npk_rk_range){0, 48},
                               other, size),
                 NPK_OK);
        CHECK(memcmp(f16, other, size) == 0);
        CHECK_EQ(npk_rk_pack_b(NPK_PREC_INT16, &src, (npk_rk_range){0, 64}, (npk_rk_range){0, 48},
                               other, size),
                 NPK_OK);
        CHECK(memcmp(f16, other, size) == 0);
        free(other);
        free(f16);
        free(b);
    }

    /* int4 nibble order by hand: B[0][0] = 1, B[1][0] = -2 share byte 0 (even K low);
     * B[0][1] = 5 starts the tile's second row, 32 nibbles = 16 bytes in. */
    int8_t b4[32 * 64] = {0};
    b4[0 * 64 + 0] = 1;
    b4[1 * 64 + 0] = -2;
    b4[0 * 64 + 1] = 5;
    b4[3 * 64 + 1] = 7;
    uint8_t tile[1024];
    npk_rk_cmatrix src4 = {b4, 32, 64, 64};
    CHECK_EQ(npk_rk_pack_b(NPK_PREC_INT4, &src4, (npk_rk_range){0, 32}, (npk_rk_range){0, 64}, tile,
                           sizeof tile),
             NPK_OK);
    CHECK_EQ(tile[0], 0xe1);
    CHECK_EQ(tile[16], 0x05);
    CHECK_EQ(tile[17], 0x70);
}

/* ---- A ------------------------------------------------------------------------------------- */

/* Pack rows [m0,m1) × K-slice [k0,k1) of a rows×cols matrix into a block of blk_rows rows
 * (and, in line mode, the given stride), check every element against the fact sheet's index,
 * then unpack. */
static void check_a_block(npk_rk_prec p, npk_rk_mode mode, size_t rows, size_t cols, size_t m0,
                          size_t m1, size_t k0, size_t k1, size_t blk_rows, size_t stride)
{
    size_t pitch = cols + 5;
    void *a = random_matrix(p, rows, pitch);
    npk_rk_cmatrix src = {a, rows, cols, pitch};
    size_t mc = m1 - m0, kc = k1 - k0, kp = pad(kc, 32);
    npk_rk_block blk = npk_rk_a_block(p, mode, blk_rows, kc);
    if (mode == NPK_MODE_LINE && stride)
        blk.stride = stride;
    size_t size = npk_rk_a_bytes(&blk, kc);
    size_t want_size = mode == NPK_MODE_LINE ? ((blk_rows - 1) * blk.stride + kp) * in_bits(p) / 8
                                             : blk_rows * kp * in_bits(p) / 8;
    CHECK_EQ(size, want_size);
    uint8_t *packed = guarded(size);
    CHECK_EQ(npk_rk_pack_a(&blk, &src, (npk_rk_range){m0, m1}, (npk_rk_range){k0, k1}, packed, size),
             NPK_OK);
    CHECK(guard_intact(packed, size));
    int bad = 0;
    for (size_t m = 0; m < blk_rows; m++)
        for (size_t k = 0; k < kp; k++) {
            long want = m < mc && k < kc ? user_get(p, a, pitch, m0 + m, k0 + k) : 0;
            bad += packed_get(p, packed, fact_a_index(p, mode, blk_rows, blk.stride, m, k)) != want;
        }
    CHECK_EQ(bad, 0);
    /* A line stride beyond Kp leaves the gap between rows alone. */
    if (mode == NPK_MODE_LINE && blk.stride > kp)
        CHECK_EQ(packed[kp * in_bits(p) / 8], SENTINEL);

    void *back = calloc(rows * pitch, user_bytes(p));
    npk_rk_matrix dst = {back, rows, cols, pitch};
    CHECK_EQ(npk_rk_unpack_a(&blk, packed, size, &dst, (npk_rk_range){m0, m1}, (npk_rk_range){k0, k1}),
             NPK_OK);
    bad = 0;
    for (size_t m = 0; m < rows; m++)
        for (size_t k = 0; k < cols; k++) {
            int inside = m >= m0 && m < m1 && k >= k0 && k < k1;
            bad += user_get(p, back, pitch, m, k) != (inside ? user_get(p, a, pitch, m, k) : 0);
        }
    CHECK_EQ(bad, 0);
    free(back);
    free(packed);
    free(a);
}

static void test_feature(void)
{
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++) {
            check_a_block(p, (npk_rk_mode)mode, 8, 128, 0, 8, 0, 128, 8, 0); /* aligned */
            check_a_block(p, (npk_rk_mode)mode, 9, 70, 0, 9, 0, 70, 9, 0);   /* K padded */
            check_a_block(p, (npk_rk_mode)mode, 1, 50, 0, 1, 0, 50, 1, 0);   /* M = 1 */
            check_a_block(p, (npk_rk_mode)mode, 20, 300, 3, 8, 41, 140, 5, 0); /* sub-block */
            check_a_block(p, (npk_rk_mode)mode, 20, 300, 3, 8, 41, 140, 8, 0); /* rows padded */
            check_a_block(p, (npk_rk_mode)mode, 4, 64, 1, 2, 7, 8, 4, 0);      /* one element */
            /* many rows and planes: the cube walk's plane blocks and its rows read ahead */
            check_a_block(p, (npk_rk_mode)mode, 72, 600, 2, 70, 3, 590, 72, 0);
        }
        check_a_block(p, NPK_MODE_LINE, 6, 100, 0, 6, 0, 100, 6, 160);         /* line stride */
    }

    /* Rows [m0,m1) in line mode are the full pack's rows; a K-slice at a multiple of 32 in
     * cube mode is the full pack's planes from k0/C2 on. */
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        size_t M = 12, K = 160, eb8 = in_bits(p);
        void *a = random_matrix(p, M, K);
        npk_rk_cmatrix src = {a, M, K, K};
        npk_rk_block full_line = npk_rk_a_block(p, NPK_MODE_LINE, M, K);
        npk_rk_block rows_line = npk_rk_a_block(p, NPK_MODE_LINE, 4, K);
        size_t full_size = npk_rk_a_bytes(&full_line, K);
        uint8_t *full = malloc(full_size), *part = malloc(full_size);
        CHECK_EQ(npk_rk_pack_a(&full_line, &src, (npk_rk_range){0, M}, (npk_rk_range){0, K}, full,
                               full_size),
                 NPK_OK);
        CHECK_EQ(npk_rk_pack_a(&rows_line, &src, (npk_rk_range){5, 9}, (npk_rk_range){0, K}, part,
                               full_size),
                 NPK_OK);
        CHECK(memcmp(part, full + 5 * K * eb8 / 8, 4 * K * eb8 / 8) == 0);

        npk_rk_block full_cube = npk_rk_a_block(p, NPK_MODE_CUBE, M, K);
        CHECK_EQ(npk_rk_pack_a(&full_cube, &src, (npk_rk_range){0, M}, (npk_rk_range){0, K}, full,
                               full_size),
                 NPK_OK);
        CHECK_EQ(npk_rk_pack_a(&full_cube, &src, (npk_rk_range){0, M}, (npk_rk_range){64, 128},
                               part, full_size),
                 NPK_OK);
        size_t plane_bytes = M * 16;
        CHECK(memcmp(part, full + 64 / fact_c2(p) * plane_bytes, 64 / fact_c2(p) * plane_bytes) == 0);
        free(part);
        free(full);
        free(a);
    }

    /* int4 nibble order by hand, line and cube. */
    int8_t a4[64] = {1, -2, 3, 4, -8, 7};
    npk_rk_cmatrix src4 = {a4, 1, 64, 64};
    uint8_t out[64];
    npk_rk_block line = npk_rk_a_block(NPK_PREC_INT4, NPK_MODE_LINE, 1, 64);
    CHECK_EQ(npk_rk_pack_a(&line, &src4, (npk_rk_range){0, 1}, (npk_rk_range){0, 64}, out, sizeof out),
             NPK_OK);
    CHECK_EQ(out[0], 0xe1);
    CHECK_EQ(out[1], 0x43);
    CHECK_EQ(out[2], 0x78);
    npk_rk_block cube = npk_rk_a_block(NPK_PREC_INT4, NPK_MODE_CUBE, 1, 64);
    CHECK_EQ(npk_rk_pack_a(&cube, &src4, (npk_rk_range){0, 1}, (npk_rk_range){0, 64}, out, sizeof out),
             NPK_OK);
    CHECK_EQ(out[0], 0xe1);
    CHECK_EQ(out[2], 0x78);
    /* An odd-length slice: the last byte holds one nibble, its high nibble is padding. */
    CHECK_EQ(npk_rk_pack_a(&line, &src4, (npk_rk_range){0, 1}, (npk_rk_range){0, 3}, out, sizeof out),
             NPK_OK);
    CHECK_EQ(out[0], 0xe1);
    CHECK_EQ(out[1], 0x03);
    CHECK_EQ(out[2], 0x00);
}

/* The cube feature pack's walk on every vector path this CPU has (64-, 32- and 16-byte kernels
 * on x86-64, then the portable path pinned; NEON and the portable path on aarch64), each
 * element checked against the fact sheet's index: shapes at the edges of its atoms (K at and
 * past C2), of its 4×4 steps (rows and planes not multiples of 4, M = 1), and blocks large
 * enough for several bands of planes, a last band with fewer plane groups, and the rows it
 * asks for ahead running past the end of a band into the next. */
static void cube_shapes(void)
{
    for (size_t i = 0; i < COUNT(INPUTS); i++) {
        npk_rk_prec p = INPUTS[i];
        size_t c2 = fact_c2(p);
        check_a_block(p, NPK_MODE_CUBE, 1, c2, 0, 1, 0, c2, 1, 0);              /* one atom */
        check_a_block(p, NPK_MODE_CUBE, 1, 4 * c2 + 3, 0, 1, 0, 4 * c2 + 3, 1, 0); /* M = 1 */
        check_a_block(p, NPK_MODE_CUBE, 5, c2 + 1, 0, 5, 0, c2 + 1, 5, 0);       /* K past C2 */
        check_a_block(p, NPK_MODE_CUBE, 4, 4 * c2, 0, 4, 0, 4 * c2, 4, 0);       /* one step */
        check_a_block(p, NPK_MODE_CUBE, 7, 8 * c2 - 1, 0, 7, 0, 8 * c2 - 1, 9, 0); /* odd K */
        /* 25 row groups and a row; 10 plane groups (bands of 4, 4 and 2) and a partial plane */
        check_a_block(p, NPK_MODE_CUBE, 101, 40 * c2 + 5, 0, 101, 0, 40 * c2 + 5, 104, 0);
        /* a sub-block of a wider matrix, 23 row groups, 36 plane groups */
        check_a_block(p, NPK_MODE_CUBE, 130, 150 * c2, 9, 101, 3 * c2, 147 * c2, 92, 0);
        /* rows fewer than the prefetch distance, plane groups many */
        check_a_block(p, NPK_MODE_CUBE, 12, 64 * c2, 0, 12, 0, 64 * c2, 12, 0);
    }
}

static void test_cube_paths(void)
{
    CHECK(!npk_layout_limit_vectors(8));
    CHECK(!npk_layout_limit_vectors(128));
    static const unsigned limits[] = {64, 32, 16};
    for (size_t i = 0; i < COUNT(limits); i++) {
        CHECK(npk_layout_limit_vectors(limits[i]));
        CHECK_EQ(npk_layout_vector_limit(), limits[i]);
        cube_shapes();
    }
    npk_layout_limit_vectors(64);
    npk_dense_force_portable(true);
    cube_shapes();
    npk_dense_force_portable(false);
}

/* ---- C ------------------------------------------------------------------------------------- */

static void fill_random_bytes(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)p)[i] = (uint8_t)rnd();
}

static long long out_get(npk_rk_prec p, const void *buf, size_t idx)
{
    switch (out_bytes(p)) {
    case 4: return ((const uint32_t *)buf)[idx];
    case 2: return ((const uint16_t *)buf)[idx];
    default: return ((const uint8_t *)buf)[idx];
    }
}

/* A block filled with random bytes is unpacked into C[m0..][n0..] of a larger matrix; every
 * element must come from the fact sheet's index and nothing outside the sub-block may change.
 * Then the sub-block is packed back into a fresh block and compared element by element. */
static void check_c_block(npk_rk_prec p, npk_rk_mode mode, size_t rows, size_t cols, size_t m0,
                          size_t m1, size_t n0, size_t n1, size_t blk_rows, size_t stride)
{
    size_t ob = out_bytes(p), pitch = cols + 2, mc = m1 - m0, nc = n1 - n0;
    npk_rk_block blk = npk_rk_c_block(p, mode, blk_rows, nc);
    if (mode == NPK_MODE_LINE && stride)
        blk.stride = stride;
    size_t size = npk_rk_c_bytes(&blk, nc);
    uint8_t *block = malloc(size);
    fill_random_bytes(block, size);
    uint8_t *user = malloc(rows * pitch * ob), *before = malloc(rows * pitch * ob);
    fill_random_bytes(user, rows * pitch * ob);
    memcpy(before, user, rows * pitch * ob);
    npk_rk_matrix c = {user, rows, cols, pitch};
    npk_rk_range m = {m0, m1}, n = {n0, n1};
    CHECK_EQ(npk_rk_unpack_c(&blk, block, size, &c, m, n), NPK_OK);
    int bad = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t col = 0; col < pitch; col++) {
            size_t at = r * pitch + col;
            int inside = r >= m0 && r < m1 && col >= n0 && col < n1;
            long long want = inside ? out_get(p, block, fact_c_index(p, mode, blk_rows, blk.stride,
                                                                     r - m0, col - n0))
                                    : out_get(p, before, at);
            bad += out_get(p, user, at) != want;
        }
    CHECK_EQ(bad, 0);

    uint8_t *again = guarded(size);
    npk_rk_cmatrix csrc = {user, rows, cols, pitch};
    CHECK_EQ(npk_rk_pack_c(&blk, &csrc, m, n, again, size), NPK_OK);
    CHECK(guard_intact(again, size));
    bad = 0;
    for (size_t r = 0; r < mc; r++)
        for (size_t col = 0; col < nc; col++) {
            size_t idx = fact_c_index(p, mode, blk_rows, blk.stride, r, col);
            bad += out_get(p, again, idx) != out_get(p, block, idx);
        }
    CHECK_EQ(bad, 0);
    free(again);
    free(before);
    free(user);
    free(block);
}

static void test_output(void)
{
    for (size_t i = 0; i < COUNT(OUTPUTS); i++) {
        npk_rk_prec p = OUTPUTS[i];
        for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++) {
            check_c_block(p, (npk_rk_mode)mode, 8, 64, 0, 8, 0, 64, 8, 0);
            check_c_block(p, (npk_rk_mode)mode, 1, 30, 0, 1, 0, 30, 1, 0);     /* M = 1, N odd */
            check_c_block(p, (npk_rk_mode)mode, 20, 90, 3, 11, 17, 70, 8, 0);  /* sub-block */
            check_c_block(p, (npk_rk_mode)mode, 20, 90, 3, 10, 17, 70, 12, 0); /* block rows > copied */
        }
        check_c_block(p, NPK_MODE_LINE, 9, 50, 2, 7, 5, 25, 5, 64); /* notch stride */
    }

    /* pack_c writes only the sub-block's elements. */
    float cu[4 * 8];
    for (int i = 0; i < 32; i++)
        cu[i] = (float)i;
    float blockf[4 * 8];
    for (int i = 0; i < 32; i++)
        blockf[i] = -1.0f;
    npk_rk_block nb = npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, 4, 3);
    nb.stride = 8;
    npk_rk_cmatrix cs = {cu, 4, 8, 8};
    CHECK_EQ(npk_rk_pack_c(&nb, &cs, (npk_rk_range){0, 4}, (npk_rk_range){2, 5}, blockf,
                           npk_rk_c_bytes(&nb, 3)),
             NPK_OK);
    CHECK(blockf[0] == 2.0f && blockf[2] == 4.0f && blockf[3] == -1.0f && blockf[8] == 10.0f &&
          blockf[31] == -1.0f);
}

/* ---- accumulate ---------------------------------------------------------------------------- */

/* The host half of a K-split: C = A·B over K = 64 as two K-slices of 32, each partial packed
 * (as the simulator writes outputs) then accumulated into C; equals the one-pass product. */
static void check_ksplit(npk_rk_prec out, npk_rk_mode mode)
{
    enum { M = 5, K = 64, N = 24 };
    int a[M][K], b[K][N];
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++)
            a[m][k] = (int)(rnd() % 15) - 7;
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++)
            b[k][n] = (int)(rnd() % 15) - 7;
    int is_float = out == NPK_PREC_FP32 || out == NPK_PREC_FP16;
    float cf[M][N] = {{0}};
    int32_t ci[M][N] = {{0}};
    npk_rk_matrix c = {is_float ? (void *)cf : (void *)ci, M, N, N};
    npk_rk_block blk = npk_rk_c_block(out, mode, M, N);
    size_t size = npk_rk_c_bytes(&blk, N);
    uint8_t *block = malloc(size);
    for (int half = 0; half < 2; half++) {
        /* the partial of this K-slice, in the output precision */
        float pf[M][N];
        int32_t p32[M][N];
        int16_t p16[M][N];
        uint16_t ph[M][N];
        int8_t p8[M][N];
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                int s = 0;
                for (int k = half * 32; k < half * 32 + 32; k++)
                    s += a[m][k] * b[k][n];
                pf[m][n] = (float)s;
                p32[m][n] = s;
                p16[m][n] = (int16_t)s;
                ph[m][n] = npk_f32_to_f16((float)s);
                p8[m][n] = (int8_t)(s / 16); /* fits int8: |s| <= 32·49 */
            }
        const void *partial = out == NPK_PREC_FP32 ? (const void *)pf
                            : out == NPK_PREC_INT32 ? (const void *)p32
                            : out == NPK_PREC_INT16 ? (const void *)p16
                            : out == NPK_PREC_FP16 ? (const void *)ph : (const void *)p8;
        npk_rk_cmatrix pm = {partial, M, N, N};
        CHECK_EQ(npk_rk_pack_c(&blk, &pm, (npk_rk_range){0, M}, (npk_rk_range){0, N}, block, size),
                 NPK_OK);
        CHECK_EQ(npk_rk_accumulate_c(&blk, block, size, &c, (npk_rk_range){0, M}, (npk_rk_range){0, N}),
                 NPK_OK);
    }
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int s0 = 0, s1 = 0;
            for (int k = 0; k < 32; k++)
                s0 += a[m][k] * b[k][n];
            for (int k = 32; k < 64; k++)
                s1 += a[m][k] * b[k][n];
            if (is_float)
                bad += cf[m][n] != (float)(s0 + s1); /* small integers: exact in fp16 and fp32 */
            else if (out == NPK_PREC_INT8)
                bad += ci[m][n] != s0 / 16 + s1 / 16;
            else
                bad += ci[m][n] != s0 + s1;
        }
    CHECK_EQ(bad, 0);
    free(block);
}

static void test_accumulate(void)
{
    for (size_t i = 0; i < COUNT(OUTPUTS); i++)
        for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++)
            check_ksplit(OUTPUTS[i], (npk_rk_mode)mode);

    /* Into a sub-block of a wider C, cube partial of int16 with negative values; the rest of
     * C is untouched. */
    int32_t c[3][10];
    for (int r = 0; r < 3; r++)
        for (int n = 0; n < 10; n++)
            c[r][n] = 100 * r + n;
    int16_t part[2 * 8]; /* cube [1][2][8] for 2 rows × 8 columns: atom per row */
    for (int i = 0; i < 16; i++)
        part[i] = (int16_t)(-1000 - i);
    npk_rk_block blk = npk_rk_c_block(NPK_PREC_INT16, NPK_MODE_CUBE, 2, 8);
    npk_rk_matrix cm = {c, 3, 10, 10};
    CHECK_EQ(npk_rk_accumulate_c(&blk, part, sizeof part, &cm, (npk_rk_range){1, 3},
                                 (npk_rk_range){2, 10}),
             NPK_OK);
    CHECK_EQ(c[0][2], 2);
    CHECK_EQ(c[1][1], 101);
    CHECK(c[1][2] == 102 - 1000);
    CHECK(c[2][9] == 209 - 1015);

    /* int32 accumulation wraps like the hardware instead of overflowing. */
    int32_t big = INT32_MAX, one = 1;
    npk_rk_block b1 = npk_rk_c_block(NPK_PREC_INT32, NPK_MODE_LINE, 1, 1);
    npk_rk_matrix bm = {&big, 1, 1, 1};
    CHECK_EQ(npk_rk_accumulate_c(&b1, &one, 4, &bm, (npk_rk_range){0, 1}, (npk_rk_range){0, 1}),
             NPK_OK);
    CHECK(big == INT32_MIN);
}

/* A single K slice's sums copied into C give the bits adding them into a zeroed C gives: a -0
 * float sum becomes +0 (0 + -0 = +0), every other value (NaN, infinity, denormal, integer) keeps
 * its bits, and C outside the region is untouched, whatever C held before (no zeroing). */
static void check_copy_sums(npk_rk_prec p, npk_rk_mode mode)
{
    enum { M = 5, N = 37, CR = 7, CC = 41 }; /* C wider than the region [1, 6) x [3, 40) */
    uint32_t sums[M][N];
    fill_random_bytes(sums, sizeof sums);
    const uint32_t neg_zero = 0x80000000u, nan = 0x7fc00001u, inf = 0xff800000u, den = 0x00000003u;
    sums[0][0] = neg_zero, sums[1][1] = nan, sums[2][2] = inf, sums[3][3] = den, sums[4][4] = 0;
    sums[0][6] = 0x3fc00000u; /* 1.5 */
    for (int n = 8; n < N; n += 3)
        sums[n % M][n] = neg_zero;
    npk_rk_block blk = npk_rk_c_block(p, mode, M, N);
    size_t size = npk_rk_c_bytes(&blk, N);
    uint8_t *block = malloc(size);
    npk_rk_cmatrix sm = {sums, M, N, N};
    CHECK_EQ(npk_rk_pack_c(&blk, &sm, (npk_rk_range){0, M}, (npk_rk_range){0, N}, block, size),
             NPK_OK);
    uint32_t added[CR][CC], copied[CR][CC];
    memset(added, SENTINEL, sizeof added);
    memset(copied, SENTINEL, sizeof copied); /* a copy needs no zeroed C */
    for (int r = 1; r < 1 + M; r++)
        for (int c = 3; c < 3 + N; c++)
            added[r][c] = 0;
    npk_rk_matrix am = {added, CR, CC, CC}, cm = {copied, CR, CC, CC};
    const npk_rk_range m = {1, 1 + M}, n = {3, 3 + N};
    CHECK_EQ(npk_rk_accumulate_c(&blk, block, size, &am, m, n), NPK_OK);
    CHECK_EQ(npk_rk_copy_sums_c(&blk, block, size, &cm, m, n), NPK_OK);
    CHECK(!memcmp(added, copied, sizeof added));
    /* independently of accumulate: -0 lands as +0 for floats, as it is for integers */
    CHECK_EQ(copied[1][3], p == NPK_PREC_FP32 ? 0u : neg_zero);
    CHECK_EQ(copied[2][4], nan);
    CHECK_EQ(copied[3][5], inf);
    CHECK_EQ(copied[4][6], den);
    CHECK_EQ(copied[1 + 8 % M][3 + 8], p == NPK_PREC_FP32 ? 0u : neg_zero);
    CHECK_EQ(copied[1][9], sums[0][6]);
    CHECK_EQ(copied[0][3], 0xa5a5a5a5u); /* outside the region */
    CHECK_EQ(copied[1][2], 0xa5a5a5a5u);
    CHECK_EQ(copied[6][40], 0xa5a5a5a5u);
    free(block);
}

static void test_copy_sums(void)
{
    for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++) {
        check_copy_sums(NPK_PREC_FP32, (npk_rk_mode)mode);
        check_copy_sums(NPK_PREC_INT32, (npk_rk_mode)mode);
    }
}

/* A region's K slices summed in one pass give, bit for bit, what adding them one by one gives
 * (into a zeroed C when `first`: C's old contents are then never read), for every output
 * precision and both modes, slices at scattered offsets as a job's output slots lie; C
 * outside the region is untouched. Float partials hold -0, NaNs, infinities and denormals, so
 * the order of the additions shows; integer partials wrap. */
static void check_sum_slices(npk_rk_prec p, npk_rk_mode mode, size_t count, bool first)
{
    enum { M = 6, N = 37, CR = 9, CC = 43 }; /* C wider than the region [2, 8) x [4, 41) */
    npk_rk_block blk = npk_rk_c_block(p, mode, M, N);
    const size_t size = npk_rk_c_bytes(&blk, N), slot = (size + 64 + 63) / 64 * 64;
    uint8_t *blocks = malloc(slot * count + 1);
    const void *srcs[NPK_RK_SUM_SLICES_MAX];
    size_t sizes[NPK_RK_SUM_SLICES_MAX];
    const uint32_t specials[] = {0x80000000u, 0x7fc00001u, 0xff800000u, 0x00000003u,
                                 0x7f800000u, 0xffc00abcu};
    for (size_t j = 0; j < count; j++) {
        uint32_t part[M][N];
        fill_random_bytes(part, sizeof part);
        if (p == NPK_PREC_FP32)
            for (int i = 0; i < M * N; i += 7)
                part[i / N][i % N] = specials[(i / 7 + j) % COUNT(specials)];
        /* each element in the block's precision: pack_c takes C in it */
        uint8_t narrow[M * N * 4];
        const size_t eb = p == NPK_PREC_FP16 || p == NPK_PREC_INT16 ? 2 : p == NPK_PREC_INT8 ? 1 : 4;
        for (int i = 0; i < M * N; i++)
            memcpy(narrow + i * eb, &part[i / N][i % N], eb);
        npk_rk_cmatrix pm = {narrow, M, N, N};
        uint8_t *b = blocks + j * slot + (j % 2) * 64; /* slots apart, not all aligned alike */
        CHECK_EQ(npk_rk_pack_c(&blk, &pm, (npk_rk_range){0, M}, (npk_rk_range){0, N}, b, size),
                 NPK_OK);
        srcs[j] = b;
        sizes[j] = size;
    }
    uint32_t ref[CR][CC], got[CR][CC];
    fill_random_bytes(ref, sizeof ref);
    memcpy(got, ref, sizeof got);
    const npk_rk_range m = {2, 2 + M}, n = {4, 4 + N};
    if (first) { /* the reference adds into a zeroed region; the sum never reads it */
        for (int r = 2; r < 2 + M; r++)
            for (int c = 4; c < 4 + N; c++)
                ref[r][c] = 0;
    }
    npk_rk_matrix rm = {ref, CR, CC, CC}, gm = {got, CR, CC, CC};
    for (size_t j = 0; j < count; j++)
        CHECK_EQ(npk_rk_accumulate_c(&blk, srcs[j], sizes[j], &rm, m, n), NPK_OK);
    CHECK_EQ(npk_rk_sum_slices_c(&blk, srcs, sizes, count, &gm, m, n, first), NPK_OK);
    /* bit for bit, except that which NaN's payload a sum of two NaNs keeps is the compiler's
     * choice of operand order (C leaves it unspecified): any NaN matches any NaN */
    const bool is_float = p == NPK_PREC_FP32 || p == NPK_PREC_FP16;
    int bad = 0;
    for (int r = 0; r < CR; r++)
        for (int c = 0; c < CC; c++) {
            float x, y;
            memcpy(&x, &ref[r][c], 4);
            memcpy(&y, &got[r][c], 4);
            bad += ref[r][c] != got[r][c] && !(is_float && isnan(x) && isnan(y));
        }
    CHECK_EQ(bad, 0);
    free(blocks);
}

static void test_sum_slices(void)
{
    static const size_t counts[] = {1, 2, 3, 5, NPK_RK_SUM_SLICES_MAX};
    for (size_t i = 0; i < COUNT(OUTPUTS); i++)
        for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++)
            for (size_t c = 0; c < COUNT(counts); c++)
                for (int first = 0; first < 2; first++)
                    check_sum_slices(OUTPUTS[i], (npk_rk_mode)mode, counts[c], first);
    /* the -0 of a first slice lands as +0, as 0 + -0 gives, and adds up from there */
    float c = 5.0f, s0 = -0.0f, s1 = -0.0f;
    const void *src[] = {&s0, &s1};
    const size_t sz[] = {4, 4};
    npk_rk_block b1 = npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, 1, 1);
    npk_rk_matrix cm = {&c, 1, 1, 1};
    CHECK_EQ(npk_rk_sum_slices_c(&b1, src, sz, 2, &cm, (npk_rk_range){0, 1}, (npk_rk_range){0, 1},
                                 true),
             NPK_OK);
    CHECK(c == 0.0f && !signbit(c));
    /* int32 sums wrap: INT32_MAX + 1 + 1 */
    int32_t ci = INT32_MAX, one = 1;
    const void *isrc[] = {&one, &one};
    npk_rk_block bi = npk_rk_c_block(NPK_PREC_INT32, NPK_MODE_LINE, 1, 1);
    npk_rk_matrix im = {&ci, 1, 1, 1};
    CHECK_EQ(npk_rk_sum_slices_c(&bi, isrc, sz, 2, &im, (npk_rk_range){0, 1}, (npk_rk_range){0, 1},
                                 false),
             NPK_OK);
    CHECK(ci == INT32_MIN + 1);
}

/* ---- errors -------------------------------------------------------------------------------- */

#define CHECK_FAIL(call, needle)                                                            \
    do {                                                                                    \
        npk_clear_error();                                                                  \
        CHECK_EQ((call), NPK_EINVAL);                                                       \
        CHECK_STR_HAS(npk_last_error(), needle);                                            \
    } while (0)

static void test_errors(void)
{
    uint16_t a16[4 * 64] = {0};
    uint8_t buf[8192];
    memset(buf, SENTINEL, sizeof buf);
    npk_rk_cmatrix a = {a16, 4, 64, 64};
    npk_rk_matrix aw = {a16, 4, 64, 64};
    npk_rk_range m = {0, 4}, k = {0, 64};
    npk_rk_block blk = npk_rk_a_block(NPK_PREC_FP16, NPK_MODE_LINE, 4, 64);

    /* A */
    CHECK_FAIL(npk_rk_pack_a(NULL, &a, m, k, buf, sizeof buf), "block description is NULL");
    npk_rk_block bad = blk;
    bad.prec = NPK_PREC_FP32;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "input precision fp32");
    bad.prec = NPK_PREC_TF32;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "tf32");
    bad.prec = (npk_rk_prec)77;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "(77)");
    bad = blk;
    bad.mode = (npk_rk_mode)3;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "mode=3");
    bad = blk;
    bad.rows = 0;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "rows=0");
    bad.rows = 3;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "rows=3 is below the 4 rows");
    bad.rows = NPK_RK_LAYOUT_MAX_DIM + 1;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "16777217");
    bad = blk;
    bad.stride = 48;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, (npk_rk_range){0, 40}, buf, sizeof buf),
               "stride=48 must be within 64");
    bad = npk_rk_a_block(NPK_PREC_FP16, NPK_MODE_CUBE, 4, 64);
    bad.stride = 64;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a, m, k, buf, sizeof buf), "stride=64 applies to line mode only");
    int8_t a8[4 * 64] = {0};
    npk_rk_cmatrix a4 = {a8, 4, 64, 64};
    bad = npk_rk_a_block(NPK_PREC_INT4, NPK_MODE_LINE, 4, 64);
    bad.stride = 65;
    CHECK_FAIL(npk_rk_pack_a(&bad, &a4, m, k, buf, sizeof buf), "stride=65 int4");
    CHECK_FAIL(npk_rk_pack_a(&blk, NULL, m, k, buf, sizeof buf), "matrix a is NULL");
    npk_rk_cmatrix am = a;
    am.data = NULL;
    CHECK_FAIL(npk_rk_pack_a(&blk, &am, m, k, buf, sizeof buf), "a->data is NULL");
    am = a;
    am.pitch = 63;
    CHECK_FAIL(npk_rk_pack_a(&blk, &am, m, k, buf, sizeof buf), "pitch=63 is below its 64 columns");
    am = a;
    am.cols = am.pitch = NPK_RK_LAYOUT_MAX_DIM * 2;
    CHECK_FAIL(npk_rk_pack_a(&blk, &am, m, k, buf, sizeof buf), "must be <= 16777216");
    am = a;
    am.data = (const uint8_t *)a16 + 1;
    CHECK_FAIL(npk_rk_pack_a(&blk, &am, m, k, buf, sizeof buf), "not aligned to its 2-byte");
    CHECK_FAIL(npk_rk_pack_a(&blk, &a, (npk_rk_range){2, 2}, k, buf, sizeof buf), "m=[2,2) is empty");
    CHECK_FAIL(npk_rk_pack_a(&blk, &a, (npk_rk_range){3, 1}, k, buf, sizeof buf), "m=[3,1)");
    CHECK_FAIL(npk_rk_pack_a(&blk, &a, (npk_rk_range){0, 5}, k, buf, sizeof buf),
               "m=[0,5) ends past the 4 rows of a");
    CHECK_FAIL(npk_rk_pack_a(&blk, &a, m, (npk_rk_range){10, 65}, buf, sizeof buf),
               "k=[10,65) ends past the 64 columns of a");
    CHECK_FAIL(npk_rk_pack_a(&blk, &a, m, k, NULL, sizeof buf), "dst is NULL");
    CHECK_FAIL(npk_rk_pack_a(&blk, &a, m, k, buf, 511), "dst holds 511 bytes; the block needs 512");
    CHECK_EQ(buf[0], SENTINEL); /* nothing written on failure */
    CHECK_FAIL(npk_rk_unpack_a(&blk, buf, 100, &aw, m, k), "src holds 100 bytes");
    CHECK_FAIL(npk_rk_unpack_a(&blk, NULL, 100, &aw, m, k), "src is NULL");
    CHECK_FAIL(npk_rk_unpack_a(NULL, buf, sizeof buf, &aw, m, k), "npk_rk_unpack_a");
    CHECK_FAIL(npk_rk_unpack_a(&blk, buf, sizeof buf, NULL, m, k), "matrix a is NULL");

    /* B */
    npk_rk_cmatrix b = {a16, 4, 64, 64};
    npk_rk_matrix bw = {a16, 4, 64, 64};
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_INT32, &b, m, k, buf, sizeof buf), "input precision int32");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_TF32, &b, m, k, buf, sizeof buf), "tf32");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, NULL, m, k, buf, sizeof buf), "matrix b is NULL");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, &b, (npk_rk_range){0, 9}, k, buf, sizeof buf),
               "k=[0,9) ends past the 4 rows of b");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, &b, m, (npk_rk_range){0, 99}, buf, sizeof buf),
               "n=[0,99) ends past the 64 columns of b");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, &b, m, (npk_rk_range){5, 5}, buf, sizeof buf),
               "n=[5,5) is empty");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, &b, m, k, buf, 4095),
               "dst holds 4095 bytes; the block needs 4096");
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, &b, m, k, NULL, 4096), "dst is NULL");
    npk_rk_cmatrix bb = b;
    bb.data = (const uint8_t *)a16 + 1;
    CHECK_FAIL(npk_rk_pack_b(NPK_PREC_FP16, &bb, m, k, buf, sizeof buf), "b->data");
    CHECK_FAIL(npk_rk_unpack_b(NPK_PREC_FP16, buf, 10, &bw, m, k), "src holds 10 bytes");
    CHECK_FAIL(npk_rk_unpack_b(NPK_PREC_FP32, buf, sizeof buf, &bw, m, k), "npk_rk_unpack_b");
    CHECK_FAIL(npk_rk_unpack_b(NPK_PREC_FP16, buf, sizeof buf, NULL, m, k), "matrix b is NULL");

    /* C */
    float c32[4 * 16];
    npk_rk_matrix c = {c32, 4, 16, 16};
    npk_rk_cmatrix cc = {c32, 4, 16, 16};
    npk_rk_range n = {0, 16};
    npk_rk_block cb = npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_CUBE, 4, 16);
    CHECK_FAIL(npk_rk_unpack_c(NULL, buf, sizeof buf, &c, m, n), "block description is NULL");
    npk_rk_block cbad = cb;
    cbad.prec = NPK_PREC_INT4;
    CHECK_FAIL(npk_rk_unpack_c(&cbad, buf, sizeof buf, &c, m, n), "output precision int4");
    cbad.prec = NPK_PREC_BF16;
    CHECK_FAIL(npk_rk_accumulate_c(&cbad, buf, sizeof buf, &c, m, n), "output precision bf16");
    cbad = npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, 4, 16);
    cbad.stride = 15;
    CHECK_FAIL(npk_rk_unpack_c(&cbad, buf, sizeof buf, &c, m, n), "stride=15 must be within 16");
    CHECK_FAIL(npk_rk_unpack_c(&cb, buf, 255, &c, m, n), "src holds 255 bytes; the block needs 256");
    CHECK_FAIL(npk_rk_unpack_c(&cb, buf + 2, 1000, &c, m, n), "not aligned to its 4-byte");
    CHECK_FAIL(npk_rk_unpack_c(&cb, buf, sizeof buf, NULL, m, n), "matrix c is NULL");
    CHECK_FAIL(npk_rk_unpack_c(&cb, buf, sizeof buf, &c, (npk_rk_range){0, 5}, n),
               "m=[0,5) ends past the 4 rows of c");
    CHECK_FAIL(npk_rk_unpack_c(&cb, buf, sizeof buf, &c, m, (npk_rk_range){4, 17}),
               "n=[4,17) ends past the 16 columns of c");
    npk_rk_matrix cmis = c;
    cmis.data = (uint8_t *)c32 + 2;
    CHECK_FAIL(npk_rk_unpack_c(&cb, buf, sizeof buf, &cmis, m, n), "c->data");
    /* accumulating needs a 4-byte C even from a 2-byte partial */
    npk_rk_matrix c16m = {(uint8_t *)c32 + 2, 4, 7, 7}; /* 2-byte aligned, not 4 */
    npk_rk_block hb = npk_rk_c_block(NPK_PREC_FP16, NPK_MODE_LINE, 4, 7);
    CHECK_FAIL(npk_rk_accumulate_c(&hb, buf, sizeof buf, &c16m, m, (npk_rk_range){0, 7}),
               "4-byte elements");
    CHECK_FAIL(npk_rk_accumulate_c(&cb, NULL, 0, &c, m, n), "src is NULL");
    /* slices summed at once: their count, their blocks, each one's size */
    const void *srcs[NPK_RK_SUM_SLICES_MAX + 1] = {buf, buf + 256};
    size_t sizes[NPK_RK_SUM_SLICES_MAX + 1] = {256, 255};
    CHECK_FAIL(npk_rk_sum_slices_c(&cb, srcs, sizes, 0, &c, m, n, false), "0 slices; 1..16");
    CHECK_FAIL(npk_rk_sum_slices_c(&cb, srcs, sizes, NPK_RK_SUM_SLICES_MAX + 1, &c, m, n, false),
               "17 slices; 1..16");
    CHECK_FAIL(npk_rk_sum_slices_c(&cb, NULL, sizes, 2, &c, m, n, false), "blocks are NULL");
    CHECK_FAIL(npk_rk_sum_slices_c(&cb, srcs, sizes, 2, &c, m, n, true),
               "src holds 255 bytes; the block needs 256");
    CHECK_FAIL(npk_rk_copy_sums_c(&hb, buf, sizeof buf, &c, m, (npk_rk_range){0, 7}),
               "sums of precision fp16; only fp32 and int32");
    CHECK_FAIL(npk_rk_pack_c(&cb, &cc, m, n, buf, 16), "dst holds 16 bytes");
    CHECK_FAIL(npk_rk_pack_c(&cb, NULL, m, n, buf, sizeof buf), "matrix c is NULL");
    npk_rk_block cz = cb;
    cz.rows = 2;
    CHECK_FAIL(npk_rk_pack_c(&cz, &cc, m, n, buf, sizeof buf), "rows=2 is below the 4 rows");
    CHECK_FAIL(npk_rk_pack_c(&cb, &cc, m, n, NULL, sizeof buf), "dst is NULL");
}

int main(void)
{
    test_geometry();
    test_weights();
    test_weights_streamed();
    test_feature();
    test_cube_paths();
    test_output();
    test_accumulate();
    test_copy_sums();
    test_sum_slices();
    test_errors();
    return check_done();
}
