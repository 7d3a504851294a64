/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Where packed weights live, and where a task reads them. With one address space for every
 * core (rknpu: its IOMMU domains) weights are one buffer. Where each core reads only its own
 * space (mainline rocket: one open file per core, each its own IOMMU domain) there are two
 * placements:
 *
 *   copies  one buffer with a copy in every core's space: any plan of a call is valid, but the
 *           weights take their bytes once per core, so the cores' spaces hold one space's worth;
 *   split   each core's space holds only the columns that core computes, cut where the
 *           planner's split of N over the runtime's cores cuts (npk_rk_plan_n_split), and every
 *           call on them splits N exactly so: the spaces hold cores x one space's worth.
 *
 * Split is the rule: by the planner's timing model, fixing the split at N costs at most 3.6%
 * for the int8 and fp16 weights of LLaMA-7B/8B (N >= 4096) at every M up to 512, and nothing
 * for any of them at M <= 32; it costs more for narrow N (<= 1024) and int4 K x 4096 at M >= 128
 * (5% to 2.1x), where splitting M over the cores is cheaper (bench/bench_rk_split.c; the table
 * in docs/rk-device.md). So copies are taken only where the model says the fixed split costs
 * more than NPK_RK_SPLIT_COST_MAX at the weights' M hint, and only while every core's space
 * stays at least half free (copies_fit): copies take at most half of each space, the rest stays
 * for weights split by core. When a core's space has no
 * room for its part, the weights go whole into the one core's space that has room, and calls
 * on them run on that core alone; when none has, the refusal names every size and limit. */
#include <stdio.h>
#include <string.h>

#include "rk/layout/rk_layout.h"
#include "rk/plan/rk_plan_split.h"
#include "npukit/rk_plan.h"
#include "runtime_placement.h"
#include "runtime_request.h"

/* Copies instead of the split when the fixed split's modelled call costs more than this many
 * times the planner's free choice (a narrow N at large M: up to 2.6x in the measured table). */
#define NPK_RK_SPLIT_COST_MAX 1.10

/* Bytes of w's slices over `np` (padded) columns. */
static uint64_t bytes_over(const npk_rk_weights *w, uint32_t np)
{
    uint64_t total = 0;
    for (uint32_t s = 0; s < w->slices; s++) {
        uint32_t len = s + 1 < w->slices || w->k_pad ? w->k_slice : w->k - s * w->k_slice;
        total += npk_rk_b_bytes(w->in, len, np);
    }
    return total;
}

static uint32_t part_np(const npk_rk_weights *w, unsigned i)
{
    return (uint32_t)npk_rk_n_padded(w->in, w->part_n0[i + 1] - w->part_n0[i]);
}

uint64_t npk_rk_weights_bytes(const npk_rk_weights *w) { return bytes_over(w, w->np); }

uint64_t npk_rk_weights_part_bytes(const npk_rk_weights *w, unsigned i)
{
    return bytes_over(w, part_np(w, i));
}

/* The modelled cost of a call at M = the hint with N split as the weights would be, over the
 * planner's free choice (1: the split costs nothing). */
static double split_cost(const npk_rk *rt, const npk_rk_weights *w)
{
    npk_rk_plan_request req;
    npk_rk_matmul_request(rt, w, w->m_hint, npk_rk_input_row(w->in)->acc, &req);
    npk_rk_plan_candidate c[NPK_RK_PLAN_MAX_CANDIDATES];
    size_t n = npk_rk_plan_candidates(&req, c, NPK_RK_PLAN_MAX_CANDIDATES);
    double all = 0, split = 0;
    for (size_t i = 0; i < n && i < NPK_RK_PLAN_MAX_CANDIDATES; i++) {
        if (!all || c[i].total_us < all)
            all = c[i].total_us;
        if (c[i].core_split == NPK_RK_SPLIT_N && (!split || c[i].total_us < split))
            split = c[i].total_us;
    }
    return all > 0 && split > 0 ? split / all : 1;
}

/* Whether copies of `bytes` leave every core's space at least half free: copies spend room
 * nobody uses while the spaces are at most half full; the other half stays for weights split
 * by core, which is what gives the cores' spaces their capacity. */
static bool copies_fit(npk_rk_engine *e, uint64_t bytes)
{
    for (unsigned c = 0; c < e->max_cores; c++)
        if (npk_rk_weights_free_in(e, c) < bytes + NPK_RK_WEIGHT_SPACE / 2)
            return false;
    return true;
}

/* Each part in its core's space; on failure (NPK_ENOMEM: a space without room) nothing held. */
static npk_status place_parts(npk_rk_engine *e, npk_rk_weights *w)
{
    for (unsigned i = 0; i < w->parts; i++) {
        npk_status s = npk_rk_weights_mem_on(e, w->part_core[i], npk_rk_weights_part_bytes(w, i),
                                             &w->part_mem[i]);
        if (s) {
            while (i-- > 0)
                npk_rk_weights_mem_free_on(e, w->part_core[i], &w->part_mem[i]);
            return s;
        }
    }
    return NPK_OK;
}

/* The whole of w as one part in core `core`'s space. */
static void whole_on(npk_rk_weights *w, unsigned core)
{
    w->parts = 1;
    w->part_n0[0] = 0;
    w->part_n0[1] = w->n;
    w->part_core[0] = (uint8_t)core;
    w->part_slice_bytes[0] = w->slice_bytes;
}

