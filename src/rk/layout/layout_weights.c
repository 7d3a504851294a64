/* SPDX-License-Identifier: MIT */
/* B, the weights (facts D.1): the user's row-major B[K][N] as N-major tiles of 32 K,
 *   fp16/bf16/int16 [N/16][K/32][16][32], int8 [N/32][K/32][32][32], int4 [N/64][K/32][64][32].
 * Inside a tile the rows are the N-group's columns of B and the columns are 32 consecutive K,
 * so packing is a transpose of 32×G blocks. Every tile is G·eb = 32 bytes per K times 32 K =
 * 1024 bytes, whatever the precision.
 *
 * Speed: the block is walked one K-tile (32 rows of B) at a time, so those rows are read
 * once, left to right, while each 1024-byte tile is written whole. The transposes run in
 * 16-byte registers (layout_vec.h): 8×8 blocks of 16-bit elements, 16×16 blocks of bytes; on
 * x86-64 with AVX2, two of them at once in 32-byte registers, and with AVX-512 BW (fp16, int8)
 * two tiles at once in 64-byte registers. Large blocks are written with non-temporal stores. */
#include <stdbool.h>
#include <string.h>

#include "layout_internal.h"
#include "layout_vec.h"

enum {
    K_TILE = NPK_RK_K_TILE,
    TILE_BYTES = 32 * NPK_RK_K_TILE, /* G·eb = 32 bytes per K (facts D.1) × 32 K */
    MAX_GROUP = 64,                  /* the int4 N-group, the widest */
    PAIRS = K_TILE / 2,              /* int4: K rows 2j and 2j+1 share a byte */
};

/* ---- one tile ------------------------------------------------------------------------------ */

/* Pack one whole tile: 32 K-rows of G user elements at src (row pitch sp bytes) into the
 * 1024-byte tile [G][32]. */
NPK_LAYOUT_INLINE void pack_tile(unsigned bits, const uint8_t *src, size_t sp, uint8_t *dst)
{
    if (bits == 16) { /* [32 K][16 N] -> [16 N][32 K]: 4×2 blocks of 8×8 */
        for (size_t kb = 0; kb < K_TILE; kb += 8)
            for (size_t nb = 0; nb < 16; nb += 8)
                npk_transpose8x8_u16(src + kb * sp + nb * 2, sp, dst + nb * 64 + kb * 2, 64);
    } else if (bits == 8) { /* [32 K][32 N] -> [32 N][32 K]: 2×2 blocks of 16×16 */
        for (size_t kb = 0; kb < K_TILE; kb += 16)
            for (size_t nb = 0; nb < 32; nb += 16)
                npk_transpose16x16_u8(src + kb * sp + nb, sp, dst + nb * 32 + kb, 32);
    } else {
        /* int4: merge K rows 2j and 2j+1 into one byte row (even K in the low nibble, facts
         * D.1); the tile is then a [16 pairs][64 N] -> [64 N][16 bytes] byte transpose. */
        uint8_t pairs[PAIRS][MAX_GROUP];
        for (size_t j = 0; j < PAIRS; j++)
            for (size_t c = 0; c < MAX_GROUP; c += 16)
                npk_vstore(&pairs[j][c], npk_nibble_merge(npk_vload(src + 2 * j * sp + c),
                                                          npk_vload(src + (2 * j + 1) * sp + c)));
        for (size_t nb = 0; nb < MAX_GROUP; nb += 16)
            npk_transpose16x16_u8(&pairs[0][nb], MAX_GROUP, dst + nb * PAIRS, PAIRS);
    }
}

