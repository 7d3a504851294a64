/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Operand layouts at the runtime's API: B row-major, transposed or native (segmented above
 * NPK_RK_NATIVE_B_SEGMENT_K), A and C row-major or native; and weights bound to a device
 * buffer, read at every call (in place, or through a checksummed copy). The matmul that takes
 * native A and C is runtime_matmul_layout.c, above the matmul spine. */
#include <stdlib.h>
#include <string.h>

#include "rk/layout/rk_layout.h"
#include "runtime_layout.h"
#include "runtime_weights.h"

/* Bytes of one element in the user's row-major arrays (int4: one int8_t per element). */
static size_t user_bytes(npk_rk_prec p) { return p == NPK_PREC_INT4 ? 1 : npk_rk_prec_bits(p) / 8; }

static bool weight_prec(npk_rk_prec in)
{
    return in == NPK_PREC_FP16 || in == NPK_PREC_INT8 || in == NPK_PREC_INT4;
}

/* K of native-B segment s (of ceil(K / segment) segments). */
static uint32_t segment_k(uint32_t k, uint32_t s)
{
    uint32_t k0 = s * NPK_RK_NATIVE_B_SEGMENT_K;
    return k - k0 < NPK_RK_NATIVE_B_SEGMENT_K ? k - k0 : NPK_RK_NATIVE_B_SEGMENT_K;
}

static uint32_t segments(uint32_t k)
{
    return (k + NPK_RK_NATIVE_B_SEGMENT_K - 1) / NPK_RK_NATIVE_B_SEGMENT_K;
}

uint64_t npk_rk_b_layout_bytes(npk_rk_prec in, uint32_t k, uint32_t n, npk_rk_layout layout)
{
    if (!weight_prec(in) || !k || !n)
        return 0;
    if (layout != NPK_RK_NATIVE)
        return (uint64_t)k * n * user_bytes(in);
    uint64_t total = 0;
    for (uint32_t s = 0; s < segments(k); s++)
        total += npk_rk_b_bytes(in, segment_k(k, s), n);
    return total;
}

static npk_status check_b(npk_rk_prec in, uint32_t k, uint32_t n, npk_rk_layout layout,
                          const char *what)
{
    if (!weight_prec(in))
        return npk_fail(NPK_EINVAL, "%s: B dtype %s (fp16, int8 or int4)", what,
                        npk_rk_prec_name(in) ? npk_rk_prec_name(in) : "?");
    if (!k || !n || k > NPK_RK_LAYOUT_MAX_DIM || n > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_EINVAL, "%s: K=%u N=%u: each must be 1..%zu", what, k, n,
                        (size_t)NPK_RK_LAYOUT_MAX_DIM);
    if (layout != NPK_RK_ROWS && layout != NPK_RK_NATIVE && layout != NPK_RK_TRANSPOSED)
        return npk_fail(NPK_EINVAL, "%s: B layout %d (0 rows, 1 native, 2 transposed)", what,
                        (int)layout);
    return NPK_OK;
}

npk_status npk_rk_b_to_native(npk_rk_prec in, uint32_t k, uint32_t n, const void *b, void *dst,
                              uint64_t dst_size)
{
    npk_status s = check_b(in, k, n, NPK_RK_NATIVE, "b_to_native");
    if (s)
        return s;
    if (!b || !dst)
        return npk_fail(NPK_EINVAL, "b_to_native: NULL %s", b ? "destination" : "B");
    if (dst_size < npk_rk_b_layout_bytes(in, k, n, NPK_RK_NATIVE))
        return npk_fail(NPK_EINVAL, "b_to_native: %llu bytes for a native B of %llu",
                        (unsigned long long)dst_size,
                        (unsigned long long)npk_rk_b_layout_bytes(in, k, n, NPK_RK_NATIVE));
    const npk_rk_cmatrix bm = {b, k, n, n};
    uint64_t off = 0;
    for (uint32_t g = 0; s == NPK_OK && g < segments(k); g++) {
        uint32_t k0 = g * NPK_RK_NATIVE_B_SEGMENT_K, len = segment_k(k, g);
        s = npk_rk_pack_b(in, &bm, (npk_rk_range){k0, k0 + len}, (npk_rk_range){0, n},
                          (uint8_t *)dst + off, (size_t)(dst_size - off));
        off += npk_rk_b_bytes(in, len, n);
    }
    return s;
}

