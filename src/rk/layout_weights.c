/* B, the weights (facts D.1): the user's row-major B[K][N] as N-major tiles of 32 K,
 *   fp16/bf16/int16 [N/16][K/32][16][32], int8 [N/32][K/32][32][32], int4 [N/64][K/32][64][32].
 * Inside a tile the rows are the N-group's columns of B and the columns are 32 consecutive K,
 * so packing is a transpose of 32×G blocks. Every tile is G·eb = 32 bytes per K times 32 K =
 * 1024 bytes, whatever the precision.
 *
 * Speed: the block is walked one K-tile (32 rows of B) at a time, so those rows are read
 * once, left to right, while each 1024-byte tile is written whole. The transposes move 4×4
 * 16-bit or 8×8 8-bit sub-blocks through 64-bit words (a register transpose), not element by
 * element. */
#include "rk/layout_internal.h"

enum {
    K_TILE = NPK_RK_K_TILE,
    TILE_BYTES = 32 * NPK_RK_K_TILE, /* G·eb = 32 bytes per K (facts D.1) × 32 K */
    MAX_GROUP = 64,                  /* the int4 N-group, the widest */
};

/* Exchange the `shift`-bit fields selected by `mask` in a with the ones above them in b: the
 * step of a register transpose that swaps the off-diagonal halves of a 2×2 block of fields. */
static inline void swap_fields(uint64_t *a, uint64_t *b, unsigned shift, uint64_t mask)
{
    uint64_t t = ((*a >> shift) ^ *b) & mask;
    *b ^= t;
    *a ^= t << shift;
}

/* dst[c][r] = src[r][c] for a rows×cols block of 16-bit elements; rows and cols are multiples
 * of 4; sp and dp are the row pitches in bytes. */
static inline void transpose16(const uint8_t *src, size_t sp, uint8_t *dst, size_t dp,
                               size_t rows, size_t cols)
{
    const uint64_t lo16 = 0x0000ffff0000ffffull, lo32 = 0x00000000ffffffffull;
    for (size_t r = 0; r < rows; r += 4)
        for (size_t c = 0; c < cols; c += 4) {
            const uint8_t *s = src + r * sp + c * 2;
            uint64_t x0 = npk_load64(s), x1 = npk_load64(s + sp);
            uint64_t x2 = npk_load64(s + 2 * sp), x3 = npk_load64(s + 3 * sp);
            swap_fields(&x0, &x1, 16, lo16);
            swap_fields(&x2, &x3, 16, lo16);
            swap_fields(&x0, &x2, 32, lo32);
            swap_fields(&x1, &x3, 32, lo32);
            uint8_t *d = dst + c * dp + r * 2;
            npk_store64(d, x0);
            npk_store64(d + dp, x1);
            npk_store64(d + 2 * dp, x2);
            npk_store64(d + 3 * dp, x3);
        }
}

/* The same for 8-bit elements; rows and cols are multiples of 8. */
static inline void transpose8(const uint8_t *src, size_t sp, uint8_t *dst, size_t dp,
                              size_t rows, size_t cols)
{
    const uint64_t lo8 = 0x00ff00ff00ff00ffull, lo16 = 0x0000ffff0000ffffull,
                   lo32 = 0x00000000ffffffffull;
    for (size_t r = 0; r < rows; r += 8)
        for (size_t c = 0; c < cols; c += 8) {
            const uint8_t *s = src + r * sp + c;
            uint64_t x[8];
            for (int i = 0; i < 8; i++)
                x[i] = npk_load64(s + i * sp);
            for (int i = 0; i < 8; i += 2)
                swap_fields(&x[i], &x[i + 1], 8, lo8);
            for (int i = 0; i < 8; i += 4) {
                swap_fields(&x[i], &x[i + 2], 16, lo16);
                swap_fields(&x[i + 1], &x[i + 3], 16, lo16);
            }
            for (int i = 0; i < 4; i++)
                swap_fields(&x[i], &x[i + 4], 32, lo32);
            uint8_t *d = dst + c * dp + r;
            for (int i = 0; i < 8; i++)
                npk_store64(d + i * dp, x[i]);
        }
}

/* ---- one tile ------------------------------------------------------------------------------ */

/* Pack one whole tile: 32 K-rows of G user elements at src (row pitch sp bytes) into the
 * 1024-byte tile [G][32]. */
