/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* setenv */
/* int8 convolution (npk_rk_conv2d with dtype int8) on the simulator behind both kernel
 * interfaces against the CPU reference: the NPU's int32 accumulators must equal the exact sums
 * of the int8 products, and the host's requantisation the reference's, value for value. Full
 * int8 range operands at 1x1, kernel = input, stride > kernel, channels not a multiple of the
 * 16-channel int8 atom, depthwise, groups, dilation, padding, each clamp, an input past the
 * CBUF (row bands), input-channel slices (int32 partials summed on the host, on three cores'
 * threads), the largest
 * contraction the int32 accumulator takes with every product at its extreme; the task's
 * registers (int8 in, int32 out, SIZE_E 7); bad input named with its limit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/rk.h"
#include "npukit/rk_decode.h"
#include "npukit/rk_regs.h"
#include "rk/check/rk_reference_conv.h"
#include "rk/program/rk_op_synth.h"
#include "rk/program/rk_conv.h"
#include "rk/runtime/runtime_internal.h"

static uint64_t seed = 5;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

/* n int8 values: uniform over the full range, or all `fixed` when fixed != 0. */
static int8_t *fill(size_t n, int fixed)
{
    int8_t *v = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        v[i] = (int8_t)(fixed ? fixed : (int)(rnd() % 256) - 128);
    return v;
}

static npk_rk_conv2d_args shape(uint32_t c, uint32_t h, uint32_t w, uint32_t oc, uint32_t k,
                                uint32_t s, uint32_t pad)
{
    return (npk_rk_conv2d_args){.n = 1, .c = c, .h = h, .w = w, .out_c = oc, .k_h = k, .k_w = k,
                                .stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad,
                                .pad_bottom = pad, .pad_right = pad, .dtype = NPK_RK_CONV_INT8};
}

/* Run a on rt with random (or all-`fixed`) operands; the sums exact, the requantised values
 * equal to the reference's. */
static void run(npk_rk *rt, npk_rk_conv2d_args a, bool bias, int fixed, npk_rk_stats *st_out)
{
    uint32_t oh = 0, ow = 0;
    CHECK_EQ(npk_rk_conv2d_shape(&a, &oh, &ow), NPK_OK);
    const uint32_t g = a.groups ? a.groups : 1;
    const size_t in_n = (size_t)a.n * a.c * a.h * a.w, out_n = (size_t)a.n * a.out_c * oh * ow;
    int8_t *in = fill(in_n, fixed), *w = fill((size_t)a.out_c * (a.c / g) * a.k_h * a.k_w, fixed);
    float *scales = malloc(a.out_c * sizeof *scales), *b = NULL;
    for (uint32_t i = 0; i < a.out_c; i++)
        scales[i] = (float)(1 + rnd() % 64) / 4096;
    if (bias) {
        b = malloc(a.out_c * sizeof *b);
        for (uint32_t i = 0; i < a.out_c; i++)
            b[i] = (float)((int)(rnd() % 65) - 32) / 8;
    }
    a.input_i8 = in;
    a.weights_i8 = w;
    a.w_scales = scales;
    a.bias = b;
    a.in_scale = 0.05f;
    a.out_scale = 0.5f;
    a.acc = malloc(out_n * sizeof *a.acc);
    a.output_i8 = malloc(out_n + 1);
    double *sum = malloc(out_n * sizeof *sum);
    int8_t *q = malloc(out_n + 1);
    CHECK_EQ(npk_rk_reference_conv2d_int8(&a, sum, q), NPK_OK);
    npk_rk_stats st;
    npk_status s = npk_rk_conv2d(rt, &a, &st);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "conv2d: %s\n", npk_last_error());
    size_t bad = 0, saturated = 0;
    for (size_t i = 0; s == NPK_OK && i < out_n; i++) {
        const bool ok = (double)a.acc[i] == sum[i] && a.output_i8[i] == q[i];
        saturated += q[i] == 127 || q[i] == -128;
        if (!ok && bad++ < 3)
            fprintf(stderr, "  [%zu] acc %d want %.0f, q %d want %d\n", i, a.acc[i], sum[i],
                    a.output_i8[i], q[i]);
    }
    CHECK_EQ(bad, 0);
    CHECK(saturated < out_n || fixed); /* the requantisation is not all saturation */
    /* the requantisation is host work: one step per output plane */
    CHECK_EQ(st.host_steps, (uint32_t)(a.n * a.out_c));
    if (st_out)
        *st_out = st;
    free(in), free(w), free(scales), free(b), free(a.acc), free(a.output_i8), free(sum), free(q);
}

