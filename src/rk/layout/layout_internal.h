/* SPDX-License-Identifier: MIT */
/* Shared by the layout modules: element widths per precision, argument checks, and small
 * size helpers. Not a public header. */
#ifndef NPUKIT_RK_LAYOUT_INTERNAL_H
#define NPUKIT_RK_LAYOUT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_layout.h"

/* The packing kernels treat a 16-byte vector as 8 16-bit or 16 8-bit lanes in memory order, and
 * the int4 nibble order (even index in the low nibble) is a statement about byte values: both
 * hold as written on a little-endian host, which is what the NPU's memory order is too. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npukit's RK layout code assumes a little-endian host"
#endif

/* Bits of an A/B element: fp16/bf16/int16 16, int8 8, int4 4 (facts C.0 eb); 0 otherwise. */
unsigned npk_layout_in_bits(npk_rk_prec p);
/* Bits of a C element: fp32/int32 32, fp16/int16 16, int8 8 (facts C.0 ob); 0 otherwise. */
unsigned npk_layout_out_bits(npk_rk_prec p);

/* Bytes of one element in the user's matrix: int4 values are held one per int8_t. */
static inline size_t npk_layout_user_bytes(unsigned bits) { return bits < 8 ? 1 : bits / 8; }

/* Bytes taken by `count` packed elements of `bits` each (int4: two per byte, rounded up). */
static inline size_t npk_layout_packed_bytes(size_t count, unsigned bits)
{
    return (count * bits + 7) / 8;
}

/* For the small walkers that take their element operation as an argument: inlining them into
 * each caller turns the operation into straight-line code for a known element size. */
#define NPK_LAYOUT_INLINE static inline __attribute__((always_inline))

static inline size_t npk_layout_round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }
static inline size_t npk_layout_min(size_t a, size_t b) { return a < b ? a : b; }

/* Argument checks. `fn` is the public function's name, used as the message prefix. Each returns
 * NPK_OK or records an NPK_EINVAL message naming the value and the limit. */

/* precision accepted for A/B (is_output false) or for C (is_output true) */
npk_status npk_layout_check_prec(const char *fn, npk_rk_prec p, bool is_output);
/* a user matrix: non-NULL, pitch >= cols, dimensions <= NPK_RK_LAYOUT_MAX_DIM, aligned data */
npk_status npk_layout_check_matrix(const char *fn, const char *name, const void *mat,
                                   const void *data, size_t rows, size_t cols, size_t pitch,
                                   size_t elem_bytes);
/* a non-empty range [begin, end) inside [0, limit); `unit` names what limit counts */
npk_status npk_layout_check_range(const char *fn, const char *name, npk_rk_range r, size_t limit,
                                  const char *unit);
/* a feature/output block holding `rows_used` rows and `min_cols` columns per row */
npk_status npk_layout_check_block(const char *fn, const npk_rk_block *blk, bool is_output,
                                  size_t rows_used, size_t min_cols);
/* a packed buffer: non-NULL, at least `need` bytes, aligned to `align` */
npk_status npk_layout_check_buffer(const char *fn, const char *name, const void *p, size_t have,
                                   size_t need, size_t align);

/* A feature pack's or unpack's arguments: the block, the user matrix a (rows x cols, pitch,
 * elements of elem_bytes), the ranges m and k within it and the packed buffer (buf_name). */
npk_status npk_layout_check_feature(const char *fn, const npk_rk_block *blk, const void *mat,
                                    const void *data, size_t rows, size_t cols, size_t pitch,
                                    size_t elem_bytes, npk_rk_range m, npk_rk_range k,
                                    const void *buf, size_t buf_size, const char *buf_name);

/* Bytes a block of `cols` columns per row spans (the body of npk_rk_a_bytes/npk_rk_c_bytes);
 * the block must have passed npk_layout_check_block. */
size_t npk_layout_block_bytes(const npk_rk_block *blk, unsigned bits, size_t cols);

#endif
