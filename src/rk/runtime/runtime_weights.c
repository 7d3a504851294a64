/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Resident weights: B packed once per K slice over all (padded) N columns, so a task for any
 * column range of a slice is one contiguous block at a known offset (facts D.1). */
#include <stdlib.h>
#include <string.h>

#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"
#include "runtime_request.h"
#include "runtime_weights.h"

static npk_status check_int4(const int8_t *v, uint64_t count, const char *what)
{
    for (uint64_t i = 0; i < count; i++)
        if (v[i] < -8 || v[i] > 7)
            return npk_fail(NPK_EINVAL, "%s[%llu] = %d is outside the int4 range [-8, 7]", what,
                            (unsigned long long)i, v[i]);
    return NPK_OK;
}

npk_status npk_rk_check_int4(const int8_t *v, uint64_t count, const char *what)
{
    return check_int4(v, count, what);
}

npk_status npk_rk_weights_new(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n, uint32_t m_hint,
                              uint32_t k_slice, npk_rk_weights **out)
{
    *out = NULL;
    if (in != NPK_PREC_FP16 && in != NPK_PREC_INT8 && in != NPK_PREC_INT4)
        return npk_fail(NPK_EINVAL, "weights dtype %s: the runtime takes fp16, int8 or int4",
                        npk_rk_prec_name(in) ? npk_rk_prec_name(in) : "?");
    if (!k || !n)
        return npk_fail(NPK_EINVAL, "weights K=%u N=%u: both must be at least 1", k, n);
    if (k > NPK_RK_LAYOUT_MAX_DIM || n > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "weights K=%u N=%u: each must be at most %zu", k, n,
                        (size_t)NPK_RK_LAYOUT_MAX_DIM);
    npk_rk_plan_request req;
    /* A hint only: any M above the planner's limit slices K as the limit does. */
    uint32_t hint = m_hint < 1 ? 1 : m_hint > NPK_RK_PLAN_MAX_DIM ? NPK_RK_PLAN_MAX_DIM : m_hint;
    npk_rk_plan_request_init(&req, in, hint, k, n);
    req.soc = rt->soc;
    req.cores = rt->cores;
    npk_rk_request_submits(rt, &req);
    npk_rk_request_layout(rt, &req);
    req.k_slice = k_slice;
    /* a slicing given by the caller's layout is kept as it is; else the planner may pad the
     * last slice to the others' K (packed with a zero tail) */
    req.k_pad = k_slice ? 0 : -1;
    bool pad = false;
    npk_status vs = npk_rk_plan_check(&req); /* names what is refused, with its status */
    uint32_t ks = vs ? 0 : npk_rk_plan_k_choice(&req, &pad);
    if (!ks)
        return vs ? vs : NPK_EINVAL;

    npk_rk_weights *w = calloc(1, sizeof *w);
    if (!w)
        return npk_fail(NPK_ENOMEM, "weights: out of memory");
    w->owner = rt;
    w->in = in;
    w->k = k;
    w->n = n;
    w->m_hint = hint;
    w->k_slice = ks;
    w->k_pad = pad;
    w->slices = (k + ks - 1) / ks;
    w->np = (uint32_t)npk_rk_n_padded(in, n);
    w->slice_bytes = npk_rk_b_bytes(in, ks, w->np);
    if (npk_rk_weights_bytes(w) > 0xF0000000ull) {
        npk_status s = npk_fail(NPK_ELIMIT,
                                "weights of %llu bytes do not fit the 32-bit IOVA "
                                "space",
                                (unsigned long long)npk_rk_weights_bytes(w));
        free(w);
        return s;
    }
    *out = w;
    return NPK_OK;
}

npk_status npk_rk_weights_pack(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n, const void *b,
                               uint32_t m_hint, npk_rk_weights **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "weights_pack: NULL output handle");
    *out = NULL;
    if (!rt || !b)
        return npk_fail(NPK_EINVAL, "weights_pack: NULL %s", rt ? "B" : "runtime");
    return npk_rk_weights_pack_sliced(rt, in, k, n, b, m_hint, 0, out);
}

