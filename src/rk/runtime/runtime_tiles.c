/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* A's feature tiles: one task's block and its packing, and a call's tiles packed once for every
 * core (runtime_matmul.h).
 *
 * When the cores split N, each core's tasks read every row of A: packed per core, A is packed
 * once per core (at M = 128, K = N = 4096: 3 MiB written for 1 MiB of tiles). Where the cores
 * share one address space (rknpu) the call instead packs each distinct tile once, before the
 * cores start, into a buffer of the runtime's that every core reads. A job's first task still
 * reads its own core's slot 0, the tile copied there: the NPU caches feature state by the
 * address of a job's first feature (spec "Feature address caching"), which must not move; the
 * job's later tasks read the shared tiles in place (within one submit, distinct addresses are
 * how chained tasks work). On rocket every core is its own address space: the shared buffer is
 * created for every core, so it has a copy in each core's space, and syncing it to the device
 * copies the packed tiles into the other cores' copies (rk_device.h npk_rk_mem_create_for).
 * Every core then reads them in place as on rknpu. At M = 512, K = 11008 that writes 33 MB
 * (11 MB packed, then copied into two more spaces) where packing into host memory and copying
 * every task's tile into its core's slot wrote 44 MB. Where sharing does not pay (no tile
 * read twice, or the tiles past SHARED_TILES_MAX) every core packs its own, and a float A is
 * then converted to fp16 once for all of them (npk_rk_stage_f32), so the cores copy fp16 tiles
 * instead of each converting every float again. */
#include <stdlib.h>
#include <string.h>

#include "common/dense.h" /* npk_f32_to_f16_n */
#include "npukit/rk_plan.h"
#include "part_clock.h"
#include "runtime_forms.h"
#include "runtime_matmul.h"

/* The shared buffer stays at most this large: a call whose distinct tiles need more packs per
 * core (16 MiB holds A of M = 512, K = 11008 in fp16 with room). */
#define SHARED_TILES_MAX ((uint64_t)16 << 20)
/* Each tile starts on a page of the shared buffer, as the cores' feature slots do. */
#define TILE_ALIGN 4096u

npk_rk_block npk_rk_task_a_block(const npk_rk_weights *w, npk_rk_mode mode, uint32_t pitch,
                                 const npk_rk_task_plan *t)
{
    npk_rk_block ablk =
        npk_rk_a_block(w->in, mode, mode == NPK_MODE_CUBE ? t->mp : t->m1 - t->m0, t->kp);
    if (pitch) /* rows pitch x the packed row apart (plan request a_pitch) */
        ablk.stride = (size_t)pitch * t->kp;
    return ablk;
}

/* Marks *flag from whichever core's thread found it (the caller reads it after joining them). */
static void mark_beyond(uint32_t *flag) { __atomic_store_n(flag, 1u, __ATOMIC_RELAXED); }

npk_status npk_rk_pack_tile(const npk_rk_block *ablk, const npk_rk_cmatrix *a, bool a_f32,
                            uint32_t pitch, const npk_rk_task_plan *t, uint8_t *dst, size_t room,
                            uint32_t *beyond)
{
    /* a zero-padded last slice: the tail is zero; a pitch: the lines between rows are zero
     * (int4's zero lines, mc_phys = 2H) */
    if (t->kp > npk_rk_k_padded(t->k1 - t->k0) || pitch > 1)
        memset(dst, 0, npk_rk_a_bytes(ablk, t->kp));
    const npk_rk_range m = {t->m0, t->m1}, k = {t->k0, t->k1};
    if (!a_f32)
        return npk_rk_pack_a(ablk, a, m, k, dst, room);
    bool found = false;
    npk_status s = npk_rk_pack_a_f32(ablk, a, m, k, dst, room, beyond ? &found : NULL);
    if (found)
        mark_beyond(beyond);
    return s;
}

/* ---- a call's tiles, once for every core ------------------------------------------------- */

/* Plan task `task`'s tile: its item (A, mode, pitch), rows and K range (the tile's geometry
 * follows from them within one plan). */
typedef struct tile_ref {
    uint32_t key[7]; /* item, m0, m1, k0, k1, mp, kp */
    uint32_t task;
} tile_ref;

static tile_ref ref_of(const npk_rk_plan *plan, const uint32_t *item_of, size_t i)
{
    const npk_rk_task_plan *t = &plan->tasks[i];
    return (tile_ref){{item_of ? item_of[i] : 0, t->m0, t->m1, t->k0, t->k1, t->mp, t->kp},
                      (uint32_t)i};
}

