/* SPDX-License-Identifier: MIT */
/* rksim IOVA memory (see mem.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "rksim/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/big_alloc.h"
#include "npukit/rknpu_uapi.h"

enum {
    PAGE = 4096,
};
/* The IOVA space is 32 bits (facts B.1, I.3); allocation is top-down like the captures'
 * 0xFFFFxxxx addresses (facts C.0). The first page stays unmapped so 0 is never an address. */
static const uint64_t IOVA_TOP = 0x100000000ull;
static const uint64_t IOVA_BOTTOM = PAGE;
/* Fake kernel object pointers and mmap offsets: distinctive, never zero. The mmap offset
 * space starts where the DRM core's does (0x100000 pages). */
static const uint64_t OBJ_BASE = 0xffffff8000000000ull;
static const uint64_t MAP_BASE = 0x100000000ull;

void rksim_mem_init(rksim_mem *m, bool incoherent)
{
    memset(m, 0, sizeof *m);
    m->next_handle = 1;
    m->incoherent = incoherent;
}

/* A buffer's zeroed pages: from 2 MiB on aligned for transparent huge pages
 * (common/big_alloc.h), so that the first touch of a large operand, the runtime's packed
 * weights for one, costs a fault per 2 MiB rather than one per page. */
enum { HUGE_FROM = 2u << 20 };