/* The inverse: the 1024-byte tile into 32 K-rows of G user elements at dst (pitch dp bytes). */
NPK_LAYOUT_INLINE void unpack_tile(unsigned bits, const uint8_t *src, uint8_t *dst, size_t dp)
{
    if (bits == 16) {
        for (size_t nb = 0; nb < 16; nb += 8)
            for (size_t kb = 0; kb < K_TILE; kb += 8)
                npk_transpose8x8_u16(src + nb * 64 + kb * 2, 64, dst + kb * dp + nb * 2, dp);
    } else if (bits == 8) {
        for (size_t nb = 0; nb < 32; nb += 16)
            for (size_t kb = 0; kb < K_TILE; kb += 16)
                npk_transpose16x16_u8(src + nb * 32 + kb, 32, dst + kb * dp + nb, dp);
    } else {
        uint8_t pairs[PAIRS][MAX_GROUP];
        for (size_t nb = 0; nb < MAX_GROUP; nb += 16)
            npk_transpose16x16_u8(src + nb * PAIRS, PAIRS, &pairs[0][nb], MAX_GROUP);
        const npk_v16u8 low = {0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
                               0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf};
        for (size_t j = 0; j < PAIRS; j++)
            for (size_t c = 0; c < MAX_GROUP; c += 16) {
                npk_v16u8 v = npk_vload(&pairs[j][c]);
                npk_vstore(dst + 2 * j * dp + c, npk_nibble_sign_extend(v & low));
                npk_vstore(dst + (2 * j + 1) * dp + c, npk_nibble_sign_extend(v >> 4));
            }
    }
}

/* ---- the block ----------------------------------------------------------------------------- */

static npk_status check_weight_args(const char *fn, npk_rk_prec in, const void *mat,
                                    const void *data, size_t rows, size_t cols, size_t pitch,
                                    npk_rk_range k, npk_rk_range n, const void *buf,
                                    size_t buf_size, const char *buf_name)
{
    npk_status st;
    if ((st = npk_layout_check_prec(fn, in, false)) != NPK_OK)
        return st;
    size_t ub = npk_layout_user_bytes(npk_layout_in_bits(in));
    if ((st = npk_layout_check_matrix(fn, "b", mat, data, rows, cols, pitch, ub)) != NPK_OK ||
        (st = npk_layout_check_range(fn, "k", k, rows, "rows of b")) != NPK_OK ||
        (st = npk_layout_check_range(fn, "n", n, cols, "columns of b")) != NPK_OK)
        return st;
    return npk_layout_check_buffer(fn, buf_name, buf, buf_size,
                                   npk_rk_b_bytes(in, k.end - k.begin, n.end - n.begin), 1);
}

/* Packed blocks at least this large are written with non-temporal stores where the target
 * has them (layout_vec.h): well past the per-core L2 (1 MB on the Cortex-A76 and typical x86-64
 * cores), where the block can no longer be in cache when the NPU or the simulator reads it.
 * Smaller ones stay cached. */
#define STREAM_MIN_BYTES ((size_t)4 << 20)

/* One whole tile in 16-byte registers; with `stream` it is built in an L1-resident buffer and
 * then streamed out whole (16 full cache lines). */
NPK_LAYOUT_INLINE void pack_tile_v16(unsigned bits, const uint8_t *src, size_t sp, uint8_t *dst,
                                     bool stream)
{
    if (!stream) {
        pack_tile(bits, src, sp, dst);
        return;
    }
    _Alignas(64) uint8_t built[TILE_BYTES];
    pack_tile(bits, src, sp, built);
    npk_stream_copy(dst, built, TILE_BYTES);
}

#if NPK_LAYOUT_HAVE_AVX2
/* The same in 32-byte registers (x86-64 with AVX2, chosen at run time). AVX2's unpacks work
 * within 128-bit lanes, so one register transpose does two of layout_vec.h's at once: loaded
 * rows hold 32 bytes of N, and after the rounds lane 0 of register j is tile row j, lane 1 tile
 * row j + 16/eb, each for the K rows loaded. A 128-bit permute then joins two K halves into 32
 * contiguous bytes of a tile row, and a tile row's whole cache line is stored at once, so the
 * non-temporal stores need no staging. Half the shuffles and stores of the 16-byte path. */
