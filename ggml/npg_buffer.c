/* SPDX-License-Identifier: MIT */
/* The buffer type: tensors in host memory in ggml's own layout (is_host: the CPU backend
 * reads and writes them as its own, so an op the NPU declines runs on the CPU without a
 * copy), and for the weights the NPU multiplies with, their packed copy (fp16, or int8 with
 * a scale per row: the type's form, npg_types.c) resident in the runtime's device memory.
 *
 * A weight tensor is packed the first time a matmul uses it, for every ne2 x ne3 matrix, and
 * kept until its bytes are written again through the buffer (set_tensor, memset, copy, clear)
 * or the buffer is freed: packing needs the matmul (which tensors are weights, and the M the
 * slicing is chosen for), which set_tensor does not know. In buffers marked as holding weights
 * (GGML_BACKEND_BUFFER_USAGE_WEIGHTS, as llama.cpp marks its model) that is the whole rule.
 * Other buffers (activations, the KV cache, a program that never marks its buffers, like
 * test-backend-ops) are also written by CPU ops that bypass the buffer interface, so a copy
 * made from them is used again only while a checksum of the bytes it was packed from still
 * matches (hashing costs a small fraction of packing); a copy that no longer matches is
 * replaced, and one overlapping a newly packed tensor's bytes dropped.
 *
 * Weights in other buffers — the CPU backend's, marked as weights, and its CPU_REPACK, whose
 * interleaved bytes are unpacked first (npg_repack.c) — are cached by the device under the
 * same checksum rule: their writes never pass through this file. */
#define _ISOC11_SOURCE /* aligned_alloc */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"

/* Tensor alignment: the NPU's DMA alignment, also enough for every ggml type's blocks. */
#define NPG_ALIGNMENT 64u

static const char *buft_name(ggml_backend_buffer_type_t buft)
{
    return ((npg_device *)buft->context)->name;
}

static size_t buft_alignment(ggml_backend_buffer_type_t buft)
{
    (void)buft;
    return NPG_ALIGNMENT;
}

static bool buft_is_host(ggml_backend_buffer_type_t buft)
{
    (void)buft;
    return true;
}

void npg_packed_free(npg_device *d, npg_packed *p)
{
    if (!p)
        return;
    d->resident -= p->resident;
    for (uint32_t i = 0; p->mat && i < p->count; i++) {
        if (p->mat[i].w)
            npk_rk_weights_free(d->rt, p->mat[i].w);
        free(p->mat[i].scale);
    }
    free(p->mat);
    free(p);
}

/* Unlink the packed copies made from [lo, hi) under the buffer's lock, then free them under
 * the device's: never both at once (a matmul holds the device's and then takes the buffer's). */
static void packed_drop_range(npg_buffer *b, size_t lo, size_t hi)
{
    npg_packed *dropped = NULL;
    pthread_mutex_lock(&b->lock);
    npg_packed **pp = &b->packed;
    while (*pp) {
        npg_packed *p = *pp;
        if (p->lo < hi && lo < p->hi) {
            *pp = p->next;
            p->next = dropped;
            dropped = p;
        } else {
            pp = &p->next;
        }
    }
    pthread_mutex_unlock(&b->lock);
    if (!dropped)
        return;
    pthread_mutex_lock(&b->dev->lock);
    while (dropped) {
        npg_packed *next = dropped->next;
        npg_packed_free(b->dev, dropped);
        dropped = next;
    }
    pthread_mutex_unlock(&b->dev->lock);
}

void npg_buffer_invalidate(ggml_backend_buffer_t buf, const void *data, size_t bytes)
{
    if (!buf || !npg_buft_is_ours(buf->buft))
        return;
    npg_buffer *b = buf->context;
    size_t lo = (size_t)((const uint8_t *)data - b->base);
    packed_drop_range(b, lo, lo + bytes);
}

