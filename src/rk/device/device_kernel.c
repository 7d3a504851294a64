/* SPDX-License-Identifier: MIT */
/* The kernel backend: ioctl and mmap on the rknpu DRM node. */
#define _DEFAULT_SOURCE /* ioctl, mmap flags */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npukit/rk_soc.h"
#include "npukit/rksim.h" /* RKSIM_DRM_DESC_MARK */
#include "device_backend.h"

typedef struct kernel_ctx {
    int fd;
    int fence[NPK_RK_SOC_MAX_CORES]; /* each core's NONBLOCK job's out-fence (-1: none) */
} kernel_ctx;

static int k_ioctl(void *ctx, unsigned long request, void *arg)
{
    kernel_ctx *k = ctx;
    int rc;
    /* like libdrm's drmIoctl: restart on signals */
    do {
        rc = ioctl(k->fd, request, arg);
    } while (rc == -1 && (errno == EINTR || errno == EAGAIN));
    return rc == -1 ? -errno : 0;
}

/* rknpu SUBMIT: a NONBLOCK job asks for an out-fence (RKNPU_JOB_FENCE_OUT), kept per core for
 * the completion wait — the kernel's own completion path, instead of polling the output. */
static int k_rknpu_ioctl(void *ctx, unsigned long request, void *arg)
{
    kernel_ctx *k = ctx;
    struct rknpu_submit *sub = arg;
    bool fence = request == DRM_IOCTL_RKNPU_SUBMIT && (sub->flags & RKNPU_JOB_NONBLOCK) &&
                 !(sub->flags & RKNPU_JOB_FENCE_OUT);
    if (fence)
        sub->flags |= RKNPU_JOB_FENCE_OUT;
    int rc = k_ioctl(ctx, request, arg);
    if (!fence)
        return rc;
    sub->flags &= ~(uint32_t)RKNPU_JOB_FENCE_OUT;
    if (rc || sub->fence_fd < 0)
        return rc;
    bool kept = false;
    for (unsigned c = 0; c < NPK_RK_SOC_MAX_CORES; c++) {
        if (!(sub->core_mask & (1u << c)) && !(sub->core_mask == 0 && c == 0))
            continue;
        if (k->fence[c] >= 0)
            close(k->fence[c]);
        k->fence[c] = kept ? dup(sub->fence_fd) : sub->fence_fd;
        kept = true;
    }
    if (!kept)
        close(sub->fence_fd);
    sub->fence_fd = -1;
    return 0;
}

/* The out-fence signals when the job's interrupt arrived (or the kernel gave up on it). */
static int k_wait(void *ctx, unsigned core, uint32_t timeout_ms, double *us)
{
    kernel_ctx *k = ctx;
    (void)us; /* a NONBLOCK job's hw_elapse_time is not returned */
    if (core >= NPK_RK_SOC_MAX_CORES || k->fence[core] < 0)
        return 0;
    struct pollfd p = {.fd = k->fence[core], .events = POLLIN};
    int n;
    do {
        n = poll(&p, 1, (int)timeout_ms);
    } while (n < 0 && errno == EINTR);
    close(k->fence[core]);
    k->fence[core] = -1;
    return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

static void *k_map(void *ctx, uint64_t offset, size_t length, int *err)
{
    kernel_ctx *k = ctx;
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, (off_t)offset);
    if (p == MAP_FAILED) {
        *err = errno;
        return NULL;
    }
    return p;
}

static void k_unmap(void *ctx, void *addr, size_t length)
{
    (void)ctx;
    munmap(addr, length);
}

static void k_close(void *ctx)
{
    kernel_ctx *k = ctx;
    for (unsigned c = 0; c < NPK_RK_SOC_MAX_CORES; c++)
        if (k->fence[c] >= 0)
            close(k->fence[c]);
    close(k->fd);
    free(k);
}

/* The SoC of the board, from the device tree's compatible strings; a board that names none
 * of the table's SoCs is taken for the default (validated) one. */
static const npk_rk_soc *k_soc(void *ctx)
{
    (void)ctx;
    FILE *f = fopen("/proc/device-tree/compatible", "rb");
    if (!f)
        return npk_rk_soc_default();
    char buf[512] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++) /* the property is NUL-separated strings */
        if (!buf[i])
            buf[i] = ' ';
    for (unsigned i = 0; i < npk_rk_soc_count(); i++)
        if (strstr(buf, npk_rk_soc_at(i)->name))
            return npk_rk_soc_at(i);
    return npk_rk_soc_default();
}

