/* SPDX-License-Identifier: MIT */
/* A matmul's weights in the byte kernels' form (int4, int8) or as floats b[N][K] (integer sums
 * beyond the fp32 chunk), decoded from the packed block [N/G][K/32][G][32] (facts D.1) in one
 * pass over the packed bytes. fp16 and the fp32-exact integer sums without a byte kernel
 * decode in chunks instead and keep nothing (weights_stream.c).
 *
 * The simulator keeps what it decoded for the last RKSIM_WEIGHT_ENTRIES weight addresses, within
 * rksim_config.weight_cache_mib (a simulator's memory, bounded because a long-lived process may
 * cycle through a whole model's weights): a plan's M tiles read each K slice's weights again, a
 * core's tasks cycle through the slices, the cores of a call interleave their submits, and a plan
 * that splits M over the cores has every core read every block. One cache serves every core:
 * the simulator answers one request at a time.
 * An entry is used only when the packed bytes equal the copy it keeps (written in the decode's
 * pass, compared byte for byte): a change anywhere decodes again.
 *
 * A large block is decoded by two threads, each a half of the N tiles: the decode is bound by
 * memory traffic, which one core does not saturate. */
#include <stdlib.h>
#include <string.h>

#include "rksim/elements.h"
#include "rksim/matmul.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WEIGHTS_X86 1
#endif

enum {
    KRUN = 32,              /* the k's of one column in one K-tile, contiguous in both layouts */
    SPLIT_BYTES = 1 << 18,  /* packed bytes from which a second thread decodes half the tiles */
    STREAM_BYTES = 1 << 22, /* packed bytes from which their copy bypasses the caches */
};

typedef struct part {
    npk_rk_prec in;
    const uint8_t *packed;    /* the whole block */
    uint8_t *copy;            /* where the packed bytes are copied too */
    bool stream;              /* around the caches (copy_block) */
    float *b;                 /* the floats, or NULL: */
    uint8_t *kb;              /* the byte kernels' form (int4, int8) */
    uint32_t g, k, n, t0, t1; /* the N tiles [t0, t1) */
} part;

/* The copy is read only by a later matmul's comparison. A large one (stream: from
 * STREAM_BYTES, beside floats twice to eight times its size) would not stay in the caches
 * anyway: on x86 it is written around them (SSE2 streaming stores, every x86-64 has them),
 * which leaves them to the floats the GEMM reads next and saves reading the destination lines
 * in first. A small one stays cached for the next M tile's comparison. dst is 16-byte aligned
 * (a malloc'ed copy at a multiple of a block's bytes), n a multiple of 16. */