/* Tasks reading the same tile next to each other, in plan order among them. */
static int by_tile(const void *x, const void *y)
{
    const tile_ref *a = x, *b = y;
    int c = 0;
    for (size_t i = 0; i < sizeof a->key / sizeof a->key[0] && !c; i++)
        c = (a->key[i] > b->key[i]) - (a->key[i] < b->key[i]);
    return c ? c : (a->task > b->task) - (a->task < b->task);
}

static bool same_tile(const tile_ref *a, const tile_ref *b)
{
    return !memcmp(a->key, b->key, sizeof a->key);
}

/* Whether packing once pays: every distinct tile packed once plus one copy per job (into its
 * first slot) against a pack per task as the cores would do alone. With address spaces per
 * core, the shared buffer is also copied into every other core's space: counted as half a pack
 * per tile and core (a copy reads and writes fp16; a pack reads A, often as floats, and
 * rearranges it). */
static bool worth_sharing(const npk_rk *rt, const npk_rk_plan *plan, size_t distinct)
{
    size_t per_core[NPK_RK_MAX_CORES] = {0}, jobs = 0;
    for (size_t i = 0; i < plan->count; i++)
        if (plan->tasks[i].core < NPK_RK_MAX_CORES)
            per_core[plan->tasks[i].core]++;
    const size_t per_job = npk_rk_tasks_per_job(rt);
    for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
        jobs += (per_core[c] + per_job - 1) / per_job;
    const size_t copies = rt->eng->core_spaces ? distinct * (rt->max_cores - 1) / 2 : 0;
    return distinct + copies + jobs < plan->count;
}

/* The runtime's shared tile buffer, at least `bytes` in domain `domain`. */
static npk_status shared_buffer(npk_rk *rt, unsigned domain, uint64_t bytes)
{
    npk_rk_mem *m = &rt->shared_tiles;
    if (m->size >= bytes && rt->shared_tiles_domain == domain)
        return NPK_OK;
    npk_rk_shared_tiles_free(rt);
    uint32_t mask = 0;
    for (unsigned c = 0; c < rt->max_cores; c++)
        mask |= 1u << c;
    /* grown to what the call needs, rounded up to 1 MiB so that slightly larger calls reuse it */
    const uint64_t size = (bytes + (1u << 20) - 1) >> 20 << 20;
    npk_status s = npk_rk_mem_create_in(rt->dev, domain, size, NPK_RK_DATA_FLAGS, mask, m);
    if (s)
        *m = (npk_rk_mem){0};
    else
        rt->shared_tiles_domain = domain;
    return s;
}

void npk_rk_shared_tiles_free(npk_rk *rt)
{
    if (rt->shared_tiles.size)
        npk_rk_mem_destroy(rt->dev, &rt->shared_tiles);
    rt->shared_tiles = (npk_rk_mem){0};
    free(rt->a_stage);
    rt->a_stage = NULL;
    rt->a_stage_bytes = 0;
}

/* ---- float A for cores that pack their own tiles ------------------------------------------ */

/* A's floats (rows of a->cols, a->pitch apart) to halves at h with the same pitch, and whether
 * a float of the rows was finite and beyond fp16 (what lies between rows is converted but not
 * looked at: it is not A's). */
static bool beyond_rows(const npk_rk_cmatrix *a, uint16_t *h)
{
    const float *f = a->data;
    if (a->pitch == a->cols)
        return npk_f32_to_f16_n_beyond(f, h, a->rows * a->cols);
    bool beyond = false;
    for (size_t r = 0; r < a->rows; r++) {
        beyond |= npk_f32_to_f16_n_beyond(f + r * a->pitch, h + r * a->pitch, a->cols);
        npk_f32_to_f16_n(f + r * a->pitch + a->cols, h + r * a->pitch + a->cols,
                         a->pitch - a->cols);
    }
    return beyond;
}

