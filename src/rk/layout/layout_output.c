/* SPDX-License-Identifier: MIT */
/* C, the output (facts D.3): line mode row-major [M][s]; cube mode [Np/C2o][M][C2o] with
 * C2o = 16/ob, i.e. planes of 16-byte atoms, one atom per row and channel group.
 *
 * Unpack, accumulate and pack all walk the same segments: a user row segment and the block
 * bytes it maps to (a whole row in line mode, one atom in cube mode). The walk is inlined into
 * each operation so the per-segment work is straight-line code for a known element size. */
#include <string.h>

#include "npukit/fp16.h"
#include "layout_internal.h"
#include "layout_vec.h"

/* An operation on `count` elements between a user row segment and block bytes, with the
 * operation's own context (NULL for copies). The block pointer is read-only for
 * unpack/accumulate; only pack writes through it. */
typedef void (*segment_op)(uint8_t *user, uint8_t *block, size_t count, const void *ctx);

/* The cube layout is a transpose of 16-byte atoms between the user's [rows][planes] and the
 * block's [planes][rows]; it is walked in blocks of PLANE_BLOCK planes × ROW_GROUP rows so
 * that both sides move whole cache lines with few pages open at once (the same walk as the
 * feature's cube, layout_feature.c; 16 planes measured best here, where an int16 partial's
 * atom is 32 bytes of the int32 C). */
enum { ROW_GROUP = 8, PLANE_BLOCK = 16 };

/* ob: bytes of a block element; ub: bytes of a user element (4 when accumulating a narrower
 * partial into float or int32). */
NPK_LAYOUT_INLINE void walk_segments(const npk_rk_block *blk, size_t ob, size_t ub, uint8_t *block,
                                     uint8_t *user, size_t user_pitch, size_t rows, size_t cols,
                                     segment_op op, const void *ctx)
{
    if (blk->mode == NPK_MODE_LINE) {
        for (size_t i = 0; i < rows; i++)
            op(user + i * user_pitch, block + i * blk->stride * ob, cols, ctx);
        return;
    }
    const size_t atom = NPK_RK_CUBE_ATOM_BYTES, c2 = atom / ob; /* C2o, facts D.3 */
    size_t full_planes = cols / c2, plane_bytes = blk->rows * atom;
    for (size_t pb = 0; pb < full_planes; pb += PLANE_BLOCK) {
        size_t pb_end = npk_layout_min(pb + PLANE_BLOCK, full_planes);
        for (size_t g = 0; g < rows; g += ROW_GROUP) {
            size_t g_end = npk_layout_min(g + ROW_GROUP, rows);
            for (size_t p = pb; p < pb_end; p++) {
                uint8_t *b = block + p * plane_bytes + g * atom;
                uint8_t *u = user + g * user_pitch + p * c2 * ub;
                for (size_t i = g; i < g_end; i++, b += atom, u += user_pitch)
                    op(u, b, c2, ctx); /* a constant count: the op compiles to a few moves */
            }
        }
    }
    if (cols % c2) { /* the plane the columns end in */
        size_t p = full_planes;
        for (size_t i = 0; i < rows; i++)
            op(user + i * user_pitch + p * c2 * ub, block + p * plane_bytes + i * atom,
               cols - p * c2, ctx);
    }
}

/* ---- the operations ------------------------------------------------------------------------ */

/* The copies between a user segment and block bytes, per element size: out (block to user,
 * unpack) and in (user to block, pack). They take no context. */
#define COPY_OPS(bytes)                                                                            \
    NPK_LAYOUT_INLINE void copy_out##bytes(uint8_t *u, uint8_t *b, size_t n, const void *ctx)    \
    {                                                                                              \
        (void)ctx;                                                                                 \
        memcpy(u, b, n * bytes);                                                                   \
    }                                                                                              \
    NPK_LAYOUT_INLINE void copy_in##bytes(uint8_t *u, uint8_t *b, size_t n, const void *ctx)     \
    {                                                                                              \
        (void)ctx;                                                                                 \
        memcpy(b, u, n * bytes);                                                                   \
    }
COPY_OPS(4)
COPY_OPS(2)
COPY_OPS(1)
#undef COPY_OPS

/* The K slices of one output region, added into C in slice order (npk_rk_sum_slices_c): the
 * other slices' blocks lie at fixed offsets from the first's, so one walk reaches them all,
 * and C is read (unless `first`) and written once for all of them. */