npk_status npk_rk_b_rows(npk_rk_prec in, uint32_t k, uint32_t n, const void *src,
                         npk_rk_layout layout, const void **rows, void **owned)
{
    *owned = NULL;
    *rows = src;
    if (layout == NPK_RK_ROWS)
        return NPK_OK;
    size_t eb = user_bytes(in);
    uint8_t *dst = malloc((size_t)k * n * eb);
    if (!dst)
        return npk_fail(NPK_ENOMEM, "B of %u x %u: no memory to convert its layout", k, n);
    npk_status s = NPK_OK;
    if (layout == NPK_RK_TRANSPOSED) {
        const uint8_t *t = src;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < k; i++)
                memcpy(dst + (i * n + j) * eb, t + (j * k + i) * eb, eb);
    } else {
        const npk_rk_matrix bm = {dst, k, n, n};
        uint64_t off = 0, total = npk_rk_b_layout_bytes(in, k, n, NPK_RK_NATIVE);
        for (uint32_t g = 0; s == NPK_OK && g < segments(k); g++) {
            uint32_t k0 = g * NPK_RK_NATIVE_B_SEGMENT_K, len = segment_k(k, g);
            s = npk_rk_unpack_b(in, (const uint8_t *)src + off, (size_t)(total - off), &bm,
                                (npk_rk_range){k0, k0 + len}, (npk_rk_range){0, n});
            off += npk_rk_b_bytes(in, len, n);
        }
    }
    if (s) {
        free(dst);
        return s;
    }
    *rows = dst;
    *owned = dst;
    return NPK_OK;
}

npk_status npk_rk_weights_pack_layout(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                      const void *b, npk_rk_layout layout, uint32_t m_hint,
                                      npk_rk_weights **out)
{
    if (out)
        *out = NULL;
    npk_status s = check_b(in, k, n, layout, "weights_pack");
    if (s)
        return s;
    if (!b || !rt || !out)
        return npk_fail(NPK_EINVAL, "weights_pack: NULL %s",
                        !b    ? "B"
                        : !rt ? "runtime"
                              : "output handle");
    const void *rows;
    void *owned;
    if ((s = npk_rk_b_rows(in, k, n, b, layout, &rows, &owned)))
        return s;
    s = npk_rk_weights_pack(rt, in, k, n, rows, m_hint, out);
    free(owned);
    return s;
}

/* ---- weights bound to a buffer ------------------------------------------------------------ */

