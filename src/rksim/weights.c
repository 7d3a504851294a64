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
    const uint8_t *packed;    /* the whole block */
    uint8_t *copy;            /* where the packed bytes are copied too; NULL: no copy */
    float *b;                 /* the floats, or NULL: */
    uint8_t *i4;              /* the int4 kernel's form */
    uint32_t g, k, n, t0, t1; /* the N tiles [t0, t1) */
    bool check; /* b holds the floats of the same layout: write from the first change */
} part;

static void decode_part(part *d)
{
    const uint32_t kts = d->k / KRUN;
    const size_t block_bytes = (size_t)d->g * KRUN * npk_rk_prec_bits(d->in) / 8;
    float tmp[MAX_G * KRUN];
    for (uint32_t t = d->t0; t < d->t1; t++)
        for (uint32_t kt = 0; kt < kts; kt++) {
            size_t at = ((size_t)t * kts + kt) * block_bytes;
            float *dst = d->b ? d->b + (size_t)t * d->g * d->k + (size_t)kt * KRUN : NULL;
            if (d->copy)
                memcpy(d->copy + at, d->packed + at, block_bytes);
            if (d->i4) {
                for (uint32_t nl = 0; nl < d->g; nl++)
                    rksim_gemm_i4_put(d->i4, d->k, d->n, t * d->g + nl, kt,
                                      d->packed + at + (size_t)nl * KRUN / 2);
                continue;
            }
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

static void decode_range(void *ctx, uint32_t lo, uint32_t hi)
{
    part d = *(const part *)ctx;
    d.t0 = lo;
    d.t1 = hi;
    decode_part(&d);
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

/* The cached form (i4: the int4 kernel's) of mm's weights, decoded anew when the bytes or the
 * form changed. */
static const void *weights_get(rksim *s, unsigned core, const rksim_mm *mm, const uint8_t *packed,
                               bool i4)
{
    rksim_weights_cache *wc = &s->core[core].weights;
    const uint64_t bytes = (uint64_t)mm->k * mm->n * mm->in_bits / 8;
    const bool keep_copy = mm->in_bits <= 8;
    const bool same =
        wc->valid && wc->in == mm->in && wc->k == mm->k && wc->n == mm->n && wc->i4_form == i4;
    if (same && keep_copy && !memcmp(wc->packed, packed, bytes))
        return wc->data;
    wc->valid = false;
    size_t old_cap = wc->data_cap;
    wc->data = grow(wc->data, &wc->data_cap,
                    i4 ? rksim_gemm_i4_bytes(mm->k, mm->n) : (size_t)mm->k * mm->n * sizeof(float));
    bool kept = wc->data && wc->data_cap == old_cap; /* not reallocated: the floats are there */
    if (keep_copy)
        wc->packed = grow(wc->packed, &wc->packed_cap, bytes);
    if (!wc->data || (keep_copy && !wc->packed))
        return NULL;
    part whole = {.in = (npk_rk_prec)mm->in,
                  .packed = packed,
                  .copy = keep_copy ? wc->packed : NULL,
                  .b = i4 ? NULL : wc->data,
                  .i4 = i4 ? wc->data : NULL,
                  .g = mm->ntile,
                  .k = mm->k,
                  .n = mm->n,
                  .check = same && kept && !keep_copy};
    rksim_split2(decode_range, &whole, mm->n / mm->ntile, bytes >= SPLIT_BYTES);
    wc->valid = true;
    wc->i4_form = i4;
    wc->in = mm->in;
    wc->k = mm->k;
    wc->n = mm->n;
    return wc->data;
}

const float *rksim_weights_floats(rksim *s, unsigned core, const rksim_mm *mm,
                                  const uint8_t *packed)
{
    return weights_get(s, core, mm, packed, false);
}

const uint8_t *rksim_weights_i4(rksim *s, unsigned core, const rksim_mm *mm, const uint8_t *packed)
{
    return weights_get(s, core, mm, packed, true);
}

void rksim_weights_free(rksim_weights_cache *wc)
{
    free(wc->data);
    free(wc->packed);
    memset(wc, 0, sizeof *wc);
}