NPK_LAYOUT_AVX2 void store_v32(uint8_t *p, __m256i v, bool stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)(void *)p, v);
    else
        _mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* One round of the in-lane register transpose: rows i and i + n/2 of `in` interleaved into
 * rows 2i and 2i + 1 of `out` (n = 16 bytes or 8 16-bit rows), spelt out with constant indices
 * so that the arrays stay in registers: as loops with a copy back to `in` after each round,
 * GCC kept them in memory and copied 512 bytes per round with rep movsq. */
#define NPK_ZIP_PAIR(w, in, out, i, half)                                                          \
    do {                                                                                           \
        out[2 * (i)] = _mm256_unpacklo_epi##w(in[i], in[(i) + (half)]);                            \
        out[2 * (i) + 1] = _mm256_unpackhi_epi##w(in[i], in[(i) + (half)]);                        \
    } while (0)
#define NPK_ZIP_ROUND_U8(in, out)                                                                  \
    do {                                                                                           \
        NPK_ZIP_PAIR(8, in, out, 0, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 1, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 2, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 3, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 4, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 5, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 6, 8);                                                            \
        NPK_ZIP_PAIR(8, in, out, 7, 8);                                                            \
    } while (0)
#define NPK_ZIP_ROUND_U16(in, out)                                                                 \
    do {                                                                                           \
        NPK_ZIP_PAIR(16, in, out, 0, 4);                                                           \
        NPK_ZIP_PAIR(16, in, out, 1, 4);                                                           \
        NPK_ZIP_PAIR(16, in, out, 2, 4);                                                           \
        NPK_ZIP_PAIR(16, in, out, 3, 4);                                                           \
    } while (0)

/* Rows r[0..16) of bytes: per lane, the 16×16 transpose (four rounds, back and forth between r
 * and a second set, ending in r). */
NPK_LAYOUT_AVX2 void transpose_lanes_u8(__m256i r[16])
{
    __m256i t[16];
    NPK_ZIP_ROUND_U8(r, t);
    NPK_ZIP_ROUND_U8(t, r);
    NPK_ZIP_ROUND_U8(r, t);
    NPK_ZIP_ROUND_U8(t, r);
}

/* Rows in[0..8) of 16-bit elements: per lane, the 8×8 transpose into out (three rounds). */
NPK_LAYOUT_AVX2 void transpose_lanes_u16(const __m256i in[8], __m256i out[8])
{
    __m256i t[8], u[8];
    NPK_ZIP_ROUND_U16(in, t);
    NPK_ZIP_ROUND_U16(t, u);
    NPK_ZIP_ROUND_U16(u, out);
}

