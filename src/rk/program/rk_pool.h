/* SPDX-License-Identifier: MIT */
/* Pooling tasks on the PDP (PPU 0x4001 + its output stage 0x8001; no CNA, CORE or DPU; spec
 * "Op -> engine-block map", docs/facts-engines.md "The PDP pooling engine"): max, min or
 * average over a kernel window with stride and padding, fp16, reading and writing the feature
 * atom layout (rk/hw/rk_conv_hw.h).
 *
 * Numerics (the simulator's model): max/min exact over the real cells (the padding never
 * wins); average = (fp32 sum of the window, padding as 0) x RECIP_KERNEL_WIDTH x
 * RECIP_KERNEL_HEIGHT (npk_rk_pool_recip), rounded to fp16 once. */
#ifndef NPUKIT_RK_POOL_H
#define NPUKIT_RK_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"
#include "rk/hw/rk_conv_hw.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef struct npk_rk_pool {
    npk_rk_pool_method method;
    uint32_t in_h, in_w, c;
    uint32_t out_h, out_w;
    uint32_t k_h, k_w, stride_y, stride_x;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    uint32_t in, out; /* IOVAs, 16-byte aligned */
    bool unchecked;
} npk_rk_pool;

/* Every limit of the task, naming the value and the limit. */
npk_status npk_rk_pool_check(const npk_rk_pool *t);
/* The body: the pool driver row's `body` entries in its order (synth_pool.c). */
npk_status npk_rk_synth_pool(const npk_rk_pool *t, npk_rk_entry *body);

#ifdef __cplusplus
}
#endif
#endif
