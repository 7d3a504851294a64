/* SPDX-License-Identifier: MIT */
/* NPU memory of the compatible layer: rknn_tensor_mem over npukit's device buffers. Memory is
 * process-wide (made through one context, used and destroyed through any), and every pointer a
 * caller passes back is looked up among the live mems before it is touched, so a destroyed or
 * foreign pointer is an error code, not a crash. */
#include <stdlib.h>
#include <string.h>

#include "rknn_internal.h"

static pthread_mutex_t mems_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t unpinned = PTHREAD_COND_INITIALIZER; /* a pin was released */
static rknn_mem_obj **mems;
static size_t nmems, capmems;
static uint64_t next_id = 1;

/* Under mems_lock. */
static size_t index_of(const rknn_tensor_mem *mem)
{
    for (size_t i = 0; i < nmems; i++)
        if (&mems[i]->pub == mem)
            return i;
    return SIZE_MAX;
}

rknn_mem_obj *rknn_mem_pin(const rknn_tensor_mem *mem, uint64_t id)
{
    pthread_mutex_lock(&mems_lock);
    size_t i = mem ? index_of(mem) : SIZE_MAX;
    rknn_mem_obj *o = i == SIZE_MAX || (id && mems[i]->id != id) ? NULL : mems[i];
    if (o)
        o->pins++;
    pthread_mutex_unlock(&mems_lock);
    return o;
}

void rknn_mem_unpin(rknn_mem_obj *o)
{
    if (!o)
        return;
    pthread_mutex_lock(&mems_lock);
    if (!--o->pins)
        pthread_cond_broadcast(&unpinned);
    pthread_mutex_unlock(&mems_lock);
}

/* Enter o into the live list (it gets its id there). */
static npk_status enlist(rknn_mem_obj *o)
{
    npk_status s = NPK_OK;
    pthread_mutex_lock(&mems_lock);
    if (nmems == capmems) {
        size_t cap = capmems ? capmems * 2 : 16;
        rknn_mem_obj **grown = realloc(mems, cap * sizeof *grown);
        if (grown) {
            mems = grown;
            capmems = cap;
        }
    }
    if (nmems < capmems) {
        o->id = next_id++;
        mems[nmems++] = o;
    } else {
        s = npk_fail(NPK_ENOMEM, "rknn_create_mem: out of memory");
    }
    pthread_mutex_unlock(&mems_lock);
    return s;
}

/* A mem over a buffer made by `make` (a runtime of the process's shared engine: every context
 * shares it, so any live context, or none, will do); NULL with the error printed. */
static rknn_mem_obj *make_mem(npk_status (*make)(npk_rk *rt, const void *arg, npk_rk_buffer **b),
                              const void *arg)
{
    npk_rk *rt = NULL;
    npk_status s = rknn_runtime_open(&rt);
    const bool opened = s == NPK_OK;
    rknn_mem_obj *o = NULL;
    if (s == NPK_OK && !(o = calloc(1, sizeof *o)))
        s = npk_fail(NPK_ENOMEM, "rknn_create_mem: out of memory");
    if (s == NPK_OK)
        s = make(rt, arg, &o->buf);
    if (s == NPK_OK)
        s = enlist(o);
    if (opened)
        npk_rk_close(rt); /* the buffer keeps the engine */
    if (s) {
        if (o)
            npk_rk_buffer_free(o->buf);
        free(o);
        rknn_fail(s);
        return NULL;
    }
    return o;
}

/* What make_alloc allocates. */
typedef struct alloc_req {
    uint64_t size;
    unsigned flags; /* npk_rk_buffer_flags */
} alloc_req;

static npk_status make_alloc(npk_rk *rt, const void *arg, npk_rk_buffer **b)
{
    const alloc_req *r = arg;
    return npk_rk_buffer_create_flags(rt, r->size, r->flags, b);
}

static rknn_tensor_mem *create(rknn_context ctx, uint64_t size, unsigned flags)
{
    (void)ctx;
    if (!size || size > UINT32_MAX) {
        rknn_error(NPK_EINVAL, "rknn_create_mem: size %llu: 1 .. %u bytes",
                   (unsigned long long)size, UINT32_MAX);
        return NULL;
    }
    const alloc_req req = {size, flags};
    rknn_mem_obj *o = make_mem(make_alloc, &req);
    if (!o)
        return NULL;
    o->pub.virt_addr = npk_rk_buffer_host(o->buf);
    o->pub.phys_addr = npk_rk_buffer_iova(o->buf);
    o->pub.fd = -1; /* no dma-buf export */
    o->pub.offset = 0;
    o->pub.size = (uint32_t)size;
    /* how the memory was made (the facts' ALLOC_INSIDE / FROM_FD / FROM_PHYS values, not
     * bits): the cacheability is not a value of this field */
    o->pub.flags = RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE;
    o->pub.priv_data = NULL;
    return &o->pub;
}

static npk_status make_import(npk_rk *rt, const void *arg, npk_rk_buffer **b)
{
    return npk_rk_buffer_import(rt, *(const int32_t *)arg, b);
}

