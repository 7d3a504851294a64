/* SPDX-License-Identifier: MIT */
/* The state of a matmul context of the compatible layer: its own header, so that the context
 * (rknn_context.c, rknn_run.c) and per-group quantisation (rknn_group.c), which the context
 * calls, share it without needing each other's headers. */
#ifndef NPUKIT_RKNN_MM_CTX_H
#define NPUKIT_RKNN_MM_CTX_H

#include "rknn_internal.h"

/* A bound operand: the mem (and its id, so a destroyed mem is noticed) and the byte offset. */
typedef struct rknn_binding {
    rknn_mem_obj *mem;
    uint64_t id;
    uint64_t off;
} rknn_binding;

typedef struct rknn_mm_ctx {
    pthread_mutex_t lock; /* one call at a time; destroy waits for a run */
    npk_rk *rt;
    rknn_matmul_info info;
    const rknn_type_row *row;
    int nshapes, cur;
    rknn_matmul_shape *shapes;
    rknn_matmul_io_attr *attrs;
    rknn_binding a, b, c;
    /* B as the runtime holds it, for the mem it was made from */
    npk_rk_weights *w;
    uint64_t w_mem_id, w_off;
    uint64_t w_sum; /* int4 normal layouts: the layer's own checksum of the mem's bytes */
    /* quantisation (per layer for A and C; B per layer, per channel or per group) */
    float a_scale, c_scale, b_one;
    int32_t a_zp, c_zp;
    float *b_scale;
    int32_t *b_zp;
    int32_t b_len;
    struct rknn_group_state *group; /* B quantised per group (rknn_group.c) */
} rknn_mm_ctx;

#endif
