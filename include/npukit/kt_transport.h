/* SPDX-License-Identifier: MIT */
/* KohakuTPU transport contract: how the driver reaches a machine.
 *
 * One small contract every backend implements — the simulator today; the card daemon's TCP
 * protocol, the Verilator line protocol and PCIe later:
 *   - read64 / write64 at 8-byte-aligned byte addresses (required);
 *   - read_block / write_block (optional). A read_block MUST be byte-equal to an ascending
 *     little-endian loop of read64; a write_block MUST leave what the memory behind it makes
 *     of one write of those bytes. In card DRAM every write replaces whole 32-byte granules
 *     (the bytes of a granule a write does not cover read back as zero), so a write_block of a
 *     whole granule keeps all four words where four write64 into it leave only the last: there
 *     a block write is not a word loop. When absent, the contract runs word loops itself;
 *   - `bulk`: true only when a real block path exists. It defaults to false, so a backend that
 *     forgets it is refused by operations that are only safe as whole blocks (staging) instead
 *     of silently corrupting them;
 *   - counters of transactions and bytes, kept here once for every backend.
 *
 * The driver calls only kt_read64 / kt_write64 / kt_read_block / kt_write_block; it never
 * learns what sits behind them.
 */
#ifndef NPUKIT_KT_TRANSPORT_H
#define NPUKIT_KT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "npukit/export.h"

#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kt_transport_ops {
    npk_status (*read64)(void *ctx, uint64_t addr, uint64_t *value);
    npk_status (*write64)(void *ctx, uint64_t addr, uint64_t value);
    /* Optional; len is a non-zero multiple of 8 and addr is 8-aligned (checked before the call). */
    npk_status (*read_block)(void *ctx, uint64_t addr, void *buf, size_t len);
    npk_status (*write_block)(void *ctx, uint64_t addr, const void *buf, size_t len);
    /* Optional: release the backend. */
    void (*close)(void *ctx);
} kt_transport_ops;

/* Counted once, here, for every backend. A transaction is one backend call: a block is one
 * transaction, a word-loop fallback counts each word. */
typedef struct kt_counters {
    uint64_t reads, writes;             /* single-word transactions */
    uint64_t block_reads, block_writes; /* block transactions */
    uint64_t bytes_read, bytes_written;
} kt_counters;

static inline uint64_t kt_counters_transactions(const kt_counters *c)
{
    return c->reads + c->writes + c->block_reads + c->block_writes;
}

/* What was counted between two snapshots of the same counters. */
static inline kt_counters kt_counters_diff(const kt_counters *now, const kt_counters *then)
{
    kt_counters d = {now->reads - then->reads,
                     now->writes - then->writes,
                     now->block_reads - then->block_reads,
                     now->block_writes - then->block_writes,
                     now->bytes_read - then->bytes_read,
                     now->bytes_written - then->bytes_written};
    return d;
}

/* Optional observer of every transaction (e.g. a CLI trace); called after it completes. */
typedef void (*kt_trace_fn)(void *user, bool write, uint64_t addr, size_t len, uint64_t first_word);

typedef struct kt_transport {
    const kt_transport_ops *ops;
    void *ctx;
    const char *name;
    bool bulk;        /* a real block path exists (default false) */
    size_t max_block; /* largest block in one call (0 = unlimited); larger writes are split at
                       * addresses aligned to it (rounded down to 32 bytes: the bus flit), never
                       * mid-flit */
    kt_counters count;
    kt_trace_fn trace;
    void *trace_user;
    /* NPUKIT_TRACE (the trace file): a simulated machine in this process gives its clock
     * (clock(clock_ctx) mesh cycles at clock_mhz) and its trace process, so the transactions
     * land on its simulated timeline; without a clock they are on the host's wall clock. The
     * driver sets trace_window to the control window's base + 1 so registers are named. */
    uint64_t (*clock)(const void *clock_ctx);
    const void *clock_ctx;
    unsigned clock_mhz;
    int trace_pid;
    int trace_tid; /* the transactions' track, made at the first traced transaction */
    uint64_t trace_window;
} kt_transport;

/* Fill a transport with ops and context; bulk defaults to false. */
NPUKIT_API void kt_transport_init(kt_transport *t, const char *name, const kt_transport_ops *ops,
                                  void *ctx);
NPUKIT_API void kt_transport_close(kt_transport *t);

NPUKIT_API npk_status kt_read64(kt_transport *t, uint64_t addr, uint64_t *value);
NPUKIT_API npk_status kt_write64(kt_transport *t, uint64_t addr, uint64_t value);
/* Blocks: addr 8-aligned, len a non-zero multiple of 8 (both checked, with the value named). */
NPUKIT_API npk_status kt_read_block(kt_transport *t, uint64_t addr, void *buf, size_t len);
NPUKIT_API npk_status kt_write_block(kt_transport *t, uint64_t addr, const void *buf, size_t len);

/* Zero the counters (a trace marks the moment with a "counters reset" instant). */
NPUKIT_API void kt_counters_reset(kt_transport *t);
/* "12 transactions (3 reads, 8 writes, 1 block write), 104 B written, 24 B read" */
NPUKIT_API size_t kt_counters_format(const kt_counters *c, char *buf, size_t len);

/* Little-endian word packing used by every block path (and by the simulator for every beat of
 * every flit): on a little-endian host one unaligned load or store, elsewhere byte by byte. */
static inline uint64_t kt_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
#endif
}
static inline void kt_put_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, sizeof v);
#else
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* ---- an in-memory transport, for tests of poll loops and of the contract itself ----
 * A sparse word store: reads of unwritten words return 0 unless an on_read hook answers. The
 * hook sees the address and how many times it has been read before, and may return false to
 * fall back to the store. */
typedef bool (*kt_memt_read_hook)(void *user, uint64_t addr, uint64_t nth, uint64_t *value);

typedef struct kt_memt kt_memt;
NPUKIT_API npk_status kt_memt_create(kt_memt **out, bool bulk, kt_transport *t);
NPUKIT_API void kt_memt_set_hook(kt_memt *m, kt_memt_read_hook hook, void *user);
/* The ordered log of writes (address, value), for checking sequences. */
NPUKIT_API size_t kt_memt_writes(const kt_memt *m, const uint64_t **addrs, const uint64_t **values);
NPUKIT_API void kt_memt_clear_log(kt_memt *m);

#ifdef __cplusplus
}
#endif
#endif
