/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* The matmul spine of the RK runtime: plan -> for each job (one task, or up to rt->chain
 * consecutive tasks of a core linked by their trailers): pack each feature into the core's
 * stable feature slots, synthesize the regcmds, submit through the state policy
 * (runtime_submit.c), read back and accumulate on the host. */
#include <stdlib.h>
#include <string.h>

#include "common/stream_copy.h"
#include "npukit/fp16.h"
#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_synth.h"
#include "part_clock.h"
#include "policy.h"
#include "runtime_form_choice.h"
#include "runtime_forms.h"
#include "runtime_layout.h"
#include "runtime_matmul.h"
#include "runtime_request.h"
#include "runtime_weights.h"
#include "trace.h"

/* A run: the tasks of one or more matmuls (items, runtime_matmul.h), each core's contiguous. */
typedef struct run {
    npk_rk *rt;
    const npk_rk_plan *plan;
    const npk_rk_mm_run_item *items;
    const uint32_t *item_of;    /* per plan task: its item (NULL: every task is item 0's) */
    pthread_mutex_t *item_lock; /* guards the items' stats across the cores' threads */
    npk_rk_stats *st;
    atomic_uint *done; /* tasks read back so far, over every core (for npk_rk_set_progress) */
    uint64_t id;       /* npk_rk_run_id: the feature tiles its tasks packed */
    const uint64_t *tile_off; /* per plan task: its tile's offset in rt's shared tiles (NULL:
                               * none) */
} run;

/* The item plan task t (a pointer into the plan) belongs to. */
static const npk_rk_mm_run_item *item_of(const run *r, const npk_rk_task_plan *t)
{
    return &r->items[r->item_of ? r->item_of[t - r->plan->tasks] : 0];
}

/* A job's NPU time (the stats' growth over its submit) shared among its tasks' items by task:
 * what each matmul of a batch is charged for the jobs it rode in. */
static void charge_items(const run *r, const npk_rk_task_plan *const *tasks, uint32_t count,
                         const npk_rk_stats *before)
{
    if (!r->item_of || !count)
        return;
    const uint64_t npu = r->st->npu_ns - before->npu_ns;
    const uint32_t submits = r->st->submits - before->submits;
    pthread_mutex_lock(r->item_lock);
    for (uint32_t i = 0; i < count; i++) {
        npk_rk_stats *ist = item_of(r, tasks[i])->st;
        ist->npu_ns += npu / count;
        ist->npu_span_ns += npu / count;
        ist->submits += submits; /* the submits it shared */
    }
    pthread_mutex_unlock(r->item_lock);
}

/* `count` more tasks of the call are read back: tell the runtime's progress callback. */
static void progress(const run *r, uint32_t count)
{
    npk_rk *rt = r->rt;
    if (!rt->progress)
        return;
    pthread_mutex_lock(&rt->progress_lock);
    /* Added under the lock: reports from the cores' threads arrive in increasing order. */
    unsigned done = atomic_fetch_add(r->done, count) + count;
    rt->progress(rt->progress_user, done, (uint32_t)r->plan->count);
    pthread_mutex_unlock(&rt->progress_lock);
}

/* ---- one job: up to rt->chain consecutive tasks of one core -------------------------------------
 */

typedef struct slot {
    npk_rk_block cblk;
    uint64_t cbytes, out_off;
    uint32_t c_rows, row_offset; /* the row-offset form's shared surface (npk_rk_mm) */
} slot;

uint64_t npk_rk_run_id(void)
{
    static atomic_uint_fast64_t last;
    return (uint64_t)atomic_fetch_add(&last, 1) + 1;
}

static bool same_tile(const npk_rk_feature_tile *x, const npk_rk_feature_tile *y)
{
    return x->run && x->run == y->run && x->data == y->data && x->pitch == y->pitch &&
           x->m0 == y->m0 && x->m1 == y->m1 && x->k0 == y->k0 && x->k1 == y->k1 && x->mp == y->mp &&
           x->kp == y->kp && x->a_pitch == y->a_pitch && x->prec == y->prec && x->mode == y->mode &&
           x->f32 == y->f32;
}

/* The clock at the end of a host part of core `core` begun at t0: the part's time added to
 * *part and traced (name NULL: not traced), the end returned as the next part's start. One
 * clock read per part: on a virtual machine a read can take 0.2 us, and a call has several
 * parts per task. */
static uint64_t part_done(unsigned core, const char *name, uint64_t t0, uint64_t *part)
{
    const uint64_t t1 = npk_rk_part_now();
    *part += t1 - t0;
    if (name && npk_rk_part_clock_wall()) /* the trace's host track is the wall clock */
        npk_rk_trace_host(core, name, t0, t1);
    return t1;
}

/* The slot task i of a job reads tile `tile` from: where it already is (see
 * npk_rk_task_matmul), else i, after packing it there (*packed). */
