/* SPDX-License-Identifier: MIT */
/* Resident weights (runtime_weights.c): sliced and packed once, read by every call. It depends
 * on the plan request (runtime_request.h) only. */
#ifndef NPUKIT_RK_RUNTIME_WEIGHTS_H
#define NPUKIT_RK_RUNTIME_WEIGHTS_H

#include "runtime_internal.h"
#include "runtime_placement.h"

/* A weights object of this shape with its slicing chosen (k_slice 0: the planner's choice for
 * m_hint, else exactly that), no memory yet. */
npk_status npk_rk_weights_new(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n, uint32_t m_hint,
                              uint32_t k_slice, npk_rk_weights **out);
/* npk_rk_weights_pack of row-major B with the slicing given as npk_rk_weights_new takes it
 * (k_slice 0: the planner's choice for m_hint). */
npk_status npk_rk_weights_pack_sliced(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                      const void *b, uint32_t m_hint, uint32_t k_slice,
                                      npk_rk_weights **out);
/* Pack row-major B (the runtime's element convention) into w->mem over w's slicing. */
npk_status npk_rk_weights_fill(npk_rk *rt, npk_rk_weights *w, const void *b);
/* NPK_EINVAL naming the first element outside [-8, 7]. */
npk_status npk_rk_check_int4(const int8_t *v, uint64_t count, const char *what);

#endif
