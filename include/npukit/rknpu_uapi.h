/* SPDX-License-Identifier: MIT */
/* The vendor `rknpu` DRM driver's user-space interface (Rockchip BSP kernels), written from
 * the fact sheet (facts A.1): ioctl numbers, structs for both kernel generations, flags and
 * action codes. Stand-alone: no npukit types, so unmodified-style programs can use it.
 *
 * Two generations exist in the wild:
 *   - the old 5.10 BSP driver: MEM_CREATE is 40 bytes; SUBMIT +32 is regcfg_obj_addr and
 *     +48 is user_data;
 *   - driver 0.9.8 (6.1 BSP): MEM_CREATE is 48 bytes (+iommu_domain_id, +core_mask); SUBMIT
 *     +32 is iommu_domain_id/reserved and +48 is hw_elapse_time (out, microseconds).
 * The DRM core accepts either size for an ioctl: it copies in the smaller of the two sizes,
 * zero-fills the rest and copies back what fits, so both struct generations work on both
 * kernels as long as the caller does not rely on the extra fields.
 */
#ifndef NPUKIT_RKNPU_UAPI_H
#define NPUKIT_RKNPU_UAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ioctl number encoding (Linux asm-generic/ioctl.h layout) ---- */
#define RKNPU_IOC_NRBITS 8
#define RKNPU_IOC_TYPEBITS 8
#define RKNPU_IOC_SIZEBITS 14
#define RKNPU_IOC_NRSHIFT 0
#define RKNPU_IOC_TYPESHIFT 8
#define RKNPU_IOC_SIZESHIFT 16
#define RKNPU_IOC_DIRSHIFT 30
#define RKNPU_IOC_WRITE 1u
#define RKNPU_IOC_READ 2u
#define RKNPU_IOC(dir, type, nr, size)                                                             \
    (((unsigned long)(dir) << RKNPU_IOC_DIRSHIFT) |                                                \
     ((unsigned long)(type) << RKNPU_IOC_TYPESHIFT) | ((unsigned long)(nr) << RKNPU_IOC_NRSHIFT) | \
     ((unsigned long)(size) << RKNPU_IOC_SIZESHIFT))
#define RKNPU_IOC_NR(req) (((req) >> RKNPU_IOC_NRSHIFT) & 0xffu)
#define RKNPU_IOC_TYPE(req) (((req) >> RKNPU_IOC_TYPESHIFT) & 0xffu)
#define RKNPU_IOC_SIZE(req) (((req) >> RKNPU_IOC_SIZESHIFT) & 0x3fffu)
#define RKNPU_IOC_DIR(req) (((req) >> RKNPU_IOC_DIRSHIFT) & 0x3u)

#define RKNPU_DRM_IOCTL_BASE 'd'    /* DRM ioctls have type 'd' (0x64) */
#define RKNPU_DRM_COMMAND_BASE 0x40 /* driver-private ioctls start at nr 0x40 */
#define RKNPU_DRM_IOWR(nr, size)                                                                   \
    RKNPU_IOC(RKNPU_IOC_READ | RKNPU_IOC_WRITE, RKNPU_DRM_IOCTL_BASE, nr, size)

/* ---- DRM core: the one generic request a program uses to find the NPU node ---- */
/* struct drm_version on LP64: three ints, then three (size_t len, char *buf) pairs. */
struct rknpu_drm_version {
    int32_t version_major;
    int32_t version_minor;
    int32_t version_patchlevel;
    uint32_t pad_;     /* alignment hole before the first size_t */
    uint64_t name_len; /* in: buffer size; out: full length */
    uint64_t name;     /* char * */
    uint64_t date_len;
    uint64_t date;
    uint64_t desc_len;
    uint64_t desc;
};
#define RKNPU_DRM_IOCTL_VERSION RKNPU_DRM_IOWR(0x00, sizeof(struct rknpu_drm_version))

/* DRM core PRIME import (struct drm_prime_handle): a dma-buf fd in, a GEM handle of this file
 * out. The vendor rknpu driver imports (gem_prime_import_sg_table); MEM_CREATE with that
 * handle then answers the object's size, obj_addr and dma_addr, and MEM_MAP its mmap offset.
 * Mainline rocket has no import path: the DRM core answers EINVAL (docs/facts-dma-buf.md). */
