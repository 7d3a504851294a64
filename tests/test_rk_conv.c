/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* setenv */
/* npk_rk_conv2d on the simulator behind both kernel interfaces against the CPU reference
 * (straight loops in double): 1x1, kernel = input, stride > kernel, channels that are not a
 * multiple of the atom, depthwise (and a multiplier), groups, dilation, padding past the
 * registers' 15, output rows whose windows are all padding, bias with each clamp, an input past the CBUF (row bands), a channel count past
 * one band (input-channel slices), a width past the register (column tiles), several cores;
 * and bad input named with its limit.
 *
 * The operands are multiples of 1/8 (input) and 1/16 (weights) small enough that every fp32
 * sum is exact, so an unsliced result must equal the reference rounded once to fp16, bit for
 * bit; a sliced one carries one fp16 rounding per slice partial. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "npukit/rk_decode.h"
#include "rk/check/rk_reference_conv.h"
#include "rk/program/rk_op_synth.h"
#include "rk/program/rk_conv.h"
#include "rk/program/rk_pool.h"

static uint64_t seed = 11;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

static uint16_t *fill(size_t n, int span, float unit)
{
    uint16_t *v = malloc(n * 2 + 2);
    for (size_t i = 0; i < n; i++)
        v[i] = npk_f32_to_f16((float)((int)(rnd() % (2 * span + 1)) - span) * unit);
    return v;
}

/* Run a on rt, compare with the reference; sliced: the tolerance of the host-summed partials. */
static void run(npk_rk *rt, npk_rk_conv2d_args a, bool bias, bool sliced, npk_rk_stats *st_out)
{
    uint32_t oh = 0, ow = 0;
    CHECK_EQ(npk_rk_conv2d_shape(&a, &oh, &ow), NPK_OK);
    const uint32_t g = a.groups ? a.groups : 1;
    const size_t in_n = (size_t)a.n * a.c * a.h * a.w, out_n = (size_t)a.n * a.out_c * oh * ow;
    uint16_t *in = fill(in_n, 16, 1.0f / 8), *w = fill((size_t)a.out_c * (a.c / g) * a.k_h * a.k_w, 16, 1.0f / 16);
    float *b = NULL;
    if (bias) {
        b = malloc(a.out_c * sizeof *b);
        for (uint32_t i = 0; i < a.out_c; i++)
            b[i] = (float)((int)(rnd() % 65) - 32) / 8;
    }
    a.input = in;
    a.weights = w;
    a.bias = b;
    a.output = malloc(out_n * 2 + 2);
    double *ref = malloc(out_n * sizeof *ref);
    CHECK_EQ(npk_rk_reference_conv2d(&a, ref, NULL), NPK_OK);
    npk_rk_stats st;
    npk_status s = npk_rk_conv2d(rt, &a, &st);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "conv2d: %s\n", npk_last_error());
    double maxref = 0;
    for (size_t i = 0; i < out_n; i++)
        maxref = fmax(maxref, fabs(ref[i]));
    size_t bad = 0;
    for (size_t i = 0; s == NPK_OK && i < out_n; i++) {
        double got = npk_f16_to_f32(a.output[i]);
        bool ok = sliced ? fabs(got - ref[i]) <= 4e-3 * maxref + 1e-3
                         : npk_f32_to_f16((float)ref[i]) == a.output[i] ||
                               (got == 0 && ref[i] == 0);
        if (!ok && bad++ < 3)
            fprintf(stderr, "  [%zu] got %g want %g\n", i, got, ref[i]);
    }
    CHECK_EQ(bad, 0);
    if (st_out)
        *st_out = st;
    free(in), free(w), free(b), free(a.output), free(ref);
}

static npk_rk_conv2d_args shape(uint32_t c, uint32_t h, uint32_t w, uint32_t oc, uint32_t k, uint32_t s,
                                uint32_t pad)
{
    return (npk_rk_conv2d_args){.n = 1, .c = c, .h = h, .w = w, .out_c = oc, .k_h = k, .k_w = k,
                                .stride_h = s, .stride_w = s, .pad_top = pad, .pad_left = pad,
                                .pad_bottom = pad, .pad_right = pad};
}