static unsigned tile_slot(npk_rk_core_bufs *b, unsigned i, const npk_rk_feature_tile *tile,
                          bool *packed)
{
    *packed = false;
    if (i > 0 && same_tile(&b->held[b->reads[i - 1]], tile))
        return b->reads[i - 1];
    if (same_tile(&b->held[i], tile))
        return i;
    *packed = true;
    return i;
}

npk_status npk_rk_task_matmul(npk_rk *rt, const npk_rk_weights *w, const npk_rk_cmatrix *a,
                              bool a_f32, uint32_t *a_beyond, const npk_rk_tile_at *at,
                              npk_rk_mode mode,
                              uint32_t pitch, const npk_rk_task_plan *t, unsigned i, uint64_t run,
                              npk_rk_prec out, uint32_t c_iova, npk_rk_mm *mm, npk_rk_stats *st)
{
    npk_rk_core_bufs *b = &rt->core[t->core];
    /* Feature: rows [m0, m1) and the K slice. Slot 0 holds every job's first feature, so the
     * address the NPU caches feature state by never changes between jobs. */
    uint64_t t0 = npk_rk_part_now();
    const npk_rk_block ablk = npk_rk_task_a_block(w, mode, pitch, t);
    size_t abytes = npk_rk_a_bytes(&ablk, t->kp);
    if (abytes > rt->feature_slot)
        return npk_fail(NPK_ELIMIT, "feature tile of %zu bytes exceeds the %u-byte slot", abytes,
                        rt->feature_slot);
    const npk_rk_feature_tile tile = {run,   a->data, a->pitch, t->m0, t->m1,     t->k0, t->k1,
                                      t->mp, t->kp,   pitch,    w->in, (int)mode, a_f32};
    const bool in_place = at && i > 0; /* read where the call packed it */
    bool packed = false;
    const unsigned slot = in_place ? i : tile_slot(b, i, &tile, &packed);
    b->reads[i] = (uint8_t)slot;
    uint64_t aoff = (uint64_t)slot * rt->feature_slot;
    uint8_t *dst = (uint8_t *)b->feature.host + aoff;
    npk_status s = NPK_OK;
    if (packed && at) /* packed once already: copied, for the NPU to read next */
        npk_stream_copy_any(dst, (const uint8_t *)at->mem->host + at->off, abytes);
    else if (packed)
        s = npk_rk_pack_tile(&ablk, a, a_f32, pitch, t, dst, rt->feature_slot, a_beyond);
    if (packed)
        b->held[slot] = s == NPK_OK ? tile : (npk_rk_feature_tile){0};
    t0 = part_done(t->core, "pack", t0, &st->pack_ns);
    if (s)
        return s;

    /* The task: the weights of this slice and column range are one contiguous block. */
    uint32_t b_iova;
    if ((s = npk_rk_weights_b_iova(w, t, &b_iova)))
        return s;
    *mm = npk_rk_mm_default(w->in, t->mp, t->kp, t->np);
    mm->out = out;
    mm->mode = (int)mode;
    /* the synthesizer counts the pitch in elements of LINE_STRIDE's unit (int4: int8's) */
    if (pitch)
        mm->a_pitch = (uint32_t)((uint64_t)pitch * t->kp * npk_rk_prec_bits(w->in) *
                                 npk_rk_input_row(w->in)->line_unit / 128);
    mm->sched = t->sched;
    mm->soc = rt->soc;
    mm->a = in_place ? (uint32_t)(npk_rk_mem_iova_on(at->mem, t->core) + at->off)
                     : (uint32_t)(b->feature.iova + aoff);
    mm->b = b_iova;
    mm->c = c_iova;
    t0 = part_done(t->core, NULL, t0, &st->synth_ns);

    if (!packed) /* synced when it was packed; the NPU never writes it */
        return NPK_OK;
    s = npk_rk_mem_sync(rt->dev, &b->feature, aoff, abytes, RKNPU_MEM_SYNC_TO_DEVICE);
    part_done(t->core, "sync", t0, &st->sync_ns);
    return s;
}

/* Task t's feature and program, placed in the job (jb: the submission form's layout). */
static npk_status prepare_task(run *r, const npk_rk_task_plan *t, unsigned i,
                               npk_rk_job_builder *jb, slot *sl)
{
    npk_rk *rt = r->rt;
    const npk_rk_mm_run_item *it = item_of(r, t);
    npk_rk_mm mm;
    const npk_rk_tile_at at = {&rt->shared_tiles,
                               r->tile_off ? r->tile_off[t - r->plan->tasks] : 0};
    npk_status s =
        npk_rk_task_matmul(rt, it->w, &it->a, it->a_f32, it->a_beyond, r->tile_off ? &at : NULL,
                           it->mode, it->a_pitch, t, i, r->id, it->task_out,
                           (uint32_t)(rt->core[t->core].output.iova + sl->out_off), &mm, r->st);
    if (s)
        return s;
    mm.c_rows = sl->c_rows; /* the row-offset form's shared surface */
    mm.row_offset = sl->row_offset;
    /* the M-tile chain: a tile after the one before it in the job (the same K and columns, the
     * next rows) carries the spec's "subsequent M-tile" flag, 0x2000 */
    mm.next_m_tile = t->sched == NPK_SCHED_CHAIN && i > 0 && t[-1].k0 == t->k0 &&
                     t[-1].n0 == t->n0 && t[-1].m1 == t->m0;
    uint64_t t0 = npk_rk_part_now();
    npk_rk_entry body[NPK_RK_BODY_MAX];
    size_t nb; /* the body in the form the device's kernel expects */
    if ((s = npk_rk_synth_for(rt->form, &mm, body, &nb, NULL)) ||
        (s = npk_rk_job_place(jb, i, body, nb)))
        return s;
    part_done(t->core, "synth", t0, &r->st->synth_ns);
    return NPK_OK;
}

