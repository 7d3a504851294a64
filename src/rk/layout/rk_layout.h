/* SPDX-License-Identifier: MIT */
/* RK NPU operand layouts: pack the user's row-major A, B and C into the layouts the NPU reads
 * and writes, and back.
 *
 * The matmul C[M][N] = A[M][K]·B[K][N] runs as a 1×1 convolution (facts C.0):
 *
 *   A, the feature (facts D.2), one block per M-tile and K-slice:
 *     line mode  row-major [M][Kp], Kp = K rounded up to 32, zero padding;
 *     cube mode  [Kp/C2][M][C2], C2 = 16/eb: fp16/bf16/int16 8, int8 16, int4 32.
 *   B, the weights (facts D.1), one block per K-slice and N range, N-major tiles of 32 K:
 *     fp16/bf16/int16 [N/16][K/32][16][32], int8 [N/32][K/32][32][32], int4 [N/64][K/32][64][32];
 *     K is zero-padded to 32 and N to the N-group (16, 32, 64).
 *   C, the output (facts D.3):
 *     line mode  row-major [M][s], s >= N elements;
 *     cube mode  [Np/C2o][M][C2o], C2o = 16/ob: fp32/int32 4, fp16/int16 8, int8 16.
 *
 * int4 is stored two elements per byte, the even index in the low nibble (facts D.1, D.2). In the
 * user's matrices int4 elements are int8_t values in [-8, 7] (only the low nibble is packed);
 * fp16/bf16 elements are their uint16_t bit patterns; outputs are float, int32_t, int16_t,
 * uint16_t (fp16 bits) or int8_t.
 *
 * Every function checks its arguments and fails with NPK_EINVAL and a message naming the value
 * and the limit (npk_last_error()); nothing is written on failure. Buffers must be aligned to
 * their element size.
 */
#ifndef NPUKIT_RK_LAYOUT_H
#define NPUKIT_RK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* K granule of the weight tiles and of every feature row (facts D.1, E.1: K % 32). */
#define NPK_RK_K_TILE 32u
/* Bytes of one (row, channel group) atom of the cube layouts: C2·eb = C2o·ob = 16 (facts D.2,
 * D.3). */
#define NPK_RK_CUBE_ATOM_BYTES 16u
/* Largest row count, column count, pitch or stride the layout functions accept. Far above any
 * task the hardware runs (facts E.1: M <= 2047, N <= 8192, K <= 10752 per task); it keeps all the
 * size arithmetic below 2^52. */
#define NPK_RK_LAYOUT_MAX_DIM ((size_t)1 << 24)

/* A half-open index range [begin, end). */
typedef struct npk_rk_range {
    size_t begin, end;
} npk_rk_range;

/* The user's row-major matrix, read side: element [r][c] is at data + (r·pitch + c) elements.
 * rows and cols are the whole matrix, so ranges can be checked against them. */
typedef struct npk_rk_cmatrix {
    const void *data;
    size_t rows, cols, pitch;
} npk_rk_cmatrix;

/* The same, write side. */
typedef struct npk_rk_matrix {
    void *data;
    size_t rows, cols, pitch;
} npk_rk_matrix;

/* How a feature (A) or output (C) block sits in NPU memory, i.e. what the task's registers
 * describe. Block element (row, col) is user element (range.begin + row, range.begin + col).
 *   prec    element precision of the block;
 *   mode    line or cube;
 *   rows    M of the task: rows of the block. In cube mode it is the height of every plane, so
 *           it may exceed the rows copied (the extra feature rows are zero-filled; Mode C wants
 *           M % 4 == 0, facts D.2);
 *   stride  line mode: elements from a row to the next (A: >= Kp, C: >= the columns; a larger
 *           stride is the notch trick, facts D.3, or a feature row pitch, spec "Limits &
 *           tiling"). Cube mode: must be 0.
 * npk_rk_a_block() and npk_rk_c_block() fill in the usual values. */
typedef struct npk_rk_block {
    npk_rk_prec prec;
    npk_rk_mode mode;
    size_t rows;
    size_t stride;
} npk_rk_block;

/* ---- geometry ------------------------------------------------------------------------------ */