typedef struct slice_sum {
    ptrdiff_t delta[NPK_RK_SUM_SLICES_MAX]; /* slice j's block minus slice 0's, in bytes */
    size_t count;
    bool first; /* C starts from zero: what adding into a zeroed C gives, without the zeroing */
} slice_sum;

/* Float sums: x = ((0 or C) + s0) + s1 ..., element by element in slice order, so the result
 * is bit for bit what adding the slices one by one into C gives (0 + -0 is +0, as it was). */
NPK_LAYOUT_INLINE void sum_f32_f32(uint8_t *u, uint8_t *b, size_t n, const void *ctx)
{
    const slice_sum *k = ctx;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        npk_v4f32 x = {0.0f, 0.0f, 0.0f, 0.0f}, y;
        if (!k->first)
            memcpy(&x, u + 4 * i, sizeof x);
        for (size_t j = 0; j < k->count; j++) {
            memcpy(&y, b + k->delta[j] + 4 * i, sizeof y);
            x += y;
        }
        memcpy(u + 4 * i, &x, sizeof x);
    }
    float *dst = (float *)(void *)u;
    for (; i < n; i++) {
        float x = k->first ? 0.0f : dst[i], y;
        for (size_t j = 0; j < k->count; j++) {
            memcpy(&y, b + k->delta[j] + 4 * i, sizeof y);
            x += y;
        }
        dst[i] = x;
    }
}

NPK_LAYOUT_INLINE void sum_f32_f16(uint8_t *u, uint8_t *b, size_t n, const void *ctx)
{
    const slice_sum *k = ctx;
    float *dst = (float *)(void *)u;
    for (size_t i = 0; i < n; i++) {
        float x = k->first ? 0.0f : dst[i];
        for (size_t j = 0; j < k->count; j++) {
            uint16_t h;
            memcpy(&h, b + k->delta[j] + 2 * i, sizeof h);
            x += npk_f16_to_f32(h);
        }
        dst[i] = x;
    }
}

/* Integer sums wrap at 32 bits like the hardware's int32 accumulator instead of overflowing
 * (undefined behaviour) in C: the additions are done on unsigned lanes. */
NPK_LAYOUT_INLINE void sum_i32_i32(uint8_t *u, uint8_t *b, size_t n, const void *ctx)
{
    const slice_sum *k = ctx;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        npk_v4u32 x = {0, 0, 0, 0}, y;
        if (!k->first)
            memcpy(&x, u + 4 * i, sizeof x);
        for (size_t j = 0; j < k->count; j++) {
            memcpy(&y, b + k->delta[j] + 4 * i, sizeof y);
            x += y;
        }
        memcpy(u + 4 * i, &x, sizeof x);
    }
    for (; i < n; i++) {
        uint32_t x = 0, y;
        if (!k->first)
            memcpy(&x, u + 4 * i, sizeof x);
        for (size_t j = 0; j < k->count; j++) {
            memcpy(&y, b + k->delta[j] + 4 * i, sizeof y);
            x += y;
        }
        memcpy(u + 4 * i, &x, sizeof x);
    }
}

NPK_LAYOUT_INLINE void sum_i32_i16(uint8_t *u, uint8_t *b, size_t n, const void *ctx)
{
    const slice_sum *k = ctx;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        npk_v4u32 x = {0, 0, 0, 0};
        npk_v4i16 y;
        if (!k->first)
            memcpy(&x, u + 4 * i, sizeof x);
        for (size_t j = 0; j < k->count; j++) {
            memcpy(&y, b + k->delta[j] + 2 * i, sizeof y);
            x += (npk_v4u32) __builtin_convertvector(y, npk_v4i32); /* sign-extend, then wrap */
        }
        memcpy(u + 4 * i, &x, sizeof x);
    }
    for (; i < n; i++) {
        uint32_t x = 0;
        if (!k->first)
            memcpy(&x, u + 4 * i, sizeof x);
        for (size_t j = 0; j < k->count; j++) {
            int16_t y;
            memcpy(&y, b + k->delta[j] + 2 * i, sizeof y);
            x += (uint32_t)(int32_t)y;
        }
        memcpy(u + 4 * i, &x, sizeof x);
    }
}

