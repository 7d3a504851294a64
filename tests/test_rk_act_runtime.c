/* SPDX-License-Identifier: MIT */
/* The runtime's activations, softmax and norms on the faithful simulator, each against its
 * function in double precision: every activation at edge shapes (one element, channels that are
 * not a multiple of the atom, past the SDP's 8192-channel limit: tiled), chained jobs, relu in
 * every SDP precision, softmax rows with their bound, the norms' named host fallback, and bad
 * input naming the value and the limit. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"

static uint64_t seed = 11;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

/* fp16 values over [-span, span], every 5th four times wider. */
static uint16_t *make(size_t count, double span)
{
    uint16_t *v = malloc(count * 2 + 2);
    for (size_t i = 0; i < count; i++) {
        double x = ((double)(rnd() % 20001) / 10000.0 - 1.0) * span * (i % 5 == 2 ? 4 : 1);
        v[i] = npk_f32_to_f16((float)x);
    }
    return v;
}

static double h2d(uint16_t h) { return npk_f16_to_f32(h); }

/* Every LUT activation within its bound (rk.h) at these shapes, relu exact. */
static void activations(npk_rk *rt)
{
    static const uint32_t shapes[][2] = {{1, 1}, {3, 5}, {17, 33}, {2, 8195}};
    for (int a = 0; a < NPK_ACT_COUNT; a++) {
        const npk_rk_act_row *row = npk_rk_act_row_of((npk_rk_act_kind)a);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            uint32_t m = shapes[s][0], n = shapes[s][1];
            size_t count = (size_t)m * n;
            uint16_t *x = make(count, 8), *y = calloc(count, 2);
            if (a == NPK_ACT_EXP)
                for (size_t i = 0; i < count; i++)
                    x[i] |= 0x8000;
            npk_rk_act_args args = {.act = (npk_rk_act_kind)a,
                                    .prec = NPK_PREC_FP16,
                                    .m = m,
                                    .n = n,
                                    .x = x,
                                    .y = y};
            npk_rk_stats st;
            CHECK_EQ(npk_rk_act(rt, &args, &st), NPK_OK);
            CHECK(st.sdp_tasks >= 1);
            CHECK_EQ(st.host_steps, 0);
            size_t bad = 0;
            for (size_t i = 0; i < count; i++) {
                double ref = row->ref(h2d(x[i]), row->alpha, row->beta);
                double tol = row->engine == NPK_ACT_ENGINE_CLAMP
                                 ? 0
                                 : ldexp(fabs(ref), -11) + ldexp(1.0, -row->out_exp);
                bad += !(fabs(h2d(y[i]) - ref) <= tol);
            }
            if (bad)
                fprintf(stderr, "%s %ux%u: %zu outside the bound\n", row->name, m, n, bad);
            CHECK_EQ(bad, 0);
            free(x);
            free(y);
        }
    }
}

/* relu in int16 and int8, in place. */
static void relu_integers(npk_rk *rt)
{
    int16_t v16[37];
    int8_t v8[37];
    for (int i = 0; i < 37; i++) {
        v16[i] = (int16_t)(rnd() >> 8);
        v8[i] = (int8_t)(rnd() >> 8);
    }
    int16_t r16[37];
    int8_t r8[37];
    memcpy(r16, v16, sizeof r16);
    memcpy(r8, v8, sizeof r8);
    npk_rk_act_args a = {.act = NPK_ACT_RELU, .prec = NPK_PREC_INT16, .m = 1, .n = 37, .x = v16,
                         .y = v16};
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_OK);
    a.prec = NPK_PREC_INT8;
    a.x = a.y = v8;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_OK);
    size_t bad = 0;
    for (int i = 0; i < 37; i++)
        bad += v16[i] != (r16[i] < 0 ? 0 : r16[i]) || v8[i] != (r8[i] < 0 ? 0 : r8[i]);
    CHECK_EQ(bad, 0);
}

/* Chained: several LUT tasks per submit give the same result as one per submit. */
static void chained(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    const uint32_t m = 3, n = 300000; /* 900000 elements: 4 tiles */
    uint16_t *x = make((size_t)m * n, 6), *y = calloc((size_t)m * n, 2);
    npk_rk_act_args a = {.act = NPK_ACT_TANH, .prec = NPK_PREC_FP16, .m = m, .n = n, .x = x,
                         .y = y};
    npk_rk_stats st;
    CHECK_EQ(npk_rk_act(rt, &a, &st), NPK_OK);
    CHECK_EQ(st.sdp_tasks, 4);
    CHECK(st.submits < st.sdp_tasks);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)m * n; i++)
        bad += !(fabs(h2d(y[i]) - tanh(h2d(x[i]))) <= ldexp(fabs(tanh(h2d(x[i]))), -11) + 1e-4);
    CHECK_EQ(bad, 0);
    free(x);
    free(y);
    npk_rk_close(rt);
}

