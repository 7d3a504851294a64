/* SPDX-License-Identifier: MIT */
/* Work cut in two halves, the second on a thread of its own (see matmul.h). */
#include <pthread.h>

#include "rksim/matmul.h"

typedef struct half {
    rksim_range_fn *fn;
    void *ctx;
    uint32_t lo, hi;
} half;

static void *half_main(void *arg)
{
    half *h = arg;
    h->fn(h->ctx, h->lo, h->hi);
    return NULL;
}

void rksim_split2(rksim_range_fn *fn, void *ctx, uint32_t count, bool two)
{
    half second = {fn, ctx, count / 2, count};
    pthread_t th;
    if (!two || count < 2 || pthread_create(&th, NULL, half_main, &second)) {
        fn(ctx, 0, count); /* one thread does it all */
        return;
    }
    fn(ctx, 0, count / 2);
    pthread_join(th, NULL);
}