NPK_LAYOUT_AVX2 void pack_tile_v32(unsigned bits, const uint8_t *src, size_t sp, uint8_t *dst,
                                   bool stream)
{
    if (bits == 16) { /* 4 K-blocks of 8 rows; tile row n is 64 bytes: K-blocks 0|1, 2|3 */
        __m256i r[4][8];
        #pragma GCC unroll 16
        for (int kb = 0; kb < 4; kb++) {
            __m256i rows[8];
            #pragma GCC unroll 16
            for (int i = 0; i < 8; i++)
                rows[i] = _mm256_loadu_si256(
                    (const __m256i *)(const void *)(src + (8 * kb + i) * sp));
            transpose_lanes_u16(rows, r[kb]);
        }
        #pragma GCC unroll 16
        for (int j = 0; j < 8; j++) { /* tile rows j (lane 0), then 8 + j (lane 1) */
            store_v32(dst + j * 64, _mm256_permute2x128_si256(r[0][j], r[1][j], 0x20), stream);
            store_v32(dst + j * 64 + 32, _mm256_permute2x128_si256(r[2][j], r[3][j], 0x20),
                      stream);
        }
        #pragma GCC unroll 16
        for (int j = 0; j < 8; j++) {
            uint8_t *row = dst + (8 + j) * 64;
            store_v32(row, _mm256_permute2x128_si256(r[0][j], r[1][j], 0x31), stream);
            store_v32(row + 32, _mm256_permute2x128_si256(r[2][j], r[3][j], 0x31), stream);
        }
    } else if (bits == 8) { /* K rows 0-15 and 16-31; tile row n is 32 bytes */
        __m256i lo[16], hi[16];
        #pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            lo[i] = _mm256_loadu_si256((const __m256i *)(const void *)(src + i * sp));
            hi[i] = _mm256_loadu_si256((const __m256i *)(const void *)(src + (16 + i) * sp));
        }
        transpose_lanes_u8(lo);
        transpose_lanes_u8(hi);
        #pragma GCC unroll 16
        for (int j = 0; j < 16; j++)
            store_v32(dst + j * 32, _mm256_permute2x128_si256(lo[j], hi[j], 0x20), stream);
        #pragma GCC unroll 16
        for (int j = 0; j < 16; j++)
            store_v32(dst + (16 + j) * 32, _mm256_permute2x128_si256(lo[j], hi[j], 0x31), stream);
    } else { /* int4: 16 pair rows of 64 N; tile row n is 16 bytes, two rows per store */
        const __m256i low = _mm256_set1_epi8(0x0f), high = _mm256_set1_epi8((char)0xf0);
        __m256i lo[16], hi[16]; /* N 0-31 and 32-63 of each pair row (even K low, facts D.1) */
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) {
            const uint8_t *even = src + 2 * j * sp, *odd = even + sp;
            __m256i e0 = _mm256_loadu_si256((const __m256i *)(const void *)even);
            __m256i o0 = _mm256_loadu_si256((const __m256i *)(const void *)odd);
            __m256i e1 = _mm256_loadu_si256((const __m256i *)(const void *)(even + 32));
            __m256i o1 = _mm256_loadu_si256((const __m256i *)(const void *)(odd + 32));
            lo[j] = _mm256_or_si256(_mm256_and_si256(e0, low),
                                    _mm256_and_si256(_mm256_slli_epi16(o0, 4), high));
            hi[j] = _mm256_or_si256(_mm256_and_si256(e1, low),
                                    _mm256_and_si256(_mm256_slli_epi16(o1, 4), high));
        }
        transpose_lanes_u8(lo); /* lo[j]: N j (lane 0) and 16 + j (lane 1) */
        transpose_lanes_u8(hi); /* hi[j]: N 32 + j and 48 + j */
        /* tile rows in order, so that each line is completed by consecutive stores */
#pragma GCC unroll 16
        for (int j = 0; j < 16; j += 2)
            store_v32(dst + j * 16, _mm256_permute2x128_si256(lo[j], lo[j + 1], 0x20), stream);
#pragma GCC unroll 16
        for (int j = 0; j < 16; j += 2)
            store_v32(dst + (16 + j) * 16, _mm256_permute2x128_si256(lo[j], lo[j + 1], 0x31),
                      stream);
#pragma GCC unroll 16
        for (int j = 0; j < 16; j += 2)
            store_v32(dst + (32 + j) * 16, _mm256_permute2x128_si256(hi[j], hi[j + 1], 0x20),
                      stream);
#pragma GCC unroll 16
        for (int j = 0; j < 16; j += 2)
            store_v32(dst + (48 + j) * 16, _mm256_permute2x128_si256(hi[j], hi[j + 1], 0x31),
                      stream);
    }
}
#endif

#if NPK_LAYOUT_HAVE_AVX2
/* Two tiles side by side in 64-byte registers (AVX-512 BW, 32 of them): N columns [0, 2G) of
 * the same 32 K rows, so every user row is read as one whole cache line and every store writes
 * one. The in-lane transposes are the AVX2 kernel's with four 128-bit lanes, and a 4×4 exchange
 * of lanes (as the cube feature step's) gathers each tile row's pieces. With 16 registers the
 * AVX2 kernel spills half its rows and stays compute bound in cache. */
NPK_LAYOUT_AVX512BW void store_v64(uint8_t *p, __m512i v, bool stream)
{
    if (stream)
        _mm512_stream_si512((void *)p, v);
    else
        _mm512_storeu_si512((void *)p, v);
}