/* Whether item it's tasks write partial sums of K slices that add up in its accumulator (else
 * each task's output is its region's whole result: a copy). */
static bool adds_partials(const npk_rk_mm_run_item *it)
{
    return it->task_out == npk_rk_input_row(it->w->in)->acc && !it->copies;
}

/* Task t's output in its slot, synced for the CPU: *src, *room bytes readable. */
static npk_status read_slot(run *r, const npk_rk_task_plan *t, const slot *sl, const void **src,
                            size_t *room)
{
    npk_rk_core_bufs *b = &r->rt->core[t->core];
    uint64_t t0 = npk_rk_part_now();
    npk_status s = npk_rk_mem_sync(r->rt->dev, &b->output, sl->out_off, sl->cbytes,
                                   RKNPU_MEM_SYNC_FROM_DEVICE);
    part_done(t->core, "sync", t0, &r->st->sync_ns);
    *src = (const uint8_t *)b->output.host + sl->out_off;
    *room = (size_t)(b->output.size - sl->out_off);
    return s;
}

/* Read back `count` tasks of item it and put them into its result. Tasks that add partials are
 * one output region's K slices in plan order; they are summed in one pass, so C is read and
 * written once for all of them instead of once per slice (a region's first slice, k0 = 0, also
 * skips the read where C was left unzeroed: npk_rk_mm_item_begin). Any other task output
 * (fp16) is the whole result of a single K slice, narrowed by the NPU: a copy. The sums of a
 * single slice are copied too, as adding them to a zeroed C would give them. */
static npk_status finish_region(run *r, const npk_rk_mm_run_item *it,
                                const npk_rk_task_plan *const *tasks, const slot *const *slots,
                                uint32_t count)
{
    const void *src[NPK_RK_SUM_SLICES_MAX];
    size_t room[NPK_RK_SUM_SLICES_MAX];
    const npk_rk_task_plan *t = tasks[0];
    const npk_rk_range tm = {t->m0, t->m1}, tn = {t->n0, t->n1};
    npk_status s = NPK_OK;
    for (uint32_t done = 0; s == NPK_OK && done < count;) {
        const uint32_t n = count - done < NPK_RK_SUM_SLICES_MAX ? count - done
                                                                : NPK_RK_SUM_SLICES_MAX;
        for (uint32_t j = 0; s == NPK_OK && j < n; j++)
            s = read_slot(r, tasks[done + j], slots[done + j], &src[j], &room[j]);
        if (s)
            break;
        const uint64_t t0 = npk_rk_part_now();
        const npk_rk_block *blk = &slots[done]->cblk;
        if (!adds_partials(it))
            s = it->task_out != npk_rk_input_row(it->w->in)->acc
                    ? npk_rk_unpack_c(blk, src[0], room[0], &it->acc, tm, tn)
                    : npk_rk_copy_sums_c(blk, src[0], room[0], &it->acc, tm, tn);
        else
            s = npk_rk_sum_slices_c(blk, src, room, n, &it->acc, tm, tn,
                                    done == 0 && it->c_fresh && tasks[0]->k0 == 0);
        part_done(t->core, "accumulate", t0, &r->st->accumulate_ns);
        done += n;
    }
    return s;
}

/* Whether job tasks x and y (of one item) are K slices of the same output region, their
 * outputs laid out alike. */
static bool same_region(const npk_rk_task_plan *x, const slot *sx, const npk_rk_task_plan *y,
                        const slot *sy)
{
    return x->m0 == y->m0 && x->m1 == y->m1 && x->n0 == y->n0 && x->n1 == y->n1 &&
           sx->cblk.prec == sy->cblk.prec && sx->cblk.mode == sy->cblk.mode &&
           sx->cblk.rows == sy->cblk.rows && sx->cblk.stride == sy->cblk.stride &&
           sx->cbytes == sy->cbytes;
}

/* The row-offset form: the job's M-tiles (one K slice and column range, npk_rk_job_joins) write
 * one output surface of all their rows, each from its DST row at its 0x1068 offset
 * (npk_rk_surface_place); the first slot describes the whole surface, read back once. The
 * surface is laid out in line mode (int8's): rows one pitch apart. */
