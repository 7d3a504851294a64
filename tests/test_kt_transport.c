/* SPDX-License-Identifier: MIT */
/* The transport contract: block paths equal ascending word loops, counting, argument errors. */
#include <stdlib.h>

#include "check.h"
#include "npukit/kt_transport.h"

static void test_block_equivalence(void)
{
    kt_memt *word_m, *bulk_m;
    kt_transport word_t, bulk_t;
    CHECK_EQ(kt_memt_create(&word_m, false, &word_t), NPK_OK);
    CHECK_EQ(kt_memt_create(&bulk_m, true, &bulk_t), NPK_OK);
    CHECK(!word_t.bulk);
    CHECK(bulk_t.bulk);
    uint8_t buf[40];
    for (int i = 0; i < 40; i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    CHECK_EQ(kt_write_block(&word_t, 0x2000, buf, sizeof buf), NPK_OK);
    CHECK_EQ(kt_write_block(&bulk_t, 0x2000, buf, sizeof buf), NPK_OK);
    /* Both produce the same ascending sequence of little-endian words. */
    const uint64_t *wa, *wv, *ba, *bv;
    size_t wn = kt_memt_writes(word_m, &wa, &wv), bn = kt_memt_writes(bulk_m, &ba, &bv);
    CHECK_EQ(wn, 5);
    CHECK_EQ(bn, 5);
    for (size_t i = 0; i < 5 && i < wn && i < bn; i++) {
        CHECK_EQ(wa[i], 0x2000 + 8 * i);
        CHECK_EQ(wa[i], ba[i]);
        CHECK_EQ(wv[i], bv[i]);
        CHECK_EQ(wv[i], kt_le64(buf + 8 * i));
    }
    /* Counting: the fallback counts words, the bulk path one transaction. */
    CHECK_EQ(word_t.count.writes, 5);
    CHECK_EQ(word_t.count.block_writes, 0);
    CHECK_EQ(bulk_t.count.block_writes, 1);
    CHECK_EQ(bulk_t.count.bytes_written, 40);
    uint8_t back[40];
    CHECK_EQ(kt_read_block(&bulk_t, 0x2000, back, sizeof back), NPK_OK);
    CHECK(memcmp(back, buf, 40) == 0);
    CHECK_EQ(bulk_t.count.block_reads, 1);
    CHECK_EQ(kt_counters_transactions(&bulk_t.count), 2);
    char line[200];
    kt_counters_format(&bulk_t.count, line, sizeof line);
    CHECK_STR_HAS(line, "2 transactions");
    CHECK_STR_HAS(line, "40 B written");
    /* max_block splits a block into several calls without changing the bytes. */
    bulk_t.max_block = 16;
    kt_memt_clear_log(bulk_m);
    CHECK_EQ(kt_write_block(&bulk_t, 0x3000, buf, sizeof buf), NPK_OK);
    CHECK_EQ(bulk_t.count.block_writes, 1 + 3);
    CHECK_EQ(kt_memt_writes(bulk_m, NULL, NULL), 5);
    /* Reads split at the same aligned addresses: 8 bytes up to 0x3010, then 16, then 8. */
    uint8_t part[32] = {0};
    uint64_t before = bulk_t.count.block_reads;
    CHECK_EQ(kt_read_block(&bulk_t, 0x3008, part, sizeof part), NPK_OK);
    CHECK_EQ(bulk_t.count.block_reads - before, 3);
    CHECK_EQ(memcmp(part, buf + 8, 32), 0);
    kt_transport_close(&word_t);
    kt_transport_close(&bulk_t);
}

static void test_errors(void)
{
    kt_memt *m;
    kt_transport t;
    CHECK_EQ(kt_memt_create(&m, true, &t), NPK_OK);
    uint64_t v;
    CHECK_EQ(kt_read64(&t, 0x1004, &v), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "0x1004");
    uint8_t buf[12] = {0};
    CHECK_EQ(kt_write_block(&t, 0x1000, buf, 12), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "12");
    CHECK_EQ(kt_write_block(&t, 0x1000, buf, 0), NPK_EINVAL);
    kt_transport_close(&t);
    /* A closed transport is refused, not dereferenced. */
    CHECK_EQ(kt_write64(&t, 0, 0), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not open");
}

static bool hook(void *user, uint64_t addr, uint64_t nth, uint64_t *value)
{
    (void)user;
    if (addr != 0x58)
        return false;
    *value = nth < 3 ? 1 : 0; /* busy for three reads, then idle */
    return true;
}

static void test_read_hook(void)
{
    kt_memt *m;
    kt_transport t;
    CHECK_EQ(kt_memt_create(&m, false, &t), NPK_OK);
    kt_memt_set_hook(m, hook, NULL);
    uint64_t v = 9;
    int reads = 0;
    do {
        CHECK_EQ(kt_read64(&t, 0x58, &v), NPK_OK);
        reads++;
    } while (v && reads < 10);
    CHECK_EQ(reads, 4);
    CHECK_EQ(t.count.reads, 4);
    kt_counters_reset(&t);
    CHECK_EQ(t.count.reads, 0);
    kt_transport_close(&t);
}

int main(void)
{
    test_block_equivalence();
    test_errors();
    test_read_hook();
    return check_done();
}