/* Lane q of each of a, b, c, d, for q = 0..3: out[q] = [a.q, b.q, c.q, d.q]. */
NPK_LAYOUT_AVX512BW void exchange_lanes(__m512i a, __m512i b, __m512i c, __m512i d, __m512i out[4])
{
    const __m512i t0 = _mm512_shuffle_i64x2(a, b, 0x44), t1 = _mm512_shuffle_i64x2(a, b, 0xee);
    const __m512i t2 = _mm512_shuffle_i64x2(c, d, 0x44), t3 = _mm512_shuffle_i64x2(c, d, 0xee);
    out[0] = _mm512_shuffle_i64x2(t0, t2, 0x88);
    out[1] = _mm512_shuffle_i64x2(t0, t2, 0xdd);
    out[2] = _mm512_shuffle_i64x2(t1, t3, 0x88);
    out[3] = _mm512_shuffle_i64x2(t1, t3, 0xdd);
}

#define NPK_ZIP_PAIR64(w, in, out, i, half)                                                        \
    do {                                                                                           \
        out[2 * (i)] = _mm512_unpacklo_epi##w(in[i], in[(i) + (half)]);                            \
        out[2 * (i) + 1] = _mm512_unpackhi_epi##w(in[i], in[(i) + (half)]);                        \
    } while (0)

NPK_LAYOUT_AVX512BW void pack_tile_pair_v64(unsigned bits, const uint8_t *src, size_t sp,
                                            uint8_t *dst0, uint8_t *dst1, bool stream)
{
    if (bits == 16) {
        /* K blocks of 8 rows: r[kb][j] lane L holds the K block of N 8L + j, so lanes 0, 1 are
         * rows j, 8 + j of the first tile and lanes 2, 3 those of the second */
        __m512i r[4][8];
#pragma GCC unroll 4
        for (int kb = 0; kb < 4; kb++) {
            __m512i a[8], t[8], u[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                a[i] = _mm512_loadu_si512((const void *)(src + (8 * kb + i) * sp));
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                NPK_ZIP_PAIR64(16, a, t, i, 4);
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                NPK_ZIP_PAIR64(16, t, u, i, 4);
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                NPK_ZIP_PAIR64(16, u, r[kb], i, 4);
        }
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            __m512i row[4];
            exchange_lanes(r[0][j], r[1][j], r[2][j], r[3][j], row);
            store_v64(dst0 + j * 64, row[0], stream);
            store_v64(dst0 + (8 + j) * 64, row[1], stream);
            store_v64(dst1 + j * 64, row[2], stream);
            store_v64(dst1 + (8 + j) * 64, row[3], stream);
        }
    } else {
        /* int8, K halves of 16 rows: lo/hi[j] lane L holds the half of N 16L + j; a line is two
         * tile rows of 32 bytes, [lo[j], hi[j], lo[j + 1], hi[j + 1]] of one lane */
        __m512i lo[16], hi[16], t[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
            lo[i] = _mm512_loadu_si512((const void *)(src + i * sp));
            hi[i] = _mm512_loadu_si512((const void *)(src + (16 + i) * sp));
        }
#pragma GCC unroll 2
        for (int round = 0; round < 2; round++) {
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                NPK_ZIP_PAIR64(8, lo, t, i, 8);
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                NPK_ZIP_PAIR64(8, t, lo, i, 8);
        }
#pragma GCC unroll 2
        for (int round = 0; round < 2; round++) {
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                NPK_ZIP_PAIR64(8, hi, t, i, 8);
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                NPK_ZIP_PAIR64(8, t, hi, i, 8);
        }
#pragma GCC unroll 8
        for (int j = 0; j < 16; j += 2) {
            __m512i row[4];
            exchange_lanes(lo[j], hi[j], lo[j + 1], hi[j + 1], row);
            store_v64(dst0 + j * 32, row[0], stream);
            store_v64(dst0 + (16 + j) * 32, row[1], stream);
            store_v64(dst1 + j * 32, row[2], stream);
            store_v64(dst1 + (16 + j) * 32, row[3], stream);
        }
    }
}
#endif