/* k rounded up to the K tile (32). */
size_t npk_rk_k_padded(size_t k);
/* Weight N-group of an input precision: fp16/bf16/int16 16, int8 32, int4 64; 0 for others. */
unsigned npk_rk_b_n_group(npk_rk_prec in);
/* n rounded up to the N-group of `in` (0 for a precision with no weight layout). */
size_t npk_rk_n_padded(npk_rk_prec in, size_t n);
/* Channels per cube atom, 128 / element bits: feature C2 (fp16 8, int8 16, int4 32) and output
 * C2o (fp32/int32 4, fp16/int16 8, int8 16); 0 for a value outside the precision enum. */
unsigned npk_rk_cube_channels(npk_rk_prec p);

/* Element index (nibble index for int4) of block element (row, col):
 *   line  row·stride + col
 *   cube  (col/C2)·rows·C2 + row·C2 + col%C2      (facts D.2 offset(m,k), D.3 offset(m,n))
 * SIZE_MAX when blk has a precision of no layout width or an unknown mode. */
size_t npk_rk_block_index(const npk_rk_block *blk, size_t row, size_t col);

/* ---- A, the feature ------------------------------------------------------------------------ */

/* The usual feature block for `rows` rows of a K-slice of length k: line stride Kp. */
npk_rk_block npk_rk_a_block(npk_rk_prec in, npk_rk_mode mode, size_t rows, size_t k);
/* Bytes a packed feature block spans for a K-slice of length k (padded to 32); 0 when blk is
 * invalid. line: ((rows-1)·stride + Kp)·eb; cube: rows·Kp·eb. */
size_t npk_rk_a_bytes(const npk_rk_block *blk, size_t k);
/* Pack rows m and the K-slice k of the user's A into dst: block row i, column j holds
 * A[m.begin + i][k.begin + j]. Writes the whole block: the K padding up to Kp and the rows from
 * m's length to blk->rows are zero (in line mode, bytes between Kp and the stride are left
 * alone). dst_size must be at least npk_rk_a_bytes(blk, length of k). */
npk_status npk_rk_pack_a(const npk_rk_block *blk, const npk_rk_cmatrix *a, npk_rk_range m,
                         npk_rk_range k, void *dst, size_t dst_size);
/* npk_rk_pack_a from an fp32 A (float elements) into an fp16 block: each element rounded to
 * fp16 as npk_f32_to_f16 rounds it (to nearest, ties to even; bit for bit, NaNs and
 * infinities included), so the block is the one packing the converted matrix would give,
 * without the converted copy. blk->prec must be fp16; dst 2-byte aligned. beyond_fp16 (may be
 * NULL): set true when a packed element was a finite float beyond fp16's range (|x| > 65504,
 * now an infinity or 65504), left alone otherwise. */
npk_status npk_rk_pack_a_f32(const npk_rk_block *blk, const npk_rk_cmatrix *a, npk_rk_range m,
                             npk_rk_range k, void *dst, size_t dst_size, bool *beyond_fp16);
/* The inverse: read block rows [0, |m|) and columns [0, |k|) into A[m][k]. */
npk_status npk_rk_unpack_a(const npk_rk_block *blk, const void *src, size_t src_size,
                           const npk_rk_matrix *a, npk_rk_range m, npk_rk_range k);

/* ---- B, the weights ------------------------------------------------------------------------ */

/* Bytes of a packed weight block of a K-slice of length k and n columns: Np·Kp·eb; 0 for a
 * precision with no weight layout. */
size_t npk_rk_b_bytes(npk_rk_prec in, size_t k, size_t n);
/* Byte offset of N-tile `tile` (N-group columns) in a packed K-slice of length k: tile·32·Kp,
 * the same for fp16, int8 and int4 (facts D.1: a per-core column range starting at N-tile t0
 * begins at B + t0·Kp·32). */
size_t npk_rk_b_tile_offset(size_t k, size_t tile);
/* Element index (nibble index for int4) of B[k][n] in a packed K-slice of length k_len (padded
 * to 32 as Kp), facts D.1, with G the N-group:
 *   (n/G)·G·Kp + (k/32)·32·G + (n%G)·32 + k%32
 * SIZE_MAX for a precision with no weight layout. */
