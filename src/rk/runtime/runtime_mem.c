/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Device memory: NPU-visible buffers that outlive the runtime that created them (they hold a
 * reference on its engine) and serve any runtime's calls. */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_internal.h"

npk_status npk_rk_buffer_create(npk_rk *rt, uint64_t size, npk_rk_buffer **out)
{
    return npk_rk_buffer_create_flags(rt, size, NPK_RK_BUFFER_CACHEABLE, out);
}

npk_status npk_rk_buffer_create_flags(npk_rk *rt, uint64_t size, unsigned flags,
                                      npk_rk_buffer **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "buffer_create: NULL output handle");
    *out = NULL;
    if (!rt)
        return npk_fail(NPK_EINVAL, "buffer_create: NULL runtime");
    /* The NPU addresses 32 bits; the last 256 MiB stay for the runtime's own buffers. */
    if (!size || size > 0xF0000000ull)
        return npk_fail(NPK_EINVAL, "buffer of %llu bytes: 1 .. %llu", (unsigned long long)size,
                        0xF0000000ull);
    if (flags & ~(unsigned)NPK_RK_BUFFER_NON_CACHEABLE)
        return npk_fail(NPK_EINVAL, "buffer flags 0x%x: only NPK_RK_BUFFER_NON_CACHEABLE (0x%x)",
                        flags, (unsigned)NPK_RK_BUFFER_NON_CACHEABLE);
    npk_rk_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return npk_fail(NPK_ENOMEM, "buffer: out of memory");
    /* the data buffers' flags, without the CPU cache when asked (facts A.1: mtx's buffers) */
    uint32_t kflags = NPK_RK_DATA_FLAGS;
    if (flags & NPK_RK_BUFFER_NON_CACHEABLE)
        kflags &= ~(uint32_t)RKNPU_MEM_CACHEABLE;
    npk_status s = npk_rk_mem_create(rt->dev, size, kflags, &b->mem);
    if (s) {
        free(b);
        return s;
    }
    b->eng = rt->eng;
    b->dmabuf_fd = -1;
    npk_rk_engine_retain(b->eng);
    *out = b;
    return NPK_OK;
}

/* Bytes a buffer takes of its address space: whole pages. */
static uint64_t span_of(uint64_t size) { return (size + 4095) & ~4095ull; }

unsigned npk_rk_weight_spaces(const npk_rk_engine *e)
{
    return e->core_spaces ? e->max_cores : e->domains;
}

uint64_t npk_rk_weights_free_in(npk_rk_engine *e, unsigned space)
{
    pthread_mutex_lock(&e->place_lock);
    uint64_t used = e->weight_bytes[space];
    pthread_mutex_unlock(&e->place_lock);
    return used < NPK_RK_WEIGHT_SPACE ? NPK_RK_WEIGHT_SPACE - used : 0;
}

/* Hold `span` bytes in every space of `mask` for a buffer being created (a racing placement
 * sees them); false, holding nothing, when one of them has no room. */
static bool hold(npk_rk_engine *e, unsigned mask, uint64_t span)
{
    pthread_mutex_lock(&e->place_lock);
    bool room = true;
    for (unsigned d = 0; d < npk_rk_weight_spaces(e); d++)
        if (mask >> d & 1)
            room &= e->weight_bytes[d] + span <= NPK_RK_WEIGHT_SPACE;
    for (unsigned d = 0; room && d < npk_rk_weight_spaces(e); d++)
        if (mask >> d & 1)
            e->weight_bytes[d] += span;
    pthread_mutex_unlock(&e->place_lock);
    return room;
}

static void unhold(npk_rk_engine *e, unsigned mask, uint64_t span)
{
    pthread_mutex_lock(&e->place_lock);
    for (unsigned d = 0; d < npk_rk_weight_spaces(e); d++)
        if (mask >> d & 1)
            e->weight_bytes[d] -= span;
    pthread_mutex_unlock(&e->place_lock);
}

/* The spaces a buffer of npk_rk_weights_mem takes: every core's (copies), or its domain. */
static unsigned shared_mask(const npk_rk_engine *e, unsigned domain)
{
    return e->core_spaces ? (1u << e->max_cores) - 1 : 1u << domain;
}

static npk_status too_big(uint64_t size)
{
    return npk_fail(NPK_ELIMIT,
                    "packed weights of %llu bytes: one address space holds at most %llu "
                    "(4 GiB of 32-bit IOVA less 256 MiB for the runtime's buffers)",
                    (unsigned long long)size, (unsigned long long)NPK_RK_WEIGHT_SPACE);
}

