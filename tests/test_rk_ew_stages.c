/* SPDX-License-Identifier: MIT */
/* The SDP's BS and BN stages through the runtime on the faithful simulator: relu, relu6 and
 * leakyrelu as clamps, batchnorm (x * scale + shift), and add/mul/max/min with an immediate
 * operand, for fp16, int16 and int8 over edge shapes and past one task, on host arrays and on
 * device buffers, and as steps of a fused matmul epilogue — each against a CPU reference written
 * here; the ops without evidence refused by name; bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"

static uint64_t seed = 19;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

static size_t esize(npk_rk_prec p) { return p == NPK_PREC_INT8 ? 1 : 2; }

/* npk_rk_ew with its arguments spelled out. */
static npk_status ew(npk_rk *rt, npk_rk_ew_op op, npk_rk_prec p, uint32_t m, uint32_t n,
                     const void *a, npk_rk_ew_operand kind, const void *b, void *c,
                     npk_rk_stats *st)
{
    npk_rk_ew_args x = {
        .op = op, .prec = p, .m = m, .n = n, .operand = kind, .a = a, .b = b, .c = c};
    return npk_rk_ew(rt, &x, st);
}

/* fp16: multiples of 1/16 in [-16, 16) (past relu6's bound, products of the immediates below
 * exact); integers: the full range. */
static void *make(npk_rk_prec p, size_t count)
{
    void *v = malloc(count * esize(p) + 2);
    for (size_t i = 0; i < count; i++) {
        uint32_t r = rnd();
        if (p == NPK_PREC_FP16)
            ((uint16_t *)v)[i] = npk_f32_to_f16((float)((int)(r % 512) - 256) / 16.0f);
        else if (p == NPK_PREC_INT16)
            ((int16_t *)v)[i] = (int16_t)(r >> 8);
        else
            ((int8_t *)v)[i] = (int8_t)(r >> 8);
    }
    return v;
}

static double get(npk_rk_prec p, const void *v, size_t i)
{
    if (p == NPK_PREC_FP16)
        return npk_f16_to_f32(((const uint16_t *)v)[i]);
    return p == NPK_PREC_INT16 ? ((const int16_t *)v)[i] : ((const int8_t *)v)[i];
}

static void put(npk_rk_prec p, void *v, size_t i, double x)
{
    if (p == NPK_PREC_FP16) {
        ((uint16_t *)v)[i] = npk_f32_to_f16((float)x);
        return;
    }
    double lo = p == NPK_PREC_INT16 ? -32768 : -128, hi = p == NPK_PREC_INT16 ? 32767 : 127;
    x = x < lo ? lo : x > hi ? hi : x;
    if (p == NPK_PREC_INT16)
        ((int16_t *)v)[i] = (int16_t)x;
    else
        ((int8_t *)v)[i] = (int8_t)x;
}

/* The immediates: fp16 values exact in fp16, integers small enough to keep some results in
 * range and push others past it. */
static void imm_values(npk_rk_prec p, void *b)
{
    put(p, b, 0, p == NPK_PREC_FP16 ? -0.375 : 3);
    put(p, b, 1, p == NPK_PREC_FP16 ? 2.5 : -5);
}

/* y for x: fp16 each step rounded to fp32 (the SDP's arithmetic), integers exact, then the
 * output's rounding or saturation by put(). */
static double ref_one(npk_rk_ew_op op, bool fp16, double x, double s, double t)
{
    /* the ops of `ops` below; a row this file does not run is test_rksim_sdp.c's */
    if (op == NPK_EW_RELU)
        return x > 0 ? x : 0;
    if (op == NPK_EW_RELU6)
        return x < 0 ? 0 : x > 6 ? 6 : x;
    if (op == NPK_EW_LEAKYRELU)
        return x < 0 ? (fp16 ? (double)(float)(x * s) : x * s) : x;
    if (op == NPK_EW_BATCHNORM)
        return fp16 ? (double)((float)(x * s) + (float)t) : x * s + t;
    if (op == NPK_EW_ADD)
        return x + s;
    if (op == NPK_EW_MUL)
        return x * s;
    if (op == NPK_EW_MAX)
        return x > s ? x : s;
    if (op == NPK_EW_MIN)
        return x < s ? x : s;
    return NAN;
}

