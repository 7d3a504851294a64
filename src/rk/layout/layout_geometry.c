/* SPDX-License-Identifier: MIT */
/* Layout geometry shared by A, B and C: element widths, padding, cube channels, element
 * indices, block sizes, and the argument checks every pack/unpack function starts with. */
#include <stdint.h>

#include "layout_internal.h"

/* The size arithmetic (at most three factors <= NPK_RK_LAYOUT_MAX_DIM times 4 bytes) needs a
 * 64-bit size_t; every target of this code (aarch64 boards, x86-64 hosts) has one. */
_Static_assert(SIZE_MAX >= UINT64_MAX, "the layout size arithmetic needs a 64-bit size_t");

/* The element widths the packers handle, from the precision rows (0: not a layout operand /
 * output; int32 and fp32 are outputs only, tf32 has its own 16x16 tiles, facts D.1). */
unsigned npk_layout_in_bits(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r && r->layout_in ? r->bits : 0;
}

unsigned npk_layout_out_bits(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r && r->layout_out ? r->bits : 0;
}

size_t npk_rk_k_padded(size_t k) { return npk_layout_round_up(k, NPK_RK_K_TILE); }

unsigned npk_rk_b_n_group(npk_rk_prec in)
{
    unsigned bits = npk_layout_in_bits(in);
    /* A tile row (one n) holds 32 K elements and the N-group makes every tile 32 bytes wide
     * per K: 16 fp16, 32 int8, 64 int4 (facts D.1). */
    return bits ? 256u / bits : 0;
}

size_t npk_rk_n_padded(npk_rk_prec in, size_t n)
{
    unsigned g = npk_rk_b_n_group(in);
    return g ? npk_layout_round_up(n, g) : 0;
}

unsigned npk_rk_cube_channels(npk_rk_prec p)
{
    unsigned bits = npk_rk_prec_bits(p);
    /* C2 = 16/eb and C2o = 16/ob (facts D.2, D.3): a 16-byte atom of channels. */
    return bits ? NPK_RK_CUBE_ATOM_BYTES * 8u / bits : 0;
}

size_t npk_rk_block_index(const npk_rk_block *blk, size_t row, size_t col)
{
    if (!blk)
        return SIZE_MAX;
    size_t c2 = npk_rk_cube_channels(blk->prec);
    if (!c2)
        return SIZE_MAX;
    if (blk->mode == NPK_MODE_LINE)
        return row * blk->stride + col;
    if (blk->mode == NPK_MODE_CUBE)
        return (col / c2) * blk->rows * c2 + row * c2 + col % c2;
    return SIZE_MAX;
}

size_t npk_layout_block_bytes(const npk_rk_block *blk, unsigned bits, size_t cols)
{
    if (blk->mode == NPK_MODE_LINE)
        return npk_layout_packed_bytes((blk->rows - 1) * blk->stride + cols, bits);
    size_t c2 = NPK_RK_CUBE_ATOM_BYTES * 8 / bits;
    return (cols + c2 - 1) / c2 * blk->rows * NPK_RK_CUBE_ATOM_BYTES;
}

size_t npk_rk_b_tile_offset(size_t k, size_t tile)
{
    /* An N-tile is G columns of Kp elements of eb bytes, G·eb = 32 (facts D.1). */
    return tile * 32 * npk_rk_k_padded(k);
}

size_t npk_rk_b_bytes(npk_rk_prec in, size_t k, size_t n)
{
    unsigned g = npk_rk_b_n_group(in);
    if (!g)
        return 0;
    return npk_rk_b_tile_offset(k, npk_layout_round_up(n, g) / g);
}

size_t npk_rk_b_index(npk_rk_prec in, size_t k_len, size_t k, size_t n)
{
    size_t g = npk_rk_b_n_group(in);
    if (!g)
        return SIZE_MAX;
    size_t kp = npk_rk_k_padded(k_len);
    const size_t kt = NPK_RK_K_TILE;
    return (n / g) * g * kp + (k / kt) * kt * g + (n % g) * kt + k % kt;
}

/* ---- argument checks --------------------------------------------------------------------- */

npk_status npk_layout_check_prec(const char *fn, npk_rk_prec p, bool is_output)
{
    if (is_output ? npk_layout_out_bits(p) : npk_layout_in_bits(p))
        return NPK_OK;
    const char *name = npk_rk_prec_name(p);
    if (is_output)
        return npk_fail(NPK_EINVAL,
                        "%s: output precision %s (%d) has no layout here; expected fp32, "
                        "int32, fp16, int16 or int8",
                        fn, name ? name : "?", (int)p);
    return npk_fail(NPK_EINVAL,
                    "%s: input precision %s (%d) has no layout here; expected fp16, bf16, "
                    "int16, int8 or int4",
                    fn, name ? name : "?", (int)p);
}