struct rknpu_drm_prime_handle {
    uint32_t handle;
    uint32_t flags; /* fd -> handle: unused (0) */
    int32_t fd;
};
#define RKNPU_DRM_IOCTL_PRIME_FD_TO_HANDLE                                                         \
    RKNPU_DRM_IOWR(0x2e, sizeof(struct rknpu_drm_prime_handle))

/* ---- rknpu requests (facts A.1 table) ---- */
enum {
    RKNPU_NR_ACTION = 0,
    RKNPU_NR_SUBMIT = 1,
    RKNPU_NR_MEM_CREATE = 2,
    RKNPU_NR_MEM_MAP = 3,
    RKNPU_NR_MEM_DESTROY = 4,
    RKNPU_NR_MEM_SYNC = 5,
};

/* Action codes (rknpu_action.flags). */
enum {
    RKNPU_GET_HW_VERSION = 0,
    RKNPU_GET_DRV_VERSION = 1,
    RKNPU_GET_FREQ = 2,
    RKNPU_SET_FREQ = 3,
    RKNPU_GET_VOLT = 4,
    RKNPU_SET_VOLT = 5,
    RKNPU_ACT_RESET = 6,
    RKNPU_GET_BW_PRIORITY = 7,
    RKNPU_SET_BW_PRIORITY = 8,
    RKNPU_GET_BW_EXPECT = 9,
    RKNPU_SET_BW_EXPECT = 10,
    RKNPU_GET_BW_TW = 11,
    RKNPU_SET_BW_TW = 12,
    RKNPU_ACT_CLR_TOTAL_RW_AMOUNT = 13,
    RKNPU_GET_DT_WR_AMOUNT = 14,
    RKNPU_GET_DT_RD_AMOUNT = 15,
    RKNPU_GET_WT_RD_AMOUNT = 16,
    RKNPU_GET_TOTAL_RW_AMOUNT = 17,
    RKNPU_GET_IOMMU_EN = 18,
    RKNPU_SET_PROC_NICE = 19,
    RKNPU_POWER_ON = 20,
    RKNPU_POWER_OFF = 21,
    RKNPU_GET_TOTAL_SRAM_SIZE = 22,
    RKNPU_GET_FREE_SRAM_SIZE = 23,
    RKNPU_GET_IOMMU_DOMAIN_ID = 24,
    RKNPU_SET_IOMMU_DOMAIN_ID = 25,
};

/* IOMMU domains of the 0.9.8 driver (RKNPU_MAX_IOMMU_DOMAIN_NUM): ids 0..15, each its own
 * 32-bit (4 GiB) IOVA space. The NPU runs in one domain at a time: MEM_CREATE allocates in, and
 * SUBMIT runs in, the domain its iommu_domain_id names, the driver switching to it once no job
 * of the current domain is in flight (rknpu_iommu.c, domain_get_and_switch; a switch that waits
 * longer than 6 s fails with EINVAL); ACTION SET_IOMMU_DOMAIN_ID switches, GET_ reads. */
enum { RKNPU_MAX_IOMMU_DOMAIN_NUM = 16 };

/* Memory flags (rknpu_mem_create.flags). */
enum {
    RKNPU_MEM_NON_CONTIGUOUS = 1u << 0,
    RKNPU_MEM_CACHEABLE = 1u << 1,
    RKNPU_MEM_WRITE_COMBINE = 1u << 2,
    RKNPU_MEM_KERNEL_MAPPING = 1u << 3,
    RKNPU_MEM_IOMMU = 1u << 4,
    RKNPU_MEM_ZEROING = 1u << 5,
    RKNPU_MEM_SECURE = 1u << 6,
    RKNPU_MEM_DMA32 = 1u << 7, /* old name NON_DMA32 */
    RKNPU_MEM_TRY_ALLOC_SRAM = 1u << 8,
    RKNPU_MEM_TRY_ALLOC_NBUF = 1u << 9,
    RKNPU_MEM_IOMMU_LIMIT_IOVA_ALIGNMENT = 1u << 10,
};

