/* SPDX-License-Identifier: MIT */
/* A, the feature (facts D.2): line mode row-major [M][Kp]; cube mode [Kp/C2][M][C2] with
 * C2 = 16/eb, i.e. planes of 16-byte atoms, one atom per row and channel group. */
#include <string.h>

#include "layout_internal.h"
#include "layout_vec.h"

/* ---- int4 nibbles: even index in the low nibble (facts D.2) ------------------------------- */

#if NPK_LAYOUT_HAVE_AVX2
/* The whole 64-value runs of pack_nibbles in 32-byte registers; returns how many were packed. */
__attribute__((target("avx2"))) static size_t pack_nibbles_v32(uint8_t *dst, const int8_t *src,
                                                              size_t count)
{
    size_t i = 0;
    for (; i + 64 <= count; i += 64)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i / 2),
                            npk_atom_pair_v32((const uint8_t *)src + i, 4));
    return i;
}
#endif

/* Pack `count` int8 values (low nibble of each) into ceil(count/2) bytes. */
static void pack_nibbles(uint8_t *dst, const int8_t *src, size_t count)
{
    size_t i = 0;
#if NPK_LAYOUT_HAVE_AVX2
    if (npk_layout_avx2())
        i = pack_nibbles_v32(dst, src, count);
#endif
    for (; i + 32 <= count; i += 32)
        npk_vstore(dst + i / 2, npk_nibble_pack32(src + i));
    for (; i + 1 < count; i += 2)
        dst[i / 2] = (uint8_t)((src[i] & 0xf) | (src[i + 1] & 0xf) << 4);
    if (i < count)
        dst[i / 2] = (uint8_t)(src[i] & 0xf);
}

/* A nibble as a signed int4 value in [-8, 7] (two's complement, without shifting a sign). */
static inline int8_t nibble_value(unsigned nibble) { return (int8_t)(((nibble & 0xf) ^ 8) - 8); }

/* Unpack `count` nibbles starting at nibble index 0 of src into int8 values. */
static void unpack_nibbles(int8_t *dst, const uint8_t *src, size_t count)
{
    size_t i = 0;
    for (; i + 32 <= count; i += 32)
        npk_nibble_unpack32(dst + i, npk_vload(src + i / 2));
    for (; i < count; i++)
        dst[i] = nibble_value(src[i / 2] >> (4 * (i & 1)));
}

/* Packed copy of `count` user elements: bytes for 8/16-bit types, nibbles for int4. */
NPK_LAYOUT_INLINE void pack_elems(uint8_t *dst, const uint8_t *src, size_t count, unsigned bits)
{
    if (bits == 4)
        pack_nibbles(dst, (const int8_t *)src, count);
    else
        memcpy(dst, src, count * bits / 8);
}

NPK_LAYOUT_INLINE void unpack_elems(uint8_t *dst, const uint8_t *src, size_t count, unsigned bits)
{
    if (bits == 4)
        unpack_nibbles((int8_t *)dst, src, count);
    else
        memcpy(dst, src, count * bits / 8);
}

/* One whole cube atom (16 packed bytes): fixed sizes, so the copies compile to a few moves. */
NPK_LAYOUT_INLINE void pack_atom(uint8_t *dst, const uint8_t *src, unsigned bits)
{
    if (bits == 4)
        npk_vstore(dst, npk_nibble_pack32(src));
    else
        memcpy(dst, src, NPK_RK_CUBE_ATOM_BYTES);
}

NPK_LAYOUT_INLINE void unpack_atom(uint8_t *dst, const uint8_t *src, unsigned bits)
{
    if (bits == 4)
        npk_nibble_unpack32(dst, npk_vload(src));
    else
        memcpy(dst, src, NPK_RK_CUBE_ATOM_BYTES);
}

/* ---- shared checks ------------------------------------------------------------------------ */

npk_rk_block npk_rk_a_block(npk_rk_prec in, npk_rk_mode mode, size_t rows, size_t k)
{
    npk_rk_block blk = {in, mode, rows, mode == NPK_MODE_LINE ? npk_rk_k_padded(k) : 0};
    return blk;
}