npk_status npk_rk_weights_mem(npk_rk *rt, uint64_t size, npk_rk_mem *mem)
{
    npk_rk_engine *e = rt->eng;
    const uint64_t span = span_of(size);
    if (span > NPK_RK_WEIGHT_SPACE)
        return too_big(size);
    /* the first domain with room; a domain the kernel finds full (other buffers, fragments)
     * is passed over. Where every core has its own space, one placement: a copy in each. */
    for (unsigned d = 0; d < e->domains; d++) {
        if (!hold(e, shared_mask(e, d), span))
            continue;
        npk_status s = npk_rk_mem_create_in(e->dev, d, size, NPK_RK_DATA_FLAGS,
                                            (1u << e->max_cores) - 1, mem);
        if (s == NPK_OK)
            return NPK_OK;
        unhold(e, shared_mask(e, d), span);
        if (s != NPK_ENOMEM)
            return s;
    }
    uint64_t cap, used;
    npk_rk_weights_room(e, &cap, &used);
    const unsigned spaces = npk_rk_weight_spaces(e);
    return npk_fail(NPK_ENOMEM,
                    "packed weights of %llu bytes do not fit%s: %s holds %llu bytes of weights "
                    "(%u address space%s of %llu), %llu in use",
                    (unsigned long long)size, e->core_spaces ? " as a copy in every core's space" : "",
                    npk_rk_device_name(e->dev), (unsigned long long)cap, spaces,
                    spaces == 1 ? "" : "s", (unsigned long long)NPK_RK_WEIGHT_SPACE,
                    (unsigned long long)used);
}

void npk_rk_weights_mem_free(npk_rk_engine *e, npk_rk_mem *mem)
{
    if (!mem->size)
        return;
    unhold(e, shared_mask(e, mem->domain), span_of(mem->size));
    npk_rk_mem_destroy(e->dev, mem);
}

npk_status npk_rk_weights_mem_on(npk_rk_engine *e, unsigned core, uint64_t size, npk_rk_mem *mem)
{
    const uint64_t span = span_of(size);
    if (span > NPK_RK_WEIGHT_SPACE)
        return too_big(size);
    if (!hold(e, 1u << core, span))
        return NPK_ENOMEM;
    npk_status s = npk_rk_mem_create_for(e->dev, size, NPK_RK_DATA_FLAGS, 1u << core, mem);
    if (s)
        unhold(e, 1u << core, span);
    return s;
}

void npk_rk_weights_mem_free_on(npk_rk_engine *e, unsigned core, npk_rk_mem *mem)
{
    if (!mem->size)
        return;
    unhold(e, 1u << core, span_of(mem->size));
    npk_rk_mem_destroy(e->dev, mem);
}

void npk_rk_weights_room(npk_rk_engine *e, uint64_t *capacity, uint64_t *used)
{
    const unsigned spaces = npk_rk_weight_spaces(e);
    *capacity = (uint64_t)spaces * NPK_RK_WEIGHT_SPACE;
    *used = 0;
    pthread_mutex_lock(&e->place_lock);
    for (unsigned d = 0; d < spaces; d++)
        *used += e->weight_bytes[d];
    pthread_mutex_unlock(&e->place_lock);
}

npk_status npk_rk_buffer_import(npk_rk *rt, int fd, npk_rk_buffer **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "buffer_import: NULL output handle");
    *out = NULL;
    if (!rt)
        return npk_fail(NPK_EINVAL, "buffer_import: NULL runtime");
    off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
    if (end <= 0)
        return npk_fail(NPK_EINVAL, "buffer_import: fd %d is not a dma-buf with a size (%s)", fd,
                        end < 0 ? strerror(errno) : "size 0");
    if ((uint64_t)end > 0xF0000000ull)
        return npk_fail(NPK_ELIMIT, "buffer_import: the dma-buf's %lld bytes exceed the NPU's %llu",
                        (long long)end, 0xF0000000ull);
    npk_rk_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return npk_fail(NPK_ENOMEM, "buffer_import: out of memory");
    b->dmabuf_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* syncs and unmaps outlive the caller's fd */
    if (b->dmabuf_fd < 0) {
        free(b);
        return npk_fail(NPK_EINVAL, "buffer_import: fd %d: %s", fd, strerror(errno));
    }
    npk_status s = npk_rk_mem_import(rt->dev, b->dmabuf_fd, &b->mem);
    if (s == NPK_OK) {
        b->eng = rt->eng;
        npk_rk_engine_retain(b->eng);
        *out = b;
        return NPK_OK;
    }
    /* rknpu imports dma-bufs: what its PRIME import refuses (a file that is no dma-buf) stays
     * refused, with the kernel's reason. */
    npk_rk_device_info info;
    npk_rk_device_query(rt->dev, &info);
    if (!info.kernel || strcmp(info.kernel, "rocket") != 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", npk_last_error());
        close(b->dmabuf_fd);
        free(b);
        return npk_fail(s, "buffer_import: fd %d: %s", fd, why);
    }
    /* The kernel imports no dma-buf (mainline rocket): the CPU's mapping, staged by every call
     * like any host array, is what the kernel allows. */
    void *host = mmap(NULL, (size_t)end, PROT_READ | PROT_WRITE, MAP_SHARED, b->dmabuf_fd, 0);
    if (host == MAP_FAILED) {
        char why[256];
        snprintf(why, sizeof why, "%s", npk_last_error());
        close(b->dmabuf_fd);
        free(b);
        return npk_fail(NPK_EINVAL,
                        "buffer_import: fd %d: the kernel did not import it (%s) and "
                        "it cannot be mapped (%s)",
                        fd, why, strerror(errno));
    }
    b->mem = (npk_rk_mem){.size = (uint64_t)end, .host = host};
    *out = b;
    return NPK_OK;
}

