/* SPDX-License-Identifier: MIT */
/* The simulated DRAM against a flat copy kept beside it: thousands of pages (its slabs grow from
 * a few pages to huge-page size), beats inside one granule (the short path) and accesses that
 * straddle granules and pages (the general one), reads of never-written granules and outside the
 * populated size refused by name; and the large zeroed buffers the slabs come from. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/big_alloc.h"
#include "ktsim/dram.h"
#include "npukit/status.h"

enum { SIZE = 16 << 20, PAGE = 4096 };

static uint32_t rng = 12345;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

static void test_big_alloc(void)
{
    const size_t sizes[] = {0, 1, 4096, (2u << 20) - 1, 2u << 20, (2u << 20) + 1, (5u << 20) + 123};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        uint8_t *p = npk_big_alloc(n);
        CHECK(p != NULL);
        if (!p)
            continue;
        size_t nonzero = 0;
        for (size_t k = 0; k < n; k++)
            nonzero += p[k] != 0;
        CHECK_EQ(nonzero, 0);
        if (n) { /* the whole length is writable */
            p[n - 1] = 2;
            p[0] = 1;
            CHECK_EQ(p[n - 1], n == 1 ? 1 : 2);
        }
        npk_big_free(p, n);
    }
    npk_big_free(NULL, 1u << 22); /* nothing to free */
}

static void test_pages(void)
{
    ksim_dram *d = ksim_dram_create(SIZE);
    uint8_t *ref = calloc(SIZE, 1), *written = calloc(SIZE / 32, 1), buf[3 * PAGE];
    CHECK(d && ref && written);
    if (!d || !ref || !written)
        return;
    /* whole beats over the first 12 MiB: 3 072 pages, so every slab size is used */
    for (uint64_t off = 0; off < 12u << 20; off += 32) {
        for (int k = 0; k < 32; k++)
            buf[k] = (uint8_t)next();
        CHECK_EQ(ksim_dram_write(d, off, buf, 32), NPK_OK);
        memcpy(ref + off, buf, 32);
        written[off / 32] = 1;
    }
    /* then writes of any length at any offset, up to three pages */
    for (int i = 0; i < 2000; i++) {
        size_t len = 1 + next() % sizeof buf;
        uint64_t off = next() % (SIZE - len);
        for (size_t k = 0; k < len; k++)
            buf[k] = (uint8_t)next();
        CHECK_EQ(ksim_dram_write(d, off, buf, len), NPK_OK);
        memcpy(ref + off, buf, len);
        for (uint64_t g = off / 32; g <= (off + len - 1) / 32; g++)
            written[g] = 1;
    }
    /* reads: equal where every granule was written, refused (naming the granule) elsewhere */
    size_t mismatched = 0, wrong_answer = 0;
    for (int i = 0; i < 20000; i++) {
        size_t len = i % 2 ? 32 - (size_t)(next() % 8) : 1 + next() % sizeof buf;
        uint64_t off = next() % (SIZE - len);
        bool all = true;
        for (uint64_t g = off / 32; g <= (off + len - 1) / 32; g++)
            all = all && written[g];
        npk_status st = ksim_dram_read(d, off, buf, len);
        if (all != (st == NPK_OK))
            wrong_answer++;
        else if (!all && !strstr(npk_last_error(), "never-written"))
            wrong_answer++;
        else if (all && memcmp(buf, ref + off, len))
            mismatched++;
    }
    CHECK_EQ(wrong_answer, 0);
    CHECK_EQ(mismatched, 0);
    /* an unwritten granule on the page found last (the short path) is refused too */
    uint64_t hole = 0;
    while (hole < SIZE / 32 && written[hole])
        hole++;
    if (hole < SIZE / 32) {
        uint64_t off = hole * 32, page_start = off / PAGE * PAGE;
        for (uint64_t g = page_start / 32; g < (page_start + PAGE) / 32; g++)
            if (written[g] && ksim_dram_read(d, g * 32, buf, 32) == NPK_OK)
                break; /* make it the page found last */
        CHECK(ksim_dram_read(d, off, buf, 32) != NPK_OK);
        CHECK_STR_HAS(npk_last_error(), "never-written");
    }
    /* outside the populated size */
    CHECK(ksim_dram_read(d, SIZE - 16, buf, 32) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "outside");
    CHECK(ksim_dram_write(d, SIZE, buf, 1) != NPK_OK);
    CHECK_EQ(ksim_dram_read(d, 0, buf, 0), NPK_OK);
    ksim_dram_destroy(d);
    free(ref);
    free(written);
}

int main(void)
{
    test_big_alloc();
    test_pages();
    return check_done();
}
