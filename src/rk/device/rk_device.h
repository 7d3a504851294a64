/* SPDX-License-Identifier: MIT */
/* The RK NPU device layer: the rknpu kernel interface's operations (facts A.1) behind one
 * interface with two backends, the real kernel (ioctl + mmap on /dev/dri/cardN) and the rksim
 * simulator (opened through rk_device_sim.h). Code above this layer does not know which one it
 * talks to: what it needs to know about the device it asks with npk_rk_device_query().
 *
 * Semantics are the kernel's: buffers have a GEM handle, a 32-bit NPU IOVA and an obj_addr
 * (passed back to SUBMIT as task_obj_addr and to MEM_SYNC); CACHEABLE buffers need
 * npk_rk_mem_sync() TO_DEVICE after CPU writes and FROM_DEVICE before CPU reads; SUBMIT takes a
 * struct rknpu_submit and fills task_counter and hw_elapse_time. */
#ifndef NPUKIT_RK_DEVICE_H
#define NPUKIT_RK_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "rk/program/rk_kernel.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_synth.h"
#include "npukit/rknpu_uapi.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_rk_device npk_rk_device;

/* One device buffer, created and mapped. */
typedef struct npk_rk_mem {
    uint32_t handle;
    uint32_t flags; /* RKNPU_MEM_* */
    uint64_t size;
    uint64_t obj_addr;   /* for task_obj_addr / MEM_SYNC / MEM_DESTROY */
    uint32_t iova;       /* the NPU address (regcmds carry it) */
    void *host;          /* CPU mapping */
    uint64_t map_offset; /* the mmap offset MEM_MAP returned */
    /* Where each core reads it, as a shift from iova (0 on a device whose cores share one
     * address space): see npk_rk_mem_iova_on. A view (iova moved by an offset) keeps it. */
    uint32_t core_shift[NPK_RK_SOC_MAX_CORES];
    uint32_t domain; /* the rknpu IOMMU domain it was created in (0 elsewhere) */
} npk_rk_mem;

/* The address core `core` reads mem at (its copy in the core's address space on a device whose
 * cores have their own, npk_rk_device_info.core_spaces). */
static inline uint32_t npk_rk_mem_iova_on(const npk_rk_mem *mem, unsigned core)
{
    return core < NPK_RK_SOC_MAX_CORES ? mem->iova + mem->core_shift[core] : mem->iova;
}

/* Open the kernel driver. path NULL: the first /dev/dri/cardN whose DRM_IOCTL_VERSION driver
 * name is "rknpu". Render nodes (/dev/dri/renderD*) are never used, found or named: a raw
 * SUBMIT through one runs no task (spec "Submission model"; facts A.1). */
npk_status npk_rk_device_open_kernel(const char *path, npk_rk_device **out);
/* By name: "sim" (the simulator behind the rknpu interface), "sim-rocket" (behind the rocket
 * interface), "kernel" (auto-detected rknpu node), "rocket" (auto-detected rocket node) or a
 * device path, whose DRM driver name picks the backend. NULL or "auto": the environment
 * variable NPUKIT_RK_DEVICE if set, else an rknpu node, else a rocket node, else the
 * simulator. */
npk_status npk_rk_device_open(const char *spec, npk_rk_device **out);
/* The names npk_rk_device_open takes besides a path, "|"-separated ("auto|sim|..."). */
const char *npk_rk_device_names(void);
/* Closes the device (and, for the simulator, destroys it: re-opening is a reboot). Buffers
 * still alive are unmapped and destroyed first. */
void npk_rk_device_close(npk_rk_device *dev);

/* "sim" or the device path. */
const char *npk_rk_device_name(const npk_rk_device *dev);

/* What a device is, as its backend reports it: both backends answer the same questions. */
typedef struct npk_rk_device_info {
    const char *backend;   /* "kernel" or "sim" */
    bool simulated;        /* a model of the NPU rather than the NPU */
    const npk_rk_soc *soc; /* the SoC whose NPU it is (the kernel: from the device tree; the
                              simulator: the one it models) */
    const char *kernel;    /* the kernel interface: "rknpu" or "rocket" */
    unsigned cores;        /* cores a caller can address: the SoC's (on rocket through a file
                              per core, each one scheduler entity) */
    bool core_spaces;      /* each core reads only its own address space (rocket: its file's
                              IOMMU domain): create what a core reads with
                              npk_rk_mem_create_for naming it */
    unsigned domains;      /* rknpu IOMMU domains a buffer can be created in and a job run in
                              (npk_rk_mem_create_in; 16 from driver 0.9.8 with its IOMMU on,
                              else 1); rocket: 1 (its address spaces are the cores' files) */
    uint64_t space_bytes;  /* IOVA bytes of one address space (a domain, a rocket file): 4 GiB */
} npk_rk_device_info;
void npk_rk_device_query(const npk_rk_device *dev, npk_rk_device_info *info);

/* MEM_CREATE + MEM_MAP + mmap. */
npk_status npk_rk_mem_create(npk_rk_device *dev, uint64_t size, uint32_t flags, npk_rk_mem *out);
/* The same for the cores of core_mask (0: core 0), which will read it: on a device with
 * core_spaces the buffer is placed in each of their address spaces (a copy per further core,
 * which MEM_SYNC TO_DEVICE keeps equal to the CPU's view); elsewhere the mask changes nothing. */
npk_status npk_rk_mem_create_for(npk_rk_device *dev, uint64_t size, uint32_t flags,
                                 uint32_t core_mask, npk_rk_mem *out);
/* The same in rknpu IOMMU domain `domain` (< info.domains): MEM_CREATE's iommu_domain_id. A
 * job reading it must run in that domain (its task buffer created there: npk_rk_submit names
 * the domain of the task buffer the caller passes in rknpu_submit's iommu_domain_id). */
