/* SPDX-License-Identifier: MIT */
/* An fp32 A packed straight into an fp16 feature block (npk_rk_pack_a_f32): the rounding to
 * fp16 and the packing are one pass. A caller holding float activations (ggml's) otherwise
 * converts the whole matrix into an fp16 copy and packs that, reading and writing A twice.
 * The rounding is npk_f32_to_f16_n's (F16C or NEON where the CPU has it, else the portable
 * npk_f32_to_f16, the same bits on every path), so the block is bit for bit the one
 * npk_rk_pack_a gives for the converted matrix. Asked to, the packing also says whether a finite
 * float was beyond fp16's range (npk_f32_to_f16_n_beyond), so that a caller which must not
 * compute with a changed value needs no pass of its own over A to find out. */
#include <string.h>

#include "common/dense.h" /* npk_f32_to_f16_n */
#include "layout_internal.h"

enum {
    C2 = NPK_RK_CUBE_ATOM_BYTES / 2, /* fp16 channels per cube atom (facts D.2) */
    CHUNK_PLANES = 16                /* atoms of one row converted at a time in cube mode */
};

/* n floats to halves; with `beyond`, whether one was a finite float beyond fp16 is or-ed in */
static void convert(const float *f, uint16_t *h, size_t n, bool *beyond)
{
    if (beyond)
        *beyond |= npk_f32_to_f16_n_beyond(f, h, n);
    else
        npk_f32_to_f16_n(f, h, n);
}

static void pack_line_f32(const npk_rk_block *blk, const float *src, size_t src_pitch,
                          size_t rows, size_t cols, uint16_t *dst, bool *beyond)
{
    const size_t kp = npk_rk_k_padded(cols);
    for (size_t i = 0; i < rows; i++, src += src_pitch, dst += blk->stride) {
        convert(src, dst, cols, beyond);
        memset(dst + cols, 0, (kp - cols) * sizeof *dst); /* K padding must read as zero */
    }
    for (size_t i = rows; i < blk->rows; i++, dst += blk->stride)
        memset(dst, 0, kp * sizeof *dst);
}

/* Cube mode, [Kp/8][rows][8]: each user row is converted CHUNK_PLANES atoms at a time and its
 * atoms stored one per plane. */
static void pack_cube_f32(const npk_rk_block *blk, const float *src, size_t src_pitch,
                          size_t rows, size_t cols, uint16_t *dst, bool *beyond)
{
    const size_t planes = npk_rk_k_padded(cols) / C2, full = cols / C2, plane = blk->rows * C2;
    uint16_t chunk[CHUNK_PLANES * C2];
    for (size_t i = 0; i < rows; i++) {
        const float *row = src + i * src_pitch;
        for (size_t p0 = 0; p0 < full; p0 += CHUNK_PLANES) {
            const size_t n = npk_layout_min(CHUNK_PLANES, full - p0);
            convert(row + p0 * C2, chunk, n * C2, beyond);
            for (size_t q = 0; q < n; q++)
                memcpy(dst + (p0 + q) * plane + i * C2, chunk + q * C2, sizeof chunk[0] * C2);
        }
    }
    /* the plane the slice ends in (K not a multiple of 8) and the K padding: zero, then the
     * channels left */
    for (size_t p = full; p < planes; p++) {
        memset(dst + p * plane, 0, rows * C2 * sizeof *dst);
        if (p * C2 < cols)
            for (size_t i = 0; i < rows; i++)
                convert(src + i * src_pitch + p * C2, dst + p * plane + i * C2, cols - p * C2,
                        beyond);
    }
    for (size_t p = 0; p < planes && rows < blk->rows; p++) /* padding rows are zero */
        memset(dst + p * plane + rows * C2, 0, (blk->rows - rows) * C2 * sizeof *dst);
}

npk_status npk_rk_pack_a_f32(const npk_rk_block *blk, const npk_rk_cmatrix *a, npk_rk_range m,
                             npk_rk_range k, void *dst, size_t dst_size, bool *beyond_fp16)
{
    static const char fn[] = "npk_rk_pack_a_f32";
    npk_status st = npk_layout_check_feature(fn, blk, a, a ? a->data : NULL, a ? a->rows : 0,
                                             a ? a->cols : 0, a ? a->pitch : 0, sizeof(float), m,
                                             k, dst, dst_size, "dst");
    if (st)
        return st;
    if (blk->prec != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL, "%s: block precision %s; an fp32 A is packed as fp16 only",
                        fn, npk_rk_prec_name(blk->prec));
    if ((uintptr_t)dst % sizeof(uint16_t))
        return npk_fail(NPK_EINVAL, "%s: dst=%p is not aligned to its 2-byte elements", fn, dst);
    const float *src = (const float *)a->data + m.begin * a->pitch + k.begin;
    const size_t rows = m.end - m.begin, cols = k.end - k.begin;
    if (blk->mode == NPK_MODE_LINE)
        pack_line_f32(blk, src, a->pitch, rows, cols, dst, beyond_fp16);
    else
        pack_cube_f32(blk, src, a->pitch, rows, cols, dst, beyond_fp16);
    return NPK_OK;
}