static void buffer_free(ggml_backend_buffer_t buf)
{
    npg_buffer *b = buf->context;
    packed_drop_range(b, 0, SIZE_MAX);
    pthread_mutex_destroy(&b->lock);
    free(b->base);
    free(b);
}

static void *buffer_base(ggml_backend_buffer_t buf) { return ((npg_buffer *)buf->context)->base; }

static void buffer_memset(ggml_backend_buffer_t buf, struct ggml_tensor *t, uint8_t value,
                          size_t offset, size_t size)
{
    memset((uint8_t *)t->data + offset, value, size);
    npg_buffer_invalidate(buf, (uint8_t *)t->data + offset, size);
}

static void buffer_set(ggml_backend_buffer_t buf, struct ggml_tensor *t, const void *data,
                       size_t offset, size_t size)
{
    memcpy((uint8_t *)t->data + offset, data, size);
    npg_buffer_invalidate(buf, (uint8_t *)t->data + offset, size);
}

static void buffer_get(ggml_backend_buffer_t buf, const struct ggml_tensor *t, void *data,
                       size_t offset, size_t size)
{
    (void)buf;
    memcpy(data, (const uint8_t *)t->data + offset, size);
}

static bool buffer_cpy(ggml_backend_buffer_t buf, const struct ggml_tensor *src,
                       struct ggml_tensor *dst)
{
    if (!src->buffer || !ggml_backend_buffer_is_host(src->buffer))
        return false;
    memcpy(dst->data, src->data, ggml_nbytes(src));
    npg_buffer_invalidate(buf, dst->data, ggml_nbytes(src));
    return true;
}

static void buffer_clear(ggml_backend_buffer_t buf, uint8_t value)
{
    npg_buffer *b = buf->context;
    memset(b->base, value, b->size);
    packed_drop_range(b, 0, SIZE_MAX);
}

static void buffer_reset(ggml_backend_buffer_t buf)
{
    packed_drop_range(buf->context, 0, SIZE_MAX);
}

static const struct ggml_backend_buffer_i buffer_iface = {
    .free_buffer = buffer_free,
    .get_base = buffer_base,
    .memset_tensor = buffer_memset,
    .set_tensor = buffer_set,
    .get_tensor = buffer_get,
    .cpy_tensor = buffer_cpy,
    .clear = buffer_clear,
    .reset = buffer_reset,
};

static ggml_backend_buffer_t buft_alloc(ggml_backend_buffer_type_t buft, size_t size)
{
    npg_buffer *b = calloc(1, sizeof *b);
    /* a zero-sized buffer still gets a distinct, aligned base */
    size_t bytes = (size + NPG_ALIGNMENT - 1) / NPG_ALIGNMENT * NPG_ALIGNMENT;
    if (bytes == 0)
        bytes = NPG_ALIGNMENT;
    if (b)
        b->base = aligned_alloc(NPG_ALIGNMENT, bytes);
    if (!b || !b->base) {
        fprintf(stderr, "ggml-npukit: %s: cannot allocate %zu bytes\n", buft_name(buft), size);
        free(b);
        return NULL;
    }
    b->dev = buft->context;
    b->size = size;
    pthread_mutex_init(&b->lock, NULL);
    return ggml_backend_buffer_init(buft, buffer_iface, b, size);
}

static const struct ggml_backend_buffer_type_i buft_iface = {
    .get_name = buft_name,
    .alloc_buffer = buft_alloc,
    .get_alignment = buft_alignment,
    .is_host = buft_is_host,
};

void npg_buft_init(npg_device *d)
{
    d->buft.iface = buft_iface;
    d->buft.device = &d->dev;
    d->buft.context = d;
}

bool npg_buft_is_ours(ggml_backend_buffer_type_t buft)
{
    return buft && buft->iface.alloc_buffer == buft_alloc;
}

/* Matrix `mat` (N rows of K at `rows`) in form f: its rows as fp16 bits, or as int8 with a scale
 * per row, in `bytes` (N K of them, 2 bytes each for fp16); false when the form cannot hold a
 * value (fp16: beyond its range; int8: not finite), and the matrix runs on the host. */
