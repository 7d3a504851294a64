/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* Several independent matmuls in one call (npk_rk_matmul_batch): each planned alone, their
 * tasks merged core by core into one plan whose jobs the matmul spine (runtime_matmul.c) chains
 * as the runtime's form says, each task adding into its own matmul's result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_plan.h"
#include "runtime_layout.h"
#include "runtime_matmul.h"
#include "runtime_request.h"

static uint64_t c_bytes(const npk_rk_matmul_item *it, npk_rk_prec out)
{
    return (uint64_t)it->m * it->w->n * (npk_rk_prec_bits(out) / 8);
}

typedef struct span {
    uintptr_t lo, hi;
    uint32_t item;
} span;

static int by_lo(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Every item's own checks, one input precision, and no two C that overlap (their tasks run on
 * different threads). */
static npk_status check_items(npk_rk *rt, const npk_rk_matmul_item *items, uint32_t count,
                              npk_rk_prec out)
{
    if (!rt || !items)
        return npk_fail(NPK_EINVAL, "matmul batch: NULL %s", rt ? "items" : "runtime");
    if (!count || count > NPK_RK_BATCH_MAX)
        return npk_fail(NPK_ELIMIT, "matmul batch: %u matmuls; 1..%u per call", count,
                        NPK_RK_BATCH_MAX);
    for (uint32_t i = 0; i < count; i++) {
        npk_status s = npk_rk_matmul_check(rt, items[i].w, items[i].m, items[i].a, out, items[i].c);
        if (s == NPK_OK && items[i].a_fp32)
            s = npk_rk_check_f32_source(items[i].w, "matmul");
        if (s) {
            char why[256]; /* the check's message, before a new one replaces it */
            snprintf(why, sizeof why, "%s", npk_last_error());
            return npk_fail(s, "matmul batch item %u: %s", i, why);
        }
        if (items[i].w->in != items[0].w->in)
            return npk_fail(NPK_EINVAL,
                            "matmul batch item %u: %s weights after %s ones (a job runs one "
                            "precision mode; batch them apart)",
                            i, npk_rk_prec_name(items[i].w->in), npk_rk_prec_name(items[0].w->in));
    }
    span *sp = malloc(count * sizeof *sp);
    if (!sp)
        return npk_fail(NPK_ENOMEM, "matmul batch: no memory for %u items", count);
    for (uint32_t i = 0; i < count; i++)
        sp[i] = (span){(uintptr_t)items[i].c, (uintptr_t)items[i].c + c_bytes(&items[i], out), i};
    qsort(sp, count, sizeof *sp, by_lo);
    npk_status s = NPK_OK;
    for (uint32_t i = 1; s == NPK_OK && i < count; i++)
        if (sp[i].lo < sp[i - 1].hi)
            s = npk_fail(NPK_EINVAL, "matmul batch: the C of items %u and %u overlap",
                         sp[i - 1].item < sp[i].item ? sp[i - 1].item : sp[i].item,
                         sp[i - 1].item < sp[i].item ? sp[i].item : sp[i - 1].item);
    free(sp);
    return s;
}

/* The items' plans merged core by core (the spine runs a core's tasks as one contiguous group),
 * each core's tasks in item order; item_of[i]: the item of merged task i. */
static npk_status merge(const npk_rk_plan *plans, uint32_t count, npk_rk_plan *all,
                        uint32_t **item_of)
{
    size_t total = 0;
    for (uint32_t i = 0; i < count; i++)
        total += plans[i].count;
    *all = plans[0];
    all->tasks = malloc(total * sizeof *all->tasks + 1);
    *item_of = malloc(total * sizeof **item_of + 1);
    if (!all->tasks || !*item_of) {
        free(all->tasks);
        free(*item_of);
        all->tasks = NULL;
        *item_of = NULL;
        return npk_fail(NPK_ENOMEM, "matmul batch: no memory for %zu tasks", total);
    }
    size_t k = 0;
    for (unsigned core = 0; core < NPK_RK_MAX_CORES; core++)
        for (uint32_t i = 0; i < count; i++)
            for (size_t t = 0; t < plans[i].count; t++)
                if (plans[i].tasks[t].core == core) {
                    all->tasks[k] = plans[i].tasks[t];
                    (*item_of)[k++] = i;
                }
    all->count = k;
    for (uint32_t i = 1; i < count; i++)
        if (plans[i].cores_used > all->cores_used)
            all->cores_used = plans[i].cores_used;
    return NPK_OK;
}

