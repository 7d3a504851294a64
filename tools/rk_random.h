/* SPDX-License-Identifier: MIT */
/* Random operands for the rk commands: seedable, the same numbers on every machine. */
#ifndef NPUKIT_TOOLS_RK_RANDOM_H
#define NPUKIT_TOOLS_RK_RANDOM_H

#include <stdint.h>

#include "npukit/rk_types.h"

/* count random elements of p from *seed (advanced): fp16 uniform in [-1, 1), int8 and int16 full
 * range, int4 [-8, 7]. The same numbers on every machine for the same seed. */
void rk_fill_random(npk_rk_prec p, void *dst, uint64_t count, uint64_t *seed);

#endif
