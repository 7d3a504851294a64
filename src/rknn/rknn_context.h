/* SPDX-License-Identifier: MIT */
/* A matmul context of the compatible layer (rknn_context.c, rknn_run.c). */
#ifndef NPUKIT_RKNN_CONTEXT_H
#define NPUKIT_RKNN_CONTEXT_H

#include "rknn_mm_ctx.h"

/* The live context of a handle, locked; NULL (error recorded) for a dead handle. */
rknn_mm_ctx *rknn_ctx_lock(rknn_matmul_ctx h, const char *fn);

#endif
