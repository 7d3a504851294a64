/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* setenv */
/* `npukit rk bench`'s comparison of the rknn_matmul_* compatible layer with npk_rk_matmul: the
 * same shape and operands through both, calls interleaved, medians of the wall time per call. */
#include <stdlib.h>
#include <string.h>

#include "common/measure.h"
#include "npukit/rk.h"
#include "rk_bench_rknn.h"
#include "rknn_matmul_api.h"

static rknn_matmul_type type_of(npk_rk_prec in, npk_rk_prec out)
{
    if (in == NPK_PREC_FP16)
        return out == NPK_PREC_FP16 ? RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16
                                    : RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    return in == NPK_PREC_INT8 ? RKNN_INT8_MM_INT8_TO_INT32 : RKNN_INT4_MM_INT4_TO_INT16;
}

/* The user's elements into the rknn layout of the operand (int4: two a byte). */
static void copy_in(void *dst, const void *src, size_t count, npk_rk_prec p)
{
    if (p != NPK_PREC_INT4) {
        memcpy(dst, src, count * (p == NPK_PREC_FP16 ? 2 : 1));
        return;
    }
    uint8_t *d = dst;
    const int8_t *s = src;
    memset(d, 0, (count + 1) / 2);
    for (size_t i = 0; i < count; i++)
        d[i / 2] |= (uint8_t)((s[i] & 0xf) << (4 * (i & 1)));
}

bool rk_bench_rknn(npk_rk *rt, const npk_rk_weights *w, const rk_operands *o, const char *device,
                   int iters, int warm, double *rknn_ns, double *direct_ns, const char **why)
{
    unsigned nal = o->in == NPK_PREC_FP16 ? 16 : o->in == NPK_PREC_INT8 ? 32 : 64;
    if (o->k % 32 || o->n % nal || o->k > 10240 || o->m > INT32_MAX) {
        *why = "the shape is outside the documented API (K % 32, N alignment, K <= 10240)";
        return false;
    }
    if (device && strcmp(device, "auto"))
        setenv("NPUKIT_RK_DEVICE", device, 1); /* the layer opens the device "auto" names */
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = (int32_t)o->m, info.K = (int32_t)o->k, info.N = (int32_t)o->n;
    info.type = type_of(o->in, o->out);
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *mem[3] = {NULL, NULL, NULL};
    double *t_rknn = calloc((size_t)iters, sizeof *t_rknn);
    double *t_direct = calloc((size_t)iters, sizeof *t_direct);
    bool ok = t_rknn && t_direct && rknn_matmul_create(&ctx, &info, &io) == RKNN_SUCC;
    /* the same cores as rt */
    ok = ok && rknn_matmul_set_core_mask(ctx, (rknn_core_mask)npk_rk_core_mask(rt)) == RKNN_SUCC;
    const rknn_matmul_tensor_attr *attr[3] = {&io.A, &io.B, &io.C};
    for (int i = 0; ok && i < 3; i++)
        ok = (mem[i] = rknn_create_mem(ctx, attr[i]->size)) &&
             rknn_matmul_set_io_mem(ctx, mem[i], (rknn_matmul_tensor_attr *)attr[i]) == RKNN_SUCC;
    if (ok) {
        copy_in(mem[0]->virt_addr, o->a, (size_t)o->m * o->k, o->in);
        copy_in(mem[1]->virt_addr, o->b, (size_t)o->k * o->n, o->in);
    }
    for (int i = -warm; ok && i < iters; i++) {
        uint64_t t0 = npk_now_ns();
        ok = rknn_matmul_run(ctx) == RKNN_SUCC;
        uint64_t t1 = npk_now_ns();
        ok = ok && npk_rk_matmul(rt, w, o->m, o->a, o->out, o->c, NULL) == NPK_OK;
        uint64_t t2 = npk_now_ns();
        if (i >= 0) {
            t_rknn[i] = (double)(t1 - t0);
            t_direct[i] = (double)(t2 - t1);
        }
    }
    if (ok) {
        *rknn_ns = npk_median(t_rknn, (size_t)iters);
        *direct_ns = npk_median(t_direct, (size_t)iters);
    } else {
        *why = npk_last_error();
    }
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    if (ctx)
        rknn_matmul_destroy(ctx);
    free(t_rknn);
    free(t_direct);
    return ok;
}
