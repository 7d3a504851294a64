/* SPDX-License-Identifier: MIT */
/* Sparse DRAM with per-granule written tracking. Pages live in an open-addressing hash table
 * keyed by page number, so a 4 GiB address space costs only what is touched. */
#include "dram.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/big_alloc.h"

enum { PAGE = 4096, GRANULES = PAGE / KSIM_GRANULE };
/* Pages come in slabs that double from the first to the last size: a lightly used machine stays
 * small, and a filled one gets slabs big enough for huge pages (common/big_alloc.h). */
enum { SLAB_FIRST = 8, SLAB_LAST = 1024 };

typedef struct dram_page {
    uint64_t number;
    uint8_t bytes[PAGE];
    uint8_t written[GRANULES / 8];
} dram_page;

typedef struct dram_slab {
    struct dram_slab *next;
    size_t bytes, used, pages;
    dram_page page[];
} dram_slab;

struct ksim_dram {
    uint64_t size;
    dram_page **table;
    size_t cap, used;
    dram_page *last;  /* the page found last: beats of a burst mostly share a page */
    dram_slab *slabs; /* newest first; pages are handed out from the newest */
};

ksim_dram *ksim_dram_create(uint64_t size)
{
    ksim_dram *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->size = size;
    d->cap = 256;
    d->table = calloc(d->cap, sizeof *d->table);
    if (!d->table) {
        free(d);
        return NULL;
    }
    return d;
}

void ksim_dram_destroy(ksim_dram *d)
{
    if (!d)
        return;
    for (dram_slab *sl = d->slabs, *next; sl; sl = next) {
        next = sl->next;
        npk_big_free(sl, sl->bytes);
    }
    free(d->table);
    free(d);
}

uint64_t ksim_dram_size(const ksim_dram *d) { return d->size; }