static npk_status share_surface(const run *r, const npk_rk_task_plan *tasks, uint32_t count,
                                slot *slots, uint64_t *out_total)
{
    const npk_rk_mm_run_item *it = item_of(r, &tasks[0]); /* a job joins one item's tasks */
    if (it->mode != NPK_MODE_LINE)
        return npk_fail(NPK_EUNSUPPORTED,
                        "submission form %s: the shared output surface is laid out in line "
                        "mode, the plan is in cube mode",
                        r->rt->submission->name);
    uint32_t row[NPK_RK_MAX_CHAIN], base[NPK_RK_MAX_CHAIN], v[NPK_RK_MAX_CHAIN];
    for (uint32_t i = 0; i < count; i++)
        row[i] = tasks[i].m0 - tasks[0].m0;
    npk_rk_surface_place(row, count, base, v);
    const uint32_t rows = tasks[count - 1].m1 - tasks[0].m0;
    slots[0].cblk = npk_rk_c_block(it->task_out, NPK_MODE_LINE, rows, tasks[0].np);
    slots[0].cbytes = npk_rk_c_bytes(&slots[0].cblk, tasks[0].np);
    const uint64_t pitch = slots[0].cblk.stride * npk_rk_prec_bits(it->task_out) / 8;
    for (uint32_t i = 0; i < count; i++) {
        slots[i].out_off = base[i] * pitch;
        slots[i].c_rows = rows - base[i];
        slots[i].row_offset = v[i];
    }
    *out_total = (slots[0].cbytes + 63) / 64 * 64;
    return NPK_OK;
}

/* Lay out and prepare one core's part of a job: `count` tasks of that core, their output slots,
 * features, programs and records (at record0.. of `records`), synced for the NPU. */
static npk_status prepare_job(run *r, const npk_rk_task_plan *tasks, uint32_t count,
                              const npk_rk_mem *records, uint32_t record0, slot *slots,
                              npk_rk_job_builder *jb)
{
    npk_rk *rt = r->rt;
    unsigned core = tasks[0].core;
    npk_rk_core_bufs *b = &rt->core[core];
    uint64_t out_total = 0;
    for (uint32_t i = 0; i < count; i++) {
        const npk_rk_task_plan *t = &tasks[i];
        slot *sl = &slots[i];
        const npk_rk_mm_run_item *it = item_of(r, t);
        sl->cblk = npk_rk_c_block(it->task_out, it->mode, t->mp, t->np);
        sl->cbytes = npk_rk_c_bytes(&sl->cblk, t->np);
        sl->out_off = out_total;
        sl->c_rows = sl->row_offset = 0; /* a surface of its own rows */
        out_total += (sl->cbytes + 63) / 64 * 64;
    }
    npk_status s =
        rt->submission->row_offset ? share_surface(r, tasks, count, slots, &out_total) : NPK_OK;
    if (s == NPK_OK)
        s = npk_rk_core_output(rt, core, out_total);
    npk_rk_job_builder_init(jb, rt, core, records, record0, count);
    for (uint32_t i = 0; s == NPK_OK && i < count; i++)
        s = prepare_task(r, &tasks[i], i, jb, &slots[i]);
    if (s == NPK_OK) {
        uint64_t t0 = npk_rk_part_now();
        s = npk_rk_mem_sync(rt->dev, &b->task, 0, npk_rk_regcmd_offset(rt->chain, count),
                            RKNPU_MEM_SYNC_TO_DEVICE);
        /* The output is never written by the CPU, so it needs no TO_DEVICE sync; its first
         * submit's stale read is what the warm-up is for. */
        r->st->sync_ns += npk_rk_part_now() - t0;
    }
    return s;
}

/* Read a job's tasks back into their items' results: each output region's K slices in the
 * job at once, in plan order. */
static npk_status finish_job(run *r, const npk_rk_task_plan *tasks, uint32_t count,
                             const slot *slots)
{
    if (r->rt->submission->row_offset) { /* one shared surface: its rows read back at once */
        npk_rk_task_plan span = tasks[0];
        span.m1 = tasks[count - 1].m1;
        const npk_rk_task_plan *t = &span;
        const slot *sl = &slots[0];
        return finish_region(r, item_of(r, &tasks[0]), &t, &sl, 1);
    }
    bool taken[NPK_RK_MAX_CHAIN] = {false};
    npk_status s = NPK_OK;
    for (uint32_t i = 0; s == NPK_OK && i < count; i++) {
        if (taken[i])
            continue;
        const npk_rk_mm_run_item *it = item_of(r, &tasks[i]);
        const npk_rk_task_plan *group[NPK_RK_MAX_CHAIN] = {&tasks[i]};
        const slot *gslots[NPK_RK_MAX_CHAIN] = {&slots[i]};
        uint32_t n = 1;
        for (uint32_t j = i + 1; adds_partials(it) && j < count; j++)
            if (!taken[j] && item_of(r, &tasks[j]) == it &&
                same_region(&tasks[i], &slots[i], &tasks[j], &slots[j])) {
                taken[j] = true;
                group[n] = &tasks[j];
                gslots[n++] = &slots[j];
            }
        s = finish_region(r, it, group, gslots, n);
    }
    return s;
}