size_t npk_rk_a_bytes(const npk_rk_block *blk, size_t k)
{
    size_t kp = npk_rk_k_padded(k);
    if (npk_layout_check_block("npk_rk_a_bytes", blk, false, 1, kp))
        return 0;
    return npk_layout_block_bytes(blk, npk_layout_in_bits(blk->prec), kp);
}

/* Everything pack and unpack check alike: the block, the user matrix (elements of elem_bytes:
 * the block's own, or 4 for an fp32 source), both ranges, and the packed buffer. */
npk_status npk_layout_check_feature(const char *fn, const npk_rk_block *blk, const void *mat,
                                    const void *data, size_t rows, size_t cols, size_t pitch,
                                    size_t elem_bytes, npk_rk_range m, npk_rk_range k,
                                    const void *buf, size_t buf_size, const char *buf_name)
{
    npk_status st;
    if (!blk)
        return npk_fail(NPK_EINVAL, "%s: block description is NULL", fn);
    if ((st = npk_layout_check_prec(fn, blk->prec, false)) != NPK_OK)
        return st;
    unsigned bits = npk_layout_in_bits(blk->prec);
    if ((st = npk_layout_check_matrix(fn, "a", mat, data, rows, cols, pitch, elem_bytes)) !=
            NPK_OK ||
        (st = npk_layout_check_range(fn, "m", m, rows, "rows of a")) != NPK_OK ||
        (st = npk_layout_check_range(fn, "k", k, cols, "columns of a")) != NPK_OK)
        return st;
    size_t kp = npk_rk_k_padded(k.end - k.begin);
    if ((st = npk_layout_check_block(fn, blk, false, m.end - m.begin, kp)) != NPK_OK)
        return st;
    return npk_layout_check_buffer(fn, buf_name, buf, buf_size,
                                   npk_layout_block_bytes(blk, bits, kp), 1);
}

/* ---- line mode ----------------------------------------------------------------------------- */

static void pack_line(const npk_rk_block *blk, unsigned bits, const uint8_t *src, size_t src_pitch,
                      size_t rows, size_t cols, uint8_t *dst)
{
    size_t kp = npk_rk_k_padded(cols);
    size_t row_bytes = npk_layout_packed_bytes(kp, bits);
    size_t data_bytes = npk_layout_packed_bytes(cols, bits);
    size_t dst_pitch = npk_layout_packed_bytes(blk->stride, bits);
    for (size_t i = 0; i < rows; i++, src += src_pitch, dst += dst_pitch) {
        pack_elems(dst, src, cols, bits);
        memset(dst + data_bytes, 0, row_bytes - data_bytes); /* K padding must read as zero */
    }
    for (size_t i = rows; i < blk->rows; i++, dst += dst_pitch)
        memset(dst, 0, row_bytes);
}

static void unpack_line(const npk_rk_block *blk, unsigned bits, const uint8_t *src, size_t rows,
                        size_t cols, uint8_t *dst, size_t dst_pitch)
{
    size_t src_pitch = npk_layout_packed_bytes(blk->stride, bits);
    for (size_t i = 0; i < rows; i++, src += src_pitch, dst += dst_pitch)
        unpack_elems(dst, src, cols, bits);
}

/* ---- cube mode ----------------------------------------------------------------------------- */

