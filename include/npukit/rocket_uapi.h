/* SPDX-License-Identifier: MIT */
/* The mainline Linux `rocket` accel driver's user-space interface (/dev/accel/accel0), written
 * from the fact sheet (facts A.2). Stand-alone: no npukit types, so a program can be written
 * against this header alone.
 *
 * The model of the interface, in short:
 *   - CREATE_BO allocates a buffer object: a GEM handle, its 32-bit NPU address and an mmap
 *     offset. GEM_CLOSE (a DRM core request) releases it.
 *   - SUBMIT queues jobs and returns at once. A job is a list of tasks that run in order on
 *     one core; a task is only (regcmd address, regcmd_count), where the count includes the
 *     4-entry PC trailer (unlike rknpu's regcfg_amount). The kernel fixes everything else:
 *     one task per PC kick, the DPU interrupt mask 0x300, no core choice per job.
 *   - PREP_BO begins CPU access: it waits until no queued job uses the buffer, up to an
 *     ABSOLUTE CLOCK_MONOTONIC time in nanoseconds (not a duration). FINI_BO ends CPU access
 *     (flushes the CPU's writes for the NPU).
 *   - Each open file is one scheduler entity: its jobs run in submission order. Several cores
 *     are driven by several open files.
 */
#ifndef NPUKIT_ROCKET_UAPI_H
#define NPUKIT_ROCKET_UAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ioctl number encoding (Linux asm-generic/ioctl.h layout) ---- */
#define ROCKET_IOC_WRITE 1u
#define ROCKET_IOC_READ 2u
#define ROCKET_IOC(dir, nr, size)                                                                  \
    (((unsigned long)(dir) << 30) | ((unsigned long)'d' << 8) | ((unsigned long)(nr)) |            \
     ((unsigned long)(size) << 16))
#define ROCKET_IOC_NR(req) (((req) >> 0) & 0xffu)
#define ROCKET_IOC_TYPE(req) (((req) >> 8) & 0xffu)
#define ROCKET_IOC_SIZE(req) (((req) >> 16) & 0x3fffu)
#define ROCKET_IOC_DIR(req) (((req) >> 30) & 0x3u)
#define ROCKET_DRM_COMMAND_BASE 0x40 /* driver-private requests start at nr 0x40 */

/* ---- DRM core requests a rocket program uses ---- */
/* struct drm_version on LP64 (the driver name of the node is "rocket"). */
struct rocket_drm_version {
    int32_t version_major;
    int32_t version_minor;
    int32_t version_patchlevel;
    uint32_t pad_;
    uint64_t name_len; /* in: buffer size; out: full length */
    uint64_t name;     /* char * */
    uint64_t date_len;
    uint64_t date;
    uint64_t desc_len;
    uint64_t desc;
};
#define ROCKET_DRM_IOCTL_VERSION                                                                   \
    ROCKET_IOC(ROCKET_IOC_READ | ROCKET_IOC_WRITE, 0x00, sizeof(struct rocket_drm_version))

/* struct drm_gem_close: releases a buffer object's handle. */
struct rocket_gem_close {
    uint32_t handle;
    uint32_t pad;
};
#define ROCKET_DRM_IOCTL_GEM_CLOSE                                                                 \
    ROCKET_IOC(ROCKET_IOC_WRITE, 0x09, sizeof(struct rocket_gem_close))

/* ---- rocket requests (facts A.2 table) ---- */
enum {
    ROCKET_NR_CREATE_BO = 0,
    ROCKET_NR_SUBMIT = 1,
    ROCKET_NR_PREP_BO = 2,
    ROCKET_NR_FINI_BO = 3,
};

/* CREATE_BO: 24 bytes. */
struct drm_rocket_create_bo {
    uint32_t size;        /* in: bytes */
    uint32_t handle;      /* out */
    uint64_t dma_address; /* out: the NPU address regcmds carry */
    uint64_t offset;      /* out: for mmap(fd, offset) */
};