npk_status npk_rk_stage_f32(npk_rk *rt, const npk_rk_plan *plan, const npk_rk_mm_run_item *items,
                            const uint32_t *item_of, npk_rk_stats *st, npk_rk_mm_run_item **staged)
{
    *staged = NULL;
    if (plan->cores_used < 2)
        return NPK_OK; /* one core converts each tile once as it packs it */
    size_t count = 1, bytes = 0;
    for (size_t i = 0; item_of && i < plan->count; i++)
        if (item_of[i] + 1 > count)
            count = item_of[i] + 1;
    for (size_t i = 0; i < count; i++)
        if (items[i].a_f32)
            bytes += (items[i].a.rows * items[i].a.pitch * sizeof *rt->a_stage + 63) / 64 * 64;
    if (!bytes)
        return NPK_OK;
    const uint64_t t0 = npk_rk_part_now();
    if (rt->a_stage_bytes < bytes) {
        free(rt->a_stage);
        rt->a_stage_bytes = 0;
        if (!(rt->a_stage = malloc(bytes)))
            return npk_fail(NPK_ENOMEM, "matmul: no memory to convert A (%zu bytes)", bytes);
        rt->a_stage_bytes = bytes;
    }
    npk_rk_mm_run_item *it = malloc(count * sizeof *it);
    if (!it)
        return npk_fail(NPK_ENOMEM, "matmul: no memory for %zu items", count);
    memcpy(it, items, count * sizeof *it);
    uint8_t *at = (uint8_t *)rt->a_stage;
    for (size_t i = 0; i < count; i++) {
        if (!it[i].a_f32)
            continue;
        const size_t n = it[i].a.rows * it[i].a.pitch;
        if (it[i].a_beyond && beyond_rows(&it[i].a, (uint16_t *)(void *)at))
            mark_beyond(it[i].a_beyond);
        else if (!it[i].a_beyond)
            npk_f32_to_f16_n(it[i].a.data, (uint16_t *)(void *)at, n);
        it[i].a.data = at;
        it[i].a_f32 = false;
        at += (n * sizeof *rt->a_stage + 63) / 64 * 64;
    }
    st->pack_ns += npk_rk_part_now() - t0;
    *staged = it;
    return NPK_OK;
}

npk_status npk_rk_shared_tiles_pack(npk_rk *rt, const npk_rk_plan *plan,
                                    const npk_rk_mm_run_item *items, const uint32_t *item_of,
                                    unsigned domain, npk_rk_stats *st, uint64_t **offsets,
                                    bool *repeated)
{
    *offsets = NULL;
    *repeated = true; /* unless counted below */
    if (plan->cores_used < 2 || plan->count < 2)
        return NPK_OK;
    const uint64_t t0 = npk_rk_part_now();
    tile_ref *ref = malloc(plan->count * sizeof *ref);
    uint64_t *off = malloc(plan->count * sizeof *off);
    if (!ref || !off) { /* packing per core needs neither */
        free(ref), free(off);
        return NPK_OK;
    }
    for (size_t i = 0; i < plan->count; i++)
        ref[i] = ref_of(plan, item_of, i);
    qsort(ref, plan->count, sizeof *ref, by_tile);
    /* the distinct tiles' offsets, in order */
    size_t distinct = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < plan->count; i++) {
        if (i == 0 || !same_tile(&ref[i - 1], &ref[i])) {
            const npk_rk_mm_run_item *it = &items[ref[i].key[0]];
            const npk_rk_block ablk =
                npk_rk_task_a_block(it->w, it->mode, it->a_pitch, &plan->tasks[ref[i].task]);
            total = (total + TILE_ALIGN - 1) / TILE_ALIGN * TILE_ALIGN;
            off[ref[i].task] = total;
            total += npk_rk_a_bytes(&ablk, plan->tasks[ref[i].task].kp);
            distinct++;
        } else {
            off[ref[i].task] = off[ref[i - 1].task];
        }
    }
    npk_status s = NPK_OK;
    *repeated = distinct < plan->count;
    if (total > SHARED_TILES_MAX || !worth_sharing(rt, plan, distinct) ||
        shared_buffer(rt, domain, total) != NPK_OK) {
        free(ref), free(off); /* per core, as before */
        return NPK_OK;
    }
    uint8_t *base = rt->shared_tiles.host;
    const size_t room = (size_t)rt->shared_tiles.size;
    for (size_t i = 0; s == NPK_OK && i < plan->count; i++) {
        if (i > 0 && same_tile(&ref[i - 1], &ref[i]))
            continue;
        const npk_rk_mm_run_item *it = &items[ref[i].key[0]];
        const npk_rk_task_plan *t = &plan->tasks[ref[i].task];
        const npk_rk_block ablk = npk_rk_task_a_block(it->w, it->mode, it->a_pitch, t);
        const uint64_t o = off[ref[i].task];
        s = npk_rk_pack_tile(&ablk, &it->a, it->a_f32, it->a_pitch, t, base + o,
                             (size_t)(room - o), it->a_beyond);
    }
    st->pack_ns += npk_rk_part_now() - t0;
    if (s == NPK_OK) {
        /* with address spaces per core this sync copies the tiles into the other cores'
         * spaces: host work on any device, the rest of the packing; elsewhere cache upkeep */
        const uint64_t t1 = npk_rk_part_now();
        s = npk_rk_mem_sync(rt->dev, &rt->shared_tiles, 0, total, RKNPU_MEM_SYNC_TO_DEVICE);
        *(rt->eng->core_spaces ? &st->pack_ns : &st->sync_ns) += npk_rk_part_now() - t1;
    }
    free(ref);
    if (s) {
        free(off);
        return s;
    }
    *offsets = off;
    return NPK_OK;
}