/* The tile walk of a whole block, inlined once per element width and tile kernel (one of the
 * pack_tile_v* above) so that the kernel is straight-line code for that width. One K-tile
 * (32 rows of B) at a time, left to right: of the loop orders tried (N-tile outer, blocks of
 * K-tiles, copying cache-line strips to a buffer first) this one ran fastest on 4096×4096. */
typedef void tile_pair_fn(unsigned, const uint8_t *, size_t, uint8_t *, uint8_t *, bool);

NPK_LAYOUT_INLINE void pack_block(unsigned bits, const npk_rk_cmatrix *b, npk_rk_range k,
                                  npk_rk_range n, uint8_t *out, bool stream,
                                  void (*tile_fn)(unsigned, const uint8_t *, size_t, uint8_t *,
                                                  bool),
                                  tile_pair_fn *pair_fn)
{
    size_t g = 256 / bits, ub = npk_layout_user_bytes(bits); /* the N-group, facts D.1 */
    size_t kc = k.end - k.begin, nc = n.end - n.begin;
    size_t k_tiles = npk_rk_k_padded(kc) / K_TILE, n_tiles = (nc + g - 1) / g;
    size_t sp = b->pitch * ub;
    const uint8_t *base = (const uint8_t *)b->data + (k.begin * b->pitch + n.begin) * ub;
    for (size_t kt = 0; kt < k_tiles; kt++) {
        size_t k_in = npk_layout_min(K_TILE, kc - kt * K_TILE);
        const uint8_t *rows = base + kt * K_TILE * sp;
        for (size_t nt = 0; nt < n_tiles; nt++) {
            size_t n_in = npk_layout_min(g, nc - nt * g);
            uint8_t *tile = out + (nt * k_tiles + kt) * TILE_BYTES;
            const uint8_t *src = rows + nt * g * ub;
            if (pair_fn && k_in == K_TILE && nc - nt * g >= 2 * g) { /* two whole tiles */
                pair_fn(bits, src, sp, tile, tile + k_tiles * TILE_BYTES, stream);
                nt++;
                continue;
            }
            if (k_in == K_TILE && n_in == g) {
                tile_fn(bits, src, sp, tile, stream);
                continue;
            }
            /* An edge tile: stage it with the K and N padding zeroed (facts D.1). */
            _Alignas(16) uint8_t staged[K_TILE * MAX_GROUP] = {0};
            for (size_t r = 0; r < k_in; r++)
                memcpy(staged + r * g * ub, src + r * sp, n_in * ub);
            tile_fn(bits, staged, g * ub, tile, stream);
        }
    }
    if (stream)
        npk_stream_done();
}

static void pack_block_v16(unsigned bits, const npk_rk_cmatrix *b, npk_rk_range k,
                           npk_rk_range n, uint8_t *out, bool stream)
{
    switch (bits) {
    case 16: pack_block(16, b, k, n, out, stream, pack_tile_v16, NULL); break;
    case 8: pack_block(8, b, k, n, out, stream, pack_tile_v16, NULL); break;
    default: pack_block(4, b, k, n, out, stream, pack_tile_v16, NULL); break;
    }
}

#if NPK_LAYOUT_HAVE_AVX2
__attribute__((target("avx2"))) static void pack_block_v32(unsigned bits, const npk_rk_cmatrix *b,
                                                           npk_rk_range k, npk_rk_range n,
                                                           uint8_t *out, bool stream)
{
    switch (bits) {
    case 16: pack_block(16, b, k, n, out, stream, pack_tile_v32, NULL); break;
    case 8: pack_block(8, b, k, n, out, stream, pack_tile_v32, NULL); break;
    default: pack_block(4, b, k, n, out, stream, pack_tile_v32, NULL); break;
    }
}
#endif