static void test_shapes(const char *device)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open(device, &rt), NPK_OK);
    run(rt, shape(5, 6, 6, 7, 1, 1, 0), false, 0, NULL);    /* 1x1 */
    run(rt, shape(3, 5, 5, 4, 5, 1, 0), true, 0, NULL);     /* kernel = input */
    run(rt, shape(13, 9, 11, 17, 1, 3, 0), false, 0, NULL); /* stride > kernel */
    npk_rk_conv2d_args a = shape(20, 7, 8, 33, 3, 1, 1);    /* C, Cout past one atom, relu */
    a.act = NPK_RK_ACT_RELU;
    run(rt, a, true, 0, NULL);
    a = shape(3, 16, 16, 8, 3, 2, 1); /* relu6-like clip, stride 2 */
    a.act = NPK_RK_ACT_CLIP;
    a.act_max = 20.0f;
    run(rt, a, true, 0, NULL);
    a = shape(24, 9, 9, 24, 3, 1, 1); /* depthwise */
    a.groups = 24;
    run(rt, a, true, 0, NULL);
    a = shape(12, 6, 6, 10, 3, 1, 1); /* groups 2 */
    a.groups = 2;
    run(rt, a, false, 0, NULL);
    a = shape(4, 11, 11, 3, 3, 1, 2); /* dilation 2, batch 2 */
    a.dil_h = a.dil_w = 2;
    a.n = 2;
    run(rt, a, true, 0, NULL);
    npk_rk_close(rt);
}

/* Past one task, and the accumulator's extreme. */
static void test_tiling(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_stats st;
    run(rt, shape(64, 80, 80, 8, 3, 1, 1), true, 0, &st); /* 400 KiB of int8 input: row bands */
    CHECK(st.tasks > 1);
    run(rt, shape(4096, 3, 60, 4, 3, 1, 0), false, 0, &st); /* one band past the CBUF: slices */
    CHECK(st.tasks > 1);
    /* 131067 products of (-128)(-128) = 2147467264, 16384 short of int32's end */
    run(rt, shape(14563, 3, 3, 2, 3, 1, 0), false, -128, &st);
    /* three cores: each core's tiles on its own thread (the caller's and two persistent
     * workers), the slices' int32 sums in per-core buffers added afterwards */
    CHECK_EQ(npk_rk_set_cores(rt, 3), NPK_OK);
    npk_rk_conv2d_args a = shape(4096, 5, 60, 4, 3, 1, 0);
    a.n = 2;
    run(rt, a, true, 0, &st);
    CHECK_EQ(st.cores_used, 3);
    CHECK(st.npu_span_ns < st.npu_ns);
    CHECK_EQ(npk_rk_workers_started(rt->workers), 2);
    npk_rk_close(rt);
}

/* The task's registers: int8 through the CNA, CORE and DPU, the int32 accumulator out with the
 * matmul's int32 write-out (SIZE_E 7), eight int32 output surfaces per 32-channel kernel group,
 * 64 weight kernels' bytes for 40 outputs; every
 * register named. A clamp on the int32 accumulator is refused. */
static uint32_t reg_of(const npk_rk_entry *body, npk_rk_reg_id id)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    uint32_t v = 0xDEADBEEFu;
    for (unsigned i = 0; i < npk_rk_op_synth_of(NPK_RK_OP_CONV)->body; i++)
        if (npk_rk_entry_target(body[i]) == r->target && npk_rk_entry_reg(body[i]) == r->offset)
            v = npk_rk_entry_value(body[i]);
    return v;
}