/* Plan every item (cores mapped to the engine's), merge, run; the items' stats. */
static npk_status run_batch(npk_rk *rt, npk_rk_matmul_item *items, uint32_t count, npk_rk_prec out,
                            npk_rk_mm_run_item *run, npk_rk_plan *plans, npk_rk_stats *st)
{
    npk_status s = NPK_OK;
    uint32_t begun = 0, planned = 0; /* items set up, plans made: what the end releases */
    for (uint32_t i = 0; s == NPK_OK && i < count; i++) {
        npk_rk_matmul_item *it = &items[i];
        memset(&it->stats, 0, sizeof it->stats);
        if ((it->w->src && (s = npk_rk_weights_refresh(rt, (npk_rk_weights *)it->w, st))) ||
            (s = npk_rk_mm_item_begin(it->w, it->m, it->a, out, it->c, true, &run[i])))
            break;
        run[i].a_f32 = it->a_fp32;
        run[i].a_beyond = it->a_fp32 ? &it->stats.a_beyond_fp16 : NULL;
        begun++;
        npk_rk_plan_request req;
        npk_rk_matmul_request(rt, it->w, it->m, run[i].task_out, &req);
        if ((s = npk_rk_plan_matmul(&req, &plans[i])))
            break;
        planned++;
        run[i].mode = plans[i].mode;
        run[i].a_pitch = plans[i].req.a_pitch;
        run[i].st = &it->stats;
        it->stats.tasks = (uint32_t)plans[i].count;
        it->stats.cores_used = plans[i].cores_used;
        for (size_t t = 0; t < plans[i].count; t++) {
            plans[i].tasks[t].core = npk_rk_task_core(rt, it->w, plans[i].tasks[t].core);
            it->stats.core_mask |= 1u << plans[i].tasks[t].core;
        }
    }
    npk_rk_plan all = {0};
    uint32_t *item_of = NULL;
    if (s == NPK_OK && (s = merge(plans, count, &all, &item_of)) == NPK_OK) {
        st->tasks = (uint32_t)all.count;
        st->cores_used = all.cores_used;
        st->core_mask = 0;
        for (uint32_t i = 0; i < count; i++)
            st->core_mask |= items[i].stats.core_mask;
        s = npk_rk_matmul_run(rt, &all, run, item_of, st);
        for (uint32_t i = 0; i < count; i++) /* the items whose floats did not fit */
            st->a_beyond_fp16 += items[i].stats.a_beyond_fp16;
    }
    free(all.tasks);
    free(item_of);
    for (uint32_t i = 0; i < begun; i++)
        npk_rk_mm_item_end(&run[i], s == NPK_OK);
    for (uint32_t i = 0; i < planned; i++)
        npk_rk_plan_free(&plans[i]);
    return s;
}

npk_status npk_rk_matmul_batch(npk_rk *rt, npk_rk_matmul_item *items, uint32_t count,
                               npk_rk_prec out, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    const uint64_t start = npk_now_ns();
    npk_status s = check_items(rt, items, count, out);
    if (s || (s = npk_rk_call_begin(rt, "matmul batch")))
        return s;
    npk_rk_mm_run_item *run = calloc(count, sizeof *run);
    npk_rk_plan *plans = calloc(count, sizeof *plans);
    if (!run || !plans)
        s = npk_fail(NPK_ENOMEM, "matmul batch: no memory for %u items", count);
    else
        s = run_batch(rt, items, count, out, run, plans, st);
    free(run);
    free(plans);
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}