static npk_rk_ew_operand kind_of(npk_rk_ew_op op)
{
    return op == NPK_EW_RELU || op == NPK_EW_RELU6 ? NPK_EW_NO_OPERAND : NPK_EW_IMMEDIATE;
}

static const npk_rk_ew_op ops[] = {NPK_EW_RELU, NPK_EW_RELU6, NPK_EW_LEAKYRELU, NPK_EW_BATCHNORM,
                                   NPK_EW_ADD,  NPK_EW_MUL,   NPK_EW_MAX,       NPK_EW_MIN};

/* Elements of got differing from the reference of op on a (immediates in b). */
static uint64_t check_out(npk_rk_ew_op op, npk_rk_prec p, size_t count, const void *a,
                          const void *b, const void *got)
{
    void *ref = malloc(count * esize(p) + 1);
    uint64_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        put(p, ref, i, ref_one(op, p == NPK_PREC_FP16, get(p, a, i), get(p, b, 0), get(p, b, 1)));
        bad += memcmp((const char *)ref + i * esize(p), (const char *)got + i * esize(p),
                      esize(p)) != 0;
    }
    free(ref);
    return bad;
}

static uint64_t run_host(npk_rk *rt, npk_rk_ew_op op, npk_rk_prec p, uint32_t m, uint32_t n)
{
    size_t count = (size_t)m * n;
    void *a = make(p, count), *b = malloc(4), *c = malloc(count * esize(p) + 1);
    imm_values(p, b);
    uint64_t bad = UINT64_MAX;
    npk_rk_stats st;
    if (ew(rt, op, p, m, n, a, kind_of(op), b, c, &st) == NPK_OK)
        bad = check_out(op, p, count, a, b, c);
    else
        fprintf(stderr, "%s: %s\n", npk_rk_ew_op_row_of(op)->name, npk_last_error());
    if (bad)
        fprintf(stderr, "%s %s %ux%u: %llu wrong\n", npk_rk_ew_op_row_of(op)->name,
                npk_rk_prec_name(p), m, n, (unsigned long long)bad);
    free(a);
    free(b);
    free(c);
    return bad;
}

static void test_host_arrays(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    static const npk_rk_prec precs[] = {NPK_PREC_FP16, NPK_PREC_INT16, NPK_PREC_INT8};
    static const uint32_t shapes[][2] = {{1, 1}, {1, 3}, {65, 33}, {3, 8193}, {600, 512}};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t p = 0; p < 3; p++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                CHECK_EQ(run_host(rt, ops[o], precs[p], shapes[s][0], shapes[s][1]), 0);
    npk_rk_close(rt);
}

/* On device buffers: the flat ops run on the buffers themselves (no operand to stage). */
static void test_buffers(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    const uint32_t m = 64, n = 64;
    const size_t bytes = (size_t)m * n * 2;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        npk_rk_buffer *ab = NULL, *bb = NULL, *cb = NULL;
        CHECK_EQ(npk_rk_buffer_create(rt, bytes, &ab), NPK_OK);
        CHECK_EQ(npk_rk_buffer_create(rt, 64, &bb), NPK_OK);
        CHECK_EQ(npk_rk_buffer_create(rt, bytes, &cb), NPK_OK);
        void *a = make(NPK_PREC_FP16, (size_t)m * n);
        memcpy(npk_rk_buffer_host(ab), a, bytes);
        imm_values(NPK_PREC_FP16, npk_rk_buffer_host(bb));
        npk_rk_ew_buffers_args args = {ops[o],
                                       NPK_PREC_FP16,
                                       m,
                                       n,
                                       kind_of(ops[o]),
                                       ab,
                                       kind_of(ops[o]) == NPK_EW_NO_OPERAND ? NULL : bb,
                                       cb,
                                       0,
                                       0,
                                       0};
        npk_rk_stats st;
        CHECK_EQ(npk_rk_ew_buffers(rt, &args, &st), NPK_OK);
        CHECK_EQ(st.sdp_direct, st.sdp_tasks);
        CHECK_EQ(check_out(ops[o], NPK_PREC_FP16, (size_t)m * n, a, npk_rk_buffer_host(bb),
                           npk_rk_buffer_host(cb)),
                 0);
        free(a);
        npk_rk_buffer_free(ab);
        npk_rk_buffer_free(bb);
        npk_rk_buffer_free(cb);
    }
    npk_rk_close(rt);
}