size_t npk_rk_b_index(npk_rk_prec in, size_t k_len, size_t k, size_t n);
/* Pack the K-slice k and the column range n of the user's B[K][N] into dst: packed element
 * (j, i) is B[k.begin + j][n.begin + i]; K padding up to Kp and N padding up to the N-group are
 * zero. dst_size must be at least npk_rk_b_bytes(in, |k|, |n|). */
npk_status npk_rk_pack_b(npk_rk_prec in, const npk_rk_cmatrix *b, npk_rk_range k, npk_rk_range n,
                         void *dst, size_t dst_size);
/* The inverse: packed elements (j < |k|, i < |n|) into B[k.begin + j][n.begin + i]. */
npk_status npk_rk_unpack_b(npk_rk_prec in, const void *src, size_t src_size, const npk_rk_matrix *b,
                           npk_rk_range k, npk_rk_range n);

/* ---- C, the output ------------------------------------------------------------------------- */

/* The usual output block for `rows` rows of n columns: line stride n. */
npk_rk_block npk_rk_c_block(npk_rk_prec out, npk_rk_mode mode, size_t rows, size_t n);
/* Bytes an output block of n columns spans, from its first element to one past its last;
 * 0 when blk is invalid. line: ((rows-1)·stride + n)·ob (a notched sub-block does not reach the
 * end of its last row); cube: ceil(n/C2o)·rows·16. */
size_t npk_rk_c_bytes(const npk_rk_block *blk, size_t n);
/* Copy block rows [0, |m|) and columns [0, |n|) into the user's C[m][n]. */
npk_status npk_rk_unpack_c(const npk_rk_block *blk, const void *src, size_t src_size,
                           const npk_rk_matrix *c, npk_rk_range m, npk_rk_range n);
/* The same, adding into C instead of overwriting: the host side of a K-split (facts E.2).
 * A float partial (fp32, or fp16 widened) adds into a float C; an integer partial (int32,
 * int16, int8) adds into an int32 C, wrapping on overflow like the hardware's int32. */
npk_status npk_rk_accumulate_c(const npk_rk_block *blk, const void *src, size_t src_size,
                               const npk_rk_matrix *c, npk_rk_range m, npk_rk_range n);
/* What npk_rk_accumulate_c gives into a zeroed C, without the zeroing: the sums of a single K
 * slice copied into C. fp32 sums are copied plus +0, so a -0 sum becomes +0 as 0 + -0 does
 * (every other value keeps its bits); int32 sums are copied. Other precisions: NPK_EINVAL. */
npk_status npk_rk_copy_sums_c(const npk_rk_block *blk, const void *src, size_t src_size,
                              const npk_rk_matrix *c, npk_rk_range m, npk_rk_range n);
/* The most K slices npk_rk_sum_slices_c adds in one walk: a bound of the software, not of the
 * NPU (the walk keeps each slice's offset in a fixed array; more slices are summed in parts,
 * with the same additions in the same order). */
#define NPK_RK_SUM_SLICES_MAX 16
/* The partial sums of `count` K slices of one output region (each a block laid out as blk, at
 * srcs[j], src_sizes[j] bytes readable) added into C in slice order, reading C once (not at
 * all when `first`: C starts from zero) and writing it once. Each element is bit for bit what
 * npk_rk_accumulate_c gives slice after slice (into a zeroed C when `first`). */
npk_status npk_rk_sum_slices_c(const npk_rk_block *blk, const void *const *srcs,
                               const size_t *src_sizes, size_t count, const npk_rk_matrix *c,
                               npk_rk_range m, npk_rk_range n, bool first);
/* The inverse of unpack (how the simulator writes an output): C[m][n] into block rows
 * [0, |m|) and columns [0, |n|). Only those elements are written. */
npk_status npk_rk_pack_c(const npk_rk_block *blk, const npk_rk_cmatrix *c, npk_rk_range m,
                         npk_rk_range n, void *dst, size_t dst_size);

#ifdef __cplusplus
}
#endif
#endif