static uint32_t total_tasks(const uint32_t *take, unsigned n)
{
    uint32_t sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += take[i];
    return sum;
}

/* One job: `count` tasks of one core in one SUBMIT, laid out as the runtime's form says. */
static npk_status run_job(run *r, const npk_rk_task_plan *tasks, uint32_t count)
{
    npk_rk *rt = r->rt;
    unsigned core = tasks[0].core;
    slot slots[NPK_RK_MAX_CHAIN];
    npk_rk_job_builder jb;
    npk_status s = prepare_job(r, tasks, count, &rt->core[core].task, 0, slots, &jb);
    npk_rk_job job = {.records = &rt->core[core].task,
                      .core_mask = 1u << core,
                      .nonblock = rt->submission->nonblock};
    job.count[core] = npk_rk_job_records(&jb);
    const npk_rk_stats before = *r->st;
    if (s == NPK_OK)
        s = npk_rk_submit_traced(rt, &job, r->st, count);
    const npk_rk_task_plan *ptr[NPK_RK_MAX_CHAIN];
    for (uint32_t i = 0; i < count; i++)
        ptr[i] = &tasks[i];
    if (s == NPK_OK)
        charge_items(r, ptr, count, &before);
    if (s == NPK_OK && (s = finish_job(r, tasks, count, slots)) == NPK_OK)
        progress(r, count);
    return s;
}

/* ---- the cores, each from its own thread ------------------------------------------------------
 */

/* The jobs of one core: its tasks (the plan lists them contiguously) in groups of at most
 * rt->chain, in plan order (so a K slice's partials follow the first one's). */
static npk_status run_core(run *r, size_t first, size_t count)
{
    npk_status s = NPK_OK;
    for (size_t i = first; s == NPK_OK && i < first + count;) {
        uint32_t n = 1;
        const npk_rk_task_plan *tk = r->plan->tasks;
        /* a shared output surface (the row-offset form) holds one item's rows */
        while (n < npk_rk_tasks_per_job(r->rt) && i + n < first + count &&
               npk_rk_job_joins(r->rt, &tk[i + n - 1], &tk[i + n]) &&
               (!r->rt->submission->row_offset ||
                item_of(r, &tk[i + n - 1]) == item_of(r, &tk[i + n])))
            n++;
        pthread_mutex_t *job_lock = &r->rt->core[tk[i].core].job_lock;
        pthread_mutex_lock(job_lock);
        s = run_job(r, &tk[i], n);
        pthread_mutex_unlock(job_lock);
        i += n;
    }
    return s;
}

/* The vendor's multi-task form: from one thread, rounds of one SUBMIT each holding up to
 * tasks-per-job tasks of every core (core_mask of them all, each core's subcore range; the
 * records of every core in the first core's task buffer). The cores' job locks are taken in
 * core order, so runtimes sharing the engine never hold them crosswise. */
static npk_status run_all_in_one(run *r, const size_t *first, const size_t *count, unsigned n)
{
    npk_rk *rt = r->rt;
    const uint32_t per = npk_rk_tasks_per_job(rt);
    size_t done[NPK_RK_MAX_CORES] = {0};
    npk_status s = NPK_OK;
    for (bool more = true; s == NPK_OK && more;) {
        slot slots[NPK_RK_MAX_CORES][NPK_RK_MAX_CHAIN];
        npk_rk_job_builder jb;
        npk_rk_job job = {0};
        uint32_t take[NPK_RK_MAX_CORES] = {0};
        const npk_rk_task_plan *tk[NPK_RK_MAX_CORES] = {0};
        const npk_rk_mem *records = NULL;
        for (unsigned i = 0; i < n; i++) {
            take[i] = (uint32_t)(count[i] - done[i] < per ? count[i] - done[i] : per);
            tk[i] = &r->plan->tasks[first[i] + done[i]];
            if (take[i])
                job.core_mask |= 1u << tk[i]->core;
        }
        for (unsigned c = 0; c < NPK_RK_MAX_CORES; c++)
            if (job.core_mask & (1u << c)) {
                pthread_mutex_lock(&rt->core[c].job_lock);
                if (!records)
                    records = &rt->core[c].task;
            }
        job.records = records;
        for (unsigned i = 0; s == NPK_OK && i < n; i++) {
            if (!take[i])
                continue;
            unsigned c = tk[i]->core;
            job.start[c] = c * rt->chain;
            s = prepare_job(r, tk[i], take[i], records, job.start[c], slots[i], &jb);
            job.count[c] = npk_rk_job_records(&jb);
        }
        if (s == NPK_OK) /* the other cores' records landed after the first core's sync */
            s = npk_rk_mem_sync(rt->dev, records, 0, npk_rk_regcmd_offset(rt->chain, 0),
                                RKNPU_MEM_SYNC_TO_DEVICE);
        const npk_rk_stats before = *r->st;
        if (s == NPK_OK)
            s = npk_rk_submit_traced(rt, &job, r->st, total_tasks(take, n));
        const npk_rk_task_plan *ptr[NPK_RK_MAX_CORES * NPK_RK_MAX_CHAIN];
        uint32_t np = 0;
        for (unsigned i = 0; i < n; i++)
            for (uint32_t j = 0; j < take[i]; j++)
                ptr[np++] = &tk[i][j];
        if (s == NPK_OK)
            charge_items(r, ptr, np, &before);
        for (unsigned i = 0; s == NPK_OK && i < n; i++)
            s = finish_job(r, tk[i], take[i], slots[i]);
        if (s == NPK_OK)
            progress(r, total_tasks(take, n));
        for (unsigned c = NPK_RK_MAX_CORES; c-- > 0;)
            if (job.core_mask & (1u << c))
                pthread_mutex_unlock(&rt->core[c].job_lock);
        more = false;
        for (unsigned i = 0; i < n; i++) {
            done[i] += take[i];
            more |= done[i] < count[i];
        }
    }
    return s;
}