NPK_LAYOUT_INLINE void sum_i32_i8(uint8_t *u, uint8_t *b, size_t n, const void *ctx)
{
    const slice_sum *k = ctx;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = 0;
        if (!k->first)
            memcpy(&x, u + 4 * i, sizeof x);
        for (size_t j = 0; j < k->count; j++)
            x += (uint32_t)(int32_t)(int8_t)b[k->delta[j] + (ptrdiff_t)i];
        memcpy(u + 4 * i, &x, sizeof x);
    }
}

/* ---- checks -------------------------------------------------------------------------------- */

npk_rk_block npk_rk_c_block(npk_rk_prec out, npk_rk_mode mode, size_t rows, size_t n)
{
    npk_rk_block blk = {out, mode, rows, mode == NPK_MODE_LINE ? n : 0};
    return blk;
}

size_t npk_rk_c_bytes(const npk_rk_block *blk, size_t n)
{
    if (npk_layout_check_block("npk_rk_c_bytes", blk, true, 1, n))
        return 0;
    return npk_layout_block_bytes(blk, npk_layout_out_bits(blk->prec), n);
}

/* Everything unpack, accumulate and pack check alike. user_bytes is the size of an element of
 * the user's C: the block's own for copies, 4 (float or int32) for accumulation. */
static npk_status check_output_args(const char *fn, const npk_rk_block *blk, const void *mat,
                                    const void *data, size_t rows, size_t cols, size_t pitch,
                                    bool accumulate, npk_rk_range m, npk_rk_range n,
                                    const void *buf, size_t buf_size, const char *buf_name)
{
    npk_status st;
    if (!blk)
        return npk_fail(NPK_EINVAL, "%s: block description is NULL", fn);
    if ((st = npk_layout_check_prec(fn, blk->prec, true)) != NPK_OK)
        return st;
    unsigned bits = npk_layout_out_bits(blk->prec);
    size_t user_bytes = accumulate ? 4 : bits / 8;
    if ((st = npk_layout_check_matrix(fn, "c", mat, data, rows, cols, pitch, user_bytes)) ||
        (st = npk_layout_check_range(fn, "m", m, rows, "rows of c")) ||
        (st = npk_layout_check_range(fn, "n", n, cols, "columns of c")) ||
        (st = npk_layout_check_block(fn, blk, true, m.end - m.begin, n.end - n.begin)))
        return st;
    return npk_layout_check_buffer(fn, buf_name, buf, buf_size,
                                   npk_layout_block_bytes(blk, bits, n.end - n.begin), bits / 8);
}

/* ---- public -------------------------------------------------------------------------------- */

npk_status npk_rk_unpack_c(const npk_rk_block *blk, const void *src, size_t src_size,
                           const npk_rk_matrix *c, npk_rk_range m, npk_rk_range n)
{
    npk_status st =
        check_output_args("npk_rk_unpack_c", blk, c, c ? c->data : NULL, c ? c->rows : 0,
                          c ? c->cols : 0, c ? c->pitch : 0, false, m, n, src, src_size, "src");
    if (st)
        return st;
    size_t ob = npk_layout_out_bits(blk->prec) / 8;
    uint8_t *user = (uint8_t *)c->data + (m.begin * c->pitch + n.begin) * ob;
    uint8_t *block = (uint8_t *)(uintptr_t)src; /* only read: see segment_op */
    size_t up = c->pitch * ob, rows = m.end - m.begin, cols = n.end - n.begin;
    if (ob == 4)
        walk_segments(blk, 4, 4, block, user, up, rows, cols, copy_out4, NULL);
    else if (ob == 2)
        walk_segments(blk, 2, 2, block, user, up, rows, cols, copy_out2, NULL);
    else
        walk_segments(blk, 1, 1, block, user, up, rows, cols, copy_out1, NULL);
    return NPK_OK;
}

/* The slices' sums into C (rows m, columns n), every block checked for fn; the walk is
 * inlined for each block precision. */