rknn_tensor_mem *rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void *virt, uint32_t size,
                                         int32_t offset)
{
    (void)ctx;
    if (fd < 0 || !size || offset < 0) {
        rknn_error(NPK_EINVAL,
                   "rknn_create_mem_from_fd: fd %d, size %u, offset %d: a descriptor, at least "
                   "one byte, an offset of 0 or more",
                   fd, size, offset);
        return NULL;
    }
    rknn_mem_obj *o = make_mem(make_import, &fd);
    if (!o)
        return NULL;
    uint64_t room = npk_rk_buffer_size(o->buf);
    if ((uint64_t)offset + size > room) {
        rknn_error(NPK_EINVAL,
                   "rknn_create_mem_from_fd: %u bytes at offset %d do not fit the %llu-byte "
                   "dma-buf of fd %d",
                   size, offset, (unsigned long long)room, fd);
        rknn_destroy_mem(ctx, &o->pub);
        return NULL;
    }
    /* the whole dma-buf is the buffer; the mem is [offset, offset + size) of it */
    o->pub.virt_addr = virt ? virt : npk_rk_buffer_host(o->buf);
    o->pub.phys_addr = npk_rk_buffer_iova(o->buf);
    o->pub.fd = fd;
    o->pub.offset = offset;
    o->pub.size = size;
    o->pub.flags = RKNN_TENSOR_MEMORY_FLAGS_FROM_FD;
    o->pub.priv_data = NULL;
    return &o->pub;
}

rknn_tensor_mem *rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void *virt,
                                           uint32_t size)
{
    (void)ctx;
    (void)virt;
    rknn_error(NPK_EUNSUPPORTED,
               "rknn_create_mem_from_phys(0x%llx, %u bytes): neither kernel imports memory by "
               "physical address (rknpu maps its own buffers and dma-bufs through the NPU's "
               "IOMMU, rocket only its own buffers); pass the memory's dma-buf to "
               "rknn_create_mem_from_fd",
               (unsigned long long)phys_addr, size);
    return NULL;
}

rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size)
{
    return create(ctx, size, NPK_RK_BUFFER_CACHEABLE);
}

/* NON_CACHEABLE reaches the kernel: on rknpu a buffer without RKNPU_MEM_CACHEABLE, which
 * rknn_mem_sync has nothing to do for (the kernel would refuse MEM_SYNC on it); rocket has no
 * such buffer, so there the memory is cacheable and synced as any other. Default and
 * CACHEABLE: cacheable. TRY_ALLOC_SRAM is a request, answered from DRAM: no SRAM is used. */
rknn_tensor_mem *rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags)
{
    if (alloc_flags & ~(uint64_t)(RKNN_FLAG_MEMORY_CACHEABLE | RKNN_FLAG_MEMORY_NON_CACHEABLE |
                                  RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM)) {
        rknn_error(NPK_EINVAL, "rknn_create_mem2: unknown flags 0x%llx",
                   (unsigned long long)alloc_flags);
        return NULL;
    }
    if ((alloc_flags & RKNN_FLAG_MEMORY_CACHEABLE) &&
        (alloc_flags & RKNN_FLAG_MEMORY_NON_CACHEABLE)) {
        rknn_error(NPK_EINVAL,
                   "rknn_create_mem2: flags 0x%llx ask for CACHEABLE and NON_CACHEABLE at once",
                   (unsigned long long)alloc_flags);
        return NULL;
    }
    return create(ctx, size,
                  (alloc_flags & RKNN_FLAG_MEMORY_NON_CACHEABLE) ? NPK_RK_BUFFER_NON_CACHEABLE
                                                                 : NPK_RK_BUFFER_CACHEABLE);
}

int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
    (void)ctx;
    pthread_mutex_lock(&mems_lock);
    size_t i = mem ? index_of(mem) : SIZE_MAX;
    rknn_mem_obj *o = i == SIZE_MAX ? NULL : mems[i];
    if (o) {
        /* no longer found by new calls; the ones using it now finish first */
        mems[i] = mems[--nmems];
        while (o->pins)
            pthread_cond_wait(&unpinned, &mems_lock);
    }
    pthread_mutex_unlock(&mems_lock);
    if (!o)
        return rknn_error(NPK_EINVAL,
                          "rknn_destroy_mem: %p is not a live rknn_tensor_mem "
                          "(NULL, destroyed already, or not made by rknn_create_mem)",
                          (void *)mem);
    npk_rk_buffer_free(o->buf);
    free(o);
    return RKNN_SUCC;
}

/* Cacheable memory: the kernel's sync (MEM_SYNC, or PREP_BO / FINI_BO on rocket); non-cacheable
 * memory has no CPU cache to maintain: success with nothing to do; a dma-buf: its own
 * DMA_BUF_IOCTL_SYNC. */
int rknn_mem_sync(rknn_context ctx, rknn_tensor_mem *mem, rknn_mem_sync_mode mode)
{
    (void)ctx;
    rknn_mem_obj *o = rknn_mem_pin(mem, 0);
    if (!o)
        return rknn_error(NPK_EINVAL, "rknn_mem_sync: %p is not a live rknn_tensor_mem",
                          (void *)mem);
    npk_status s = npk_rk_buffer_sync(o->buf, 0, 0, (npk_rk_sync_dir)mode);
    rknn_mem_unpin(o);
    return s ? rknn_fail(s) : RKNN_SUCC;
}