static bool matrix_rows(const struct ggml_tensor *src0, const uint8_t *mat, npg_form f,
                        float *tmp, void *bytes, float *scale)
{
    const int64_t k = src0->ne[0], n = src0->ne[1];
    bool in_range = true;
    for (int64_t r = 0; r < n && in_range; r++) {
        const uint8_t *row = mat + r * src0->nb[1];
        if (f == NPG_FORM_FP16) {
            in_range = npg_row_to_fp16(src0->type, row, k, tmp, (uint16_t *)bytes + r * k);
        } else {
            npg_tensor_row_f32(src0, row, tmp);
            in_range = npg_quantise_row(tmp, k, (int8_t *)bytes + r * k, &scale[r]);
        }
    }
    return in_range;
}

/* Pack every matrix of src0, whose bytes in ggml's layout are at `bytes`, in its type's form
 * (the caller holds d->lock). */
static npg_packed *pack(npg_device *d, const struct ggml_tensor *src0, const uint8_t *bytes,
                        uint32_t m_hint)
{
    const int64_t k = src0->ne[0], n = src0->ne[1];
    const npg_form form = npg_form_of(src0->type);
    const npk_rk_prec prec = npg_form_info(form)->in;
    npg_packed *p = calloc(1, sizeof *p);
    void *rows = malloc((size_t)(k * n) * 2); /* fp16: 2 bytes per weight, int8: 1 */
    float *tmp = malloc((size_t)k * sizeof *tmp);
    if (p) {
        p->count = (uint32_t)(src0->ne[2] * src0->ne[3]);
        p->mat = calloc(p->count, sizeof *p->mat);
    }
    if (!p || !rows || !tmp || !p->mat) {
        fprintf(stderr, "ggml-npukit: cannot allocate the packing of %s (%lld x %lld)\n",
                src0->name, (long long)n, (long long)k);
        goto fail;
    }
    p->data = src0->data;
    p->type = src0->type;
    p->form = form;
    memcpy(p->ne, src0->ne, sizeof p->ne);
    memcpy(p->nb, src0->nb, sizeof p->nb);
    for (int64_t i3 = 0; i3 < src0->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < src0->ne[2]; i2++) {
            const uint8_t *mat = bytes + i2 * src0->nb[2] + i3 * src0->nb[3];
            npg_matrix *m = &p->mat[i3 * src0->ne[2] + i2];
            if (form == NPG_FORM_INT8_ROW && !(m->scale = malloc((size_t)n * sizeof *m->scale))) {
                fprintf(stderr, "ggml-npukit: cannot allocate the scales of %s\n", src0->name);
                goto fail;
            }
            if (!matrix_rows(src0, mat, form, tmp, rows, m->scale)) {
                /* weights the form cannot hold: this matrix runs on the host, in fp32 */
                if (npg_settings_get()->verbose)
                    fprintf(stderr, "ggml-npukit: %s matrix %lld beyond the %s form: host\n",
                            src0->name, (long long)(m - p->mat), npk_rk_prec_name(prec));
                continue;
            }
            npk_status st = npk_rk_weights_pack_layout(d->rt, prec, (uint32_t)k, (uint32_t)n, rows,
                                                       NPK_RK_TRANSPOSED, m_hint, &m->w);
            if (st != NPK_OK) {
                fprintf(stderr, "ggml-npukit: packing %s (%lld x %lld, %s): %s: %s\n", src0->name,
                        (long long)n, (long long)k, npk_rk_prec_name(prec), npk_status_name(st),
                        npk_last_error());
                goto fail;
            }
            d->counters.packs++;
            p->resident += npk_rk_b_layout_bytes(prec, (uint32_t)k, (uint32_t)n, NPK_RK_NATIVE);
        }
    free(rows);
    free(tmp);
    return p;
fail:
    free(rows);
    free(tmp);
    npg_packed_free(d, p);
    return NULL;
}

