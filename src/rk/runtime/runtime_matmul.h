/* SPDX-License-Identifier: MIT */
/* The matmul spine (runtime_matmul.c), above the weights, the layouts and the plan request. */
#ifndef NPUKIT_RK_RUNTIME_MATMUL_H
#define NPUKIT_RK_RUNTIME_MATMUL_H

#include "npukit/rk_synth.h"
#include "runtime_internal.h"

/* npk_rk_matmul's argument checks, and the matmul itself for a call that holds the runtime's
 * lock (npk_rk_call_begin) with checked arguments; adds to st (zeroed by the caller). */
npk_status npk_rk_matmul_check(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                               npk_rk_prec out, void *c);
/* ... the checks that need no operand: the runtime, the weights, M, the output and the form */
npk_status npk_rk_matmul_check_shape(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                     npk_rk_prec out);
npk_status npk_rk_matmul_held(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                              npk_rk_prec out, void *c, npk_rk_stats *st);
/* npk_rk_matmul_held running `plan` (NULL: planned here), which must be the plan of
 * npk_rk_matmul_request(rt, w, m, npk_rk_task_out(w, out)) — e.g. kept from an earlier call of
 * the same request: planning is host work every call would otherwise repeat. */
npk_status npk_rk_matmul_held_plan(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                   npk_rk_prec out, void *c, const struct npk_rk_plan *plan,
                                   npk_rk_stats *st);
/* The same with A's elements floats (a_f32, fp16 weights: npk_rk_matmul_f32) or the weights'. */
npk_status npk_rk_matmul_held_src(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                  bool a_f32, npk_rk_prec out, void *c,
                                  const struct npk_rk_plan *plan, npk_rk_stats *st);
/* npk_rk_matmul_f32's refusal of weights that are not fp16 (NPK_OK for fp16 ones). */
npk_status npk_rk_check_f32_source(const npk_rk_weights *w, const char *what);
/* One matmul of a run: its weights, A, where its tasks' outputs add up (C, or an fp32 scratch
 * narrowed into C at the end), what each task writes and the plan's mode; st: its own stats in
 * a batch (the NPU time of the jobs it rode in, shared by task), NULL otherwise. */
typedef struct npk_rk_mm_run_item {
    const npk_rk_weights *w;
    npk_rk_cmatrix a;
    bool a_f32; /* A holds floats, rounded to fp16 as they are packed (fp16 weights) */
    npk_rk_matrix acc;
    npk_rk_prec task_out, out;
    npk_rk_mode mode;
    uint32_t a_pitch; /* the plan's feature row pitch (0: the mode's own) */
    void *c;
    float *scratch;
    bool copies; /* tasks copy their outputs into C (one K slice; C not zeroed) */
    bool c_fresh; /* C (or the scratch) not zeroed: each region's first K slice writes it */
    npk_rk_stats *st;
    /* a_f32: set to 1 (from any core's thread: an atomic store) when a float of A was finite and
     * beyond fp16's range as it was converted; NULL: not looked for */
    uint32_t *a_beyond;
} npk_rk_mm_run_item;

/* Set up item it for C [M][N] = A . w in `out` (zeroes C unless the tasks copy into it or
 * slices_in_order says the plan runs each output region's K slices in order on one core, the
 * slice at k0 = 0 first, as npk_rk_plan_matmul's plans do; or allocates the scratch); end it
 * (ok: narrow the scratch into C) and free what begin allocated. */
npk_status npk_rk_mm_item_begin(const npk_rk_weights *w, uint32_t m, const void *a, npk_rk_prec out,
                                void *c, bool slices_in_order, npk_rk_mm_run_item *it);
void npk_rk_mm_item_end(npk_rk_mm_run_item *it, bool ok);

/* Run a plan's tasks (cores already the engine's, each core's tasks contiguous): task i belongs
 * to items[item_of_task[i]] (item_of_task NULL: one item). The state policy's entry for the
 * items' input precision, then every core's jobs as the runtime's form lays them out. */
npk_status npk_rk_matmul_run(npk_rk *rt, const struct npk_rk_plan *plan,
                             const npk_rk_mm_run_item *items, const uint32_t *item_of_task,
                             npk_rk_stats *st);

/* What each task of a matmul of w writes for output `out`. */
npk_rk_prec npk_rk_task_out(const npk_rk_weights *w, npk_rk_prec out);

