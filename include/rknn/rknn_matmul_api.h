/* SPDX-License-Identifier: MIT */
/* npukit's compatible declarations of the RKNN matmul interface (rknn_matmul_*), written from
 * its public documentation and implemented on npukit's RK runtime by librknnrt.so
 * (build/rknn/). C = A . B for one (M, K, N, type, layouts) per context. */
#ifndef NPUKIT_RKNN_MATMUL_API_H
#define NPUKIT_RKNN_MATMUL_API_H

#include "rknn_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef rknn_context rknn_matmul_ctx;

/* A x B -> C element types. The RK3588 runs 1, 2, 3, 4, 9 and 10; the mixed types are refused
 * at create with RKNN_ERR_PARAM_INVALID. */
typedef enum _rknn_matmul_type {
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 = 1,
    RKNN_INT8_MM_INT8_TO_INT32 = 2,
    RKNN_INT8_MM_INT8_TO_INT8 = 3,
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 = 4,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT32 = 5,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT16 = 6,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT32 = 7,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT16 = 8,
    RKNN_INT8_MM_INT8_TO_FLOAT32 = 9,
    RKNN_INT4_MM_INT4_TO_INT16 = 10,
    RKNN_INT8_MM_INT4_TO_INT32 = 11,
    RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 = 12,
} rknn_matmul_type;

/* The name of a matmul type ("RKNN_INT8_MM_INT8_TO_INT32", ...). */
static inline const char *get_matmul_type_string(rknn_matmul_type type)
{
    switch (type) {
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32";
    case RKNN_INT8_MM_INT8_TO_INT32: return "RKNN_INT8_MM_INT8_TO_INT32";
    case RKNN_INT8_MM_INT8_TO_INT8: return "RKNN_INT8_MM_INT8_TO_INT8";
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT16";
    case RKNN_INT8_MM_INT8_TO_FLOAT32: return "RKNN_INT8_MM_INT8_TO_FLOAT32";
    case RKNN_INT4_MM_INT4_TO_INT16: return "RKNN_INT4_MM_INT4_TO_INT16";
    case RKNN_INT8_MM_INT4_TO_INT32: return "RKNN_INT8_MM_INT4_TO_INT32";
    case RKNN_FLOAT16_MM_INT4_TO_BFLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_BFLOAT16";
    }
    return "UNKNOWN";
}

typedef enum _rknn_matmul_quant_type {
    RKNN_QUANT_TYPE_PER_LAYER_SYM = 0,
    RKNN_QUANT_TYPE_PER_LAYER_ASYM = 1,
    RKNN_QUANT_TYPE_PER_CHANNEL_SYM = 2,
    RKNN_QUANT_TYPE_PER_CHANNEL_ASYM = 3,
    RKNN_QUANT_TYPE_PER_GROUP_SYM = 4,
    RKNN_QUANT_TYPE_PER_GROUP_ASYM = 5,
} rknn_matmul_quant_type;

/* B_layout takes all three; AC_layout NORM or NATIVE. */
typedef enum _rknn_matmul_layout {
    RKNN_MM_LAYOUT_NORM = 0,
    RKNN_MM_LAYOUT_NATIVE = 1,
    RKNN_MM_LAYOUT_TP_NORM = 2,
} rknn_matmul_layout;

/* One operand as create describes it: name "A", "B" or "C", its dims in its layout, its size
 * in bytes, its element type. */
typedef struct _rknn_matmul_tensor_attr {
    char name[RKNN_MAX_NAME_LEN];
    uint32_t n_dims;
    uint32_t dims[RKNN_MAX_DIMS];
    uint32_t size;
    rknn_tensor_type type;
} rknn_matmul_tensor_attr;

typedef struct _rknn_matmul_io_attr {
    rknn_matmul_tensor_attr A;
    rknn_matmul_tensor_attr B;
    rknn_matmul_tensor_attr C;
} rknn_matmul_io_attr;

/* What a context computes (64 bytes). K % 32; N % 16 (fp16), % 32 (int8), % 64 (int4);
 * K <= 10240. */
typedef struct _rknn_matmul_info_t {
    int32_t M;
    int32_t K;
    int32_t N;
    rknn_matmul_type type;
    int16_t B_layout;      /* rknn_matmul_layout */
    int16_t B_quant_type;  /* rknn_matmul_quant_type */
    int16_t AC_layout;     /* NORM or NATIVE */
    int16_t AC_quant_type; /* 0 only */
    int32_t iommu_domain_id;
    int16_t group_size;
    int8_t reserved[34];
} rknn_matmul_info;

RKNN_STATIC_ASSERT(sizeof(rknn_matmul_info) == 64, "rknn_matmul_info is 64 bytes");

typedef struct _rknn_matmul_shape {
    int32_t M;
    int32_t K;
    int32_t N;
} rknn_matmul_shape;

/* Quantisation of the operand named `name`: per layer one scale (and zero point), per channel
 * N of them. Without it: scale 1, zero point 0. */
typedef struct _rknn_quant_params {
    char name[RKNN_MAX_NAME_LEN];
    float *scale;
    int32_t scale_len;
    int32_t *zp;
    int32_t zp_len;
} rknn_quant_params;

int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr);
/* Several shapes in one context; only M may differ between them. io_attr[i] for shapes[i]. */
int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[],
                                     rknn_matmul_io_attr io_attrs[]);
int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape);
/* Bind mem as the operand attr names. B is read at every run. */
int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem,
                           rknn_matmul_tensor_attr *attr);
int rknn_matmul_set_core_mask(rknn_matmul_ctx ctx, rknn_core_mask core_mask);
int rknn_matmul_set_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params);
int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale);
/* Blocking. */
int rknn_matmul_run(rknn_matmul_ctx ctx);
int rknn_matmul_destroy(rknn_matmul_ctx ctx);

/* Repack a row-major B [K][N] into the native layout info describes (segmented above K 8192). */
int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N,
                                          rknn_matmul_info *info);

#ifdef __cplusplus
}
#endif
#endif