/* The cube layout is a transpose of 16-byte atoms between [rows][planes] (the user's rows)
 * and [planes][rows] (the block). Packing walks it in steps of STEP rows × STEP planes: a step
 * reads one whole cache line from each of 4 user rows (two for int4, whose atoms come from 32
 * user bytes) and writes one whole line of 4 rows' atoms into each of 4 planes, so no line is
 * read or written by two steps.
 *
 * The order of the steps is chosen for the caches. User rows and planes are usually a power of
 * two bytes apart, so the lines a step reads (one per row, at its plane offset) fall in one
 * first-level set chosen by the plane group alone, and the lines it writes (one per plane, at
 * its row offset) in one chosen by the row group alone: steps in flight together want
 * different plane groups and different row groups, or they evict each other's lines. A block
 * read from memory wants each plane written front to back, a stream the hardware prefetcher
 * follows. So the walk goes down all rows in bands of a few plane groups, each plane group a
 * few row groups behind the one before it (cube_order): in band step t, plane group k does row
 * group t - skew·k. The band's planes are still written as streams, and the steps of one t
 * differ in both groups. No hardware prefetcher follows reads that jump rows, so the walk asks
 * for each row group's bytes of the band a number of row groups ahead of t, into the
 * second-level cache (the first level has too few ways for lines that share a set), on into
 * the next band, and the first ones before the walk starts, so that a small block read once (a
 * tile of a larger matrix) does not begin cold.
 *
 * The walk this replaced went down all rows 8 planes wide without skew (the loads of a row
 * group in 2 sets, its stores in one), as the 16-byte kernels still do. Against it, in
 * alternating runs on x86-64 with AVX-512 (docs/rk-programs.md), the int8 pack of 512×4096
 * went from 0.75 to 0.90 of memcpy and the fp16 one from 0.84 to 0.85, blocks in cache ran
 * 10-25% faster, and tiles of a 4096×4096 matrix, read from memory, about as fast as before.
 *
 * Unpacking still copies atom by atom in blocks of UNPACK_PLANES planes × ROW_GROUP rows. */
enum { STEP = 4, ROW_GROUP = 8, UNPACK_PLANES = 32 };

/* The walk's shape: plane groups per band, row groups each plane group runs behind the one
 * before it, and how many row groups ahead the user bytes are asked for (0: none). */
typedef struct cube_order {
    size_t band, skew, ahead;
} cube_order;

/* The orders, as measured on x86-64 (docs/rk-programs.md), per kernel and element width. The
 * 32- and 64-byte steps of 8- and 16-bit atoms: bands of 16 planes, 8 rows of skew, 64 rows
 * ahead (16 rows of skew or 32 rows ahead ran within a few per cent of it). The 16-byte steps
 * (the portable and NEON kernels) keep the unskewed walk, 8 planes wide with 64 rows ahead:
 * skewed, their tiles read from memory ran 10-30% slower. An int4 atom takes 32 user bytes
 * (256 a row per 8 planes) and its step merges nibbles between loads and stores; it ran
 * fastest unskewed, 8 planes wide with no prefetch (5-20% slower skewed). */
#if NPK_LAYOUT_HAVE_AVX2 /* the only wide kernels */
static const cube_order CUBE_ORDER_WIDE = {4, 2, 16};
#endif
static const cube_order CUBE_ORDER_NARROW = {2, 0, 16};
static const cube_order CUBE_ORDER_NIBBLES = {2, 0, 0};

/* Where a run of steps reads and writes: user rows `src_pitch` bytes apart with `src_step`
 * user bytes per atom; planes `plane_bytes` apart with one atom per row. */
typedef struct cube_walk {
    const uint8_t *src;
    size_t src_pitch, src_step;
    uint8_t *dst;
    size_t plane_bytes;
} cube_walk;

/* One step, 16 bytes at a time: atoms (row i, plane q) for i, q < STEP. */
NPK_LAYOUT_INLINE void pack_step_v16(cube_walk w, const uint8_t *in, uint8_t *out,
                                     unsigned bits)
{
    for (size_t q = 0; q < STEP; q++, out += w.plane_bytes, in += w.src_step)
        for (size_t i = 0; i < STEP; i++)
            pack_atom(out + i * NPK_RK_CUBE_ATOM_BYTES, in + i * w.src_pitch, bits);
}

/* Asks for the user bytes of rows [row, row + STEP) × planes [p, p_end) to be brought into the
 * second-level cache (locality 2: prefetcht1 on x86-64, pldl2keep on aarch64). The span is
 * whole 64-byte lines (STEP planes of 16 or 32 bytes at a time); a row that does not start on
 * a line reaches into one line more. */
NPK_LAYOUT_INLINE void prefetch_rows(const cube_walk *w, size_t row, size_t p, size_t p_end)
{
    const size_t span = (p_end - p) * w->src_step;
    const uint8_t *in = w->src + row * w->src_pitch + p * w->src_step;
    for (size_t i = 0; i < STEP; i++, in += w->src_pitch) {
        for (size_t off = 0; off < span; off += 64)
            __builtin_prefetch(in + off, 0, 2);
        if ((uintptr_t)in % 64)
            __builtin_prefetch(in + span - 1, 0, 2);
    }
}