/* ---- feature tiles (runtime_tiles.c) ---- */

/* Task t's feature block: rows [m0, m1) (cube mode: mp), K kp, rows pitch x kp apart (0: the
 * mode's own). */
npk_rk_block npk_rk_task_a_block(const npk_rk_weights *w, npk_rk_mode mode, uint32_t pitch,
                                 const npk_rk_task_plan *t);
/* Task t's tile of A (floats when a_f32) packed at dst (room bytes) as ablk lays it out,
 * padding included; a float beyond fp16's range sets *beyond (NULL: not looked for; see
 * npk_rk_mm_run_item.a_beyond). */
npk_status npk_rk_pack_tile(const npk_rk_block *ablk, const npk_rk_cmatrix *a, bool a_f32,
                            uint32_t pitch, const npk_rk_task_plan *t, uint8_t *dst, size_t room,
                            uint32_t *beyond);
/* Where a task's tile was packed for every core: in a buffer every core reads (mem; with
 * address spaces per core, at its copy in the core's space), read in place by a job's later
 * tasks and copied into slot 0 by a job's first. */
typedef struct npk_rk_tile_at {
    const npk_rk_mem *mem; /* rt's shared tile buffer */
    uint64_t off;
} npk_rk_tile_at;
/* Before the cores start: every distinct tile of the plan packed once, when that saves packing,
 * into rt's shared tile buffer (in `domain`; with address spaces per core, a copy in each, the
 * copies made by the sync and counted as packing); *offsets (malloc'd, the caller frees) then
 * holds each plan task's tile offset there, else NULL (each core packs its own). *repeated: some tile is read by more than one task (true where that was not
 * counted). Accounts pack and sync time in st. */
npk_status npk_rk_shared_tiles_pack(npk_rk *rt, const struct npk_rk_plan *plan,
                                    const npk_rk_mm_run_item *items, const uint32_t *item_of,
                                    unsigned domain, npk_rk_stats *st, uint64_t **offsets,
                                    bool *repeated);
/* When the cores pack their own tiles (no shared tiles) and more than one task reads a tile
 * (the caller's test: npk_rk_shared_tiles_pack's *repeated; where each task's tile is its own,
 * as when the cores split M, converting A first would only add a pass over it): the
 * float A of every a_f32 item converted to fp16 once, into rt's staging, so that each core
 * copies fp16 tiles instead of converting the floats again; *staged (malloc'd, the caller
 * frees) then holds the items with that A, else NULL. Accounts the conversion as pack time. */
npk_status npk_rk_stage_f32(npk_rk *rt, const struct npk_rk_plan *plan,
                            const npk_rk_mm_run_item *items, const uint32_t *item_of,
                            npk_rk_stats *st, npk_rk_mm_run_item **staged);

/* Plan task t of a matmul on its core (t->core, the engine's): its feature (rows [m0, m1), its K
 * range zero-padded to kp) packed into the core's feature slot i and synced for the NPU, and
 * *mm, the task's matmul (pitch: line-form rows pitch x the packed row apart, 0 the mode's
 * own): the weights' block of its K slice and column range, the slot's feature, the output
 * (task_out) at c_iova. Accounts pack, synth and sync time in st.
 * run: the run the task belongs to (npk_rk_run_id; 0: none). Within a run the task reads its
 * tile where it already is, packing nothing: in slot i from an earlier job, or in the slot the
 * job's task i - 1 reads (tasks 1.. of a job only: a job's first feature is always slot 0's).
 * at (NULL: none): the tile packed for every core (npk_rk_shared_tiles_pack): tasks 1.. read
 * it there, the first is copied from it into slot 0. a_f32: A's elements are floats; a_beyond
 * as npk_rk_pack_tile takes it. */
npk_status npk_rk_task_matmul(npk_rk *rt, const npk_rk_weights *w, const npk_rk_cmatrix *a,
                              bool a_f32, uint32_t *a_beyond, const npk_rk_tile_at *at, npk_rk_mode mode, uint32_t pitch, const npk_rk_task_plan *t,
                              unsigned i, uint64_t run, npk_rk_prec task_out, uint32_t c_iova,
                              npk_rk_mm *mm, npk_rk_stats *st);

/* A new run's id (never 0, never repeated in the process). */
uint64_t npk_rk_run_id(void);

#endif
