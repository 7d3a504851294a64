/* SPDX-License-Identifier: MIT */
/* A matmul's weights as floats b[N][K], decoded from the packed block [N/G][K/32][G][32]
 * (facts D.1) in one pass over the packed bytes.
 *
 * Each core keeps the floats it decoded last: a plan's M tiles read the same weights again, and
 * the cores of a call interleave their submits, so one cache for the whole simulator would
 * decode every task anew. Whether the bytes are the same is decided byte for byte, by the
 * cheaper of two ways: inputs of 8 bits and narrower keep a copy of the packed bytes (an eighth
 * to a quarter of the floats' size, written in the same pass) and compare against it; fp16
 * compares each decoded run against the floats kept (the decode is one-to-one, NaN payloads
 * included), which a copy half the floats' size would cost more than. Either way a change
 * anywhere decodes again.
 *
 * A large block is decoded by two threads, each a half of the N tiles: the decode is bound by
 * memory traffic, which one core does not saturate. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rksim/elements.h"
#include "rksim/matmul.h"

enum {
    KRUN = 32,             /* the k's of one column in one K-tile, contiguous in both layouts */
    MAX_G = 64,            /* the widest weight tile (int4, facts D.1) */
    SPLIT_BYTES = 1 << 18, /* packed bytes from which a second thread decodes half the tiles */
};

typedef struct part {
    npk_rk_prec in;
    const uint8_t *packed; /* the whole block */
    uint8_t *copy;         /* where the packed bytes are copied too; NULL: no copy */
    float *b;
    uint32_t g, k, t0, t1; /* the N tiles [t0, t1) */
    bool check;            /* b holds the floats of the same layout: write from the first change */
} part;

static void decode_part(part *d)
{
    const uint32_t kts = d->k / KRUN;
    const size_t block_bytes = (size_t)d->g * KRUN * npk_rk_prec_bits(d->in) / 8;
    float tmp[MAX_G * KRUN];
    for (uint32_t t = d->t0; t < d->t1; t++)
        for (uint32_t kt = 0; kt < kts; kt++) {
            size_t at = ((size_t)t * kts + kt) * block_bytes;
            float *dst = d->b + (size_t)t * d->g * d->k + (size_t)kt * KRUN;
            if (d->copy)
                memcpy(d->copy + at, d->packed + at, block_bytes);
            if (!d->check) {
                rksim_load_runs(d->in, d->packed + at, KRUN, d->g, dst, d->k);
                continue;
            }
            rksim_load_runs(d->in, d->packed + at, KRUN, d->g, tmp, KRUN);
            for (uint32_t nl = 0; nl < d->g; nl++) {
                float *run = dst + (size_t)nl * d->k;
                if (d->check && memcmp(run, tmp + nl * KRUN, sizeof tmp[0] * KRUN))
                    d->check = false; /* the first change: from here on every run is written */
                if (!d->check)
                    memcpy(run, tmp + nl * KRUN, sizeof tmp[0] * KRUN);
            }
        }
}

static void *decode_thread(void *arg)
{
    decode_part(arg);
    return NULL;
}

/* A buffer of at least `bytes`, its old contents dropped. */
static void *grow(void *p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return p;
    free(p);
    p = malloc(bytes);
    *cap = p ? bytes : 0;
    return p;
}

const float *rksim_weights_floats(rksim *s, unsigned core, const rksim_mm *mm,
                                  const uint8_t *packed)
{
    rksim_weights_cache *wc = &s->core[core].weights;
    const npk_rk_prec in = (npk_rk_prec)mm->in;
    const uint64_t bytes = (uint64_t)mm->k * mm->n * mm->in_bits / 8;
    const bool keep_copy = mm->in_bits <= 8;
    const bool same_shape = wc->valid && wc->in == mm->in && wc->k == mm->k && wc->n == mm->n;
    if (same_shape && keep_copy && !memcmp(wc->packed, packed, bytes))
        return wc->b;
    wc->valid = false;
    size_t floats_cap = wc->b_cap;
    wc->b = grow(wc->b, &wc->b_cap, (size_t)mm->k * mm->n * sizeof *wc->b);
    bool kept = wc->b && wc->b_cap == floats_cap; /* not reallocated: the floats are still there */
    if (keep_copy)
        wc->packed = grow(wc->packed, &wc->packed_cap, bytes);
    if (!wc->b || (keep_copy && !wc->packed))
        return NULL;
    const uint32_t tiles = mm->n / mm->ntile;
    part half[2];
    half[0] = (part){.in = in,
                     .packed = packed,
                     .copy = keep_copy ? wc->packed : NULL,
                     .b = wc->b,
                     .g = mm->ntile,
                     .k = mm->k,
                     .t0 = 0,
                     .t1 = tiles,
                     .check = same_shape && kept && !keep_copy};
    half[1] = half[0];
    pthread_t th;
    bool two = bytes >= SPLIT_BYTES && tiles >= 2;
    if (two) {
        half[0].t1 = half[1].t0 = tiles / 2;
        two = pthread_create(&th, NULL, decode_thread, &half[1]) == 0;
        if (!two)
            half[0].t1 = tiles; /* no second thread: this one decodes everything */
    }
    decode_part(&half[0]);
    if (two)
        pthread_join(th, NULL);
    *wc = (rksim_weights_cache){.b = wc->b,
                                .b_cap = wc->b_cap,
                                .packed = wc->packed,
                                .packed_cap = wc->packed_cap,
                                .valid = true,
                                .in = mm->in,
                                .k = mm->k,
                                .n = mm->n};
    return wc->b;
}

void rksim_weights_free(rksim_weights_cache *wc)
{
    free(wc->b);
    free(wc->packed);
    memset(wc, 0, sizeof *wc);
}