/* The jobs of one core, from its own worker (runtime_cores.c) with stats of its own. */
static npk_status core_jobs(void *ctx, size_t first, size_t count, npk_rk_stats *st)
{
    run r = *(const run *)ctx;
    r.st = st;
    return run_core(&r, first, count);
}

/* Every core's jobs at once: one thread per core, or one SUBMIT per round for every core when
 * the submission form says so. The cores write disjoint column ranges of the result. */
static npk_status run_all_cores(run *r)
{
    if (r->rt->submission->all_cores) {
        size_t first[NPK_RK_MAX_CORES], count[NPK_RK_MAX_CORES];
        unsigned n;
        npk_status s = npk_rk_core_groups(r->plan, first, count, &n);
        if (s == NPK_OK)
            s = run_all_in_one(r, first, count, n);
        r->st->npu_span_ns = r->st->npu_ns; /* one SUBMIT per round: the cores ran together */
        return s;
    }
    return npk_rk_run_cores(&r->rt->workers, r->plan, core_jobs, r, r->st);
}

/* ---- the call ----------------------------------------------------------------------------------
 */

npk_status npk_rk_matmul_check(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                               npk_rk_prec out, void *c)
{
    if (!a || !c)
        return npk_fail(NPK_EINVAL, "matmul: NULL %s", !a ? "A" : "C");
    npk_status s = npk_rk_matmul_check_shape(rt, w, m, out);
    if (s)
        return s;
    if (w->in == NPK_PREC_INT4)
        return npk_rk_check_int4(a, (uint64_t)m * w->k, "A");
    return NPK_OK;
}

npk_status npk_rk_matmul_check_shape(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                     npk_rk_prec out)
{
    if (!rt || !w)
        return npk_fail(NPK_EINVAL, "matmul: NULL %s", !rt ? "runtime" : "weights");
    if (w->owner != rt)
        return npk_fail(NPK_EINVAL, "matmul: the weights were packed by another runtime (their "
                                    "IOVAs are that device's; here they would read another "
                                    "buffer or fault)");
    if (!m)
        return npk_fail(NPK_EINVAL, "matmul: M=0; M must be at least 1");
    if (m > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "matmul: M=%u exceeds %zu", m, (size_t)NPK_RK_LAYOUT_MAX_DIM);
    char outs[64];
    if (!npk_rk_host_out_ok(w->in, out))
        return npk_fail(NPK_EINVAL, "matmul: %s weights give %s, not %s", npk_rk_prec_name(w->in),
                        npk_rk_host_outs(w->in, outs, sizeof outs),
                        npk_rk_prec_name(out) ? npk_rk_prec_name(out) : "?");
    const char *why = npk_rk_submission_refusal(rt->submission, rt->form->name, w->in);
    if (why)
        return npk_fail(NPK_EUNSUPPORTED, "matmul: submission form %s with %s weights: %s",
                        rt->submission->name, npk_rk_prec_name(w->in), why);
    return NPK_OK;
}

npk_rk_prec npk_rk_task_out(const npk_rk_weights *w, npk_rk_prec out)
{
    /* Tasks write the input's accumulator as partials (fp32, int32; int4: int16, exact by the
     * slice size); a single-slice output the NPU itself can produce (fp16 through
     * FP32TOFP16_EN) is written directly. */
    const npk_rk_out_stage *direct = npk_rk_out_stage_find(w->in, out);
    return direct && direct->completes && w->slices == 1 ? out : npk_rk_input_row(w->in)->acc;
}

npk_status npk_rk_matmul_held(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                              npk_rk_prec out, void *c, npk_rk_stats *st)
{
    return npk_rk_matmul_held_plan(rt, w, m, a, out, c, NULL, st);
}