/* The first plane of the band after the one at `band`, and where a band starting at `band`
 * ends. */
NPK_LAYOUT_INLINE size_t band_end(cube_order o, size_t band, size_t planes)
{
    return npk_layout_min(band + o.band * STEP, planes);
}

/* Prefetches, for band step t of the band starting at plane `band`, row group t + o.ahead of
 * the band, or past its end the row group as far into the next band (a band has `rows` / STEP
 * row groups and `ts` band steps, o.skew · (plane groups - 1) more). */
NPK_LAYOUT_INLINE void prefetch_ahead(const cube_walk *w, cube_order o, size_t rows,
                                      size_t planes, size_t band, size_t t, size_t ts)
{
    size_t g = t + o.ahead;
    if (g >= rows / STEP) {
        if (g < ts) /* row groups past the band's last: nothing to ask for */
            return;
        g -= ts;
        band += o.band * STEP;
        if (band >= planes || g >= rows / STEP) /* a block with fewer row groups than o.ahead */
            return;
    }
    prefetch_rows(w, g * STEP, band, band_end(o, band, planes));
}

/* Rows [0, rows) × planes [0, planes) of the walk, both multiples of STEP, in order `o`, with
 * `step` (one of the pack_step_* kernels, inlined where this walker is). */
NPK_LAYOUT_INLINE void pack_cube_steps(const cube_walk *w, size_t rows, size_t planes,
                                       unsigned bits, cube_order o,
                                       void (*step)(cube_walk, const uint8_t *, uint8_t *,
                                                    unsigned))
{
    /* A local copy: the stores cannot alias it, so its fields stay in registers. */
    const cube_walk wl = *w;
    const size_t atom = NPK_RK_CUBE_ATOM_BYTES, groups = rows / STEP;
    if (!groups)
        return;
    for (size_t g = 0; g < o.ahead && g < groups; g++)
        prefetch_rows(&wl, g * STEP, 0, band_end(o, 0, planes));
    for (size_t band = 0; band < planes; band += o.band * STEP) {
        const size_t bands = (band_end(o, band, planes) - band) / STEP;
        const size_t ts = groups + o.skew * (bands - 1);
        for (size_t t = 0; t < ts; t++) {
            if (o.ahead)
                prefetch_ahead(&wl, o, rows, planes, band, t, ts);
            /* plane group k does row group t - skew·k, when the band has it */
            for (size_t k = 0; k < bands && o.skew * k <= t; k++) {
                const size_t g = t - o.skew * k, p = band + k * STEP;
                if (g < groups)
                    step(wl, wl.src + g * STEP * wl.src_pitch + p * wl.src_step,
                         wl.dst + p * wl.plane_bytes + g * STEP * atom, bits);
            }
        }
    }
}

static void pack_cube_steps_v16(const cube_walk *w, size_t rows, size_t planes, unsigned bits)
{
    if (bits == 4)
        pack_cube_steps(w, rows, planes, 4, CUBE_ORDER_NIBBLES, pack_step_v16);
    else /* 8- and 16-bit atoms are both plain 16-byte copies */
        pack_cube_steps(w, rows, planes, 8, CUBE_ORDER_NARROW, pack_step_v16);
}

#if NPK_LAYOUT_HAVE_AVX2
/* The same step in 32-byte registers (x86-64 with AVX2): two atoms of a user row are loaded
 * together, and a 2×2 exchange of 16-byte halves with the next row gives two rows' atoms of
 * one plane, which are adjacent in the block. Caches in this range move 32 or 64 bytes per
 * store: with 16-byte stores an in-cache copy runs at about 0.6 of memcpy. */
NPK_LAYOUT_AVX2 void pack_step_v32(cube_walk w, const uint8_t *in, uint8_t *out,
                                   unsigned bits)
{
    for (size_t q = 0; q < STEP; q += 2, out += 2 * w.plane_bytes, in += 2 * w.src_step)
        for (size_t i = 0; i < STEP; i += 2) {
            __m256i r0 = npk_atom_pair_v32(in + i * w.src_pitch, bits);
            __m256i r1 = npk_atom_pair_v32(in + (i + 1) * w.src_pitch, bits);
            uint8_t *o = out + i * NPK_RK_CUBE_ATOM_BYTES;
            _mm256_storeu_si256((__m256i *)(void *)o, _mm256_permute2x128_si256(r0, r1, 0x20));
            _mm256_storeu_si256((__m256i *)(void *)(o + w.plane_bytes),
                                _mm256_permute2x128_si256(r0, r1, 0x31));
        }
}