static void *pages_alloc(uint64_t span)
{
    if (span >= HUGE_FROM)
        return npk_big_alloc((size_t)span);
    void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void pages_free(void *p, uint64_t span)
{
    if (span >= HUGE_FROM)
        npk_big_free(p, (size_t)span);
    else
        munmap(p, span);
}

static void buf_free(rksim_buf *b)
{
    if (b->imported && b->import_fd >= 0)
        close(b->import_fd);
    if (b->dev && b->dev != b->cpu)
        free(b->dev);
    if (b->cpu && !b->imported)
        pages_free(b->cpu, b->span);
    else if (b->cpu)
        munmap(b->cpu, b->span);
    free(b);
}

void rksim_mem_free(rksim_mem *m)
{
    for (size_t i = 0; i < m->count; i++)
        buf_free(m->bufs[i]);
    free(m->bufs);
    memset(m, 0, sizeof *m);
}

/* Highest free IOVA range of `span` bytes in address space `space`, first fit from the top:
 * each space (an IOMMU domain) is a 4 GiB IOVA space of its own. */
static bool find_iova(const rksim_mem *m, unsigned space, uint64_t span, uint64_t *out)
{
    uint64_t top = IOVA_TOP;
    /* bufs are kept sorted by descending IOVA among live ones; dead ones own no IOVA. */
    for (size_t i = 0; i < m->count; i++) {
        const rksim_buf *b = m->bufs[i];
        if (!b->live || b->space != space)
            continue;
        if (top - (b->iova + b->span) >= span && top >= b->iova + b->span) {
            *out = top - span;
            return true;
        }
        top = b->iova;
    }
    if (top >= IOVA_BOTTOM + span) {
        *out = top - span;
        return true;
    }
    return false;
}

static int insert_sorted(rksim_mem *m, rksim_buf *b)
{
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        rksim_buf **n = realloc(m->bufs, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        m->bufs = n;
        m->cap = cap;
    }
    size_t i = 0;
    while (i < m->count && (!m->bufs[i]->live || m->bufs[i]->iova > b->iova))
        i++;
    memmove(&m->bufs[i + 1], &m->bufs[i], (m->count - i) * sizeof *m->bufs);
    m->bufs[i] = b;
    m->count++;
    return 0;
}

/* Give a filled buffer its handle, object address and mapping offset, and list it by IOVA (both
 * the allocator and an import end here). Frees it on failure. */
static int place(rksim_mem *m, rksim_buf *b, uint32_t flags, uint64_t size, uint64_t span,
                 uint64_t iova, rksim_buf **out)
{
    /* the offset says the space too: IOVAs repeat from one space to the next */
    b->map_offset = MAP_BASE + iova + ((uint64_t)b->space << 32);
    b->handle = m->next_handle++;
    b->flags = flags;
    b->size = size;
    b->span = span;
    b->iova = iova;
    b->obj_addr = OBJ_BASE + (uint64_t)b->handle * 0x400;
    b->live = true;
    if (insert_sorted(m, b)) {
        buf_free(b);
        return -ENOMEM;
    }
    *out = b;
    return 0;
}

int rksim_mem_create(rksim_mem *m, uint64_t size, uint32_t flags, rksim_buf **out)
{
    return rksim_mem_create_in(m, 0, size, flags, out);
}

int rksim_mem_create_in(rksim_mem *m, unsigned space, uint64_t size, uint32_t flags,
                        rksim_buf **out)
{
    if (size == 0)
        return -EINVAL;
    if (size > IOVA_TOP - IOVA_BOTTOM)
        return -ENOMEM;
    uint64_t span = (size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    uint64_t iova;
    if (!find_iova(m, space, span, &iova))
        return -ENOMEM; /* the space's 4 GiB of IOVA are exhausted (facts I.3) */
    rksim_buf *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->space = space;
    void *cpu = pages_alloc(span);
    if (!cpu) {
        free(b);
        return -ENOMEM;
    }
    b->cpu = cpu;
    b->dev = b->cpu;
    if (m->incoherent && (flags & RKNPU_MEM_CACHEABLE)) {
        b->dev = calloc(1, span);
        if (!b->dev) {
            b->dev = NULL;
            buf_free(b);
            return -ENOMEM;
        }
        b->cpu_dirty = true; /* the allocator zeroed it through the cache */
    }
    return place(m, b, flags, size, span, iova, out);
}

int rksim_mem_import(rksim_mem *m, int fd, uint64_t size, rksim_buf **out)
{
    struct stat st;
    if (size == 0 || size > IOVA_TOP - IOVA_BOTTOM || fstat(fd, &st))
        return -EINVAL;
    for (size_t i = 0; i < m->count; i++) {
        rksim_buf *old = m->bufs[i];
        if (old->live && old->imported && old->import_dev == (uint64_t)st.st_dev &&
            old->import_ino == (uint64_t)st.st_ino) {
            *out = old;
            return 0;
        }
    }
    uint64_t span = (size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
    uint64_t iova;
    if (!find_iova(m, 0, span, &iova))
        return -ENOMEM;
    rksim_buf *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->import_dev = (uint64_t)st.st_dev;
    b->import_ino = (uint64_t)st.st_ino;
    /* The importer's descriptor may be closed at once; the length is checked at each submit. */
    b->import_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    /* the exporter's pages, shared with every other mapping of the dma-buf */
    void *cpu = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (cpu == MAP_FAILED) {
        if (b->import_fd >= 0)
            close(b->import_fd);
        free(b);
        return -EINVAL;
    }
    b->cpu = b->dev = cpu;
    b->imported = true;
    /* what the driver marks an import */
    return place(m, b, RKNPU_MEM_NON_CONTIGUOUS, size, span, iova, out);
}

int rksim_mem_check_imports(const rksim_mem *m, char *why, size_t cap)
{
    for (size_t i = 0; i < m->count; i++) {
        const rksim_buf *b = m->bufs[i];
        struct stat st;
        if (!b->live || !b->imported || b->import_fd < 0 || fstat(b->import_fd, &st) ||
            !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= b->size)
            continue;
        snprintf(why, cap,
                 "imported buffer (handle %u) was cut to %lld bytes after its import of %llu: "
                 "its pages past the new end are gone",
                 b->handle, (long long)st.st_size, (unsigned long long)b->size);
        return -EFAULT;
    }
    return 0;
}

static void remove_at(rksim_mem *m, size_t i)
{
    memmove(&m->bufs[i], &m->bufs[i + 1], (m->count - i - 1) * sizeof *m->bufs);
    m->count--;
}

int rksim_mem_destroy(rksim_mem *m, uint32_t handle, uint64_t obj_addr)
{
    (void)obj_addr; /* the handle is authoritative (GEM handle close) */
    for (size_t i = 0; i < m->count; i++) {
        rksim_buf *b = m->bufs[i];
        if (b->live && b->handle == handle) {
            b->live = false;
            if (b->cpu_maps == 0) {
                remove_at(m, i);
                buf_free(b);
            } else {
                /* keep the CPU view until munmap, but move it out of the IOVA order */
                remove_at(m, i);
                m->bufs[m->count++] = b;
            }
            return 0;
        }
    }
    return -EINVAL;
}

rksim_buf *rksim_mem_by_handle(rksim_mem *m, uint32_t handle)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->bufs[i]->live && m->bufs[i]->handle == handle)
            return m->bufs[i];
    return NULL;
}

rksim_buf *rksim_mem_by_obj(rksim_mem *m, uint64_t obj_addr)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->bufs[i]->live && m->bufs[i]->obj_addr == obj_addr)
            return m->bufs[i];
    return NULL;
}

