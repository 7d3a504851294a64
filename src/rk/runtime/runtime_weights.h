/* SPDX-License-Identifier: MIT */
/* Resident weights (runtime_weights.c): sliced and packed once, read by every call. It depends
 * on the plan request (runtime_request.h) only. */
#ifndef NPUKIT_RK_RUNTIME_WEIGHTS_H
#define NPUKIT_RK_RUNTIME_WEIGHTS_H

#include "runtime_internal.h"

/* A weights object of this shape with its slicing chosen (k_slice 0: the planner's choice for
 * m_hint, else exactly that), no memory yet. */
npk_status npk_rk_weights_new(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n, uint32_t m_hint,
                              uint32_t k_slice, npk_rk_weights **out);
/* npk_rk_weights_pack of row-major B with the slicing given as npk_rk_weights_new takes it
 * (k_slice 0: the planner's choice for m_hint). */
npk_status npk_rk_weights_pack_sliced(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                      const void *b, uint32_t m_hint, uint32_t k_slice,
                                      npk_rk_weights **out);
/* Bytes of w's packed slices. */
uint64_t npk_rk_weights_bytes(const npk_rk_weights *w);
/* Pack row-major B (the runtime's element convention) into w->mem over w's slicing. */
npk_status npk_rk_weights_fill(npk_rk *rt, npk_rk_weights *w, const void *b);
/* Device memory for w's packed slices (runtime_placement.c): one buffer every core reads, or
 * on a device whose cores read only their own address space (rocket) split by core, each
 * core's space holding only the columns it computes; an error naming the sizes and the limits
 * when nothing fits. npk_rk_weights_unplace gives it back. */
npk_status npk_rk_weights_place(npk_rk *rt, npk_rk_weights *w);
void npk_rk_weights_unplace(npk_rk_engine *e, npk_rk_weights *w);
/* Bytes of part i of weights split by core. */
uint64_t npk_rk_weights_part_bytes(const npk_rk_weights *w, unsigned i);
/* The address task t (its core the engine's) reads its block of w at; NPK_EINVAL when t's core
 * does not hold those columns of weights split by core (a plan not made for them). */
npk_status npk_rk_weights_b_iova(const npk_rk_weights *w, const npk_rk_task_plan *t,
                                 uint32_t *iova);
/* w's K slice i alone, as weights of one slice (a view: nothing owned). */
void npk_rk_weights_slice_view(const npk_rk_weights *w, uint32_t i, npk_rk_weights *view);
/* NPK_EINVAL naming the first element outside [-8, 7]. */
npk_status npk_rk_check_int4(const int8_t *v, uint64_t count, const char *what);

#endif