static npk_status refuse(npk_rk *rt, const npk_rk_weights *w, const uint32_t *n0, unsigned parts)
{
    npk_rk_engine *e = rt->eng;
    char need[160] = "", room[160] = "";
    size_t a = 0, b = 0;
    npk_rk_weights probe = *w;
    probe.parts = parts;
    memcpy(probe.part_n0, n0, (parts + 1) * sizeof *n0);
    for (unsigned i = 0; i < parts && a < sizeof need; i++)
        a += (size_t)snprintf(need + a, sizeof need - a, "%s%llu", i ? " + " : "",
                              (unsigned long long)npk_rk_weights_part_bytes(&probe, i));
    for (unsigned c = 0; c < e->max_cores && b < sizeof room; c++)
        b += (size_t)snprintf(room + b, sizeof room - b, "%s%llu", c ? ", " : "",
                              (unsigned long long)npk_rk_weights_free_in(e, c));
    uint64_t cap, used;
    npk_rk_weights_room(e, &cap, &used);
    return npk_fail(NPK_ENOMEM,
                    "packed weights of %llu bytes do not fit: split by core they take %s bytes "
                    "and whole %llu in one core's space, but the cores' spaces have %s bytes "
                    "free (each holds %llu of weights; %s holds %llu, %llu in use)",
                    (unsigned long long)npk_rk_weights_bytes(w), need,
                    (unsigned long long)npk_rk_weights_bytes(w), room,
                    (unsigned long long)NPK_RK_WEIGHT_SPACE, npk_rk_device_name(e->dev),
                    (unsigned long long)cap, (unsigned long long)used);
}

npk_status npk_rk_weights_place(npk_rk *rt, npk_rk_weights *w)
{
    npk_rk_engine *e = rt->eng;
    const uint64_t bytes = npk_rk_weights_bytes(w);
    if (!e->core_spaces)
        return npk_rk_weights_mem(rt, bytes, &w->mem);
    uint32_t n0[NPK_RK_MAX_CORES + 1];
    const unsigned parts = npk_rk_plan_n_split(w->in, w->n, rt->cores, n0);
    if (parts > 1 && copies_fit(e, bytes) && split_cost(rt, w) > NPK_RK_SPLIT_COST_MAX) {
        npk_status s = npk_rk_weights_mem(rt, bytes, &w->mem);
        if (s != NPK_ENOMEM)
            return s;
    }
    w->parts = parts;
    memcpy(w->part_n0, n0, (parts + 1) * sizeof *n0);
    for (unsigned i = 0; i < parts; i++) {
        w->part_core[i] = rt->core_map[i];
        w->part_slice_bytes[i] = npk_rk_b_bytes(w->in, w->k_slice, part_np(w, i));
    }
    npk_status s = place_parts(e, w);
    if (s != NPK_ENOMEM)
        return s;
    /* a part does not fit its core's space: the whole in the space with the most room */
    unsigned best = 0;
    for (unsigned c = 1; c < e->max_cores; c++)
        if (npk_rk_weights_free_in(e, c) > npk_rk_weights_free_in(e, best))
            best = c;
    whole_on(w, best);
    if ((s = place_parts(e, w)) == NPK_ENOMEM) {
        w->parts = 0;
        return refuse(rt, w, n0, parts);
    }
    return s;
}

void npk_rk_weights_unplace(npk_rk_engine *e, npk_rk_weights *w)
{
    for (unsigned i = 0; i < w->parts; i++)
        npk_rk_weights_mem_free_on(e, w->part_core[i], &w->part_mem[i]);
    w->parts = 0;
    npk_rk_weights_mem_free(e, &w->mem);
}

/* The part holding columns [n0, n1), or -1 when no one part holds them all. */
static int part_of(const npk_rk_weights *w, uint32_t n0, uint32_t n1)
{
    for (unsigned i = 0; i < w->parts; i++)
        if (n0 >= w->part_n0[i] && n1 <= w->part_n0[i + 1])
            return (int)i;
    return -1;
}

npk_status npk_rk_weights_b_iova(const npk_rk_weights *w, const npk_rk_task_plan *t,
                                 uint32_t *iova)
{
    const uint32_t slice = t->k0 / w->k_slice, group = npk_rk_b_n_group(w->in);
    if (!w->parts) {
        *iova = (uint32_t)(npk_rk_mem_iova_on(&w->mem, t->core) + slice * w->slice_bytes +
                           npk_rk_b_tile_offset(t->kp, t->n0 / group));
        return NPK_OK;
    }
    const int p = part_of(w, t->n0, t->n1);
    if (p < 0 || w->part_core[p] != t->core)
        return npk_fail(NPK_EINVAL,
                        "matmul: a task of columns [%u, %u) on core %u, but the weights are "
                        "split by core and %s",
                        t->n0, t->n1, t->core,
                        p < 0 ? "no one core holds those columns"
                              : "another core's space holds them");
    *iova = (uint32_t)(w->part_mem[p].iova + slice * w->part_slice_bytes[p] +
                       npk_rk_b_tile_offset(t->kp, (t->n0 - w->part_n0[p]) / group));
    return NPK_OK;
}

unsigned npk_rk_task_core(const npk_rk *rt, const npk_rk_weights *w, unsigned core)
{
    return w->parts && core < w->parts ? w->part_core[core] : rt->core_map[core];
}

void npk_rk_weights_slice_view(const npk_rk_weights *w, uint32_t i, npk_rk_weights *view)
{
    *view = *w;
    const uint64_t off = (uint64_t)i * w->slice_bytes;
    if (!w->parts) {
        view->mem.iova += (uint32_t)off;
        view->mem.host = (uint8_t *)w->mem.host + off;
        view->mem.size -= off;
    }
    for (unsigned p = 0; p < w->parts; p++) {
        const uint64_t at = (uint64_t)i * w->part_slice_bytes[p];
        view->part_mem[p].iova += (uint32_t)at;
        view->part_mem[p].host = (uint8_t *)w->part_mem[p].host + at;
        view->part_mem[p].size -= at;
    }
    view->slices = 1;
}
