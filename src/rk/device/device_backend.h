/* SPDX-License-Identifier: MIT */
/* The device layer's backend contract: a request function with the kernel's ioctl semantics
 * (0 or -errno) and an mmap of MEM_MAP offsets. The kernel and the simulator each provide one;
 * everything else in the device layer is shared. */
#ifndef NPUKIT_RK_DEVICE_BACKEND_H
#define NPUKIT_RK_DEVICE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_device.h"

typedef struct npk_rk_backend {
    const char *kind; /* "kernel" or "sim" */
    bool simulated;   /* a model of the NPU */
    int (*ioctl)(void *ctx, unsigned long request, void *arg);
    void *(*map)(void *ctx, uint64_t offset, size_t length, int *err);
    void (*unmap)(void *ctx, void *addr, size_t length);
    void (*close)(void *ctx);
    /* extra words for a failure message (the simulator's report), may be NULL */
    const char *(*detail)(void *ctx);
    /* the SoC whose NPU this is (a row of the SoC table) */
    const npk_rk_soc *(*soc)(void *ctx);
    /* The kernel driver whose interface the device has ("rknpu" when NULL): it chooses the
     * program form (rk_kernel.h). */
    const char *kernel;
    /* Cores a caller can address (0: the SoC's). */
    unsigned cores;
    /* Each core reads only buffers of its own address space (rocket: a file per core): a
     * buffer is placed with MEM_CREATE's core_mask, and iova_for says where core `core` reads
     * buffer `handle` (0: nowhere). False: every buffer is read at its one IOVA by every core. */
    bool core_spaces;
    uint32_t (*iova_for)(void *ctx, uint32_t handle, unsigned core);
    /* Optional: the NPU time of the last blocking job in microseconds, when the backend knows
     * it better than the kernel's answer (the simulator's model). */
    double (*job_us)(void *ctx);
    /* Optional: wait (at most timeout_ms) for core `core`'s NONBLOCK job; 0 or -errno
     * (-ETIMEDOUT); *us receives its NPU time when known. NULL: the backend's NONBLOCK jobs
     * are complete when SUBMIT returns. */
    int (*wait)(void *ctx, unsigned core, uint32_t timeout_ms, double *us);
    /* Optional: the simulator behind the device (npk_rk_device_sim), through any adapter. */
    struct rksim *(*sim)(void *ctx);
} npk_rk_backend;

/* Wrap a backend context into a device (takes ownership of ctx). */
npk_status npk_rk_device_wrap(const npk_rk_backend *be, void *ctx, const char *name,
                              npk_rk_device **out);
/* The backend context of a device when its backend is `be`, else NULL. */
void *npk_rk_device_ctx(npk_rk_device *dev, const npk_rk_backend *be);
/* The backend's simulator (its sim entry), NULL for a kernel device. */
struct rksim *npk_rk_device_backend_sim(npk_rk_device *dev);

/* True when an rknpu DRM node can be opened (the auto-detection of the kernel backend). */
bool npk_rk_kernel_available(void);

/* The kernel backend's operations on an open node, as an inner backend for an adapter that
 * speaks another driver's requests over it (the rocket backend): a context owning fd, or NULL
 * (fd closed) when out of memory. */
extern const npk_rk_backend npk_rk_kernel_fd_backend;
void *npk_rk_kernel_fd_ctx(int fd);
/* The DRM driver name of the node at path ("rknpu", "rocket", ...): an open descriptor, or a
 * negative errno (-ENODEV when it answers no DRM_IOCTL_VERSION). */
int npk_rk_node_open(const char *path, char *driver, size_t len);
/* True when the node's DRM_IOCTL_VERSION description names the simulator
 * (RKSIM_DRM_DESC_MARK): a kernel interface answered by rksim, e.g. under the LD_PRELOAD shim.
 * Its times are the model's, not measurements. */
bool npk_rk_node_simulated(int fd);

/* The rocket adapter over an inner backend speaking the rocket requests (device_rocket.c):
 * ictx[0..files) are open files of one node, file c serving core c; takes ownership of them. */
npk_status npk_rk_device_wrap_rocket(const npk_rk_backend *inner, void *const *ictx,
                                     unsigned files, const char *name, npk_rk_device **out);

#endif