/* A matmul with {relu6} and {batchnorm, leakyrelu} epilogues, fused (chained with the matmul in
 * one submit) and split alike: the epilogue against the reference on the plain matmul's output. */
static void test_epilogue(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    const uint32_t m = 8, k = 64, n = 48;
    uint16_t *a = make(NPK_PREC_FP16, (size_t)m * k), *b = make(NPK_PREC_FP16, (size_t)k * n);
    for (size_t i = 0; i < (size_t)k * n; i++) /* keep the products small: |B| <= 1/8 */
        b[i] = npk_f32_to_f16(npk_f16_to_f32(b[i]) / 128.0f);
    uint16_t imm[2];
    imm_values(NPK_PREC_FP16, imm);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b, m, &w), NPK_OK);
    uint16_t *plain = malloc((size_t)m * n * 2), *c = malloc((size_t)m * n * 2);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_FP16, plain, NULL), NPK_OK);
    for (int fuse = 0; fuse < 2; fuse++) {
        npk_rk_epilogue one = {.count = 1, .no_fuse = !fuse};
        one.step[0] = (npk_rk_ew_step){NPK_EW_RELU6, NPK_EW_NO_OPERAND, NULL};
        npk_rk_stats st;
        CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &one, &st), NPK_OK);
        CHECK_EQ(st.fused_jobs > 0, fuse);
        CHECK_EQ(check_out(NPK_EW_RELU6, NPK_PREC_FP16, (size_t)m * n, plain, imm, c), 0);
        npk_rk_epilogue two = {.count = 2, .no_fuse = !fuse};
        two.step[0] = (npk_rk_ew_step){NPK_EW_BATCHNORM, NPK_EW_IMMEDIATE, imm};
        two.step[1] = (npk_rk_ew_step){NPK_EW_LEAKYRELU, NPK_EW_IMMEDIATE, imm};
        CHECK_EQ(npk_rk_matmul_epilogue(rt, w, m, a, NPK_PREC_FP16, c, &two, &st), NPK_OK);
        CHECK_EQ(st.fused_jobs > 0, fuse);
        uint16_t *mid = malloc((size_t)m * n * 2);
        for (size_t i = 0; i < (size_t)m * n; i++)
            put(NPK_PREC_FP16, mid, i,
                ref_one(NPK_EW_BATCHNORM, true, npk_f16_to_f32(plain[i]), -0.375, 2.5));
        CHECK_EQ(check_out(NPK_EW_LEAKYRELU, NPK_PREC_FP16, (size_t)m * n, mid, imm, c), 0);
        free(mid);
    }
    free(plain);
    free(c);
    free(a);
    free(b);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
}

static void test_refusals(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t a[16] = {0}, c[16];
    int8_t big[2] = {0, 0};
    /* EQL: synthesized only (no source gives its output) */
    CHECK_EQ(ew(rt, NPK_EW_EQL, NPK_PREC_INT8, 1, 16, a, NPK_EW_PER_ELEMENT, a, c, NULL),
             NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "no source gives its output");
    /* operand kinds are the op row's */
    CHECK_EQ(ew(rt, NPK_EW_LEAKYRELU, NPK_PREC_INT8, 1, 16, a, NPK_EW_PER_ELEMENT, a, c, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "leakyrelu takes immediate, not per-element");
    CHECK_EQ(ew(rt, NPK_EW_RELU6, NPK_PREC_INT8, 1, 16, a, NPK_EW_IMMEDIATE, big, c, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "relu6 takes no operand, not immediate");
    CHECK_EQ(ew(rt, NPK_EW_MUL, NPK_PREC_INT8, 1, 16, a, NPK_EW_IMMEDIATE, NULL, c, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL B");
    /* an fp16 MUL immediate past fp16's range cannot sit in its 16-bit register */
    uint16_t h[16] = {0}, hc[16], inf = 0x7C00;
    CHECK_EQ(ew(rt, NPK_EW_MUL, NPK_PREC_FP16, 1, 16, h, NPK_EW_IMMEDIATE, &inf, hc, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not finite");
    npk_rk_close(rt);
}

int main(void)
{
    test_host_arrays();
    test_buffers();
    test_epilogue();
    test_refusals();
    return check_done();
}
