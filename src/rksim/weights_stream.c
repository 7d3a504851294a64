/* SPDX-License-Identifier: MIT */
/* An fp32 matmul on float-form weights (fp16, and integers whose sums cannot round) that never
 * holds the whole decoded B: the packed block [N/G][K/32][G][32] (facts D.1) is decoded a few N
 * tiles at a time into a buffer that stays in the CPU's caches, and each chunk is multiplied
 * right after. The floats are four (fp16: two) times the packed bytes; writing them all and
 * reading them back for the GEMM cost more memory traffic than the GEMM's own reads of B, and
 * a cache of them (weights.c) would have to compare the packed bytes on every use anyway, which
 * costs as much as reading them again for a decode.
 *
 * Two threads take chunks of tiles from a shared counter, each with a single-threaded GEMM: the
 * decode runs on both cores and the threads meet once per matmul, where a threaded sgemm per
 * chunk would meet at every chunk. Splitting N does not change any element's sum: each result
 * is the same K-ordered accumulation whichever columns share its call.
 *
 * fp16 multiplies with the simulator's own GEMM (gemm_cols.c), which takes the chunk where the
 * decode wrote it (a BLAS would copy it into its own layout first) and leaves out a trailing
 * run of zero weight rows (a plan's padded last K slice); its columns are COL_PAD floats longer
 * than K so that the kernel's columns, read side by side, do not fall on one cache set when K
 * is a multiple of 1024. The integer sums keep the BLAS. */
#include <stdatomic.h>

#include "rksim/elements.h"
#include "rksim/matmul.h"

enum {
    KRUN = 32,                /* the k's of one column in one K-tile, contiguous in both layouts */
    CHUNK_FLOATS = 1 << 21,   /* decoded floats per thread multiplied at once (8 MiB: in L3) */
    SPLIT_PRODUCTS = 1 << 22, /* products from which a second thread takes chunks too */
    MIN_CHUNKS = 8,           /* with two threads: chunks enough to even out their progress */
    COL_PAD = 16,             /* fp16: floats after each decoded column */
};

typedef struct stream {
    npk_rk_prec in;
    const uint8_t *packed;
    const float *a;
    const float *at;     /* fp16: A rearranged for rksim_gemm_cols */
    uint32_t a_finite;   /* fp16: every A element at k >= a_finite is finite */
    size_t ld;           /* floats between decoded columns */
    float *c;
    float *buf[2];       /* a chunk's floats for each thread */
    uint32_t m, k, n, g; /* shape; G: columns per N tile */
    uint32_t tiles, step; /* N tiles; tiles per chunk */
    atomic_uint next;     /* the first tile no thread has taken yet */
} stream;

/* A thread's part (lo: 0 the caller, 1 the helper): chunks taken one at a time from the shared
 * counter until none is left, so that a thread slowed by other work on its core (the runtime's
 * own threads, other processes) leaves more of them to the other rather than making it wait. */
static void stream_range(void *ctx, uint32_t lo, uint32_t hi)
{
    (void)hi;
    stream *st = ctx;
    float *buf = st->buf[lo];
    const uint32_t kts = st->k / KRUN;
    const size_t block_bytes = (size_t)st->g * KRUN * npk_rk_prec_bits(st->in) / 8;
    for (;;) {
        const uint32_t t0 = atomic_fetch_add(&st->next, st->step);
        if (t0 >= st->tiles)
            return;
        const uint32_t t1 = st->tiles - t0 < st->step ? st->tiles : t0 + st->step;
        for (uint32_t t = t0; t < t1; t++)
            for (uint32_t kt = 0; kt < kts; kt++)
                rksim_load_runs(st->in, st->packed + ((size_t)t * kts + kt) * block_bytes, KRUN,
                                st->g, buf + (size_t)(t - t0) * st->g * st->ld + (size_t)kt * KRUN,
                                st->ld);
        const uint32_t cols = (t1 - t0) * st->g;
        if (st->at) {
            const uint32_t live = rksim_gemm_cols_live_k(buf, st->ld, cols, st->k);
            rksim_gemm_cols(st->at, st->m, st->k, live > st->a_finite ? live : st->a_finite, buf,
                            st->ld, cols, st->c + (size_t)t0 * st->g, st->n);
        } else
            rksim_sgemm_nt(st->m, cols, st->k, st->a, st->k, buf, st->k,
                           st->c + (size_t)t0 * st->g, st->n);
    }
}

bool rksim_weights_sgemm(rksim *s, const rksim_mm *mm, const uint8_t *packed, const float *a,
                         float *c)
{
    const uint32_t tiles = mm->n / mm->ntile;
    const bool two = (uint64_t)mm->m * mm->n * mm->k >= SPLIT_PRODUCTS && tiles >= 2;
    /* at most CHUNK_FLOATS a chunk, and with two threads at least MIN_CHUNKS chunks */
    const bool cols = mm->in == NPK_PREC_FP16;
    const size_t ld = mm->k + (cols ? COL_PAD : 0);
    uint32_t step = (uint32_t)(CHUNK_FLOATS / ((uint64_t)ld * mm->ntile));
    if (two && step > tiles / MIN_CHUNKS)
        step = tiles / MIN_CHUNKS;
    step = step ? step : 1;
    const size_t chunk = (size_t)step * mm->ntile * ld;
    float *buf = rksim_scratch(s, RKSIM_SCRATCH_CHUNKS, (two ? 2 : 1) * chunk * sizeof *buf);
    float *at = cols ? rksim_scratch(s, RKSIM_SCRATCH_FEATURE_COLS,
                                     rksim_gemm_cols_a_floats(mm->m, mm->k) * sizeof *at)
                     : NULL;
    if (!buf || (cols && !at))
        return false;
    stream st = {.in = (npk_rk_prec)mm->in,
                 .packed = packed,
                 .a = a,
                 .at = at,
                 .a_finite = at ? rksim_gemm_cols_pack_a(a, mm->m, mm->k, at) : 0,
                 .ld = ld,
                 .c = c,
                 .buf = {buf, two ? buf + chunk : buf},
                 .m = mm->m,
                 .k = mm->k,
                 .n = mm->n,
                 .g = mm->ntile,
                 .tiles = tiles,
                 .step = step};
    atomic_init(&st.next, 0);
    const bool blas = two && !cols;
    if (blas)
        rksim_blas_single_begin();
    /* a part each for the caller and the helper (rksim_split2: both to the caller when no
     * helper runs, which then takes every chunk with the first buffer) */
    rksim_split2(stream_range, &st, 2, two);
    if (blas)
        rksim_blas_single_end();
    return true;
}
