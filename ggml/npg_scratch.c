/* SPDX-License-Identifier: MIT */
/* A device's scratch memory (npg.h): what one graph step converts its activations into and
 * where the int8 form's sums land, kept from call to call.
 *
 * Why keep it: a call's scratch is megabytes (M = 512, K = 11008: 11 MB of int8 digits), and a
 * fresh allocation that size is a fresh mapping whose every page faults the first time it is
 * written, every call (the kernel zeroes each page). Kept, its pages stay mapped. A call that
 * needs more than the arena holds takes another block; at the next call's start the blocks are
 * merged into one of their total, so a steady sequence of calls touches one block, never a new
 * page. The merged block is mapped with its pages populated (MAP_POPULATE) where the system
 * offers it, else allocated and touched once. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include <stdlib.h>
#include <string.h>

#include "npg.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Every allocation starts on a cache line (the SIMD loads and the runtime's packers like it). */
#define NPG_SCRATCH_ALIGN 64u

typedef struct npg_scratch_block {
    struct npg_scratch_block *next;
    uint8_t *base;
    size_t size, used;
    bool mapped; /* mmap (else malloc) */
} npg_scratch_block;

/* A block of `size` bytes with its pages already present. */
static npg_scratch_block *block_new(size_t size)
{
    npg_scratch_block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->size = size;
#if defined(__linux__) && defined(MAP_POPULATE)
    void *p =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) {
        b->base = p;
        b->mapped = true;
        return b;
    }
#endif
    b->base = aligned_alloc(NPG_SCRATCH_ALIGN, size); /* size: a multiple of the alignment */
    if (!b->base) {
        free(b);
        return NULL;
    }
    memset(b->base, 0, size); /* the first touch, paid here once */
    return b;
}

static void block_free(npg_scratch_block *b)
{
#if defined(__linux__)
    if (b->mapped)
        munmap(b->base, b->size);
    else
#endif
        free(b->base);
    free(b);
}

void npg_scratch_begin(npg_scratch *s)
{
    npg_scratch_block *b = s->blocks;
    if (b && b->next) { /* the last call needed several: one block of their total from now on */
        size_t total = 0;
        while (b) {
            npg_scratch_block *next = b->next;
            total += b->size;
            block_free(b);
            b = next;
        }
        s->blocks = block_new(total); /* NULL: allocated again on demand */
    }
    for (b = s->blocks; b; b = b->next)
        b->used = 0;
}

void *npg_scratch_get(npg_scratch *s, size_t bytes)
{
    bytes = (bytes + NPG_SCRATCH_ALIGN - 1) / NPG_SCRATCH_ALIGN * NPG_SCRATCH_ALIGN;
    if (bytes == 0)
        bytes = NPG_SCRATCH_ALIGN;
    npg_scratch_block **link = &s->blocks;
    for (npg_scratch_block *b = s->blocks; b; link = &b->next, b = b->next)
        if (b->size - b->used >= bytes) {
            void *p = b->base + b->used;
            b->used += bytes;
            return p;
        }
    npg_scratch_block *b = block_new(bytes);
    if (!b)
        return NULL;
    b->used = bytes;
    *link = b;
    return b->base;
}

void npg_scratch_free(npg_scratch *s)
{
    while (s->blocks) {
        npg_scratch_block *next = s->blocks->next;
        block_free(s->blocks);
        s->blocks = next;
    }
}