static inline void pack_tile(unsigned bits, const uint8_t *src, size_t sp, uint8_t *dst)
{
    if (bits == 16) {
        transpose16(src, sp, dst, K_TILE * 2, K_TILE, 16);
    } else if (bits == 8) {
        transpose8(src, sp, dst, K_TILE, K_TILE, 32);
    } else {
        /* int4: first merge K rows 2j and 2j+1 into one byte row (even K in the low nibble,
         * facts D.1), then the tile is a 16×64 byte transpose. */
        const uint64_t nib = 0x0f0f0f0f0f0f0f0full;
        uint8_t pairs[K_TILE / 2][MAX_GROUP];
        for (size_t j = 0; j < K_TILE / 2; j++)
            for (size_t c = 0; c < MAX_GROUP; c += 8) {
                uint64_t even = npk_load64(src + 2 * j * sp + c) & nib;
                uint64_t odd = npk_load64(src + (2 * j + 1) * sp + c) & nib;
                npk_store64(&pairs[j][c], even | odd << 4);
            }
        transpose8(&pairs[0][0], MAX_GROUP, dst, K_TILE / 2, K_TILE / 2, MAX_GROUP);
    }
}

/* The inverse: the 1024-byte tile into 32 K-rows of G user elements at dst (pitch dp bytes). */
static inline void unpack_tile(unsigned bits, const uint8_t *src, uint8_t *dst, size_t dp)
{
    if (bits == 16) {
        transpose16(src, K_TILE * 2, dst, dp, 16, K_TILE);
    } else if (bits == 8) {
        transpose8(src, K_TILE, dst, dp, 32, K_TILE);
    } else {
        uint8_t pairs[K_TILE / 2][MAX_GROUP];
        transpose8(src, K_TILE / 2, &pairs[0][0], MAX_GROUP, MAX_GROUP, K_TILE / 2);
        for (size_t j = 0; j < K_TILE / 2; j++) {
            int8_t *even = (int8_t *)(dst + 2 * j * dp), *odd = (int8_t *)(dst + (2 * j + 1) * dp);
            for (size_t c = 0; c < MAX_GROUP; c++) {
                /* nibble -> int4 value in [-8, 7], sign extended without shifting a sign */
                even[c] = (int8_t)(((pairs[j][c] & 0xf) ^ 8) - 8);
                odd[c] = (int8_t)(((pairs[j][c] >> 4) ^ 8) - 8);
            }
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

npk_status npk_rk_pack_b(npk_rk_prec in, const npk_rk_cmatrix *b, npk_rk_range k, npk_rk_range n,
                         void *dst, size_t dst_size)
{
    npk_status st = check_weight_args("npk_rk_pack_b", in, b, b ? b->data : NULL,
                                      b ? b->rows : 0, b ? b->cols : 0, b ? b->pitch : 0, k, n,
                                      dst, dst_size, "dst");
    if (st)
        return st;
    unsigned bits = npk_layout_in_bits(in);
    size_t g = npk_rk_b_n_group(in), ub = npk_layout_user_bytes(bits);
    size_t kc = k.end - k.begin, nc = n.end - n.begin;
    size_t k_tiles = npk_rk_k_padded(kc) / K_TILE, n_tiles = (nc + g - 1) / g;
    size_t sp = b->pitch * ub;
    const uint8_t *base = (const uint8_t *)b->data + (k.begin * b->pitch + n.begin) * ub;
    uint8_t *out = dst;
    for (size_t kt = 0; kt < k_tiles; kt++) {
        size_t k_in = npk_layout_min(K_TILE, kc - kt * K_TILE);
        const uint8_t *rows = base + kt * K_TILE * sp;
        for (size_t nt = 0; nt < n_tiles; nt++) {
            size_t n_in = npk_layout_min(g, nc - nt * g);
            uint8_t *tile = out + (nt * k_tiles + kt) * TILE_BYTES;
            const uint8_t *src = rows + nt * g * ub;
            if (k_in == K_TILE && n_in == g) {
                pack_tile(bits, src, sp, tile);
                continue;
            }
            /* An edge tile: stage it with the K and N padding zeroed (facts D.1). */
            uint8_t staged[K_TILE * MAX_GROUP] = {0};
            for (size_t r = 0; r < k_in; r++)
                memcpy(staged + r * g * ub, src + r * sp, n_in * ub);
            pack_tile(bits, staged, g * ub, tile);
        }
    }
    return NPK_OK;
}

npk_status npk_rk_unpack_b(npk_rk_prec in, const void *src, size_t src_size,
                           const npk_rk_matrix *b, npk_rk_range k, npk_rk_range n)
{
    npk_status st = check_weight_args("npk_rk_unpack_b", in, b, b ? b->data : NULL,
                                      b ? b->rows : 0, b ? b->cols : 0, b ? b->pitch : 0, k, n,
                                      src, src_size, "src");
    if (st)
        return st;
    unsigned bits = npk_layout_in_bits(in);
    size_t g = npk_rk_b_n_group(in), ub = npk_layout_user_bytes(bits);
    size_t kc = k.end - k.begin, nc = n.end - n.begin;
    size_t k_tiles = npk_rk_k_padded(kc) / K_TILE, n_tiles = (nc + g - 1) / g;
    size_t dp = b->pitch * ub;
    uint8_t *base = (uint8_t *)b->data + (k.begin * b->pitch + n.begin) * ub;
    const uint8_t *packed = src;
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
    return NPK_OK;
}