static void copy_block(uint8_t *dst, const uint8_t *src, size_t n, bool stream)
{
#ifdef WEIGHTS_X86
    if (stream && (uintptr_t)dst % 16 == 0 && n % 16 == 0) {
        for (size_t i = 0; i < n; i += 16)
            _mm_stream_si128((__m128i *)(void *)(dst + i),
                             _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
        return;
    }
#else
    (void)stream;
#endif
    memcpy(dst, src, n);
}

static void decode_part(const part *d)
{
    const uint32_t kts = d->k / KRUN;
    const size_t block_bytes = (size_t)d->g * KRUN * npk_rk_prec_bits(d->in) / 8;
    for (uint32_t t = d->t0; t < d->t1; t++)
        for (uint32_t kt = 0; kt < kts; kt++) {
            size_t at = ((size_t)t * kts + kt) * block_bytes;
            /* while the bytes are in L1 */
            copy_block(d->copy + at, d->packed + at, block_bytes, d->stream);
            if (d->kb && d->in == NPK_PREC_INT4)
                for (uint32_t nl = 0; nl < d->g; nl++)
                    rksim_gemm_i4_put(d->kb, d->k, d->n, t * d->g + nl, kt,
                                      d->packed + at + (size_t)nl * KRUN / 2);
            else if (d->kb)
                for (uint32_t nl = 0; nl < d->g; nl++)
                    rksim_gemm_i8_put(d->kb, d->k, d->n, t * d->g + nl, kt,
                                      (const int8_t *)(d->packed + at + (size_t)nl * KRUN));
            else
                rksim_load_runs(d->in, d->packed + at, KRUN, d->g,
                                d->b + (size_t)t * d->g * d->k + (size_t)kt * KRUN, d->k);
        }
#ifdef WEIGHTS_X86
    if (d->stream)
        _mm_sfence(); /* the streamed copy is complete before anyone compares against it */
#endif
}

static void decode_range(void *ctx, uint32_t lo, uint32_t hi)
{
    part d = *(const part *)ctx;
    d.t0 = lo;
    d.t1 = hi;
    decode_part(&d);
}

/* A buffer of exactly `bytes`, its old contents dropped: a larger one taken over from other
 * weights would hold more than the budget counted for the entry. */
static void *resize(void *p, size_t *cap, size_t bytes)
{
    if (bytes == *cap)
        return p;
    free(p);
    p = malloc(bytes);
    *cap = p ? bytes : 0;
    return p;
}

static size_t entry_bytes(const rksim_weights_cache *e) { return e->data_cap + e->packed_cap; }

static void entry_free(rksim_weights_cache *e)
{
    free(e->data);
    free(e->packed);
    memset(e, 0, sizeof *e);
}

/* The entry for mm's weights: the one read at the same address in the same shape and form,
 * else a free one or the least recently used, after dropping the least recently used others
 * until `need` more bytes fit the budget. */
static rksim_weights_cache *entry_for(rksim *s, const rksim_mm *mm, bool byte_form, size_t need,
                                      size_t budget)
{
    rksim_weights_cache *e = s->weights, *victim = NULL;
    for (int i = 0; i < RKSIM_WEIGHT_ENTRIES; i++)
        if (e[i].valid && e[i].addr == mm->weight && e[i].in == mm->in && e[i].k == mm->k &&
            e[i].n == mm->n && e[i].byte_form == byte_form)
            return &e[i];
    for (int i = 0; i < RKSIM_WEIGHT_ENTRIES; i++)
        if (!victim || (victim->valid && (!e[i].valid || e[i].used < victim->used)))
            victim = &e[i];
    for (;;) {
        size_t held = 0;
        rksim_weights_cache *oldest = NULL;
        for (int i = 0; i < RKSIM_WEIGHT_ENTRIES; i++) {
            held += entry_bytes(&e[i]);
            if (&e[i] != victim && entry_bytes(&e[i]) && (!oldest || e[i].used < oldest->used))
                oldest = &e[i];
        }
        if (!oldest || held - entry_bytes(victim) + need <= budget) {
            victim->valid = false; /* it held other weights */
            return victim;
        }
        entry_free(oldest);
    }
}

/* The cached form (byte_form: the byte kernels') of mm's weights, decoded anew when the bytes
 * changed. */
static const void *weights_get(rksim *s, const rksim_mm *mm, const uint8_t *packed, bool byte_form)
{
    const uint64_t bytes = (uint64_t)mm->k * mm->n * mm->in_bits / 8;
    const size_t data = byte_form ? rksim_gemm_bytes_size(mm->k, mm->n) : (size_t)mm->k * mm->n * 4;
    /* the configured size (one entry always fits, whatever its size) */
    const uint64_t mib = s->cfg.weight_cache_mib;
    const size_t budget = mib << 20 > SIZE_MAX ? SIZE_MAX : (size_t)(mib << 20);
    rksim_weights_cache *e = entry_for(s, mm, byte_form, data + bytes, budget);
    e->used = ++s->matmuls;
    if (e->valid && !memcmp(e->packed, packed, bytes))
        return e->data;
    e->valid = false;
    e->data = resize(e->data, &e->data_cap, data);
    e->packed = resize(e->packed, &e->packed_cap, bytes);
    if (!e->data || !e->packed)
        return NULL;
    part whole = {.in = (npk_rk_prec)mm->in,
                  .packed = packed,
                  .copy = e->packed,
                  .stream = bytes >= STREAM_BYTES,
                  .b = byte_form ? NULL : e->data,
                  .kb = byte_form ? e->data : NULL,
                  .g = mm->ntile,
                  .k = mm->k,
                  .n = mm->n};
    rksim_split2(decode_range, &whole, mm->n / mm->ntile, bytes >= SPLIT_BYTES);
    e->valid = true;
    e->byte_form = byte_form;
    e->in = mm->in;
    e->addr = mm->weight;
    e->k = mm->k;
    e->n = mm->n;
    return e->data;
}

const float *rksim_weights_floats(rksim *s, const rksim_mm *mm, const uint8_t *packed)
{
    return weights_get(s, mm, packed, false);
}

const uint8_t *rksim_weights_bytes(rksim *s, const rksim_mm *mm, const uint8_t *packed)
{
    return weights_get(s, mm, packed, true);
}

size_t rksim_weights_held(const rksim_weights_cache *wc)
{
    size_t held = 0;
    for (int i = 0; i < RKSIM_WEIGHT_ENTRIES; i++)
        held += entry_bytes(&wc[i]);
    return held;
}

void rksim_weights_free(rksim_weights_cache *wc)
{
    for (int i = 0; i < RKSIM_WEIGHT_ENTRIES; i++)
        entry_free(&wc[i]);
}