npk_status npk_layout_check_matrix(const char *fn, const char *name, const void *mat,
                                   const void *data, size_t rows, size_t cols, size_t pitch,
                                   size_t elem_bytes)
{
    if (!mat)
        return npk_fail(NPK_EINVAL, "%s: matrix %s is NULL", fn, name);
    if (!data)
        return npk_fail(NPK_EINVAL, "%s: %s->data is NULL", fn, name);
    if (rows > NPK_RK_LAYOUT_MAX_DIM || cols > NPK_RK_LAYOUT_MAX_DIM ||
        pitch > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_EINVAL, "%s: %s is %zux%zu with pitch %zu; each must be <= %zu", fn,
                        name, rows, cols, pitch, NPK_RK_LAYOUT_MAX_DIM);
    if (pitch < cols)
        return npk_fail(NPK_EINVAL, "%s: %s->pitch=%zu is below its %zu columns", fn, name, pitch,
                        cols);
    if ((uintptr_t)data % elem_bytes)
        return npk_fail(NPK_EINVAL, "%s: %s->data=%p is not aligned to its %zu-byte elements", fn,
                        name, data, elem_bytes);
    return NPK_OK;
}

npk_status npk_layout_check_range(const char *fn, const char *name, npk_rk_range r, size_t limit,
                                  const char *unit)
{
    if (r.begin >= r.end)
        return npk_fail(NPK_EINVAL, "%s: range %s=[%zu,%zu) is empty or reversed", fn, name,
                        r.begin, r.end);
    if (r.end > limit)
        return npk_fail(NPK_EINVAL, "%s: range %s=[%zu,%zu) ends past the %zu %s", fn, name,
                        r.begin, r.end, limit, unit);
    return NPK_OK;
}

npk_status npk_layout_check_block(const char *fn, const npk_rk_block *blk, bool is_output,
                                  size_t rows_used, size_t min_cols)
{
    if (!blk)
        return npk_fail(NPK_EINVAL, "%s: block description is NULL", fn);
    npk_status st = npk_layout_check_prec(fn, blk->prec, is_output);
    if (st)
        return st;
    if (blk->mode != NPK_MODE_LINE && blk->mode != NPK_MODE_CUBE)
        return npk_fail(NPK_EINVAL, "%s: mode=%d is neither line (%d) nor cube (%d)", fn,
                        (int)blk->mode, NPK_MODE_LINE, NPK_MODE_CUBE);
    if (blk->rows == 0 || blk->rows > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_EINVAL, "%s: block rows=%zu must be within 1..%zu", fn, blk->rows,
                        NPK_RK_LAYOUT_MAX_DIM);
    if (blk->rows < rows_used)
        return npk_fail(NPK_EINVAL, "%s: block rows=%zu is below the %zu rows of the range", fn,
                        blk->rows, rows_used);
    if (blk->mode == NPK_MODE_CUBE) {
        if (blk->stride != 0)
            return npk_fail(NPK_EINVAL,
                            "%s: block stride=%zu applies to line mode only; cube mode needs 0", fn,
                            blk->stride);
        return NPK_OK;
    }
    if (blk->stride < min_cols || blk->stride > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_EINVAL, "%s: line stride=%zu must be within %zu (a row) .. %zu", fn,
                        blk->stride, min_cols, NPK_RK_LAYOUT_MAX_DIM);
    unsigned bits = is_output ? npk_layout_out_bits(blk->prec) : npk_layout_in_bits(blk->prec);
    if (blk->stride * bits % 8)
        return npk_fail(NPK_EINVAL,
                        "%s: line stride=%zu int4 elements splits a byte; use an even "
                        "stride",
                        fn, blk->stride);
    return NPK_OK;
}

npk_status npk_layout_check_buffer(const char *fn, const char *name, const void *p, size_t have,
                                   size_t need, size_t align)
{
    if (!p)
        return npk_fail(NPK_EINVAL, "%s: %s is NULL", fn, name);
    if (have < need)
        return npk_fail(NPK_EINVAL, "%s: %s holds %zu bytes; the block needs %zu", fn, name, have,
                        need);
    if ((uintptr_t)p % align)
        return npk_fail(NPK_EINVAL, "%s: %s=%p is not aligned to its %zu-byte elements", fn, name,
                        p, align);
    return NPK_OK;
}