npk_status npk_rk_weights_bind(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                               npk_rk_buffer *buf, uint64_t offset, npk_rk_layout layout,
                               uint32_t m_hint, npk_rk_weights **out)
{
    if (out)
        *out = NULL;
    npk_status s = check_b(in, k, n, layout, "weights_bind");
    if (s)
        return s;
    if (!rt || !buf || !out)
        return npk_fail(NPK_EINVAL, "weights_bind: NULL %s",
                        !rt    ? "runtime"
                        : !buf ? "buffer"
                               : "output handle");
    uint64_t bytes = npk_rk_b_layout_bytes(in, k, n, layout);
    if (offset > buf->mem.size || bytes > buf->mem.size - offset)
        return npk_fail(NPK_EINVAL,
                        "weights_bind: B of %llu bytes at offset %llu does not fit "
                        "the %llu-byte buffer",
                        (unsigned long long)bytes, (unsigned long long)offset,
                        (unsigned long long)buf->mem.size);
    /* In place: the segments are the slices (each within one task's K), int4 excluded (its
     * slices stay short so the int16 partials are exact), the buffer on this engine (its IOVA
     * means nothing to another device) and readable by every core (a buffer lives in core 0's
     * address space where each core has its own). */
    bool in_place = layout == NPK_RK_NATIVE && in != NPK_PREC_INT4 && buf->eng == rt->eng &&
                    buf->mem.handle && offset % 64 == 0 && !rt->eng->core_spaces;
    uint32_t kp = (uint32_t)npk_rk_k_padded(k);
    uint32_t ks = !in_place ? 0 : kp < NPK_RK_NATIVE_B_SEGMENT_K ? kp : NPK_RK_NATIVE_B_SEGMENT_K;
    npk_rk_weights *w;
    if ((s = npk_rk_weights_new(rt, in, k, n, m_hint, ks, &w)))
        return s;
    w->src = buf;
    w->src_off = offset;
    w->src_bytes = bytes;
    w->layout = layout;
    w->in_place = in_place;
    if (in_place) {
        w->mem = buf->mem;
        w->mem.host = (uint8_t *)buf->mem.host + offset;
        w->mem.iova = buf->mem.iova + (uint32_t)offset;
        w->mem.size = bytes;
    } else {
        s = npk_rk_weights_place(rt, w); /* packed at every refresh, as packed weights are */
        if (s) {
            free(w);
            return s;
        }
    }
    *out = w;
    return NPK_OK;
}

bool npk_rk_weights_in_place(const npk_rk_weights *w) { return w && w->in_place; }

npk_status npk_rk_weights_refresh(npk_rk *rt, npk_rk_weights *w, npk_rk_stats *st)
{
    npk_rk_buffer *buf = w->src;
    if (w->in_place) /* the buffer's own way (an imported dma-buf syncs through its fd) */
        return npk_rk_buffer_sync(buf, w->src_off, w->src_bytes, NPK_RK_SYNC_TO_DEVICE);
    const uint8_t *src = (const uint8_t *)buf->mem.host + w->src_off;
    uint64_t t0 = npk_now_ns();
    uint64_t sum = npk_rk_checksum(src, w->src_bytes);
    st->b_check_ns += npk_now_ns() - t0;
    if (w->have_sum && sum == w->sum)
        return NPK_OK;
    const void *rows;
    void *owned;
    npk_status s = npk_rk_b_rows(w->in, w->k, w->n, src, w->layout, &rows, &owned);
    if (s == NPK_OK && w->in == NPK_PREC_INT4)
        s = npk_rk_check_int4(rows, (uint64_t)w->k * w->n, "B");
    if (s == NPK_OK)
        s = npk_rk_weights_fill(rt, w, rows);
    free(owned);
    if (s)
        return s;
    w->sum = sum;
    w->have_sum = true;
    st->b_repacks++;
    return NPK_OK;
}

/* ---- A and C layouts ---------------------------------------------------------------------- */

uint64_t npk_rk_a_layout_bytes(npk_rk_prec in, uint32_t m, uint32_t k, npk_rk_layout layout)
{
    if (!weight_prec(in) || !m || !k)
        return 0;
    if (layout == NPK_RK_ROWS)
        return (uint64_t)m * k * user_bytes(in);
    npk_rk_block blk = npk_rk_a_block(in, NPK_MODE_CUBE, m, k);
    return layout == NPK_RK_NATIVE ? npk_rk_a_bytes(&blk, k) : 0;
}

uint64_t npk_rk_c_layout_bytes(npk_rk_prec out, uint32_t m, uint32_t n, npk_rk_layout layout)
{
    if ((out != NPK_PREC_FP32 && out != NPK_PREC_FP16 && out != NPK_PREC_INT32) || !m || !n)
        return 0;
    if (layout == NPK_RK_ROWS)
        return (uint64_t)m * n * user_bytes(out);
    npk_rk_block blk = npk_rk_c_block(out, NPK_MODE_CUBE, m, n);
    return layout == NPK_RK_NATIVE ? npk_rk_c_bytes(&blk, n) : 0;
}