/* A copy of a plan the caller keeps (its tasks are remapped to the runtime's cores here). */
static npk_status copy_plan(const npk_rk_plan *from, npk_rk_plan *to)
{
    *to = *from;
    to->tasks = malloc(from->count * sizeof *to->tasks + 1);
    if (!to->tasks)
        return npk_fail(NPK_ENOMEM, "matmul: no memory for the plan's %zu tasks", from->count);
    memcpy(to->tasks, from->tasks, from->count * sizeof *to->tasks);
    return NPK_OK;
}

npk_status npk_rk_matmul_run(npk_rk *rt, const npk_rk_plan *plan, const npk_rk_mm_run_item *items,
                             const uint32_t *item_of_task, npk_rk_stats *st)
{
    pthread_mutex_t item_lock = PTHREAD_MUTEX_INITIALIZER;
    atomic_uint done = 0;
    run r = {.rt = rt,
             .done = &done,
             .plan = plan,
             .items = items,
             .item_of = item_of_task,
             .item_lock = &item_lock,
             .st = st,
             .id = npk_rk_run_id()};
    npk_rk_engine *e = rt->eng;
    /* The call runs in the IOMMU domain of its weights, on that domain's core buffers. */
    const unsigned domain = items[0].w->mem.domain;
    for (size_t i = 0; i < plan->count; i++)
        if (items[item_of_task ? item_of_task[i] : 0].w->mem.domain != domain)
            return npk_fail(NPK_EUNSUPPORTED,
                            "matmul: one call's weights lie in IOMMU domains %u and %u; a job "
                            "runs in one",
                            domain, items[item_of_task ? item_of_task[i] : 0].w->mem.domain);
    npk_status s = npk_rk_use_domain(rt, domain);
    if (s)
        return s;
    pthread_mutex_lock(&e->policy_lock);
    npk_rk_policy_due(rt, npk_rk_policy_on_enter(e->have_prec, e->last_prec, items[0].w->in));
    e->have_prec = true;
    e->last_prec = items[0].w->in;
    pthread_mutex_unlock(&e->policy_lock);
    uint64_t *tile_off = NULL;
    npk_rk_mm_run_item *staged = NULL;
    bool repeated = true;
    s = npk_rk_shared_tiles_pack(rt, plan, items, item_of_task, domain, st, &tile_off, &repeated);
    if (s == NPK_OK && !tile_off && repeated)
        s = npk_rk_stage_f32(rt, plan, items, item_of_task, st, &staged);
    r.tile_off = tile_off;
    r.items = staged ? staged : items;
    if (s == NPK_OK)
        s = run_all_cores(&r);
    free(tile_off);
    free(staged);
    rt->core = e->core;
    pthread_mutex_destroy(&item_lock);
    return s;
}

npk_status npk_rk_mm_item_begin(const npk_rk_weights *w, uint32_t m, const void *a, npk_rk_prec out,
                                void *c, bool slices_in_order, npk_rk_mm_run_item *it)
{
    *it = (npk_rk_mm_run_item){0};
    it->w = w;
    it->a = (npk_rk_cmatrix){a, m, w->k, w->k};
    it->task_out = npk_rk_task_out(w, out);
    it->out = out;
    it->c = c;
    /* Partials add up in the host accumulator; an output narrower than it (fp16 from fp32
     * partials) is accumulated aside and narrowed at the end. */
    const npk_rk_prec host_acc = npk_rk_out_stage_find(w->in, it->task_out)->host_acc;
    /* In a plan that runs each region's K slices in order on one core, first slice first
     * (npk_rk_plan_matmul's), the first slice writes the region: nothing is zeroed. */
    it->c_fresh = slices_in_order;
    if (out != it->task_out && out != host_acc) {
        it->scratch = slices_in_order ? malloc((size_t)m * w->n * sizeof *it->scratch)
                                      : calloc((size_t)m * w->n, sizeof *it->scratch);
        if (!it->scratch)
            return npk_fail(NPK_ENOMEM, "matmul: no memory for the fp32 accumulator");
        it->acc = (npk_rk_matrix){it->scratch, m, w->n, w->n};
    } else {
        /* One K slice: every task's output is its region's whole result, copied into C (a
         * narrowed output, or sums as wide as C: npk_rk_copy_sums_c writes what adding them
         * to zero would, a -0 float sum as +0), so C needs no zeroing. */
        const npk_rk_prec acc = npk_rk_input_row(w->in)->acc;
        it->copies = w->slices == 1 && (it->task_out != acc || it->task_out == out);
        if (!it->copies && !it->c_fresh)
            memset(c, 0, (size_t)m * w->n * (npk_rk_prec_bits(out) / 8));
        it->acc = (npk_rk_matrix){c, m, w->n, w->n};
    }
    return NPK_OK;
}

void npk_rk_mm_item_end(npk_rk_mm_run_item *it, bool ok)
{
    if (ok && it->scratch) {
        uint16_t *ch = it->c;
        for (size_t i = 0; i < (size_t)it->a.rows * it->w->n; i++)
            ch[i] = npk_f32_to_f16(it->scratch[i]);
    }
    free(it->scratch);
    it->scratch = NULL;
}