static void test_shapes(const char *device)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open(device, &rt), NPK_OK);
    run(rt, shape(5, 6, 6, 7, 1, 1, 0), false, false, NULL);   /* 1x1 */
    run(rt, shape(3, 5, 5, 4, 5, 1, 0), true, false, NULL);    /* kernel = input */
    run(rt, shape(13, 9, 11, 17, 1, 3, 0), false, false, NULL); /* stride > kernel */
    run(rt, shape(6, 10, 9, 5, 2, 3, 1), true, false, NULL);    /* stride > kernel, padded */
    npk_rk_conv2d_args a = shape(37, 12, 10, 20, 3, 1, 1);      /* C past one atom, relu */
    a.act = NPK_RK_ACT_RELU;
    run(rt, a, true, false, NULL);
    a = shape(3, 16, 16, 8, 3, 2, 1); /* relu6, stride 2, MobileNet's stem shape */
    a.act = NPK_RK_ACT_CLIP;
    a.act_max = 1.5f;
    run(rt, a, true, false, NULL);
    a = shape(24, 9, 9, 24, 3, 1, 1); /* depthwise */
    a.groups = 24;
    run(rt, a, true, false, NULL);
    a = shape(8, 7, 7, 16, 3, 2, 1); /* depthwise, multiplier 2 */
    a.groups = 8;
    run(rt, a, true, false, NULL);
    a = shape(12, 6, 6, 10, 3, 1, 1); /* groups 2 */
    a.groups = 2;
    run(rt, a, false, false, NULL);
    a = shape(4, 11, 11, 3, 3, 1, 2); /* dilation 2 */
    a.dil_h = a.dil_w = 2;
    run(rt, a, true, false, NULL);
    a = shape(2, 4, 5, 3, 3, 1, 18); /* padding past the registers' 15 */
    run(rt, a, true, false, NULL);
    a = shape(3, 4, 4, 2, 3, 1, 1); /* batch 2, asymmetric padding */
    a.n = 2;
    a.pad_bottom = 0;
    a.pad_left = 2;
    run(rt, a, true, false, NULL);
    /* output rows whose windows lie wholly in the padding (a 1x1 input, kernel 1 and 2 rows of
     * padding above and below, stride 5: the one output row reads padding only; columns padded
     * by 5 each side): zeros plus the bias there, never a negative padding count */
    a = shape(1, 1, 1, 12, 1, 1, 5);
    a.n = 2;
    a.stride_h = 5;
    a.pad_top = a.pad_bottom = 2;
    run(rt, a, true, false, NULL);
    a = shape(2, 3, 1, 3, 1, 1, 0); /* the last output rows' windows wholly past the input */
    a.pad_bottom = 6;
    a.stride_h = 2;
    run(rt, a, false, false, NULL);
    npk_rk_close(rt);
}

/* Past one task: row bands (the input past the CBUF), input-channel slices, column tiles,
 * spread over three cores. */
static void test_tiling(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_stats st;
    run(rt, shape(32, 80, 80, 8, 3, 1, 1), true, false, &st); /* 400 KiB of input */
    CHECK(st.tasks > 1);
    run(rt, shape(2048, 3, 100, 4, 3, 1, 0), true, true, &st); /* one band past the CBUF */
    CHECK(st.tasks > 1);
    run(rt, shape(3, 2, 2500, 2, 1, 1, 0), false, false, &st); /* past DATAIN_WIDTH */
    CHECK(st.tasks > 1);
    CHECK_EQ(npk_rk_set_cores(rt, 3), NPK_OK);
    run(rt, shape(8, 400, 200, 4, 3, 1, 1), false, false, &st); /* 4 row bands */
    CHECK_EQ(st.cores_used, 3);
    CHECK(st.npu_span_ns < st.npu_ns);
    run(rt, shape(2048, 3, 100, 4, 3, 1, 0), true, true, &st); /* slices on three cores' threads */
    CHECK_EQ(st.cores_used, 3);
    npk_rk_close(rt);
}