static size_t slot_of(uint64_t number, size_t cap)
{
    return (size_t)((number * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static dram_page *lookup(const ksim_dram *d, uint64_t number)
{
    if (d->last && d->last->number == number)
        return d->last;
    for (size_t i = slot_of(number, d->cap);; i = (i + 1) & (d->cap - 1)) {
        if (!d->table[i])
            return NULL;
        if (d->table[i]->number == number)
            return d->table[i];
    }
}

static bool grow(ksim_dram *d)
{
    size_t cap = d->cap * 2;
    dram_page **t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < d->cap; i++) {
        dram_page *p = d->table[i];
        if (!p)
            continue;
        size_t j = slot_of(p->number, cap);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = p;
    }
    free(d->table);
    d->table = t;
    d->cap = cap;
    return true;
}

/* A zeroed page from the newest slab, or from a new one twice its size. */
static dram_page *new_page(ksim_dram *d)
{
    dram_slab *sl = d->slabs;
    if (!sl || sl->used == sl->pages) {
        size_t pages = !sl ? SLAB_FIRST : sl->pages < SLAB_LAST ? sl->pages * 2 : SLAB_LAST;
        size_t bytes = sizeof *sl + pages * sizeof sl->page[0];
        dram_slab *fresh = npk_big_alloc(bytes);
        if (!fresh)
            return NULL;
        *fresh = (dram_slab){sl, bytes, 0, pages};
        d->slabs = sl = fresh;
    }
    return &sl->page[sl->used++];
}

static dram_page *page_for_write(ksim_dram *d, uint64_t number)
{
    dram_page *p = lookup(d, number);
    if (p)
        return d->last = p;
    if ((d->used + 1) * 2 > d->cap && !grow(d))
        return NULL;
    p = new_page(d);
    if (!p)
        return NULL;
    p->number = number;
    size_t j = slot_of(number, d->cap);
    while (d->table[j])
        j = (j + 1) & (d->cap - 1);
    d->table[j] = p;
    d->used++;
    return d->last = p;
}

static npk_status check_range(const ksim_dram *d, uint64_t off, size_t len)
{
    if (off > d->size || len > d->size - off)
        return npk_fail(NPK_EFAULT,
                        "DRAM access 0x%" PRIx64 "+%zu is outside the %" PRIu64 " MiB populated",
                        off, len, d->size >> 20);
    return NPK_OK;
}

/* The page found last when [off, off+len) is a non-empty part of one of its granules (a beat of
 * a burst, the memory ports' every access), else NULL: the general paths below decide. */
static dram_page *beat_page(const ksim_dram *d, uint64_t off, size_t len)
{
    dram_page *p = d->last;
    bool fits =
        len && off % KSIM_GRANULE + len <= KSIM_GRANULE && off < d->size && len <= d->size - off;
    return p && fits && p->number == off / PAGE ? p : NULL;
}

npk_status ksim_dram_write(ksim_dram *d, uint64_t off, const void *buf, size_t len)
{
    dram_page *bp = beat_page(d, off, len);
    if (bp) {
        size_t in = off % PAGE, g = in / KSIM_GRANULE;
        memcpy(bp->bytes + in, buf, len);
        bp->written[g / 8] |= (uint8_t)(1u << (g % 8));
        return NPK_OK;
    }
    npk_status s = check_range(d, off, len);
    if (s)
        return s;
    const uint8_t *src = buf;
    while (len) {
        dram_page *p = page_for_write(d, off / PAGE);
        if (!p)
            return npk_fail(NPK_ENOMEM, "DRAM: out of memory at 0x%" PRIx64, off);
        size_t in = off % PAGE, n = PAGE - in < len ? PAGE - in : len;
        memcpy(p->bytes + in, src, n);
        for (size_t g = in / KSIM_GRANULE; g <= (in + n - 1) / KSIM_GRANULE; g++)
            p->written[g / 8] |= (uint8_t)(1u << (g % 8));
        off += n;
        src += n;
        len -= n;
    }
    return NPK_OK;
}

bool ksim_dram_written(const ksim_dram *d, uint64_t off)
{
    const dram_page *p = lookup(d, off / PAGE);
    size_t g = (off % PAGE) / KSIM_GRANULE;
    return p && (p->written[g / 8] >> (g % 8) & 1);
}

npk_status ksim_dram_read(ksim_dram *d, uint64_t off, void *buf, size_t len)
{
    dram_page *bp = beat_page(d, off, len);
    if (bp) {
        size_t in = off % PAGE, g = in / KSIM_GRANULE;
        if (bp->written[g / 8] >> (g % 8) & 1) { /* unwritten: the general path reports it */
            memcpy(buf, bp->bytes + in, len);
            return NPK_OK;
        }
    }
    npk_status s = check_range(d, off, len);
    if (s)
        return s;
    uint8_t *dst = buf;
    uint64_t first_unwritten = UINT64_MAX;
    while (len) {
        dram_page *p = lookup(d, off / PAGE);
        if (p)
            d->last = p;
        size_t in = off % PAGE, n = PAGE - in < len ? PAGE - in : len;
        if (p)
            memcpy(dst, p->bytes + in, n);
        else
            memset(dst, 0, n);
        /* the page found above answers for every granule in it: no second lookup per granule */
        for (size_t g = in / KSIM_GRANULE; g <= (in + n - 1) / KSIM_GRANULE &&
                                           first_unwritten == UINT64_MAX;
             g++)
            if (!p || !(p->written[g / 8] >> (g % 8) & 1))
                first_unwritten = off - in + g * KSIM_GRANULE;
        off += n;
        dst += n;
        len -= n;
    }
    if (first_unwritten != UINT64_MAX)
        return npk_fail(NPK_EFAULT,
                        "read of never-written DRAM granule 0x%" PRIx64
                        " (the card answers SLVERR, which wedges the host channel until reset)",
                        first_unwritten);
    return NPK_OK;
}

npk_status ksim_dram_host_write(ksim_dram *d, uint64_t off, const void *buf, size_t len)
{
    npk_status s = check_range(d, off, len);
    if (s)
        return s;
    uint64_t g0 = off & ~(uint64_t)(KSIM_GRANULE - 1);
    uint64_t g1 = (off + len + KSIM_GRANULE - 1) & ~(uint64_t)(KSIM_GRANULE - 1);
    if (g1 > d->size)
        g1 = d->size;
    /* Paint every touched granule: zeros, then the bytes the host sent. Only the first and the
     * last granule can keep any of the zeros; the bytes cover the ones between. */
    uint8_t zero[KSIM_GRANULE] = {0};
    if (g0 < g1 && (s = ksim_dram_write(d, g0, zero, KSIM_GRANULE)))
        return s;
    uint64_t last = g0 < g1 ? g0 + (g1 - g0 - 1) / KSIM_GRANULE * KSIM_GRANULE : g0;
    if (last > g0 && (s = ksim_dram_write(d, last, zero, KSIM_GRANULE)))
        return s;
    return ksim_dram_write(d, off, buf, len);
}