static void softmax(npk_rk *rt)
{
    static const uint32_t shapes[][2] = {{1, 1}, {4, 7}, {3, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t m = shapes[s][0], n = shapes[s][1];
        uint16_t *x = make((size_t)m * n, 10), *y = calloc((size_t)m * n, 2);
        npk_rk_stats st;
        CHECK_EQ(npk_rk_softmax(rt, NPK_PREC_FP16, m, n, x, y, &st), NPK_OK);
        CHECK_EQ(st.host_steps, 2 * m);
        size_t bad = 0;
        for (uint32_t r = 0; r < m; r++) {
            double mx = -INFINITY, sum = 0;
            for (uint32_t j = 0; j < n; j++)
                mx = fmax(mx, h2d(x[r * n + j]));
            for (uint32_t j = 0; j < n; j++)
                sum += exp(h2d(x[r * n + j]) - mx);
            for (uint32_t j = 0; j < n; j++) {
                double ref = exp(h2d(x[r * n + j]) - mx) / sum;
                bad += !(fabs(h2d(y[r * n + j]) - ref) <= ldexp(ref, -10) + ldexp(1.0, -13));
            }
        }
        if (bad)
            fprintf(stderr, "softmax %ux%u: %zu outside the bound\n", m, n, bad);
        CHECK_EQ(bad, 0);
        free(x);
        free(y);
    }
}

static void norms(npk_rk *rt)
{
    const uint32_t m = 3, n = 37;
    uint16_t *x = make((size_t)m * n, 3), *y = calloc((size_t)m * n, 2), *g = make(n, 2),
             *b = make(n, 1);
    for (int kind = 0; kind < 2; kind++) {
        npk_rk_norm_args a = {.kind = (npk_rk_norm_kind)kind, .prec = NPK_PREC_FP16, .m = m,
                              .n = n, .x = x, .y = y, .gamma = g, .beta = b, .eps = 1e-5f};
        npk_rk_stats st;
        CHECK_EQ(npk_rk_norm(rt, &a, &st), NPK_OK);
        CHECK_EQ(st.host_steps, m);
        size_t bad = 0;
        for (uint32_t r = 0; r < m; r++) {
            double mean = 0, var = 0;
            for (uint32_t j = 0; j < n; j++)
                mean += h2d(x[r * n + j]) / n;
            double c = kind == NPK_NORM_LAYER ? mean : 0;
            for (uint32_t j = 0; j < n; j++)
                var += (h2d(x[r * n + j]) - c) * (h2d(x[r * n + j]) - c) / n;
            for (uint32_t j = 0; j < n; j++) {
                double ref = (h2d(x[r * n + j]) - c) / sqrt(var + 1e-5) * h2d(g[j]) + h2d(b[j]);
                bad += !(fabs(h2d(y[r * n + j]) - ref) <= ldexp(fabs(ref), -11) + 1e-6);
            }
        }
        CHECK_EQ(bad, 0);
    }
    free(x);
    free(y);
    free(g);
    free(b);
}

static void bad_input(npk_rk *rt)
{
    uint16_t x[8] = {0}, y[8];
    npk_rk_act_args a = {.act = NPK_ACT_SIGMOID, .prec = NPK_PREC_INT8, .m = 1, .n = 8, .x = x,
                         .y = y};
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp16 only");
    a.prec = NPK_PREC_FP16;
    a.act = NPK_ACT_COUNT;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not one of sigmoid|tanh");
    a.act = NPK_ACT_RELU;
    a.prec = NPK_PREC_FP32;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp16, int16 or int8");
    a.prec = NPK_PREC_FP16;
    a.m = 0;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "M=0");
    a.m = NPK_RK_EW_MAX_DIM + 1;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "exceeds 16777216");
    a.m = 1;
    a.x = NULL;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL X");
    a.x = x;
    a.act = NPK_ACT_HARDSIGMOID;
    a.alpha = NAN;
    CHECK_EQ(npk_rk_act(rt, &a, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "finite");
    CHECK_EQ(npk_rk_act(NULL, &a, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_softmax(rt, NPK_PREC_INT8, 1, 8, x, y, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "softmax");
    CHECK_EQ(npk_rk_softmax(rt, NPK_PREC_FP16, 1, 0, x, y, NULL), NPK_EINVAL);
    npk_rk_norm_args n = {.kind = (npk_rk_norm_kind)7, .prec = NPK_PREC_FP16, .m = 1, .n = 8,
                          .x = x, .y = y};
    CHECK_EQ(npk_rk_norm(rt, &n, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "kind 7");
    n.kind = NPK_NORM_RMS;
    n.eps = -1;
    CHECK_EQ(npk_rk_norm(rt, &n, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "eps=-1");
}

/* C = f(A.B + bias): fused (matmul, bias, LUT chained in one submit) equals split bit for bit,
 * and both are within the activation's bound of the double-precision value plus the fp16
 * roundings of the matmul and bias results it reads. */
static void matmul_act(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 3), NPK_OK);
    const uint32_t m = 5, k = 64, n = 40;
    uint16_t *a = make((size_t)m * k, 0.5), *b = make((size_t)k * n, 0.5), *bias = make(n, 2);
    uint16_t *c1 = calloc((size_t)m * n, 2), *c2 = calloc((size_t)m * n, 2);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    npk_rk_matmul_act_args x = {.w = w, .m = m, .a = a, .c = c1, .bias = bias,
                                .act = NPK_ACT_GELU};
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul_act(rt, &x, &st), NPK_OK);
    CHECK(st.fused_jobs >= 1);
    CHECK_EQ(st.sdp_tasks, 2 * st.fused_jobs);
    x.c = c2;
    x.no_fuse = true;
    CHECK_EQ(npk_rk_matmul_act(rt, &x, &st), NPK_OK);
    CHECK_EQ(st.fused_jobs, 0);
    CHECK(memcmp(c1, c2, (size_t)m * n * 2) == 0);
    const npk_rk_act_row *row = npk_rk_act_row_of(NPK_ACT_GELU);
    size_t bad = 0;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            double z = h2d(bias[j]), mag = fabs(z);
            for (uint32_t q = 0; q < k; q++) {
                z += h2d(a[i * k + q]) * h2d(b[q * n + j]);
                mag += fabs(h2d(a[i * k + q]) * h2d(b[q * n + j]));
            }
            double ref = row->ref(z, 0, 0);
            double tol = ldexp(fabs(ref), -11) + ldexp(1.0, -row->out_exp) + 1.2 * ldexp(mag, -9);
            bad += !(fabs(h2d(c1[i * n + j]) - ref) <= tol);
        }
    CHECK_EQ(bad, 0);
    /* relu without bias: the clamp chained the same way */
    x = (npk_rk_matmul_act_args){.w = w, .m = m, .a = a, .c = c1, .act = NPK_ACT_RELU};
    CHECK_EQ(npk_rk_matmul_act(rt, &x, &st), NPK_OK);
    CHECK(st.fused_jobs >= 1);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_FP16, c2, NULL), NPK_OK);
    bad = 0;
    for (size_t i = 0; i < (size_t)m * n; i++)
        bad += c1[i] != (h2d(c2[i]) < 0 ? 0 : c2[i]);
    CHECK_EQ(bad, 0);
    /* relu6: the BS ReLU with RELUX at 6, chained the same way; a wider A puts some of A.B
     * above 6 */
    uint16_t *a6 = make((size_t)m * k, 4);
    x.a = a6;
    x.act = NPK_ACT_RELU6;
    CHECK_EQ(npk_rk_matmul_act(rt, &x, &st), NPK_OK);
    CHECK(st.fused_jobs >= 1);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a6, NPK_PREC_FP16, c2, NULL), NPK_OK);
    bad = 0;
    size_t above = 0;
    for (size_t i = 0; i < (size_t)m * n; i++) {
        double z = h2d(c2[i]);
        above += z > 6;
        bad += h2d(c1[i]) != (z < 0 ? 0 : z > 6 ? 6 : z);
    }
    CHECK(above > 0);
    CHECK_EQ(bad, 0);
    free(a6);
    /* bad input */
    x.act = NPK_ACT_COUNT;
    CHECK_EQ(npk_rk_matmul_act(rt, &x, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not one of");
    CHECK_EQ(npk_rk_matmul_act(rt, NULL, NULL), NPK_EINVAL);
    npk_rk_weights_free(rt, w);
    free(a), free(b), free(bias), free(c1), free(c2);
    npk_rk_close(rt);
}

/* The rocket kernel runs SDP tasks too: it programs INTERRUPT_MASK DPU_0|DPU_1 for every task
 * (facts A.2) and an SDP task ends on the DPU interrupt, so the same checks hold there. */
static void rocket(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    activations(rt);
    relu_integers(rt);
    softmax(rt);
    npk_rk_close(rt);
}

int main(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    activations(rt);
    relu_integers(rt);
    softmax(rt);
    norms(rt);
    bad_input(rt);
    npk_rk_close(rt);
    chained();
    matmul_act();
    rocket();
    return check_done();
}
