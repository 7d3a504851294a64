/* SPDX-License-Identifier: MIT */
/* An fp32 matmul on float-form weights (fp16, and integers whose sums cannot round) that never
 * holds the whole decoded B: the packed block [N/G][K/32][G][32] (facts D.1) is decoded a few N
 * tiles at a time into a buffer that stays in the CPU's caches, and each chunk is multiplied
 * right after. The floats are four (fp16: two) times the packed bytes; writing them all and
 * reading them back for the GEMM cost more memory traffic than the GEMM's own reads of B, and
 * a cache of them (weights.c) would have to compare the packed bytes on every use anyway, which
 * costs as much as reading them again for a decode.
 *
 * Two threads take half of the tiles each, with a single-threaded sgemm: the decode runs on
 * both cores and the halves meet once per matmul, where a threaded sgemm per chunk would meet
 * at every chunk. Splitting N does not change any element's sum: each result is the same
 * K-ordered accumulation whichever columns share its call. */
#include "rksim/elements.h"
#include "rksim/matmul.h"

enum {
    KRUN = 32,                /* the k's of one column in one K-tile, contiguous in both layouts */
    CHUNK_FLOATS = 1 << 21,   /* decoded floats per thread multiplied at once (8 MiB: in L3) */
    SPLIT_PRODUCTS = 1 << 22, /* products from which a second thread takes half the tiles */
};

typedef struct stream {
    npk_rk_prec in;
    const uint8_t *packed;
    const float *a;
    float *c;
    float *buf[2];       /* a chunk's floats for each thread */
    uint32_t m, k, n, g; /* shape; G: columns per N tile */
    uint32_t step, half; /* tiles per chunk; the second thread's first tile */
} stream;

static void stream_range(void *ctx, uint32_t lo, uint32_t hi)
{
    const stream *st = ctx;
    float *buf = st->buf[lo >= st->half && lo > 0];
    const uint32_t kts = st->k / KRUN;
    const size_t block_bytes = (size_t)st->g * KRUN * npk_rk_prec_bits(st->in) / 8;
    for (uint32_t t0 = lo, t1; t0 < hi; t0 = t1) {
        t1 = hi - t0 < st->step ? hi : t0 + st->step;
        for (uint32_t t = t0; t < t1; t++)
            for (uint32_t kt = 0; kt < kts; kt++)
                rksim_load_runs(st->in, st->packed + ((size_t)t * kts + kt) * block_bytes, KRUN,
                                st->g, buf + (size_t)(t - t0) * st->g * st->k + (size_t)kt * KRUN,
                                st->k);
        rksim_sgemm_nt(st->m, (t1 - t0) * st->g, st->k, st->a, st->k, buf, st->k,
                       st->c + (size_t)t0 * st->g, st->n);
    }
}

bool rksim_weights_sgemm(rksim *s, const rksim_mm *mm, const uint8_t *packed, const float *a,
                         float *c)
{
    const uint32_t tiles = mm->n / mm->ntile;
    const bool two = (uint64_t)mm->m * mm->n * mm->k >= SPLIT_PRODUCTS && tiles >= 2;
    uint32_t step = (uint32_t)(CHUNK_FLOATS / ((uint64_t)mm->k * mm->ntile));
    step = step ? step : 1;
    const size_t chunk = (size_t)step * mm->ntile * mm->k;
    float *buf = rksim_scratch(s, RKSIM_SCRATCH_CHUNKS, (two ? 2 : 1) * chunk * sizeof *buf);
    if (!buf)
        return false;
    stream st = {.in = (npk_rk_prec)mm->in,
                 .packed = packed,
                 .a = a,
                 .c = c,
                 .buf = {buf, two ? buf + chunk : buf},
                 .m = mm->m,
                 .k = mm->k,
                 .n = mm->n,
                 .g = mm->ntile,
                 .step = step,
                 .half = tiles / 2};
    if (two)
        rksim_blas_single_begin();
    rksim_split2(stream_range, &st, tiles, two);
    if (two)
        rksim_blas_single_end();
    return true;
}