/* Sync directions (rknpu_mem_sync.flags). */
enum { RKNPU_MEM_SYNC_TO_DEVICE = 1u << 0, RKNPU_MEM_SYNC_FROM_DEVICE = 1u << 1 };

/* Submit flags (rknpu_submit.flags). BLOCK is the absence of NONBLOCK. */
enum {
    RKNPU_JOB_PC = 1u << 0,
    RKNPU_JOB_BLOCK = 0u,
    RKNPU_JOB_NONBLOCK = 1u << 1,
    RKNPU_JOB_PINGPONG = 1u << 2,
    RKNPU_JOB_FENCE_IN = 1u << 3,
    RKNPU_JOB_FENCE_OUT = 1u << 4,
};

/* Core masks. */
enum {
    RKNPU_CORE_AUTO_MASK = 0,
    RKNPU_CORE0_MASK = 1,
    RKNPU_CORE1_MASK = 2,
    RKNPU_CORE2_MASK = 4,
    RKNPU_CORE_ALL_MASK = 7,
};

/* rknpu_action: 8 bytes. */
struct rknpu_action {
    uint32_t flags; /* the action code */
    uint32_t value; /* in/out */
};

/* rknpu_mem_create, driver 0.9.8 (6.1 kernel): 48 bytes. */
struct rknpu_mem_create {
    uint32_t handle; /* out */
    uint32_t flags;
    uint64_t size;
    uint64_t obj_addr; /* out: kernel object pointer, passed back as obj_addr/task_obj_addr */
    uint64_t dma_addr; /* out: the NPU IOVA (32-bit on RK3588) */
    uint64_t sram_size;
    int32_t iommu_domain_id;
    uint32_t core_mask;
};

/* rknpu_mem_create, old 5.10 kernel: 40 bytes (no iommu_domain_id, core_mask). */
struct rknpu_mem_create_v510 {
    uint32_t handle;
    uint32_t flags;
    uint64_t size;
    uint64_t obj_addr;
    uint64_t dma_addr;
    uint64_t sram_size;
};

/* rknpu_mem_map: 16 bytes; offset is the fake mmap offset for mmap(fd, offset). */
struct rknpu_mem_map {
    uint32_t handle;
    uint32_t reserved;
    uint64_t offset; /* out */
};

/* rknpu_mem_destroy: 16 bytes. */
struct rknpu_mem_destroy {
    uint32_t handle;
    uint32_t reserved;
    uint64_t obj_addr;
};

/* rknpu_mem_sync: 32 bytes. */
struct rknpu_mem_sync {
    uint32_t flags; /* RKNPU_MEM_SYNC_* */
    uint32_t reserved;
    uint64_t obj_addr;
    uint64_t offset;
    uint64_t size;
};

/* One task record in the task buffer (read by the kernel through its mapping): 40 bytes,
 * packed on the kernel side; the natural layout here has no holes either. */
struct rknpu_task {
    uint32_t flags;
    uint32_t op_idx;
    uint32_t enable_mask;
    uint32_t int_mask;
    uint32_t int_clear;
    uint32_t int_status;
    uint32_t regcfg_amount; /* body entries, without the 4-entry PC trailer */
    uint32_t regcfg_offset;
    uint64_t regcmd_addr; /* IOVA of the regcmd array */
} __attribute__((packed));

struct rknpu_subcore_task {
    uint32_t task_start;
    uint32_t task_number;
};

/* rknpu_submit: 104 bytes in both generations; +32 and +48 differ in meaning. */
struct rknpu_submit {
    uint32_t flags;
    uint32_t timeout; /* ms */
    uint32_t task_start;
    uint32_t task_number;
    uint32_t task_counter; /* out */
    int32_t priority;
    uint64_t task_obj_addr; /* obj_addr of the task buffer (KERNEL_MAPPING) */
    union {
        uint64_t regcfg_obj_addr; /* 5.10 */
        struct {
            uint32_t iommu_domain_id; /* 0.9.8 */
            uint32_t reserved;
        } v098;
    } u32_;
    uint64_t task_base_addr;
    union {
        uint64_t user_data;     /* 5.10 */
        int64_t hw_elapse_time; /* 0.9.8, out, microseconds */
    } u48_;
    uint32_t core_mask;
    int32_t fence_fd;
    struct rknpu_subcore_task subcore_task[5];
};