static npk_status sum_slices(const char *fn, const npk_rk_block *blk, const void *const *srcs,
                             const size_t *src_sizes, size_t count, const npk_rk_matrix *c,
                             npk_rk_range m, npk_rk_range n, bool first)
{
    if (count == 0 || count > NPK_RK_SUM_SLICES_MAX)
        return npk_fail(NPK_EINVAL, "%s: %zu slices; 1..%d are summed at once", fn, count,
                        NPK_RK_SUM_SLICES_MAX);
    if (!srcs || !src_sizes)
        return npk_fail(NPK_EINVAL, "%s: the slices' blocks are NULL", fn);
    slice_sum k = {.count = count, .first = first};
    for (size_t j = 0; j < count; j++) {
        npk_status st = check_output_args(fn, blk, c, c ? c->data : NULL, c ? c->rows : 0,
                                          c ? c->cols : 0, c ? c->pitch : 0, true, m, n, srcs[j],
                                          src_sizes[j], "src");
        if (st)
            return st;
        k.delta[j] = (const uint8_t *)srcs[j] - (const uint8_t *)srcs[0];
    }
    uint8_t *user = (uint8_t *)c->data + (m.begin * c->pitch + n.begin) * 4;
    uint8_t *block = (uint8_t *)(uintptr_t)srcs[0]; /* only read: see segment_op */
    const size_t up = c->pitch * 4, rows = m.end - m.begin, cols = n.end - n.begin;
    switch (blk->prec) {
    case NPK_PREC_FP32: walk_segments(blk, 4, 4, block, user, up, rows, cols, sum_f32_f32, &k); break;
    case NPK_PREC_FP16: walk_segments(blk, 2, 4, block, user, up, rows, cols, sum_f32_f16, &k); break;
    case NPK_PREC_INT32: walk_segments(blk, 4, 4, block, user, up, rows, cols, sum_i32_i32, &k); break;
    case NPK_PREC_INT16: walk_segments(blk, 2, 4, block, user, up, rows, cols, sum_i32_i16, &k); break;
    case NPK_PREC_INT8:
    case NPK_PREC_BF16:
    case NPK_PREC_INT4:
    case NPK_PREC_TF32:
    default: /* NPK_PREC_INT8: check_output_args admits no other */
        walk_segments(blk, 1, 4, block, user, up, rows, cols, sum_i32_i8, &k);
        break;
    }
    return NPK_OK;
}

npk_status npk_rk_sum_slices_c(const npk_rk_block *blk, const void *const *srcs,
                               const size_t *src_sizes, size_t count, const npk_rk_matrix *c,
                               npk_rk_range m, npk_rk_range n, bool first)
{
    return sum_slices("npk_rk_sum_slices_c", blk, srcs, src_sizes, count, c, m, n, first);
}

npk_status npk_rk_accumulate_c(const npk_rk_block *blk, const void *src, size_t src_size,
                               const npk_rk_matrix *c, npk_rk_range m, npk_rk_range n)
{
    return sum_slices("npk_rk_accumulate_c", blk, &src, &src_size, 1, c, m, n, false);
}

npk_status npk_rk_copy_sums_c(const npk_rk_block *blk, const void *src, size_t src_size,
                              const npk_rk_matrix *c, npk_rk_range m, npk_rk_range n)
{
    if (blk && blk->prec != NPK_PREC_FP32 && blk->prec != NPK_PREC_INT32)
        return npk_fail(NPK_EINVAL,
                        "npk_rk_copy_sums_c: sums of precision %s; only fp32 and int32 sums are "
                        "copied (a narrower one is accumulated)",
                        npk_rk_prec_name(blk->prec) ? npk_rk_prec_name(blk->prec) : "?");
    return sum_slices("npk_rk_copy_sums_c", blk, &src, &src_size, 1, c, m, n, true);
}

npk_status npk_rk_pack_c(const npk_rk_block *blk, const npk_rk_cmatrix *c, npk_rk_range m,
                         npk_rk_range n, void *dst, size_t dst_size)
{
    npk_status st =
        check_output_args("npk_rk_pack_c", blk, c, c ? c->data : NULL, c ? c->rows : 0,
                          c ? c->cols : 0, c ? c->pitch : 0, false, m, n, dst, dst_size, "dst");
    if (st)
        return st;
    size_t ob = npk_layout_out_bits(blk->prec) / 8;
    /* the user's C is only read: see segment_op */
    uint8_t *user = (uint8_t *)(uintptr_t)c->data + (m.begin * c->pitch + n.begin) * ob;
    size_t up = c->pitch * ob, rows = m.end - m.begin, cols = n.end - n.begin;
    if (ob == 4)
        walk_segments(blk, 4, 4, dst, user, up, rows, cols, copy_in4, NULL);
    else if (ob == 2)
        walk_segments(blk, 2, 2, dst, user, up, rows, cols, copy_in2, NULL);
    else
        walk_segments(blk, 1, 1, dst, user, up, rows, cols, copy_in1, NULL);
    return NPK_OK;
}