#if NPK_LAYOUT_HAVE_AVX2
/* fp16 and int8 in pairs of tiles (AVX-512 BW), a last odd tile and int4 as pack_block_v32. */
__attribute__((target("avx512f,avx512bw"))) static void
pack_block_v64(unsigned bits, const npk_rk_cmatrix *b, npk_rk_range k, npk_rk_range n,
               uint8_t *out, bool stream)
{
    switch (bits) {
    case 16: pack_block(16, b, k, n, out, stream, pack_tile_v32, pack_tile_pair_v64); break;
    case 8: pack_block(8, b, k, n, out, stream, pack_tile_v32, pack_tile_pair_v64); break;
    default: pack_block(4, b, k, n, out, stream, pack_tile_v32, NULL); break;
    }
}
#endif

npk_status npk_rk_pack_b(npk_rk_prec in, const npk_rk_cmatrix *b, npk_rk_range k, npk_rk_range n,
                         void *dst, size_t dst_size)
{
    npk_status st =
        check_weight_args("npk_rk_pack_b", in, b, b ? b->data : NULL, b ? b->rows : 0,
                          b ? b->cols : 0, b ? b->pitch : 0, k, n, dst, dst_size, "dst");
    if (st)
        return st;
    size_t bytes = npk_rk_b_bytes(in, k.end - k.begin, n.end - n.begin);
    /* non-temporal stores need aligned addresses: tiles are 1024 bytes, so an aligned block
     * aligns all of them */
    bool stream = bytes >= STREAM_MIN_BYTES && (uintptr_t)dst % 64 == 0;
    unsigned bits = npk_layout_in_bits(in);
#if NPK_LAYOUT_HAVE_AVX2
    if (bits != 4 && npk_layout_avx512bw())
        pack_block_v64(bits, b, k, n, dst, stream);
    else if (npk_layout_avx2())
        pack_block_v32(bits, b, k, n, dst, stream);
    else
#endif
        pack_block_v16(bits, b, k, n, dst, stream);
    return NPK_OK;
}

NPK_LAYOUT_INLINE void unpack_block(unsigned bits, const uint8_t *packed, const npk_rk_matrix *b,
                                    npk_rk_range k, npk_rk_range n)
{
    size_t g = 256 / bits, ub = npk_layout_user_bytes(bits);
    size_t kc = k.end - k.begin, nc = n.end - n.begin;
    size_t k_tiles = npk_rk_k_padded(kc) / K_TILE, n_tiles = (nc + g - 1) / g;
    size_t dp = b->pitch * ub;
    uint8_t *base = (uint8_t *)b->data + (k.begin * b->pitch + n.begin) * ub;
    for (size_t kt = 0; kt < k_tiles; kt++) {
        size_t k_in = npk_layout_min(K_TILE, kc - kt * K_TILE);
        for (size_t nt = 0; nt < n_tiles; nt++) {
            size_t n_in = npk_layout_min(g, nc - nt * g);
            const uint8_t *tile = packed + (nt * k_tiles + kt) * TILE_BYTES;
            uint8_t *dst = base + (kt * K_TILE * b->pitch + nt * g) * ub;
            if (k_in == K_TILE && n_in == g) {
                unpack_tile(bits, tile, dst, dp);
                continue;
            }
            /* An edge tile: unpack whole, then copy only the part inside the range. */
            uint8_t staged[K_TILE * MAX_GROUP];
            unpack_tile(bits, tile, staged, g * ub);
            for (size_t r = 0; r < k_in; r++)
                memcpy(dst + r * dp, staged + r * g * ub, n_in * ub);
        }
    }
}

npk_status npk_rk_unpack_b(npk_rk_prec in, const void *src, size_t src_size, const npk_rk_matrix *b,
                           npk_rk_range k, npk_rk_range n)
{
    npk_status st =
        check_weight_args("npk_rk_unpack_b", in, b, b ? b->data : NULL, b ? b->rows : 0,
                          b ? b->cols : 0, b ? b->pitch : 0, k, n, src, src_size, "src");
    if (st)
        return st;
    switch (npk_layout_in_bits(in)) {
    case 16: unpack_block(16, src, b, k, n); break;
    case 8: unpack_block(8, src, b, k, n); break;
    default: unpack_block(4, src, b, k, n); break;
    }
    return NPK_OK;
}