static void test_bad_input(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    uint16_t buf[64] = {0};
    npk_rk_conv2d_args a = shape(2, 4, 4, 2, 3, 1, 0);
    a.input = a.weights = buf;
    a.output = buf;
    a.stride_w = 0;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "stride 1x0");
    a = shape(2, 4, 4, 2, 5, 1, 0);
    a.input = a.weights = buf;
    a.output = buf;
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "larger than the padded input 4x4");
    a = shape(4, 4, 4, 3, 1, 1, 0);
    a.groups = 2;
    CHECK_EQ(npk_rk_conv2d_shape(&a, NULL, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "groups 2 must divide");
    a = shape(4, 40, 40, 3, 3, 8, 0);
    CHECK_EQ(npk_rk_conv2d_shape(&a, NULL, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "exceeds 7");
    a = shape(4, 60, 60, 3, 11, 1, 0);
    a.dil_h = 4;
    CHECK_EQ(npk_rk_conv2d_shape(&a, NULL, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "exceeds 31");
    a = shape(4, 4, 4, 3, 1, 1, 0);
    a.act = NPK_RK_ACT_CLIP;
    a.act_max = -1;
    CHECK_EQ(npk_rk_conv2d_shape(&a, NULL, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "clip bound -1");
    a = shape(4, 4, 4, 3, 1, 1, 0);
    CHECK_EQ(npk_rk_conv2d(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL input");
    CHECK_EQ(npk_rk_conv2d(rt, NULL, NULL), NPK_EINVAL);
    npk_rk_close(rt);
}

/* The decoder names every register of a conv and a pooling body through the register table,
 * and their op-enables select their own rows (the conv by its mark on 0x1D). */
static uint32_t body_reg(const void *ctx, npk_rk_reg_id id)
{
    const npk_rk_entry *b = ctx;
    uint32_t v = 0;
    const npk_rk_reg *r = npk_rk_reg_info(id);
    for (unsigned i = 0; i < npk_rk_op_synth_of(NPK_RK_OP_CONV)->body; i++)
        if (npk_rk_entry_target(b[i]) == r->target && npk_rk_entry_reg(b[i]) == r->offset)
            v = npk_rk_entry_value(b[i]);
    return v;
}

static void test_decode(void)
{
    npk_rk_conv c = {.prec = NPK_PREC_FP16, .depthwise = true, .in_h = 9, .in_w = 9, .in_c = 24,
                     .out_h = 5, .out_w = 5, .out_c = 24, .k_h = 3, .k_w = 3, .stride_y = 2,
                     .stride_x = 2, .pad_top = 1, .pad_left = 1, .clamp = NPK_RK_CLAMP_RELUX,
                     .relux = 6, .in = 0x1000, .weights = 0x2000, .bias = 0x3000, .out = 0x4000};
    npk_rk_pool p = {.method = NPK_RK_POOL_AVG, .in_h = 8, .in_w = 8, .c = 16, .out_h = 4,
                     .out_w = 4, .k_h = 3, .k_w = 3, .stride_y = 2, .stride_x = 2, .pad_top = 1,
                     .pad_left = 1, .in = 0x1000, .out = 0x2000};
    npk_rk_entry cb[128], pb[128];
    CHECK_EQ(npk_rk_synth_conv(&c, cb), NPK_OK);
    CHECK_EQ(npk_rk_synth_pool(&p, pb), NPK_OK);
    const struct {
        const npk_rk_entry *b;
        npk_rk_op op;
    } bodies[] = {{cb, NPK_RK_OP_CONV}, {pb, NPK_RK_OP_POOL}};
    for (size_t k = 0; k < 2; k++) {
        const npk_rk_op_desc *d = npk_rk_op_desc_of(bodies[k].op);
        for (unsigned i = 0; i < npk_rk_op_synth_of(bodies[k].op)->body; i++) {
            char line[256];
            npk_rk_entry_describe(bodies[k].b[i], line, sizeof line);
            CHECK(strstr(line, "UNKNOWN") == NULL);
        }
        CHECK(npk_rk_op_select(d->enable, body_reg, bodies[k].b) == d);
    }
    /* a matmul's 0x1D (the BS stage bypassed) stays the matmul's */
    CHECK(npk_rk_op_by_enable(0x1D) == npk_rk_op_desc_of(NPK_RK_OP_MATMUL));
}

int main(void)
{
    test_decode();
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    test_shapes("sim");
    test_shapes("sim-rocket");
    test_tiling();
    test_bad_input();
    return check_done();
}