rksim_buf *rksim_mem_by_offset(rksim_mem *m, uint64_t map_offset)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->bufs[i]->live && m->bufs[i]->map_offset == map_offset)
            return m->bufs[i];
    return NULL;
}

rksim_buf *rksim_mem_by_cpu(rksim_mem *m, const void *cpu)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->bufs[i]->cpu == cpu)
            return m->bufs[i];
    return NULL;
}

void rksim_mem_release_cpu(rksim_mem *m, rksim_buf *b)
{
    if (b->cpu_maps)
        b->cpu_maps--;
    if (b->live || b->cpu_maps)
        return;
    for (size_t i = 0; i < m->count; i++)
        if (m->bufs[i] == b) {
            remove_at(m, i);
            buf_free(b);
            return;
        }
}

int rksim_mem_sync(rksim_mem *m, rksim_buf *b, uint32_t dir, uint64_t offset, uint64_t size)
{
    (void)m;
    if (offset > b->size || size > b->size - offset)
        return -EINVAL;
    if (dir & ~(uint32_t)(RKNPU_MEM_SYNC_TO_DEVICE | RKNPU_MEM_SYNC_FROM_DEVICE))
        return -EINVAL;
    if (b->dev == b->cpu)
        return 0; /* coherent: nothing to do */
    if (dir & RKNPU_MEM_SYNC_TO_DEVICE) {
        memcpy(b->dev + offset, b->cpu + offset, size);
        /* a clean of the whole buffer's dirty lines is what makes the output warm */
        if (offset == 0 && size == b->size)
            b->cpu_dirty = false;
    }
    if (dir & RKNPU_MEM_SYNC_FROM_DEVICE) {
        memcpy(b->cpu + offset, b->dev + offset, size);
        /* an invalidate drops the dirty lines too: nothing is left to be written back */
        if (offset == 0 && size == b->size)
            b->cpu_dirty = false;
    }
    return 0;
}

uint8_t *rksim_dma(rksim_mem *m, uint64_t iova, uint64_t len, bool write, const char *what,
                   rksim_fault *f)
{
    if (len && iova < IOVA_TOP && len <= IOVA_TOP - iova) {
        for (size_t i = 0; i < m->count; i++) {
            rksim_buf *b = m->bufs[i];
            if (!b->live || b->space != m->space)
                continue; /* gone, or not mapped in this job's IOMMU domain */
            /* A DMA may touch the page-rounded tail: the IOMMU maps whole pages. */
            if (iova >= b->iova && iova + len <= b->iova + b->span) {
                if (write)
                    b->dma_written = true;
                return b->dev + (iova - b->iova);
            }
        }
    }
    if (f && !f->hit) {
        f->hit = true;
        f->iova = iova;
        f->len = len;
        f->write = write;
        f->what = what;
    }
    return NULL;
}

void rksim_mem_job_begin(rksim_mem *m)
{
    for (size_t i = 0; i < m->count; i++)
        m->bufs[i]->dma_written = false;
}

bool rksim_mem_job_end(rksim_mem *m)
{
    bool stale = false;
    for (size_t i = 0; i < m->count; i++) {
        rksim_buf *b = m->bufs[i];
        if (b->live && b->dma_written && b->cpu_dirty && b->dev != b->cpu) {
            /* The dirty CPU lines are evicted after the NPU wrote DRAM: the old CPU content
             * lands over the result. The lines are clean afterwards, so the next job is fine. */
            memcpy(b->dev, b->cpu, b->span);
            b->cpu_dirty = false;
            stale = true;
        }
        b->dma_written = false;
    }
    return stale;
}
