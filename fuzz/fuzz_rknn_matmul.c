/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the rknn_matmul_* entry points with whatever a caller might pass: any
 * shapes, types, layouts, quantisation and group sizes at create (most must be refused with an
 * error code), then, for a context that was made, operands filled from the input, memories bound
 * (sometimes too small, sometimes twice), quant parameters and a run on the simulator. Every call
 * must return a code, never crash or touch memory it does not own. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_matmul_api.h"

typedef struct feed {
    const uint8_t *d;
    size_t n, at;
} feed;

static uint32_t take(feed *f, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v = v << 8 | (f->at < f->n ? f->d[f->at++] : 0);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    feed f = {data, size, 0};
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    bool raw = take(&f, 1) & 1; /* raw: any 32-bit shape; else small shapes that may be valid */
    if (raw) {
        info.M = (int32_t)take(&f, 4);
        info.K = (int32_t)take(&f, 4);
        info.N = (int32_t)take(&f, 4);
    } else {
        info.M = (int32_t)(take(&f, 1) % 70);
        info.K = (int32_t)(32 * (take(&f, 1) % 5));
        info.N = (int32_t)(16 * (take(&f, 1) % 9));
    }
    info.type = (rknn_matmul_type)(take(&f, 1) % 13);
    info.B_layout = (int16_t)(take(&f, 1) % 4);
    info.B_quant_type = (int16_t)(take(&f, 1) % 4);
    info.AC_layout = (int16_t)(take(&f, 1) % 3);
    info.AC_quant_type = (int16_t)(take(&f, 1) % 2);
    info.group_size = (int16_t)(take(&f, 1) % 3 * 32);
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    if (rknn_matmul_create(&ctx, &info, &io) != RKNN_SUCC)
        return 0;
    rknn_matmul_tensor_attr *attr[3] = {&io.A, &io.B, &io.C};
    rknn_tensor_mem *mem[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        uint32_t want = attr[i]->size;
        uint32_t shrink = take(&f, 1) % 8 == 0 ? 8 : 0; /* now and then one too small */
        mem[i] = rknn_create_mem(ctx, want > shrink ? want - shrink : want);
        if (!mem[i])
            continue;
        for (uint32_t b = 0; b < mem[i]->size && i < 2; b++)
            ((uint8_t *)mem[i]->virt_addr)[b] = (uint8_t)take(&f, 1);
        rknn_matmul_set_io_mem(ctx, mem[i], attr[i]);
        if (take(&f, 1) % 16 == 0) /* bound again */
            rknn_matmul_set_io_mem(ctx, mem[i], attr[i]);
    }
    if (take(&f, 1) % 4 == 0) {
        float scale[4] = {1.0f, 0.5f, 2.0f, 0.0f};
        int32_t zp[4] = {0, 1, -1, 127};
        rknn_quant_params q;
        memset(&q, 0, sizeof q);
        strcpy(q.name, "B");
        q.scale = scale;
        q.scale_len = (int32_t)(take(&f, 1) % 5);
        q.zp = zp;
        q.zp_len = (int32_t)(take(&f, 1) % 5);
        rknn_matmul_set_quant_params(ctx, &q);
    }
    rknn_matmul_run(ctx);
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    rknn_matmul_destroy(ctx);
    return 0;
}
