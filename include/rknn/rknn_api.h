/* SPDX-License-Identifier: MIT */
/* npukit's compatible declarations of the general RKNN runtime interface that matmul programs
 * use: the context handle, error codes, tensor types, core masks and NPU memory. Written from
 * the interface's public documentation; implemented by npukit's librknnrt.so (build/rknn/).
 * Add this directory to the include path in place of the vendor SDK's. */
#ifndef NPUKIT_RKNN_API_H
#define NPUKIT_RKNN_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A context handle: 32 bits on 32-bit ARM, 64 bits elsewhere. */
#if defined(__arm__)
typedef uint32_t rknn_context;
#else
typedef uint64_t rknn_context;
#endif

/* Return codes: 0 or negative. */
#define RKNN_SUCC 0
#define RKNN_ERR_FAIL -1
#define RKNN_ERR_TIMEOUT -2
#define RKNN_ERR_DEVICE_UNAVAILABLE -3
#define RKNN_ERR_MALLOC_FAIL -4
#define RKNN_ERR_PARAM_INVALID -5
#define RKNN_ERR_MODEL_INVALID -6
#define RKNN_ERR_CTX_INVALID -7
#define RKNN_ERR_INPUT_INVALID -8
#define RKNN_ERR_OUTPUT_INVALID -9
#define RKNN_ERR_DEVICE_UNMATCH -10
#define RKNN_ERR_TARGET_PLATFORM_UNMATCH -13

#define RKNN_MAX_DIMS 16
#define RKNN_MAX_NAME_LEN 256

typedef enum _rknn_tensor_type {
    RKNN_TENSOR_FLOAT32 = 0,
    RKNN_TENSOR_FLOAT16 = 1,
    RKNN_TENSOR_INT8 = 2,
    RKNN_TENSOR_UINT8 = 3,
    RKNN_TENSOR_INT16 = 4,
    RKNN_TENSOR_UINT16 = 5,
    RKNN_TENSOR_INT32 = 6,
    RKNN_TENSOR_UINT32 = 7,
    RKNN_TENSOR_INT64 = 8,
    RKNN_TENSOR_BOOL = 9,
    RKNN_TENSOR_INT4 = 10,
    RKNN_TENSOR_BFLOAT16 = 11,
} rknn_tensor_type;

/* A short name of a tensor type ("FP16", "INT8", ...). */
static inline const char *get_type_string(rknn_tensor_type type)
{
    switch (type) {
    case RKNN_TENSOR_FLOAT32: return "FP32";
    case RKNN_TENSOR_FLOAT16: return "FP16";
    case RKNN_TENSOR_INT8: return "INT8";
    case RKNN_TENSOR_UINT8: return "UINT8";
    case RKNN_TENSOR_INT16: return "INT16";
    case RKNN_TENSOR_UINT16: return "UINT16";
    case RKNN_TENSOR_INT32: return "INT32";
    case RKNN_TENSOR_UINT32: return "UINT32";
    case RKNN_TENSOR_INT64: return "INT64";
    case RKNN_TENSOR_BOOL: return "BOOL";
    case RKNN_TENSOR_INT4: return "INT4";
    case RKNN_TENSOR_BFLOAT16: return "BF16";
    }
    return "UNKNOWN";
}

/* NPU cores a context runs on (RK3588: three). */
typedef enum _rknn_core_mask {
    RKNN_NPU_CORE_AUTO = 0,
    RKNN_NPU_CORE_0 = 1,
    RKNN_NPU_CORE_1 = 2,
    RKNN_NPU_CORE_2 = 4,
    RKNN_NPU_CORE_0_1 = 3,
    RKNN_NPU_CORE_0_1_2 = 7,
    RKNN_NPU_CORE_ALL = 0xffff,
} rknn_core_mask;

/* rknn_tensor_mem.flags */
typedef enum _rknn_tensor_mem_flags {
    RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE = 1,
    RKNN_TENSOR_MEMORY_FLAGS_FROM_FD = 2,
    RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS = 3,
} rknn_tensor_mem_flags;

/* rknn_create_mem2 flags */
typedef enum _rknn_mem_alloc_flags {
    RKNN_FLAG_MEMORY_FLAGS_DEFAULT = 0,
    RKNN_FLAG_MEMORY_CACHEABLE = 1,
    RKNN_FLAG_MEMORY_NON_CACHEABLE = 2,
    RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM = 4,
} rknn_mem_alloc_flags;

/* rknn_mem_sync modes */
typedef enum _rknn_mem_sync_mode {
    RKNN_MEMORY_SYNC_TO_DEVICE = 1,
    RKNN_MEMORY_SYNC_FROM_DEVICE = 2,
    RKNN_MEMORY_SYNC_BIDIRECTIONAL = 3,
} rknn_mem_sync_mode;

/* NPU memory: the CPU's view (virt_addr), the NPU's address (phys_addr), size in bytes. */
typedef struct _rknn_tensor_mem {
    void *virt_addr;
    uint64_t phys_addr;
    int32_t fd;
    int32_t offset;
    uint32_t size;
    uint32_t flags;
    void *priv_data;
} rknn_tensor_mem;

/* The layout programs were compiled against (LP64). */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define RKNN_STATIC_ASSERT(c, m) static_assert(c, m)
#elif !defined(__cplusplus)
#define RKNN_STATIC_ASSERT(c, m) _Static_assert(c, m)
#else
#define RKNN_STATIC_ASSERT(c, m)
#endif
#if UINTPTR_MAX == UINT64_MAX
RKNN_STATIC_ASSERT(sizeof(rknn_tensor_mem) == 40, "rknn_tensor_mem is 40 bytes");
#endif

/* Memory is process-wide: made through any context, usable by every context, destroyed through
 * any. NULL on failure. */
rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size);
rknn_tensor_mem *rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags);
/* Memory of a dma-buf fd (e.g. from /dev/dma_heap/system): `size` bytes at byte `offset` of
 * it; virt is the caller's mapping of the whole dma-buf (reported back as virt_addr; NULL: the
 * layer's own mapping), so the operand's bytes are at virt_addr + offset. The fd stays the
 * caller's (the mem holds its own reference). */
rknn_tensor_mem *rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void *virt, uint32_t size,
                                         int32_t offset);
/* Memory by physical address: refused (NULL) on both kernels, neither imports physical memory
 * (the NPU sees only what its IOMMU maps). */
rknn_tensor_mem *rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void *virt,
                                           uint32_t size);
int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem);
int rknn_mem_sync(rknn_context ctx, rknn_tensor_mem *mem, rknn_mem_sync_mode mode);

#ifdef __cplusplus
}
#endif
#endif
