/* SPDX-License-Identifier: MIT */
/* The planner's split of N over cores (plan.c), for code that binds columns to cores before a
 * call is planned: weights placed split by core (each core's address space holds only the
 * columns that core computes) must be cut exactly where a plan splitting N will cut them. */
#ifndef NPUKIT_RK_PLAN_SPLIT_H
#define NPUKIT_RK_PLAN_SPLIT_H

#include <stdint.h>

#include "npukit/rk_types.h"

/* The column ranges a plan of `cores` cores splitting N (NPK_RK_SPLIT_N) gives its cores: core
 * c computes columns [n0[c], n0[c + 1]) (whole N groups of `in`, the last range ending at n).
 * Returns the cores the split uses: fewer than `cores` while each would get fewer than two
 * groups (facts E.3); n0 has room for cores + 1 entries. */
unsigned npk_rk_plan_n_split(npk_rk_prec in, uint32_t n, unsigned cores, uint32_t *n0);

#endif