static const npk_rk_backend kernel_backend = {.kind = "kernel",
                                              .ioctl = k_rknpu_ioctl,
                                              .wait = k_wait,
                                              .map = k_map,
                                              .unmap = k_unmap,
                                              .close = k_close,
                                              .soc = k_soc,
                                              .kernel = "rknpu"};
/* the same operations for a node of another driver: the adapter over it says which */
const npk_rk_backend npk_rk_kernel_fd_backend = {.kind = "kernel",
                                                 .ioctl = k_ioctl,
                                                 .map = k_map,
                                                 .unmap = k_unmap,
                                                 .close = k_close,
                                                 .soc = k_soc};

void *npk_rk_kernel_fd_ctx(int fd)
{
    kernel_ctx *k = malloc(sizeof *k);
    if (!k) {
        close(fd);
        return NULL;
    }
    k->fd = fd;
    k->fence[0] = k->fence[1] = k->fence[2] = -1;
    return k;
}

/* fd's DRM driver name into name[len] and, when desc is not NULL, its description into
 * desc[desc_len]; false when it answers no DRM_IOCTL_VERSION. */
static bool driver_version(int fd, char *name, size_t len, char *desc, size_t desc_len)
{
    memset(name, 0, len);
    struct rknpu_drm_version v = {.name_len = len - 1, .name = (uintptr_t)name};
    if (desc) {
        memset(desc, 0, desc_len);
        v.desc_len = desc_len - 1;
        v.desc = (uintptr_t)desc;
    }
    return ioctl(fd, RKNPU_DRM_IOCTL_VERSION, &v) == 0;
}

static bool driver_name(int fd, char *name, size_t len)
{
    return driver_version(fd, name, len, NULL, 0);
}

bool npk_rk_node_simulated(int fd)
{
    char name[32], desc[128];
    return driver_version(fd, name, sizeof name, desc, sizeof desc) &&
           strstr(desc, RKSIM_DRM_DESC_MARK) != NULL;
}

int npk_rk_node_open(const char *path, char *driver, size_t len)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (!driver_name(fd, driver, len)) {
        close(fd);
        return -ENODEV;
    }
    return fd;
}

/* True when fd's DRM driver is "rknpu". */
static bool is_rknpu(int fd)
{
    char name[32];
    return driver_name(fd, name, sizeof name) && strcmp(name, "rknpu") == 0;
}

static int open_node(const char *path, bool check)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (check && !is_rknpu(fd)) {
        close(fd);
        return -ENODEV;
    }
    return fd;
}

/* The first card node whose driver is rknpu. Render nodes are never searched: a raw SUBMIT
 * through one is accepted and runs no task (spec "Submission model"). */
static int find_node(char *path, size_t len)
{
    for (int i = 0; i < 16; i++) {
        snprintf(path, len, "/dev/dri/card%d", i);
        int fd = open_node(path, true);
        if (fd >= 0)
            return fd;
    }
    return -ENODEV;
}

/* Whether path names a DRM render node (/dev/dri/renderD128..). */
static bool render_node(const char *path)
{
    const char *base = strrchr(path, '/');
    return !strncmp(base ? base + 1 : path, "renderD", 7);
}

npk_status npk_rk_device_open_kernel(const char *path, npk_rk_device **out)
{
    char found[64];
    int fd;
    if (path) {
        if (render_node(path))
            return npk_fail(NPK_ENODEV,
                            "%s is a render node: a raw rknpu SUBMIT through it runs no task; "
                            "open the card node (/dev/dri/cardN)",
                            path);
        fd = open_node(path, true);
        if (fd == -ENODEV)
            return npk_fail(NPK_ENODEV, "%s: its DRM driver is not rknpu", path);
        if (fd < 0)
            return npk_fail(NPK_ENODEV, "%s: %s", path, strerror(-fd));
    } else {
        fd = find_node(found, sizeof found);
        if (fd < 0)
            return npk_fail(NPK_ENODEV,
                            "no /dev/dri node with the rknpu driver "
                            "(card0..15; render nodes are not used: they run no raw SUBMIT)");
        path = found;
    }
    kernel_ctx *k = malloc(sizeof *k);
    if (!k) {
        close(fd);
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    }
    k->fd = fd;
    k->fence[0] = k->fence[1] = k->fence[2] = -1;
    npk_rk_backend be = kernel_backend;
    be.simulated = npk_rk_node_simulated(fd);
    return npk_rk_device_wrap(&be, k, path, out);
}

bool npk_rk_kernel_available(void)
{
    char path[64];
    int fd = find_node(path, sizeof path);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}