/* One task: 8 bytes. */
struct drm_rocket_task {
    uint32_t regcmd;       /* NPU address of the regcmd array (16-byte aligned) */
    uint32_t regcmd_count; /* 64-bit entries INCLUDING the 4-entry trailer */
};

/* One job: 40 bytes. Its tasks run in order on one core. */
struct drm_rocket_job {
    uint64_t tasks;          /* struct drm_rocket_task * */
    uint64_t in_bo_handles;  /* uint32_t *: buffers the job reads */
    uint64_t out_bo_handles; /* uint32_t *: buffers the job writes */
    uint32_t task_count;
    uint32_t task_struct_size; /* sizeof(struct drm_rocket_task) */
    uint32_t in_bo_handle_count;
    uint32_t out_bo_handle_count;
};

/* SUBMIT: 24 bytes. */
struct drm_rocket_submit {
    uint64_t jobs; /* struct drm_rocket_job * */
    uint32_t job_count;
    uint32_t job_struct_size; /* sizeof(struct drm_rocket_job) */
    uint64_t reserved;
};

/* PREP_BO: 16 bytes. timeout_ns is an absolute CLOCK_MONOTONIC time. */
struct drm_rocket_prep_bo {
    uint32_t handle;
    uint32_t reserved;
    int64_t timeout_ns;
};

/* FINI_BO: 8 bytes. */
struct drm_rocket_fini_bo {
    uint32_t handle;
    uint32_t reserved;
};

#define DRM_IOCTL_ROCKET_CREATE_BO                                                                 \
    ROCKET_IOC(ROCKET_IOC_READ | ROCKET_IOC_WRITE, ROCKET_DRM_COMMAND_BASE + ROCKET_NR_CREATE_BO,  \
               sizeof(struct drm_rocket_create_bo))
#define DRM_IOCTL_ROCKET_SUBMIT                                                                    \
    ROCKET_IOC(ROCKET_IOC_WRITE, ROCKET_DRM_COMMAND_BASE + ROCKET_NR_SUBMIT,                       \
               sizeof(struct drm_rocket_submit))
#define DRM_IOCTL_ROCKET_PREP_BO                                                                   \
    ROCKET_IOC(ROCKET_IOC_WRITE, ROCKET_DRM_COMMAND_BASE + ROCKET_NR_PREP_BO,                      \
               sizeof(struct drm_rocket_prep_bo))
#define DRM_IOCTL_ROCKET_FINI_BO                                                                   \
    ROCKET_IOC(ROCKET_IOC_WRITE, ROCKET_DRM_COMMAND_BASE + ROCKET_NR_FINI_BO,                      \
               sizeof(struct drm_rocket_fini_bo))

/* What the kernel fixes for every task (facts A.2 "Kernel programming per task"). */
#define ROCKET_TRAILER_ENTRIES 4u  /* counted inside regcmd_count */
#define ROCKET_INT_MASK 0x300u     /* DPU_0 | DPU_1: the job ends on the DPU's interrupt */
#define ROCKET_JOB_TIMEOUT_MS 500u /* the kernel resets a core whose job runs longer */

_Static_assert(sizeof(struct drm_rocket_create_bo) == 24, "CREATE_BO is 24 bytes");
_Static_assert(sizeof(struct drm_rocket_submit) == 24, "SUBMIT is 24 bytes");
_Static_assert(sizeof(struct drm_rocket_prep_bo) == 16, "PREP_BO is 16 bytes");
_Static_assert(sizeof(struct drm_rocket_fini_bo) == 8, "FINI_BO is 8 bytes");
_Static_assert(sizeof(struct drm_rocket_job) == 40, "drm_rocket_job is 40 bytes");
_Static_assert(sizeof(struct drm_rocket_task) == 8, "drm_rocket_task is 8 bytes");
_Static_assert(sizeof(struct rocket_drm_version) == 64, "drm_version is 64 bytes on LP64");

#ifdef __cplusplus
}
#endif
#endif