npk_status npk_rk_mem_create_in(npk_rk_device *dev, unsigned domain, uint64_t size,
                                uint32_t flags, uint32_t core_mask, npk_rk_mem *out);
/* Import a dma-buf (DRM_IOCTL_PRIME_FD_TO_HANDLE, then MEM_CREATE with the handle for its
 * address, MEM_MAP + mmap): the whole dma-buf as a buffer of the device; npk_rk_mem_destroy
 * releases the import (the exporter keeps the memory). The rknpu driver imports; mainline
 * rocket does not (NPK_EINVAL from its DRM core). fd stays the caller's. */
npk_status npk_rk_mem_import(npk_rk_device *dev, int fd, npk_rk_mem *out);
/* MEM_SYNC of [offset, offset+size) in direction RKNPU_MEM_SYNC_TO_DEVICE / _FROM_DEVICE. */
npk_status npk_rk_mem_sync(npk_rk_device *dev, const npk_rk_mem *mem, uint64_t offset,
                           uint64_t size, uint32_t dir);
/* munmap + MEM_DESTROY; clears *mem. */
npk_status npk_rk_mem_destroy(npk_rk_device *dev, npk_rk_mem *mem);

/* Open the mainline rocket driver (/dev/accel/accelN): its requests carry out the rknpu-shaped
 * operations of this layer. path NULL: the first /dev/accel/accel0..15 whose DRM driver is
 * "rocket". */
npk_status npk_rk_device_open_rocket(const char *path, npk_rk_device **out);

/* Wait until core `core`'s NONBLOCK submit has completed: NPK_OK, or the error its job ended
 * with (NPK_ETIMEDOUT for a job that never raised its interrupt). *npu_us (may be NULL)
 * receives the job's NPU time where the device knows it (the simulator's model), else 0. */
npk_status npk_rk_wait(npk_rk_device *dev, unsigned core, uint32_t timeout_ms, uint64_t *npu_us);

/* ACTION: code RKNPU_GET_HW_VERSION, RKNPU_ACT_RESET, ...; *value in/out (may be NULL). */
npk_status npk_rk_action(npk_rk_device *dev, uint32_t code, uint32_t *value);

/* SUBMIT with the rknpu_submit semantics. On a timeout returns NPK_ETIMEDOUT naming the
 * task_counter (sub->task_counter holds it); EOPNOTSUPP from the simulator ("unsupported by the
 * model") is NPK_EUNSUPPORTED. */
npk_status npk_rk_submit(npk_rk_device *dev, struct rknpu_submit *sub);

/* The raw request, for tools that speak the uAPI directly: 0 or a negative errno. */
int npk_rk_device_ioctl(npk_rk_device *dev, unsigned long request, void *arg);

/* ---- One matmul task on a device ----
 * A small driver-side helper used by the simulator's tests, `npukit rk exec` and the
 * benchmark: the five buffers of one task (feature, weights, output, regcmd, task record),
 * the synthesized 108-entry body with its trailer, operand packing through rk_layout.h and the
 * submit with every subcore_task entry filled (spec "Multi-core submit" trap 1). */
typedef struct npk_rk_devtask {
    npk_rk_mm mm; /* as synthesized, addresses filled in */
    npk_rk_synth_info info;
    /* The program in the form the device's kernel expects (rk_kernel.h: the rknpu body, or the
     * rocket body with its DPU_RDMA block): edit, then npk_rk_devtask_write_program(). */
    const npk_rk_kernel_form *form;
    npk_rk_entry body[NPK_RK_BODY_MAX];
    size_t body_count;
    npk_rk_mem a, b, c, regcmd, task;
    /* operand layouts the registers describe (rk_layout.h blocks): the mode is info.mode;
     * line-mode row strides in elements (nibbles for int4), 0 in cube mode */
    size_t a_stride, c_stride;
    uint32_t data_flags;
} npk_rk_devtask;

/* Allocate the buffers (data buffers with data_flags, the task record with KERNEL_MAPPING
 * added), synthesize mm at their addresses and write the program. */
npk_status npk_rk_devtask_create(npk_rk_device *dev, const npk_rk_mm *mm, uint32_t data_flags,
                                 npk_rk_devtask *t);
/* Write t->body + a single-task trailer (the form's op-enable) into the regcmd buffer and the
 * task record (and sync them). */
npk_status npk_rk_devtask_write_program(npk_rk_device *dev, npk_rk_devtask *t);
/* Pack the user's A[M][K] and B[K][N] (fp16 bits as uint16_t, int8/int4 as int8_t) into the
 * task's buffers and sync them to the device. */
npk_status npk_rk_devtask_load(npk_rk_device *dev, npk_rk_devtask *t, const void *a, const void *b);
/* Clean the output buffer's CPU lines (MEM_SYNC TO_DEVICE of all of it). */
npk_status npk_rk_devtask_clean_output(npk_rk_device *dev, npk_rk_devtask *t);
/* Submit the task on one core (0..2); sub receives task_counter / hw_elapse_time. */
npk_status npk_rk_devtask_submit(npk_rk_device *dev, npk_rk_devtask *t, unsigned core,
                                 uint32_t timeout_ms, struct rknpu_submit *sub);
/* Sync the output from the device and unpack it into the user's C[M][N] (float, int32_t,
 * int16_t or fp16 bits as uint16_t, by the output precision). */
npk_status npk_rk_devtask_read(npk_rk_device *dev, npk_rk_devtask *t, void *c);
void npk_rk_devtask_destroy(npk_rk_device *dev, npk_rk_devtask *t);

#ifdef __cplusplus
}
#endif
#endif
