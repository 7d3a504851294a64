/* SPDX-License-Identifier: MIT */
/* Pooling tasks on the PDP (PPU 0x4001 + its output stage 0x8001; no CNA, CORE or DPU; spec
 * "Op -> engine-block map", docs/facts-engines.md "The PDP pooling engine"): max, min or
 * average over a kernel window with stride and padding, fp16, reading and writing the feature
 * atom layout of rk_conv.h ([ceil(C/8)][H][W][8]).
 *
 * Numerics (the simulator's model, INF where noted in the facts): max/min exact over the real
 * cells (the padding never wins); average = (fp32 sum of the window, padding as 0) x
 * RECIP_KERNEL_WIDTH x RECIP_KERNEL_HEIGHT, the reciprocals in NVDLA's 17-bit float for fp16
 * (1 sign, 6 exponent bits biased by 31, 10 mantissa bits), rounded to fp16 once. */
#ifndef NPUKIT_RK_POOL_H
#define NPUKIT_RK_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Body entries of a pooling task program. */
#define NPK_RK_POOL_BODY 24
/* PPU | PPU_RDMA: the PDP's blocks; the task ends on the PPU interrupt (bits 10-11). */
#define NPK_RK_ENABLE_POOL 0x60u
#define NPK_RK_POOL_INT_MASK 0xC00u

/* POOLING_METHOD (NVDLA's enumeration). */
typedef enum npk_rk_pool_method {
    NPK_RK_POOL_AVG = 0,
    NPK_RK_POOL_MAX = 1,
    NPK_RK_POOL_MIN = 2,
    NPK_RK_POOL_METHOD_COUNT
} npk_rk_pool_method;

typedef struct npk_rk_pool {
    npk_rk_pool_method method;
    uint32_t in_h, in_w, c;
    uint32_t out_h, out_w;
    uint32_t k_h, k_w, stride_y, stride_x;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    uint32_t in, out; /* IOVAs, 16-byte aligned */
    bool unchecked;
} npk_rk_pool;

/* The 17-bit reciprocal of a kernel extent k (1..16) in the fp16 PDP's format. */
uint32_t npk_rk_pool_recip(uint32_t k);
/* Its value. */
float npk_rk_pool_recip_value(uint32_t bits);

/* Every limit of the task, naming the value and the limit. */
npk_status npk_rk_pool_check(const npk_rk_pool *t);
/* The body (PPU then its output stage). */
npk_status npk_rk_synth_pool(const npk_rk_pool *t, npk_rk_entry body[NPK_RK_POOL_BODY]);

#ifdef __cplusplus
}
#endif
#endif