__attribute__((target("avx2"))) static void pack_cube_steps_v32(const cube_walk *w, size_t rows,
                                                                size_t planes, unsigned bits)
{
    if (bits == 4)
        pack_cube_steps(w, rows, planes, 4, CUBE_ORDER_NIBBLES, pack_step_v32);
    else
        pack_cube_steps(w, rows, planes, 8, CUBE_ORDER_WIDE, pack_step_v32);
}

/* The same step in 64-byte registers (AVX-512), 8- and 16-bit atoms (an int4 atom takes 32
 * user bytes): a step's 4 atoms of a user row are one load, and a 4×4 exchange of 16-byte
 * lanes gives each plane its 4 rows' atoms as one store, every access a whole cache line. With
 * 32-byte accesses the fp16 and int8 packs ran at 0.55-0.68 of memcpy. */
/* Four rows of 4 lanes (16 bytes each) stored as 4 planes: plane q holds lane q of each row. */
NPK_LAYOUT_AVX512 void store_planes_v64(cube_walk w, __m512i r0, __m512i r1, __m512i r2,
                                        __m512i r3, uint8_t *out)
{
    /* t0 = lanes 0, 1 of r0 then of r1; t1 = lanes 2, 3 of both; t2, t3 the same of r2, r3 */
    const __m512i t0 = _mm512_shuffle_i64x2(r0, r1, 0x44), t1 = _mm512_shuffle_i64x2(r0, r1, 0xee);
    const __m512i t2 = _mm512_shuffle_i64x2(r2, r3, 0x44), t3 = _mm512_shuffle_i64x2(r2, r3, 0xee);
    /* plane q: lane q of each row, the even (q = 0, 2) or odd (1, 3) lanes of t */
    _mm512_storeu_si512((void *)out, _mm512_shuffle_i64x2(t0, t2, 0x88));
    _mm512_storeu_si512((void *)(out + w.plane_bytes), _mm512_shuffle_i64x2(t0, t2, 0xdd));
    _mm512_storeu_si512((void *)(out + 2 * w.plane_bytes), _mm512_shuffle_i64x2(t1, t3, 0x88));
    _mm512_storeu_si512((void *)(out + 3 * w.plane_bytes), _mm512_shuffle_i64x2(t1, t3, 0xdd));
}

NPK_LAYOUT_AVX512 void pack_step_v64(cube_walk w, const uint8_t *in, uint8_t *out, unsigned bits)
{
    (void)bits;
    store_planes_v64(w, _mm512_loadu_si512((const void *)in),
                     _mm512_loadu_si512((const void *)(in + w.src_pitch)),
                     _mm512_loadu_si512((const void *)(in + 2 * w.src_pitch)),
                     _mm512_loadu_si512((const void *)(in + 3 * w.src_pitch)), out);
}

/* The same for int4 (AVX-512 BW): a step's 4 atoms of a user row are 128 int8 values, two
 * loads merged into one register of nibbles as npk_nibble_pack32 does 32 at a time (per 16-bit
 * lane [even, odd]: (x & 0xf) | (x >> 4 & 0xf0), narrowed to the low bytes). Against the
 * 32-byte step the int4 pack went from 0.74 to 0.84-0.86 of memcpy (medians, 512×4096). */
NPK_LAYOUT_AVX512BW __m512i nibble_quad_v64(const uint8_t *src)
{
    const __m512i lo = _mm512_set1_epi16(0x0f), hi = _mm512_set1_epi16(0xf0);
    __m512i a = _mm512_loadu_si512((const void *)src);
    __m512i b = _mm512_loadu_si512((const void *)(src + 64));
    a = _mm512_or_si512(_mm512_and_si512(a, lo), _mm512_and_si512(_mm512_srli_epi16(a, 4), hi));
    b = _mm512_or_si512(_mm512_and_si512(b, lo), _mm512_and_si512(_mm512_srli_epi16(b, 4), hi));
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)),
                              _mm512_cvtepi16_epi8(b), 1);
}