static void test_registers(void)
{
    npk_rk_conv c = {.prec = NPK_PREC_INT8, .in_h = 6, .in_w = 5, .in_c = 20, .out_h = 4,
                     .out_w = 3, .out_c = 40, .k_h = 3, .k_w = 3, .stride_y = 1, .stride_x = 1,
                     .in = 0x1000, .weights = 0x2000, .bias = 0x3000, .out = 0x4000};
    npk_rk_entry body[128];
    CHECK_EQ(npk_rk_synth_conv(&c, body), NPK_OK);
    const uint32_t fmt = reg_of(body, NPK_REG_DPU_DATA_FORMAT);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_DATA_FORMAT, OUT_PRECISION), fmt), NPK_PREC_INT32);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_DATA_FORMAT, IN_PRECISION), fmt), NPK_PREC_INT8);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CONV_CON1, IN_PRECISION),
                              reg_of(body, NPK_REG_CNA_CONV_CON1)), NPK_PREC_INT8);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_BS_OW_CFG, SIZE_E_0), reg_of(body, NPK_REG_DPU_BS_OW_CFG)),
             7);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_OUT_CVT_SCALE, FP32TOFP16_EN),
                              reg_of(body, NPK_REG_DPU_OUT_CVT_SCALE)), 0);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_SURFACE_ADD, SURF_ADD),
                              reg_of(body, NPK_REG_DPU_SURFACE_ADD)), 8u * 4 * 3);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_DATA_SIZE1, DATAIN_CHANNEL),
                              reg_of(body, NPK_REG_CNA_DATA_SIZE1)), 32);
    CHECK_EQ(reg_of(body, NPK_REG_CNA_WEIGHT_SIZE1), 9u * 32);
    CHECK_EQ(reg_of(body, NPK_REG_CNA_WEIGHT_SIZE0), 9u * 32 * 64);
    for (unsigned i = 0; i < npk_rk_op_synth_of(NPK_RK_OP_CONV)->body; i++) {
        char line[256];
        npk_rk_entry_describe(body[i], line, sizeof line);
        CHECK(strstr(line, "UNKNOWN") == NULL);
    }
    c.clamp = NPK_RK_CLAMP_RELU;
    CHECK_EQ(npk_rk_synth_conv(&c, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "int32 accumulator");
    c.clamp = NPK_RK_CLAMP_NONE;
    c.prec = NPK_PREC_INT16;
    CHECK_EQ(npk_rk_synth_conv(&c, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp16 or int8");
    c.prec = NPK_PREC_INT8;
    c.in_c = 16384, c.k_h = c.k_w = 3, c.in_h = c.in_w = 3, c.out_h = c.out_w = 1;
    CHECK_EQ(npk_rk_synth_conv(&c, body), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "131071");
}

static void test_bad_input(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t buf[256] = {0};
    int32_t acc[256];
    float scales[4] = {1, 1, 1, 1};
    npk_rk_conv2d_args a = shape(2, 4, 4, 2, 3, 1, 0);
    a.input_i8 = buf, a.weights_i8 = buf, a.w_scales = scales, a.in_scale = 1, a.acc = acc;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_OK);
    a.w_scales = NULL;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "w_scales");
    a.w_scales = scales;
    scales[1] = 0;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "w_scales[1]");
    scales[1] = 1;
    a.in_scale = NAN;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "in_scale");
    a.in_scale = 1;
    a.output_i8 = buf; /* with out_scale 0 */
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "out_scale");
    a.output_i8 = NULL, a.acc = NULL;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "neither acc nor output_i8");
    a.acc = acc;
    a.dtype = (npk_rk_conv_dtype)7;
    CHECK_EQ(npk_rk_conv2d_shape(&a, NULL, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "dtype 7");
    a = shape(14564, 3, 3, 1, 3, 1, 0); /* one product past the accumulator's bound */
    CHECK_EQ(npk_rk_conv2d_shape(&a, NULL, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "131076 past 131071");
    npk_rk_close(rt);
}

int main(void)
{
    test_registers();
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    test_shapes("sim");
    test_shapes("sim-rocket");
    test_tiling();
    test_bad_input();
    return check_done();
}
