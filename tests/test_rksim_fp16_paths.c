/* SPDX-License-Identifier: MIT */
/* The fp16 matmul's fast paths give the simulator's numbers bit for bit:
 *   - the weights' decode (16 at a time where the CPU has AVX-512, the F16C or table path
 *     elsewhere) is npk_f16_to_f32 for every one of the 65536 encodings, a signalling NaN's
 *     payload included, on the vector and the forced portable paths;
 *   - a task large enough for the streamed GEMM's two threads, its many N chunks and the output
 *     write's two threads equals, bit for bit (fp32 output), or rounded once (fp16 output), the
 *     plain loop the simulator's fp16 GEMM is defined by (gemm_cols.c): per result one fp32
 *     fused multiply-add chain over k in order from +0. The reference is that loop written
 *     out, not a BLAS: a BLAS may split K and add the parts, which rounds differently, and no
 *     order is the hardware's own (facts I.1 gives fp32 accumulation, not its order). In line
 *     and cube mode, on every GEMM path the CPU has, with operands whose sums round and
 *     weights holding an Inf and a NaN. */
#include "rksim_testlib.h"

#include "common/dense.h"
#include "rksim/elements.h"
#include "rksim/matmul.h"

/* rksim_load_runs of every encoding, as runs of 32 and 48 at an odd byte stride apart */
static void check_decode(void)
{
    enum { COUNT = 65536 };
    uint8_t *src = malloc(2 * COUNT);
    /* the shortest runs (16) leave the most gaps */
    float *got = malloc(sizeof(float) * (COUNT + COUNT / 16)), *want = malloc(sizeof(float) * COUNT);
    if (!src || !got || !want) {
        CHECK(!"out of memory");
        free(src), free(got), free(want);
        return;
    }
    for (uint32_t i = 0; i < COUNT; i++) {
        src[2 * i] = (uint8_t)i;
        src[2 * i + 1] = (uint8_t)(i >> 8);
        want[i] = npk_f16_to_f32((uint16_t)i);
    }
    const size_t runs[] = {32, 48, 16};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        const size_t run = runs[r], count = COUNT / run, stride = run + 1;
        rksim_load_runs(NPK_PREC_FP16, src, run, count, got, stride);
        size_t bad = 0;
        for (size_t j = 0; j < count; j++)
            bad += memcmp(got + j * stride, want + j * run, run * sizeof(float)) != 0;
        if (bad)
            fprintf(stderr, "fp16 runs of %zu: %zu runs differ from npk_f16_to_f32\n", run, bad);
        CHECK_EQ(bad, 0);
    }
    free(src), free(got), free(want);
}

/* fp16 operands in [-1, 1) at a 2^-10 step: products exact, sums that round */
static void fill_rounding(uint16_t *v, size_t count)
{
    for (size_t i = 0; i < count; i++)
        v[i] = npk_f32_to_f16((float)((int)(tl_rand() % 2048) - 1024) / 1024.0f);
}

static void check_task(int mode, npk_rk_prec out)
{
    /* products 128*4096*32 = 2^24 (two threads from 2^22), 256 N tiles in chunks of at most
     * 32, an fp32 output of 2 MiB (two writing threads from 2 MiB) */
    const uint32_t M = 128, K = 32, N = 4096;
    npk_rk_device *d = tl_open(0);
    uint16_t *a = malloc(sizeof *a * M * K), *b = malloc(sizeof *b * K * N);
    float *af = malloc(sizeof *af * M * K), *bt = malloc(sizeof *bt * N * K);
    float *ref = malloc(sizeof *ref * M * N);
    void *c = calloc((size_t)M * N, 4);
    if (!d || !a || !b || !af || !bt || !ref || !c) {
        CHECK(!"out of memory");
        goto done;
    }
    fill_rounding(a, (size_t)M * K);
    fill_rounding(b, (size_t)K * N);
    b[5 * N + 77] = 0x7c00;   /* +Inf */
    b[9 * N + 4000] = 0x7e01; /* a quiet NaN */
    for (size_t i = 0; i < (size_t)M * K; i++)
        af[i] = npk_f16_to_f32(a[i]);
    for (size_t k = 0; k < K; k++)
        for (size_t n = 0; n < N; n++)
            bt[n * K + k] = npk_f16_to_f32(b[k * N + n]);
    for (size_t m = 0; m < M; m++)
        for (size_t n = 0; n < N; n++) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; k++)
                acc = fmaf(af[m * K + k], bt[n * K + k], acc);
            ref[m * N + n] = acc;
        }

    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, M, K, N);
    mm.out = out;
    mm.mode = mode;
    npk_rk_devtask tk;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    npk_status s = npk_rk_devtask_create(d, &mm, 0, &tk);
    CHECK_EQ(s, NPK_OK);
    if (s) {
        fprintf(stderr, "%s\n", npk_last_error());
        goto done;
    }
    CHECK_EQ(npk_rk_devtask_load(d, &tk, a, b), NPK_OK);
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_devtask_submit(d, &tk, 0, 6000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(d, &tk, c), NPK_OK);
    size_t bad = 0, nan = 0;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        if (out == NPK_PREC_FP32) {
            bad += memcmp((const float *)c + i, ref + i, 4) != 0;
            nan += ((const float *)c)[i] != ((const float *)c)[i];
        } else {
            uint16_t h = ((const uint16_t *)c)[i];
            bad += h != npk_f32_to_f16(ref[i]);
            nan += (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        }
    }
    if (bad)
        fprintf(stderr, "fp16->%s mode %d %ux%ux%u: %zu elements differ from the fma chain\n",
                npk_rk_prec_name(out), mode, M, K, N, bad);
    CHECK_EQ(bad, 0);
    CHECK(nan >= M); /* the NaN's column, in every row */
    npk_rk_devtask_destroy(d, &tk);
done:
    free(a), free(b), free(af), free(bt), free(ref), free(c);
    if (d)
        npk_rk_device_close(d);
}

int main(void)
{
    check_decode();
    check_task(NPK_MODE_LINE, NPK_PREC_FP32);
    check_task(NPK_MODE_CUBE, NPK_PREC_FP32);
    check_task(NPK_MODE_CUBE, NPK_PREC_FP16);
    rksim_gemm_cols_force(RKSIM_GEMM_COLS_AVX2);
    check_task(NPK_MODE_CUBE, NPK_PREC_FP32);
    rksim_gemm_cols_force(RKSIM_GEMM_COLS_AUTO);
    npk_dense_force_portable(true);
    check_decode();
    check_task(NPK_MODE_LINE, NPK_PREC_FP32);
    npk_dense_force_portable(false);
    return check_done();
}