npk_status npk_rk_weights_pack_sliced(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                      const void *b, uint32_t m_hint, uint32_t k_slice,
                                      npk_rk_weights **out)
{
    *out = NULL;
    npk_rk_weights *w;
    npk_status s = npk_rk_weights_new(rt, in, k, n, m_hint, k_slice, &w);
    if (s)
        return s;
    if (in == NPK_PREC_INT4 && (s = check_int4(b, (uint64_t)k * n, "B"))) {
        free(w);
        return s;
    }
    if (pthread_mutex_trylock(&rt->lock)) {
        free(w);
        return npk_fail(NPK_EBUSY, "weights_pack: another call is running");
    }
    s = npk_rk_weights_place(rt, w);
    if (s == NPK_OK && (s = npk_rk_weights_fill(rt, w, b)))
        npk_rk_weights_unplace(rt->eng, w);
    pthread_mutex_unlock(&rt->lock);
    if (s) {
        free(w);
        return s;
    }
    *out = w;
    return NPK_OK;
}

/* The last slice, shorter than k_slice, packed at k_slice: B's rows [k0, k1) and columns cols
 * staged with zero rows after them up to k_slice. */
static npk_status pack_padded_slice(const npk_rk_weights *w, const npk_rk_cmatrix *bm, uint32_t k0,
                                    uint32_t k1, npk_rk_range cols, uint8_t *dst, size_t room)
{
    size_t ub = w->in == NPK_PREC_FP16 ? 2 : 1; /* user bytes per element (int4 in int8_t) */
    uint8_t *staged = calloc((size_t)w->k_slice * w->n, ub);
    if (!staged)
        return npk_fail(NPK_ENOMEM, "weights: out of memory for the padded last K slice");
    memcpy(staged, (const uint8_t *)bm->data + (size_t)k0 * bm->pitch * ub,
           (size_t)(k1 - k0) * w->n * ub);
    const npk_rk_cmatrix sm = {staged, w->k_slice, w->n, w->n};
    npk_status s = npk_rk_pack_b(w->in, &sm, (npk_rk_range){0, w->k_slice}, cols, dst, room);
    free(staged);
    return s;
}

/* Every slice of B's columns cols into mem, slice_bytes apart, and the whole synced. */
static npk_status fill_mem(npk_rk *rt, const npk_rk_weights *w, const npk_rk_cmatrix *bm,
                           npk_rk_range cols, const npk_rk_mem *mem, uint64_t slice_bytes)
{
    npk_status s = NPK_OK;
    for (uint32_t i = 0; s == NPK_OK && i < w->slices; i++) {
        uint32_t k0 = i * w->k_slice, k1 = k0 + w->k_slice < w->k ? k0 + w->k_slice : w->k;
        uint64_t off = (uint64_t)i * slice_bytes;
        uint8_t *dst = (uint8_t *)mem->host + off;
        size_t room = (size_t)(mem->size - off);
        if (w->k_pad && k1 - k0 < w->k_slice)
            s = pack_padded_slice(w, bm, k0, k1, cols, dst, room);
        else
            s = npk_rk_pack_b(w->in, bm, (npk_rk_range){k0, k1}, cols, dst, room);
    }
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, mem, 0, mem->size, RKNPU_MEM_SYNC_TO_DEVICE);
    return s;
}

npk_status npk_rk_weights_fill(npk_rk *rt, npk_rk_weights *w, const void *b)
{
    const npk_rk_cmatrix bm = {b, w->k, w->n, w->n};
    if (!w->parts)
        return fill_mem(rt, w, &bm, (npk_rk_range){0, w->n}, &w->mem, w->slice_bytes);
    npk_status s = NPK_OK;
    for (unsigned p = 0; s == NPK_OK && p < w->parts; p++)
        s = fill_mem(rt, w, &bm, (npk_rk_range){w->part_n0[p], w->part_n0[p + 1]}, &w->part_mem[p],
                     w->part_slice_bytes[p]);
    return s;
}

void npk_rk_weights_free(npk_rk *rt, npk_rk_weights *w)
{
    if (!w)
        return;
    /* The buffer lives in the owner's device; destroying it through another runtime would
     * destroy whatever buffer has the same handle there. */
    (void)rt;
    if (w->owner && !w->in_place)
        npk_rk_weights_unplace(w->owner->eng, w);
    free(w);
}

void npk_rk_weights_shape(const npk_rk_weights *w, npk_rk_prec *in, uint32_t *k, uint32_t *n)
{
    if (in)
        *in = w->in;
    if (k)
        *k = w->k;
    if (n)
        *n = w->n;
}
