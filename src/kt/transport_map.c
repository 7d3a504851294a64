/* SPDX-License-Identifier: MIT */
/* Address maps as transports over a transport: the bench map's orchestrator moved onto a card's
 * control window, and bounded (optionally granule-checked) windows. One mapping record serves
 * both; each access is checked whole before anything reaches the inner transport. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "npukit/kt_remote.h"

typedef struct kt_map {
    kt_transport *inner;
    uint64_t from, size, to; /* [from, from + size) → to + (a - from); size 0 = to the top */
    unsigned granule;        /* writes in whole aligned granules (0: any) */
    bool rebased;            /* below `from` is the engine's window, named as such */
} kt_map;

static npk_status map_addr(const kt_map *m, uint64_t addr, size_t len, uint64_t *out)
{
    if (addr < m->from) {
        if (m->rebased)
            return npk_fail(
                NPK_EINVAL,
                "address 0x%" PRIx64 " lies below the orchestrator's 0x%" PRIx64
                ", in the control-program "
                "engine's window, which a card does not have: run the program from the host",
                addr, m->from);
        return npk_fail(NPK_EINVAL, "address 0x%" PRIx64 " is below the window's start 0x%" PRIx64,
                        addr, m->from);
    }
    uint64_t off = addr - m->from;
    if (m->size && (off > m->size || len > m->size - off))
        return npk_fail(NPK_ELIMIT,
                        "[0x%" PRIx64 ", 0x%" PRIx64 ") runs outside the window's 0x%" PRIx64
                        " bytes (mapped to 0x%" PRIx64 ")",
                        addr, addr + len, m->size, m->to);
    if (m->to + off < m->to)
        return npk_fail(NPK_ELIMIT, "address 0x%" PRIx64 " maps past the top of the address space",
                        addr);
    *out = m->to + off;
    return NPK_OK;
}

static npk_status check_granule(const kt_map *m, uint64_t addr, size_t len)
{
    if (m->granule <= 8 || (addr % m->granule == 0 && len % m->granule == 0))
        return NPK_OK;
    return npk_fail(NPK_EINVAL,
                    "write of %zu bytes at 0x%" PRIx64
                    " covers part of a %u-byte DRAM granule: the card zero-fills the "
                    "rest of a partial granule, so only whole aligned granules may be written",
                    len, addr, m->granule);
}

static npk_status map_read64(void *ctx, uint64_t addr, uint64_t *value)
{
    kt_map *m = ctx;
    uint64_t a;
    npk_status s = map_addr(m, addr, 8, &a);
    return s ? s : kt_read64(m->inner, a, value);
}

static npk_status map_write64(void *ctx, uint64_t addr, uint64_t value)
{
    kt_map *m = ctx;
    uint64_t a;
    npk_status s = map_addr(m, addr, 8, &a);
    if (!s)
        s = check_granule(m, addr, 8);
    return s ? s : kt_write64(m->inner, a, value);
}

static npk_status map_read_block(void *ctx, uint64_t addr, void *buf, size_t len)
{
    kt_map *m = ctx;
    uint64_t a;
    npk_status s = map_addr(m, addr, len, &a);
    return s ? s : kt_read_block(m->inner, a, buf, len);
}

static npk_status map_write_block(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    kt_map *m = ctx;
    uint64_t a;
    npk_status s = map_addr(m, addr, len, &a);
    if (!s)
        s = check_granule(m, addr, len);
    return s ? s : kt_write_block(m->inner, a, buf, len);
}

static void map_close(void *ctx) { free(ctx); }

static const kt_transport_ops map_ops = {map_read64, map_write64, map_read_block, map_write_block,
                                         map_close};

static npk_status map_new(kt_transport *inner, const kt_map *spec, const char *name,
                          kt_transport *out)
{
    if (!inner || !inner->ops)
        return npk_fail(NPK_EINVAL, "address map: the inner transport is not open");
    kt_map *m = malloc(sizeof *m);
    if (!m)
        return npk_fail(NPK_ENOMEM, "address map: out of memory");
    *m = *spec;
    kt_transport_init(out, name, &map_ops, m);
    /* Blocks reach the map whole, so a granule check sees all of one before any of it is written;
     * the inner transport splits them as its wire needs (and counts each piece). */
    out->bulk = inner->bulk;
    out->max_block = 0;
    return NPK_OK;
}

npk_status kt_map_rebased(kt_transport *inner, uint64_t mag_base, uint64_t ctrl_window,
                          kt_transport *out)
{
    kt_map m = {inner, mag_base, 0, ctrl_window, 0, true};
    return map_new(inner, &m, "rebased", out);
}

npk_status kt_map_window(kt_transport *inner, uint64_t base, uint64_t size, unsigned granule,
                         kt_transport *out)
{
    if (!size)
        return npk_fail(NPK_EINVAL, "window at 0x%" PRIx64 ": size 0", base);
    if (granule & (granule - 1))
        return npk_fail(NPK_EINVAL, "window granule %u is not a power of two", granule);
    if (base + size - 1 < base)
        return npk_fail(NPK_ELIMIT,
                        "window of 0x%" PRIx64 " bytes at 0x%" PRIx64 " wraps the address space",
                        size, base);
    kt_map m = {inner, 0, size, base, granule, false};
    return map_new(inner, &m, granule > 8 ? "window(granule)" : "window", out);
}
