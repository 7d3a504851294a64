/* SPDX-License-Identifier: MIT */
/* Where packed weights live (runtime_placement.c): one buffer every core reads, or split by
 * core where each core reads only its own address space; and where a task reads them. It
 * depends on the plan request (runtime_request.h) only. */
#ifndef NPUKIT_RK_RUNTIME_PLACEMENT_H
#define NPUKIT_RK_RUNTIME_PLACEMENT_H

#include "runtime_internal.h"

/* Device memory for w's packed slices (runtime_placement.c): one buffer every core reads, or
 * on a device whose cores read only their own address space (rocket) split by core, each
 * core's space holding only the columns it computes; an error naming the sizes and the limits
 * when nothing fits. npk_rk_weights_unplace gives it back. */
npk_status npk_rk_weights_place(npk_rk *rt, npk_rk_weights *w);
void npk_rk_weights_unplace(npk_rk_engine *e, npk_rk_weights *w);
/* Bytes of w's packed slices. */
uint64_t npk_rk_weights_bytes(const npk_rk_weights *w);
/* Bytes of part i of weights split by core. */
uint64_t npk_rk_weights_part_bytes(const npk_rk_weights *w, unsigned i);
/* The address task t (its core the engine's) reads its block of w at; NPK_EINVAL when t's core
 * does not hold those columns of weights split by core (a plan not made for them). */
npk_status npk_rk_weights_b_iova(const npk_rk_weights *w, const npk_rk_task_plan *t,
                                 uint32_t *iova);
/* w's K slice i alone, as weights of one slice (a view: nothing owned). */
void npk_rk_weights_slice_view(const npk_rk_weights *w, uint32_t i, npk_rk_weights *view);
#endif