NPK_LAYOUT_AVX512BW void pack_step_v64_nibbles(cube_walk w, const uint8_t *in, uint8_t *out,
                                               unsigned bits)
{
    (void)bits;
    store_planes_v64(w, nibble_quad_v64(in), nibble_quad_v64(in + w.src_pitch),
                     nibble_quad_v64(in + 2 * w.src_pitch), nibble_quad_v64(in + 3 * w.src_pitch),
                     out);
}

__attribute__((target("avx512f,avx512bw"))) static void
pack_cube_steps_v64_nibbles(const cube_walk *w, size_t rows, size_t planes)
{
    pack_cube_steps(w, rows, planes, 4, CUBE_ORDER_NIBBLES, pack_step_v64_nibbles);
}

__attribute__((target("avx512f"))) static void pack_cube_steps_v64(const cube_walk *w, size_t rows,
                                                                   size_t planes)
{
    pack_cube_steps(w, rows, planes, 8, CUBE_ORDER_WIDE, pack_step_v64);
}
#endif

NPK_LAYOUT_INLINE void pack_cube(const npk_rk_block *blk, unsigned bits, const uint8_t *src,
                                 size_t src_pitch, size_t rows, size_t cols, uint8_t *dst)
{
    const size_t atom = NPK_RK_CUBE_ATOM_BYTES;
    size_t c2 = atom * 8 / bits;                        /* channels per atom, facts D.2 */
    size_t src_step = c2 * npk_layout_user_bytes(bits); /* user bytes per atom */
    size_t planes = npk_rk_k_padded(cols) / c2;
    size_t full_planes = cols / c2;
    size_t plane_bytes = blk->rows * atom;
    /* Whole steps first, then the rows and the whole planes left over, atom by atom. */
    size_t step_rows = rows - rows % STEP, step_planes = full_planes - full_planes % STEP;
    cube_walk w = {src, src_pitch, src_step, dst, plane_bytes};
#if NPK_LAYOUT_HAVE_AVX2
    if (bits != 4 && npk_layout_avx512())
        pack_cube_steps_v64(&w, step_rows, step_planes);
    else if (bits == 4 && npk_layout_avx512bw())
        pack_cube_steps_v64_nibbles(&w, step_rows, step_planes);
    else if (npk_layout_avx2())
        pack_cube_steps_v32(&w, step_rows, step_planes, bits);
    else
#endif
        pack_cube_steps_v16(&w, step_rows, step_planes, bits);
    for (size_t i = 0; i < rows; i++) {
        uint8_t *out = dst + i * atom;
        const uint8_t *in = src + i * src_pitch;
        for (size_t p = i < step_rows ? step_planes : 0; p < full_planes; p++)
            pack_atom(out + p * plane_bytes, in + p * src_step, bits);
    }
    /* The plane the slice ends in (when K is not a multiple of C2) and the planes of the K
     * padding up to Kp: zero, then the remaining channels. */
    for (size_t p = full_planes; p < planes; p++) {
        uint8_t *out = dst + p * plane_bytes;
        memset(out, 0, rows * atom);
        if (p * c2 < cols)
            for (size_t i = 0; i < rows; i++)
                pack_elems(out + i * atom, src + i * src_pitch + p * src_step, cols - p * c2, bits);
    }
    for (size_t p = 0; p < planes && rows < blk->rows; p++) /* padding rows are zero */
        memset(dst + p * plane_bytes + rows * atom, 0, (blk->rows - rows) * atom);
}

