/* SPDX-License-Identifier: MIT */
/* Per-group B quantisation (B_quant_type PER_GROUP_SYM / _ASYM) of type 9,
 * RKNN_INT8_MM_INT8_TO_FLOAT32, on the runtime's quantised matmul (npk_rk_matmul_quant). */
#ifndef NPUKIT_RKNN_GROUP_H
#define NPUKIT_RKNN_GROUP_H

#include "rknn_mm_ctx.h"

/* True when the context's B is quantised per group. */
bool rknn_group_wanted(const rknn_mm_ctx *c);
/* RKNN_SUCC, or the code refusing a per-group info at create (its type, group_size, or a K the
 * groups do not divide); other B_quant_types pass. */
int rknn_group_check(const rknn_matmul_info *info, int32_t k);
/* The scales (and zero points) set_quant_params takes for B per group: N x K / group_size. */
int32_t rknn_group_scale_len(const rknn_mm_ctx *c);
/* rknn_matmul_run of a per-group context on its bound operands (checked by the caller). */
npk_status rknn_group_run(rknn_mm_ctx *c, const rknn_matmul_shape *sh,
                          const rknn_matmul_io_attr *at, const uint8_t *a, const uint8_t *b,
                          uint8_t *out);
/* Frees the context's quantised weights (before its runtime is closed). */
void rknn_group_free(rknn_mm_ctx *c);

#endif
