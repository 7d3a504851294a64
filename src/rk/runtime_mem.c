/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock */
/* Device memory: NPU-visible buffers that outlive the runtime that created them (they hold a
 * reference on its engine) and serve any runtime's calls. */
#include <stdlib.h>

#include "runtime_internal.h"

npk_status npk_rk_buffer_create(npk_rk *rt, uint64_t size, npk_rk_buffer **out)
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
    npk_rk_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return npk_fail(NPK_ENOMEM, "buffer: out of memory");
    npk_status s = npk_rk_mem_create(rt->dev, size, NPK_RK_DATA_FLAGS, &b->mem);
    if (s) {
        free(b);
        return s;
    }
    b->eng = rt->eng;
    npk_rk_engine_retain(b->eng);
    *out = b;
    return NPK_OK;
}

void npk_rk_buffer_free(npk_rk_buffer *b)
{
    if (!b)
        return;
    npk_rk_mem_destroy(b->eng->dev, &b->mem);
    npk_rk_engine_release(b->eng);
    free(b);
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
    npk_status s = NPK_OK;
    if (dir & NPK_RK_SYNC_TO_DEVICE)
        s = npk_rk_mem_sync(b->eng->dev, &b->mem, offset, size, RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK && (dir & NPK_RK_SYNC_FROM_DEVICE))
        s = npk_rk_mem_sync(b->eng->dev, &b->mem, offset, size, RKNPU_MEM_SYNC_FROM_DEVICE);
    return s;
}
