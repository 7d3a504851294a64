#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Resident weights: B packed once per K slice over all (padded) N columns, so a task for any
 * column range of a slice is one contiguous block at a known offset (facts D.1). */
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_layout.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"
#include "runtime_internal.h"

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

npk_status npk_rk_weights_pack(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n, const void *b,
                               uint32_t m_hint, npk_rk_weights **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "weights_pack: NULL output handle");
    *out = NULL;
    if (!rt || !b)
        return npk_fail(NPK_EINVAL, "weights_pack: NULL %s", rt ? "B" : "runtime");
    if (in != NPK_PREC_FP16 && in != NPK_PREC_INT8 && in != NPK_PREC_INT4)
        return npk_fail(NPK_EINVAL, "weights dtype %s: the runtime takes fp16, int8 or int4",
                        npk_rk_prec_name(in) ? npk_rk_prec_name(in) : "?");
    if (!k || !n)
        return npk_fail(NPK_EINVAL, "weights K=%u N=%u: both must be at least 1", k, n);
    if (k > NPK_RK_LAYOUT_MAX_DIM || n > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "weights K=%u N=%u: each must be at most %zu", k, n,
                        (size_t)NPK_RK_LAYOUT_MAX_DIM);
    if (in == NPK_PREC_INT4) {
        npk_status s = check_int4(b, (uint64_t)k * n, "B");
        if (s)
            return s;
    }
    npk_rk_plan_request req;
    /* A hint only: any M above the planner's limit slices K as the limit does. */
    uint32_t hint = m_hint < 1 ? 1 : m_hint > NPK_RK_PLAN_MAX_DIM ? NPK_RK_PLAN_MAX_DIM : m_hint;
    npk_rk_plan_request_init(&req, in, hint, k, n);
    req.soc = rt->soc;
    uint32_t ks = npk_rk_plan_k_slice(&req);
    if (!ks)
        return NPK_EINVAL;

    npk_rk_weights *w = calloc(1, sizeof *w);
    if (!w)
        return npk_fail(NPK_ENOMEM, "weights: out of memory");
    w->owner = rt;
    w->in = in;
    w->k = k;
    w->n = n;
    w->k_slice = ks;
    w->slices = (k + ks - 1) / ks;
    w->np = (uint32_t)npk_rk_n_padded(in, n);
    w->slice_bytes = npk_rk_b_bytes(in, ks, w->np);
    uint64_t total = 0;
    for (uint32_t s = 0; s < w->slices; s++) {
        uint32_t len = s + 1 < w->slices ? ks : k - s * ks;
        total += npk_rk_b_bytes(in, len, w->np);
    }
    if (total > 0xF0000000ull) {
        free(w);
        return npk_fail(NPK_ELIMIT, "weights of %llu bytes do not fit the 32-bit IOVA space",
                        (unsigned long long)total);
    }
    npk_status s = pthread_mutex_trylock(&rt->lock)
                       ? npk_fail(NPK_EBUSY, "weights_pack: another call is running")
                       : NPK_OK;
    if (s) {
        free(w);
        return s;
    }
    s = npk_rk_mem_create(rt->dev, total, NPK_RK_DATA_FLAGS, &w->mem);
    const npk_rk_cmatrix bm = {b, k, n, n};
    for (uint32_t i = 0; s == NPK_OK && i < w->slices; i++) {
        uint32_t k0 = i * ks, k1 = k0 + ks < k ? k0 + ks : k;
        uint64_t off = (uint64_t)i * w->slice_bytes;
        s = npk_rk_pack_b(in, &bm, (npk_rk_range){k0, k1}, (npk_rk_range){0, n},
                          (uint8_t *)w->mem.host + off, (size_t)(total - off));
    }
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &w->mem, 0, total, RKNPU_MEM_SYNC_TO_DEVICE);
    if (s && w->mem.size)
        npk_rk_mem_destroy(rt->dev, &w->mem);
    pthread_mutex_unlock(&rt->lock);
    if (s) {
        free(w);
        return s;
    }
    *out = w;
    return NPK_OK;
}

void npk_rk_weights_free(npk_rk *rt, npk_rk_weights *w)
{
    if (!w)
        return;
    /* The buffer lives in the owner's device; destroying it through another runtime would
     * destroy whatever buffer has the same handle there. */
    (void)rt;
    if (w->owner && w->mem.size)
        npk_rk_mem_destroy(w->owner->dev, &w->mem);
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