/* The subcore_task entry the kernel reads for core `core` of a job on `core_mask`: entry core
 * when one or two cores run, entry core + 2 when all three do (facts A.1 "Sub-core selection").
 * One function, so the driver, the rocket translation and the simulator cannot disagree. */
static inline unsigned rknpu_subcore_index(uint32_t core_mask, unsigned core)
{
    return (core_mask & RKNPU_CORE_ALL_MASK) == RKNPU_CORE_ALL_MASK ? core + 2 : core;
}

#define DRM_IOCTL_RKNPU_ACTION RKNPU_DRM_IOWR(0x40 + RKNPU_NR_ACTION, sizeof(struct rknpu_action))
#define DRM_IOCTL_RKNPU_SUBMIT RKNPU_DRM_IOWR(0x40 + RKNPU_NR_SUBMIT, sizeof(struct rknpu_submit))
#define DRM_IOCTL_RKNPU_MEM_CREATE                                                                 \
    RKNPU_DRM_IOWR(0x40 + RKNPU_NR_MEM_CREATE, sizeof(struct rknpu_mem_create))
#define DRM_IOCTL_RKNPU_MEM_CREATE_V510                                                            \
    RKNPU_DRM_IOWR(0x40 + RKNPU_NR_MEM_CREATE, sizeof(struct rknpu_mem_create_v510))
#define DRM_IOCTL_RKNPU_MEM_MAP                                                                    \
    RKNPU_DRM_IOWR(0x40 + RKNPU_NR_MEM_MAP, sizeof(struct rknpu_mem_map))
#define DRM_IOCTL_RKNPU_MEM_DESTROY                                                                \
    RKNPU_DRM_IOWR(0x40 + RKNPU_NR_MEM_DESTROY, sizeof(struct rknpu_mem_destroy))
#define DRM_IOCTL_RKNPU_MEM_SYNC                                                                   \
    RKNPU_DRM_IOWR(0x40 + RKNPU_NR_MEM_SYNC, sizeof(struct rknpu_mem_sync))

/* Values the fact sheet quotes for the RK3588 board (facts A.1). */
#define RKNPU_HW_VERSION_RK3588 0x46495245u
#define RKNPU_DRV_VERSION_098 908u    /* 0.9.8 -> 908 */
#define RKNPU_PC_DATA_EXTRA_AMOUNT 4u /* the trailer entries the kernel adds to regcfg_amount */
#define RKNPU_INT_CLEAR 0x1ffffu
#define RKNPU_MAX_SUBMIT_NUMBER 4095u /* (1 << pc_task_number_bits(12)) - 1 */

/* Compile-time checks of the sizes the kernels define. */
_Static_assert(sizeof(struct rknpu_action) == 8, "rknpu_action is 8 bytes");
_Static_assert(sizeof(struct rknpu_submit) == 104, "rknpu_submit is 104 bytes");
_Static_assert(sizeof(struct rknpu_mem_create) == 48, "0.9.8 mem_create is 48 bytes");
_Static_assert(sizeof(struct rknpu_mem_create_v510) == 40, "5.10 mem_create is 40 bytes");
_Static_assert(sizeof(struct rknpu_mem_map) == 16, "rknpu_mem_map is 16 bytes");
_Static_assert(sizeof(struct rknpu_mem_destroy) == 16, "rknpu_mem_destroy is 16 bytes");
_Static_assert(sizeof(struct rknpu_mem_sync) == 32, "rknpu_mem_sync is 32 bytes");
_Static_assert(sizeof(struct rknpu_task) == 40, "rknpu_task is 40 bytes");
_Static_assert(offsetof(struct rknpu_submit, core_mask) == 56, "core_mask at +56");
_Static_assert(offsetof(struct rknpu_submit, subcore_task) == 64, "subcore_task at +64");
_Static_assert(sizeof(struct rknpu_drm_version) == 64, "drm_version is 64 bytes on LP64");

#ifdef __cplusplus
}
#endif
#endif