bool npk_rk_buffer_imported(const npk_rk_buffer *b) { return b && b->dmabuf_fd >= 0; }

npk_status npk_rk_buffer_check(const npk_rk_buffer *b)
{
    if (!b)
        return npk_fail(NPK_EINVAL, "buffer_check: NULL buffer");
    if (b->dmabuf_fd < 0)
        return NPK_OK; /* the runtime's own memory: nobody else can shrink it */
    struct stat st;
    if (fstat(b->dmabuf_fd, &st))
        return npk_fail(NPK_EIO, "imported buffer: fstat of its dma-buf: %s", strerror(errno));
    /* A dma-buf's size is fixed and fstat gives 0 for it; a memfd (or file) standing for one
     * reports its length, which its owner can cut. */
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < b->mem.size)
        return npk_fail(NPK_EFAULT,
                        "imported buffer: its memory was cut to %lld bytes after the import of "
                        "%llu bytes; the pages past the new end are gone and reading them would "
                        "fault (SIGBUS); restore its length or import it again",
                        (long long)st.st_size, (unsigned long long)b->mem.size);
    return NPK_OK;
}

bool npk_rk_buffer_cacheable(const npk_rk_buffer *b)
{
    return b && b->dmabuf_fd < 0 && (b->mem.flags & RKNPU_MEM_CACHEABLE);
}

void npk_rk_buffer_free(npk_rk_buffer *b)
{
    if (!b)
        return;
    if (b->eng) {
        npk_rk_mem_destroy(b->eng->dev, &b->mem);
        npk_rk_engine_release(b->eng);
    } else {
        munmap(b->mem.host, b->mem.size);
    }
    if (b->dmabuf_fd >= 0)
        close(b->dmabuf_fd);
    free(b);
}

/* A dma-buf's CPU access bracket (DMA_BUF_IOCTL_SYNC start and end) in the direction's sense:
 * what the exporter needs for its caches. A descriptor that is no dma-buf (a memfd standing for
 * one on x86) answers ENOTTY: nothing to sync. Under qemu-user, which does not translate this
 * ioctl, the same descriptor answers ENOSYS, and means the same. */
static npk_status dmabuf_sync(const npk_rk_buffer *b, npk_rk_sync_dir dir)
{
    uint64_t rw = (dir & NPK_RK_SYNC_TO_DEVICE ? DMA_BUF_SYNC_WRITE : 0) |
                  (dir & NPK_RK_SYNC_FROM_DEVICE ? DMA_BUF_SYNC_READ : 0);
    struct dma_buf_sync start = {.flags = DMA_BUF_SYNC_START | rw};
    struct dma_buf_sync end = {.flags = DMA_BUF_SYNC_END | rw};
    if (ioctl(b->dmabuf_fd, DMA_BUF_IOCTL_SYNC, &start) == 0 &&
        ioctl(b->dmabuf_fd, DMA_BUF_IOCTL_SYNC, &end) == 0)
        return NPK_OK;
    if (errno == ENOTTY || errno == ENOSYS)
        return NPK_OK;
    return npk_fail(NPK_EIO, "buffer_sync: DMA_BUF_IOCTL_SYNC on the imported dma-buf: %s",
                    strerror(errno));
}

void *npk_rk_buffer_host(const npk_rk_buffer *b) { return b ? b->mem.host : NULL; }
uint64_t npk_rk_buffer_size(const npk_rk_buffer *b) { return b ? b->mem.size : 0; }
uint32_t npk_rk_buffer_iova(const npk_rk_buffer *b) { return b ? b->mem.iova : 0; }

npk_status npk_rk_buffer_sync(npk_rk_buffer *b, uint64_t offset, uint64_t size, npk_rk_sync_dir dir)
{
    if (!b)
        return npk_fail(NPK_EINVAL, "buffer_sync: NULL buffer");
    if (dir < NPK_RK_SYNC_TO_DEVICE || dir > NPK_RK_SYNC_BOTH)
        return npk_fail(NPK_EINVAL,
                        "buffer_sync: direction %d is not 1 (to device), 2 (from "
                        "device) or 3 (both)",
                        (int)dir);
    if (offset > b->mem.size || size > b->mem.size - offset)
        return npk_fail(NPK_EINVAL, "buffer_sync: [%llu, +%llu) is outside the %llu-byte buffer",
                        (unsigned long long)offset, (unsigned long long)size,
                        (unsigned long long)b->mem.size);
    if (!size)
        size = b->mem.size - offset;
    if (b->dmabuf_fd >= 0) /* the exporter's memory: its own sync, whole */
        return dmabuf_sync(b, dir);
    npk_status s = NPK_OK;
    if (dir & NPK_RK_SYNC_TO_DEVICE)
        s = npk_rk_mem_sync(b->eng->dev, &b->mem, offset, size, RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK && (dir & NPK_RK_SYNC_FROM_DEVICE))
        s = npk_rk_mem_sync(b->eng->dev, &b->mem, offset, size, RKNPU_MEM_SYNC_FROM_DEVICE);
    return s;
}