/* pack() from wherever src0 lives: a weight the CPU keeps repacked is unpacked first. */
static npg_packed *pack_any(npg_device *d, const struct ggml_tensor *src0, uint32_t m_hint)
{
    void *owned;
    const uint8_t *bytes = npg_weights_plain(src0, &owned);
    npg_packed *p = bytes ? pack(d, src0, bytes, m_hint) : NULL;
    free(owned);
    return p;
}

static bool packed_matches(const npg_packed *p, const struct ggml_tensor *t)
{
    return p->data == t->data && p->type == t->type && p->form == npg_form_of(t->type) &&
           !memcmp(p->ne, t->ne, sizeof p->ne) &&
           !memcmp(p->nb, t->nb, sizeof p->nb);
}

/* The checksum of the bytes src0 spans. */
static uint64_t bytes_sum(const struct ggml_tensor *t)
{
    return npk_rk_checksum(t->data, ggml_nbytes(t));
}

npg_packed *npg_packed_get(npg_device *d, const struct ggml_tensor *src0, uint32_t m_hint,
                           bool *owned)
{
    ggml_backend_buffer_t buf = src0->buffer;
    /* our buffers cache their own; weights elsewhere (the CPU's buffers, CPU_REPACK) are
     * cached by the device, checked by checksum since their writes bypass us */
    const bool ours = buf && npg_buft_is_ours(buf->buft);
    npg_buffer *b =
        ours ? buf->context
        : buf && (buf->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS || npg_repack_held(src0))
            ? d->foreign
            : NULL;
    *owned = !b;
    if (!b) {
        npg_packed *once = pack_any(d, src0, m_hint);
        if (once)
            once->resident = 0; /* this call's: freed when it returns */
        return once;
    }
    const bool weights = ours && buf->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS;
    const uint64_t sum = weights ? 0 : bytes_sum(src0);
    /* the foreign cache's base is 0: its ranges are addresses */
    const size_t lo = (size_t)((uintptr_t)src0->data - (uintptr_t)b->base),
                 hi = lo + ggml_nbytes(src0);
    npg_packed *stale = NULL;
    pthread_mutex_lock(&b->lock);
    npg_packed **pp = &b->packed, *p = NULL;
    while (*pp) {
        npg_packed *q = *pp;
        if (packed_matches(q, src0) && q->sum == sum) {
            p = q;
            break;
        }
        if (!weights && q->lo < hi && lo < q->hi) { /* replaced: its bytes are this tensor's */
            *pp = q->next;
            q->next = stale;
            stale = q;
            continue;
        }
        pp = &q->next;
    }
    if (!p) {
        /* kept for every later call: sliced for prefill-sized M even when the first call is a
         * decode (see NPG_RESIDENT_M_HINT) */
        p = pack_any(d, src0, m_hint > NPG_RESIDENT_M_HINT ? m_hint : NPG_RESIDENT_M_HINT);
        if (p) {
            p->lo = lo;
            p->hi = hi;
            p->sum = sum;
            p->next = b->packed;
            b->packed = p;
            d->resident += p->resident;
        }
    }
    pthread_mutex_unlock(&b->lock);
    while (stale) { /* the caller holds d->lock, which freeing needs */
        npg_packed *next = stale->next;
        npg_packed_free(d, stale);
        stale = next;
    }
    return p;
}

bool npg_foreign_init(npg_device *d)
{
    d->foreign = calloc(1, sizeof *d->foreign);
    if (!d->foreign)
        return false;
    d->foreign->dev = d;
    pthread_mutex_init(&d->foreign->lock, NULL);
    return true;
}

void npg_foreign_free(npg_device *d)
{
    if (!d->foreign)
        return;
    packed_drop_range(d->foreign, 0, SIZE_MAX);
    pthread_mutex_destroy(&d->foreign->lock);
    free(d->foreign);
    d->foreign = NULL;
}