NPK_LAYOUT_INLINE void unpack_cube(const npk_rk_block *blk, unsigned bits, const uint8_t *src,
                                   size_t rows, size_t cols, uint8_t *dst, size_t dst_pitch)
{
    const size_t atom = NPK_RK_CUBE_ATOM_BYTES;
    size_t c2 = atom * 8 / bits;
    size_t dst_step = c2 * npk_layout_user_bytes(bits);
    size_t planes = (cols + c2 - 1) / c2;
    size_t plane_bytes = blk->rows * atom;
    for (size_t pb = 0; pb < planes; pb += UNPACK_PLANES) {
        size_t pb_end = npk_layout_min(pb + UNPACK_PLANES, planes);
        for (size_t g = 0; g < rows; g += ROW_GROUP) {
            size_t g_end = npk_layout_min(g + ROW_GROUP, rows);
            for (size_t p = pb; p < pb_end; p++) {
                const uint8_t *in = src + p * plane_bytes + g * atom;
                uint8_t *out = dst + g * dst_pitch + p * dst_step;
                size_t count = npk_layout_min(c2, cols - p * c2);
                for (size_t i = g; i < g_end; i++, in += atom, out += dst_pitch) {
                    if (count == c2)
                        unpack_atom(out, in, bits);
                    else
                        unpack_elems(out, in, count, bits);
                }
            }
        }
    }
}

/* The body of pack and unpack once per element width, so every copy has a known size. */
static void pack_any(const npk_rk_block *blk, unsigned bits, const uint8_t *src, size_t src_pitch,
                     size_t rows, size_t cols, uint8_t *dst)
{
    if (blk->mode == NPK_MODE_LINE)
        pack_line(blk, bits, src, src_pitch, rows, cols, dst);
    else if (bits == 16)
        pack_cube(blk, 16, src, src_pitch, rows, cols, dst);
    else if (bits == 8)
        pack_cube(blk, 8, src, src_pitch, rows, cols, dst);
    else
        pack_cube(blk, 4, src, src_pitch, rows, cols, dst);
}

static void unpack_any(const npk_rk_block *blk, unsigned bits, const uint8_t *src, size_t rows,
                       size_t cols, uint8_t *dst, size_t dst_pitch)
{
    if (blk->mode == NPK_MODE_LINE)
        unpack_line(blk, bits, src, rows, cols, dst, dst_pitch);
    else if (bits == 16)
        unpack_cube(blk, 16, src, rows, cols, dst, dst_pitch);
    else if (bits == 8)
        unpack_cube(blk, 8, src, rows, cols, dst, dst_pitch);
    else
        unpack_cube(blk, 4, src, rows, cols, dst, dst_pitch);
}

/* ---- public -------------------------------------------------------------------------------- */

npk_status npk_rk_pack_a(const npk_rk_block *blk, const npk_rk_cmatrix *a, npk_rk_range m,
                         npk_rk_range k, void *dst, size_t dst_size)
{
    unsigned bits = blk ? npk_layout_in_bits(blk->prec) : 0;
    npk_status st = npk_layout_check_feature(
        "npk_rk_pack_a", blk, a, a ? a->data : NULL, a ? a->rows : 0, a ? a->cols : 0,
        a ? a->pitch : 0, npk_layout_user_bytes(bits), m, k, dst, dst_size, "dst");
    if (st)
        return st;
    size_t ub = npk_layout_user_bytes(bits);
    const uint8_t *src = (const uint8_t *)a->data + (m.begin * a->pitch + k.begin) * ub;
    size_t rows = m.end - m.begin, cols = k.end - k.begin;
    pack_any(blk, bits, src, a->pitch * ub, rows, cols, dst);
    return NPK_OK;
}

npk_status npk_rk_unpack_a(const npk_rk_block *blk, const void *src, size_t src_size,
                           const npk_rk_matrix *a, npk_rk_range m, npk_rk_range k)
{
    unsigned bits = blk ? npk_layout_in_bits(blk->prec) : 0;
    npk_status st = npk_layout_check_feature(
        "npk_rk_unpack_a", blk, a, a ? a->data : NULL, a ? a->rows : 0, a ? a->cols : 0,
        a ? a->pitch : 0, npk_layout_user_bytes(bits), m, k, src, src_size, "src");
    if (st)
        return st;
    size_t ub = npk_layout_user_bytes(bits);
    uint8_t *dst = (uint8_t *)a->data + (m.begin * a->pitch + k.begin) * ub;
    size_t rows = m.end - m.begin, cols = k.end - k.begin;
    unpack_any(blk, bits, src, rows, cols, dst, a->pitch * ub);
    return NPK_OK;
}
