/* SPDX-License-Identifier: MIT */
/* Large zeroed buffers on huge pages where the system has them (big_alloc.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "common/big_alloc.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE)
enum { HUGE_BYTES = 2u << 20 };

/* The mapping's length: len in whole pages. */
static size_t mapped_len(size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (len + page - 1) / page * page;
}

void *npk_big_alloc(size_t len)
{
    if (len < HUGE_BYTES || len > SIZE_MAX - 2 * HUGE_BYTES)
        return calloc(1, len ? len : 1);
    /* Map 2 MiB more, keep the 2 MiB-aligned part and give the rest back. */
    size_t want = mapped_len(len), map = want + HUGE_BYTES;
    uint8_t *m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)m + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + map > p + want)
        munmap(p + want, (size_t)(m + map - (p + want)));
    madvise(p, want, MADV_HUGEPAGE); /* only advice: without huge pages it is still correct */
    return p;
}

void npk_big_free(void *p, size_t len)
{
    if (!p)
        return;
    if (len < HUGE_BYTES || len > SIZE_MAX - 2 * HUGE_BYTES)
        free(p);
    else
        munmap(p, mapped_len(len));
}
#else
void *npk_big_alloc(size_t len) { return calloc(1, len ? len : 1); }
void npk_big_free(void *p, size_t len)
{
    (void)len;
    free(p);
}
#endif
