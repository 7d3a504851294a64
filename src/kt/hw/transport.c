/* SPDX-License-Identifier: MIT */
/* The transport contract's one spine: argument checks, word-loop fallbacks, counting, tracing. */
#include "npukit/kt_transport.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kt/hw/transport_trace.h"

void kt_transport_init(kt_transport *t, const char *name, const kt_transport_ops *ops, void *ctx)
{
    memset(t, 0, sizeof *t);
    t->ops = ops;
    t->ctx = ctx;
    t->name = name;
    t->bulk = false; /* a backend must claim its block path explicitly */
}

void kt_transport_close(kt_transport *t)
{
    if (t && t->ops && t->ops->close)
        t->ops->close(t->ctx);
    if (t)
        t->ops = NULL;
}

static npk_status check_open(const kt_transport *t)
{
    if (!t || !t->ops || !t->ops->read64 || !t->ops->write64)
        return npk_fail(NPK_EINVAL, "transport is not open (no read64/write64)");
    return NPK_OK;
}

static npk_status check_aligned(uint64_t addr)
{
    if (addr & 7)
        return npk_fail(NPK_EINVAL, "address 0x%" PRIx64 " is not 8-byte aligned", addr);
    return NPK_OK;
}

static npk_status check_block(uint64_t addr, size_t len)
{
    npk_status s = check_aligned(addr);
    if (s)
        return s;
    if (len == 0 || (len & 7))
        return npk_fail(NPK_EINVAL,
                        "block length %zu at 0x%" PRIx64 " is not a non-zero multiple of 8", len,
                        addr);
    return NPK_OK;
}

npk_status kt_read64(kt_transport *t, uint64_t addr, uint64_t *value)
{
    npk_status s;
    if ((s = check_open(t)) || (s = check_aligned(addr)))
        return s;
    kt_tx_mark m = kt_tx_begin(t);
    s = t->ops->read64(t->ctx, addr, value);
    kt_tx_end(t, m, false, addr, 8, s ? 0 : *value, s);
    t->count.reads++;
    if (s == NPK_OK) {
        t->count.bytes_read += 8;
        if (t->trace)
            t->trace(t->trace_user, false, addr, 8, *value);
    }
    return s;
}

npk_status kt_write64(kt_transport *t, uint64_t addr, uint64_t value)
{
    npk_status s;
    if ((s = check_open(t)) || (s = check_aligned(addr)))
        return s;
    kt_tx_mark m = kt_tx_begin(t);
    s = t->ops->write64(t->ctx, addr, value);
    kt_tx_end(t, m, true, addr, 8, value, s);
    t->count.writes++;
    if (s == NPK_OK) {
        t->count.bytes_written += 8;
        if (t->trace)
            t->trace(t->trace_user, true, addr, 8, value);
    }
    return s;
}

/* The length of the next call of a block at `at` with `left` bytes to go: all of it without a
 * limit, else up to the next multiple of max_block (rounded down to whole 32-byte flits when the
 * limit allows). The card's station bus packs a write into 32-byte flits and a pre-strobe window
 * zeroes the unsent words of every flit a piece touches, so a split inside one would erase what
 * the previous piece wrote there; reads split the same way, so both directions match. */
static size_t block_piece(const kt_transport *t, uint64_t at, size_t left)
{
    if (!t->max_block)
        return left;
    size_t chunk = t->max_block & ~(size_t)7;
    if (!chunk)
        chunk = 8;
    if (chunk >= 32)
        chunk &= ~(size_t)31;
    size_t n = chunk - (size_t)(at % chunk);
    return n < left ? n : left;
}

npk_status kt_read_block(kt_transport *t, uint64_t addr, void *buf, size_t len)
{
    npk_status s;
    if ((s = check_open(t)) || (s = check_block(addr, len)))
        return s;
    uint8_t *p = buf;
    if (!t->ops->read_block) { /* the contract's own definition of a block: ascending words */
        for (size_t off = 0; off < len; off += 8) {
            uint64_t v;
            if ((s = kt_read64(t, addr + off, &v)))
                return s;
            kt_put_le64(p + off, v);
        }
        return NPK_OK;
    }
    for (size_t off = 0, n; off < len; off += n) {
        n = block_piece(t, addr + off, len - off);
        kt_tx_mark m = kt_tx_begin(t);
        s = t->ops->read_block(t->ctx, addr + off, p + off, n);
        kt_tx_end(t, m, false, addr + off, n, s ? 0 : kt_le64(p + off), s);
        t->count.block_reads++;
        if (s)
            return s;
        t->count.bytes_read += n;
        if (t->trace)
            t->trace(t->trace_user, false, addr + off, n, kt_le64(p + off));
    }
    return NPK_OK;
}

npk_status kt_write_block(kt_transport *t, uint64_t addr, const void *buf, size_t len)
{
    npk_status s;
    if ((s = check_open(t)) || (s = check_block(addr, len)))
        return s;
    const uint8_t *p = buf;
    if (!t->ops->write_block) {
        for (size_t off = 0; off < len; off += 8)
            if ((s = kt_write64(t, addr + off, kt_le64(p + off))))
                return s;
        return NPK_OK;
    }
    for (size_t off = 0, n; off < len; off += n) {
        n = block_piece(t, addr + off, len - off);
        kt_tx_mark m = kt_tx_begin(t);
        s = t->ops->write_block(t->ctx, addr + off, p + off, n);
        kt_tx_end(t, m, true, addr + off, n, kt_le64(p + off), s);
        t->count.block_writes++;
        if (s)
            return s;
        t->count.bytes_written += n;
        if (t->trace)
            t->trace(t->trace_user, true, addr + off, n, kt_le64(p + off));
    }
    return NPK_OK;
}

void kt_counters_reset(kt_transport *t)
{
    memset(&t->count, 0, sizeof t->count);
    if (kt_trace_on())
        kt_trace_instant(t, "counters reset", NULL, 0);
}

size_t kt_counters_format(const kt_counters *c, char *buf, size_t len)
{
    int n = snprintf(buf, len,
                     "%" PRIu64 " transactions (%" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64
                     " block reads, %" PRIu64 " block writes), %" PRIu64 " B written, %" PRIu64
                     " B read",
                     kt_counters_transactions(c), c->reads, c->writes, c->block_reads,
                     c->block_writes, c->bytes_written, c->bytes_read);
    return n < 0 ? 0 : (size_t)n;
}
