/* SPDX-License-Identifier: MIT */
/* An in-memory transport: a sparse word store with a write log and a read hook. It lets tests
 * drive poll loops (a register that changes on the nth read) and check write sequences without
 * a simulator. */
#include <stdlib.h>
#include <string.h>

#include "npukit/kt_transport.h"

typedef struct memt_word {
    uint64_t addr, value, reads;
} memt_word;

struct kt_memt {
    memt_word *words;
    size_t n, cap;
    uint64_t *log_addr, *log_value;
    size_t log_n, log_cap;
    kt_memt_read_hook hook;
    void *hook_user;
};

static memt_word *find(kt_memt *m, uint64_t addr, bool create)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->words[i].addr == addr)
            return &m->words[i];
    if (!create)
        return NULL;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        memt_word *w = realloc(m->words, cap * sizeof *w);
        if (!w)
            return NULL;
        m->words = w;
        m->cap = cap;
    }
    m->words[m->n] = (memt_word){addr, 0, 0};
    return &m->words[m->n++];
}

static npk_status memt_read64(void *ctx, uint64_t addr, uint64_t *value)
{
    kt_memt *m = ctx;
    memt_word *w = find(m, addr, true);
    if (!w)
        return npk_fail(NPK_ENOMEM, "memory transport: no room for word 0x%llx",
                        (unsigned long long)addr);
    uint64_t nth = w->reads++;
    if (m->hook && m->hook(m->hook_user, addr, nth, value))
        return NPK_OK;
    *value = w->value;
    return NPK_OK;
}

static npk_status memt_write64(void *ctx, uint64_t addr, uint64_t value)
{
    kt_memt *m = ctx;
    memt_word *w = find(m, addr, true);
    if (!w)
        return npk_fail(NPK_ENOMEM, "memory transport: no room for word 0x%llx",
                        (unsigned long long)addr);
    w->value = value;
    if (m->log_n == m->log_cap) {
        size_t cap = m->log_cap ? m->log_cap * 2 : 64;
        uint64_t *a = realloc(m->log_addr, cap * sizeof *a);
        if (!a)
            return npk_fail(NPK_ENOMEM, "memory transport: write log full at %zu", m->log_n);
        m->log_addr = a;
        uint64_t *v = realloc(m->log_value, cap * sizeof *v);
        if (!v)
            return npk_fail(NPK_ENOMEM, "memory transport: write log full at %zu", m->log_n);
        m->log_value = v;
        m->log_cap = cap;
    }
    m->log_addr[m->log_n] = addr;
    m->log_value[m->log_n++] = value;
    return NPK_OK;
}

/* The block paths are literally the word loops, which is what the contract requires. */
static npk_status memt_read_block(void *ctx, uint64_t addr, void *buf, size_t len)
{
    for (size_t off = 0; off < len; off += 8) {
        uint64_t v;
        npk_status s = memt_read64(ctx, addr + off, &v);
        if (s)
            return s;
        kt_put_le64((uint8_t *)buf + off, v);
    }
    return NPK_OK;
}

static npk_status memt_write_block(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    for (size_t off = 0; off < len; off += 8) {
        npk_status s = memt_write64(ctx, addr + off, kt_le64((const uint8_t *)buf + off));
        if (s)
            return s;
    }
    return NPK_OK;
}

static void memt_close(void *ctx)
{
    kt_memt *m = ctx;
    free(m->words);
    free(m->log_addr);
    free(m->log_value);
    free(m);
}

static const kt_transport_ops memt_ops_word = {memt_read64, memt_write64, NULL, NULL, memt_close};
static const kt_transport_ops memt_ops_bulk = {memt_read64, memt_write64, memt_read_block,
                                               memt_write_block, memt_close};

npk_status kt_memt_create(kt_memt **out, bool bulk, kt_transport *t)
{
    kt_memt *m = calloc(1, sizeof *m);
    if (!m)
        return npk_fail(NPK_ENOMEM, "memory transport: out of memory");
    kt_transport_init(t, bulk ? "memory(bulk)" : "memory", bulk ? &memt_ops_bulk : &memt_ops_word,
                      m);
    t->bulk = bulk;
    *out = m;
    return NPK_OK;
}

void kt_memt_set_hook(kt_memt *m, kt_memt_read_hook hook, void *user)
{
    m->hook = hook;
    m->hook_user = user;
}

size_t kt_memt_writes(const kt_memt *m, const uint64_t **addrs, const uint64_t **values)
{
    if (addrs)
        *addrs = m->log_addr;
    if (values)
        *values = m->log_value;
    return m->log_n;
}

void kt_memt_clear_log(kt_memt *m) { m->log_n = 0; }
