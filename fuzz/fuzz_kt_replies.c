/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a misbehaving KohakuTPU device. Every register read and block read of the
 * control window answers with the next fuzz bytes (any CAPS, STATUS, mailbox flits, counts);
 * the driver opens the window, enumerates, stages and dispatches to whatever it found and waits.
 * It must refuse or time out with a message, never crash, hang or read out of bounds. */
#include <string.h>

#include "npukit/kt.h"

typedef struct feed {
    const uint8_t *data;
    size_t size, at;
    unsigned ops; /* bounds the work per input: a device that always says "busy" ends */
} feed;

static npk_status next(feed *f, void *out, size_t len)
{
    if (++f->ops > 20000)
        return npk_fail(NPK_ETIMEDOUT, "fuzz device: out of answers");
    memset(out, 0, len);
    for (size_t i = 0; i < len && f->size; i++)
        ((uint8_t *)out)[i] = f->data[f->at++ % f->size];
    return NPK_OK;
}

static npk_status rd(void *ctx, uint64_t addr, uint64_t *v) { (void)addr; return next(ctx, v, 8); }
static npk_status wr(void *ctx, uint64_t addr, uint64_t v)
{
    (void)addr, (void)v;
    feed *f = ctx;
    return ++f->ops > 20000 ? npk_fail(NPK_ETIMEDOUT, "fuzz device: out of answers") : NPK_OK;
}
static npk_status rdb(void *ctx, uint64_t addr, void *buf, size_t len) { (void)addr; return next(ctx, buf, len); }
static npk_status wrb(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    (void)addr, (void)buf, (void)len;
    return wr(ctx, 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const kt_transport_ops ops = {rd, wr, rdb, wrb, NULL};
    feed f = {data, size, 0, 0};
    kt_transport t;
    kt_transport_init(&t, "fuzz", &ops, &f);
    t.bulk = true;
    kt_options opt = {0};
    opt.reply_budget = 8;
    opt.stage_flits = 16;
    kt_dev d;
    if (kt_open(&d, &t, 0x10000000, &opt) != NPK_OK)
        return 0;
    kt_unit units[16];
    size_t n = 0;
    if (kt_enumerate(&d, units, 16, &n) != NPK_OK || !n)
        return 0;
    kt_flit prog[2];
    memset(prog, 0, sizeof prog);
    kt_ticket tk;
    if (kt_stage(&d, 0, prog, 2) == NPK_OK && kt_dispatch(&d, &units[0], 0, 2, 0, &tk) == NPK_OK)
        kt_wait(&d, &tk, NULL);
    return 0;
}