npk_status npk_rk_matmul_held_plan(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                   npk_rk_prec out, void *c, const npk_rk_plan *plan,
                                   npk_rk_stats *st)
{
    return npk_rk_matmul_held_src(rt, w, m, a, false, out, c, plan, st);
}

npk_status npk_rk_matmul_held_src(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                  bool a_f32, npk_rk_prec out, void *c, const npk_rk_plan *plan,
                                  npk_rk_stats *st)
{
    npk_status s = NPK_OK;
    /* Weights bound to a buffer are read at every call: bring them up to date (the object is
     * the caller's B; only its cache of the buffer changes). */
    if (w->src && (s = npk_rk_weights_refresh(rt, (npk_rk_weights *)w, st)))
        return s;
    npk_rk_mm_run_item it;
    /* a caller's plan may order its tasks any way: C is zeroed for it */
    if ((s = npk_rk_mm_item_begin(w, m, a, out, c, plan == NULL, &it)))
        return s;
    it.a_f32 = a_f32;
    it.a_beyond = a_f32 ? &st->a_beyond_fp16 : NULL;
    npk_rk_plan run_plan;
    /* a plan given is the runtime's form's; else the form is chosen with the plan (the
     * multi-task form where the cost model prefers it, runtime_form_choice.c) and the call
     * runs in it: the runtime's lock is held, no setting changes meanwhile */
    npk_rk_form_pick pick = {rt->submission, 0, 0};
    s = plan ? copy_plan(plan, &run_plan)
             : npk_rk_form_choose(rt, w, m, it.task_out, &pick, &run_plan);
    const struct npk_rk_submission_row *own = rt->submission;
    rt->submission = pick.form;
    if (s == NPK_OK) {
        st->tasks = (uint32_t)run_plan.count;
        st->cores_used = run_plan.cores_used;
        /* The runtime's cores are the engine's: tasks go to the pinned ones. */
        st->core_mask = 0;
        for (size_t i = 0; i < run_plan.count; i++) {
            run_plan.tasks[i].core = npk_rk_task_core(rt, w, run_plan.tasks[i].core);
            st->core_mask |= 1u << run_plan.tasks[i].core;
        }
        it.mode = run_plan.mode;
        it.a_pitch = run_plan.req.a_pitch;
        s = npk_rk_matmul_run(rt, &run_plan, &it, NULL, st);
        npk_rk_plan_free(&run_plan);
    }
    rt->submission = own;
    npk_rk_mm_item_end(&it, s == NPK_OK);
    return s;
}

npk_status npk_rk_check_f32_source(const npk_rk_weights *w, const char *what)
{
    if (w && w->in != NPK_PREC_FP16)
        return npk_fail(NPK_EINVAL, "%s: A as fp32 is rounded to fp16 for fp16 weights; these are %s",
                        what, npk_rk_prec_name(w->in));
    return NPK_OK;
}

/* npk_rk_matmul and npk_rk_matmul_f32: A's elements the weights' (a_f32 false) or floats. */
static npk_status matmul_call(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                              bool a_f32, npk_rk_prec out, void *c, npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    uint64_t start = npk_now_ns();
    npk_status s = npk_rk_matmul_check(rt, w, m, a, out, c);
    if (s || (a_f32 && (s = npk_rk_check_f32_source(w, "matmul"))) ||
        (s = npk_rk_call_begin(rt, "matmul")))
        return s;
    s = npk_rk_matmul_held_src(rt, w, m, a, a_f32, out, c, NULL, st);
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}

npk_status npk_rk_matmul(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                         npk_rk_prec out, void *c, npk_rk_stats *stats)
{
    return matmul_call(rt, w, m, a, false, out, c, stats);
}

npk_status npk_rk_matmul_f32(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const float *a,
                             npk_rk_prec out, void *c, npk_rk_stats *stats)
{
    return matmul_call(rt, w, m, a, true, out, c, stats);
}

/* The form npk_rk_matmul would choose, and the totals behind it (runtime_form_choice.c). */
npk_status npk_rk_submission_choice(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                    npk_rk_prec out, const char **form, double *form_us,
                                    double *multitask_us)
{
    npk_status s = npk_rk_matmul_check_shape(rt, w, m, out);
    if (s || (s = npk_rk_call_begin(rt, "submission_choice")))
        return s;
    npk_rk_form_pick pick;
    npk_rk_plan plan;
    s = npk_rk_form_choose(rt, w, m, npk_rk_task_out(w, out), &pick, &plan);
    npk_rk_call_end(rt);
    if (s)
        return s;
    npk_rk_plan_free(&plan);
    if (form)
        *form = pick.form->name;
    if (form_us)
        *form_us = pick.form_us;
    if (multitask_us)
        *multitask_us = pick.multitask_us;
    return NPK_OK;
}
