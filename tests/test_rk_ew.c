/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* setenv */
/* The runtime's element-wise ops on the faithful simulator: every op, precision and operand
 * mode against a CPU reference over the edge shapes, the tiling past the SDP's limits, chained
 * jobs, the RC_SDPKW state-policy row, and bad input. */
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"

static uint64_t seed = 7;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

static size_t esize(npk_rk_prec p) { return p == NPK_PREC_INT8 ? 1 : 2; }

/* Random operands: fp16 finite values over several binades (sums round), integers over the
 * full range (sums and products saturate). */
static void *make(npk_rk_prec p, size_t count)
{
    void *v = malloc(count * esize(p) + 1);
    for (size_t i = 0; i < count; i++) {
        uint32_t r = rnd();
        if (p == NPK_PREC_FP16)
            ((uint16_t *)v)[i] =
                npk_f32_to_f16((float)((int)(r % 2001) - 1000) / (float)(1u << (r >> 28)));
        else if (p == NPK_PREC_INT16)
            ((int16_t *)v)[i] = (int16_t)(r >> 8);
        else
            ((int8_t *)v)[i] = (int8_t)(r >> 8);
    }
    return v;
}

/* The four binary ops this file runs (add..min); every row is test_rksim_sdp.c's. */
static double op_ref(npk_rk_ew_op op, double a, double b)
{
    if (op == NPK_EW_ADD)
        return a + b;
    if (op == NPK_EW_MUL)
        return a * b;
    if (op == NPK_EW_MAX)
        return a > b ? a : b;
    return a < b ? a : b;
}

/* The CPU reference: fp16 in fp32 arithmetic rounded once to fp16; integers exact, then
 * saturated. */
static void reference(npk_rk_ew_op op, npk_rk_prec p, uint32_t m, uint32_t n, const void *a,
                      npk_rk_ew_operand mode, const void *b, void *c)
{
    for (size_t i = 0; i < (size_t)m * n; i++) {
        size_t j = mode == NPK_EW_PER_CHANNEL ? i % n : i;
        if (p == NPK_PREC_FP16) {
            float r = (float)op_ref(op, npk_f16_to_f32(((const uint16_t *)a)[i]),
                                    npk_f16_to_f32(((const uint16_t *)b)[j]));
            ((uint16_t *)c)[i] = npk_f32_to_f16(r);
        } else {
            bool i16 = p == NPK_PREC_INT16;
            double x = i16 ? ((const int16_t *)a)[i] : ((const int8_t *)a)[i];
            double y = i16 ? ((const int16_t *)b)[j] : ((const int8_t *)b)[j];
            double r = op_ref(op, x, y), lo = i16 ? -32768 : -128, hi = i16 ? 32767 : 127;
            r = r < lo ? lo : r > hi ? hi : r;
            if (i16)
                ((int16_t *)c)[i] = (int16_t)r;
            else
                ((int8_t *)c)[i] = (int8_t)r;
        }
    }
}

/* Elements of got that differ from ref. */
static uint64_t mismatches(npk_rk_prec p, const void *got, const void *ref, size_t count)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < count; i++)
        bad += memcmp((const char *)got + i * esize(p), (const char *)ref + i * esize(p),
                      esize(p)) != 0;
    return bad;
}

/* One call against the reference: the mismatching elements (UINT64_MAX: the call failed). */
static uint64_t run_one(npk_rk *rt, npk_rk_ew_op op, npk_rk_prec p, uint32_t m, uint32_t n,
                        npk_rk_ew_operand mode, npk_rk_stats *st)
{
    size_t count = (size_t)m * n;
    void *a = make(p, count), *b = make(p, mode == NPK_EW_PER_CHANNEL ? n : count);
    void *c = malloc(count * esize(p)), *ref = malloc(count * esize(p));
    memset(c, 0xA5, count * esize(p));
    reference(op, p, m, n, a, mode, b, ref);
    uint64_t bad = UINT64_MAX;
    if (npk_rk_ew(rt, &(npk_rk_ew_args){.op = op, .prec = p, .m = m, .n = n, .operand = mode, .a = a, .b = b, .c = c}, st) == NPK_OK)
        bad = mismatches(p, c, ref, count);
    else
        fprintf(stderr, "ew %ux%u: %s\n", m, n, npk_last_error());
    free(a);
    free(b);
    free(c);
    free(ref);
    return bad;
}

/* Every op, operand mode and precision on the simulator behind `device` (both kernels run SDP
 * tasks: rocket's fixed interrupt mask is the DPU's, which an SDP task ends on). */
static void test_grid(const char *device)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open(device, &rt), NPK_OK);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK(info.sdp);
    static const uint32_t ns[] = {1, 3, 17, 33, 8192}, ms[] = {1, 64, 65};
    static const npk_rk_prec precs[] = {NPK_PREC_FP16, NPK_PREC_INT16};
    for (unsigned pi = 0; pi < 2; pi++)
        for (int op = NPK_EW_ADD; op <= NPK_EW_MIN; op++)
            for (int mode = NPK_EW_PER_ELEMENT; mode <= NPK_EW_PER_CHANNEL; mode++)
                for (unsigned mi = 0; mi < 3; mi++)
                    for (unsigned ni = 0; ni < 5; ni++) {
                        uint64_t bad = run_one(rt, (npk_rk_ew_op)op, precs[pi], ms[mi], ns[ni],
                                               (npk_rk_ew_operand)mode, NULL);
                        if (bad)
                            fprintf(stderr, "%s: %s op %d mode %d %ux%u: %llu wrong\n", device,
                                    npk_rk_prec_name(precs[pi]), op, mode, ms[mi], ns[ni],
                                    (unsigned long long)bad);
                        CHECK_EQ(bad, 0);
                    }
    /* int8, the SDP's third precision, on a few shapes */
    for (int op = NPK_EW_ADD; op <= NPK_EW_MIN; op++) {
        CHECK_EQ(run_one(rt, (npk_rk_ew_op)op, NPK_PREC_INT8, 65, 33, NPK_EW_PER_ELEMENT, NULL), 0);
        CHECK_EQ(run_one(rt, (npk_rk_ew_op)op, NPK_PREC_INT8, 3, 17, NPK_EW_PER_CHANNEL, NULL), 0);
    }
    npk_rk_close(rt);
}

/* Shapes past one task: flat tiles past NPK_RK_EW_TILE elements, channel tiles past 8192
 * channels, row tiles; chained jobs take fewer submits for the same result. */
static void test_tiling_and_chain(const char *device)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open(device, &rt), NPK_OK);
    npk_rk_stats st;
    CHECK_EQ(run_one(rt, NPK_EW_ADD, NPK_PREC_FP16, 1000, 700, NPK_EW_PER_ELEMENT, &st), 0);
    CHECK_EQ(st.tasks, 3); /* 700000 elements in tiles of 262144 */
    CHECK_EQ(st.sdp_tasks, 3);
    CHECK_EQ(st.submits, 3 + 1); /* one task per submit, one warm-up of the fresh buffer */
    CHECK_EQ(run_one(rt, NPK_EW_MUL, NPK_PREC_INT16, 40, 9000, NPK_EW_PER_CHANNEL, &st), 0);
    CHECK_EQ(st.tasks, 3); /* channels 0..8191 in rows 0..31 and 32..39, 8192..8999 */
    CHECK_EQ(run_one(rt, NPK_EW_MAX, NPK_PREC_FP16, 3000, 100, NPK_EW_PER_CHANNEL, &st), 0);
    CHECK_EQ(st.tasks, 2); /* 2520 rows of 100 channels (13 atoms) per task */
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    CHECK_EQ(run_one(rt, NPK_EW_ADD, NPK_PREC_FP16, 1000, 700, NPK_EW_PER_ELEMENT, &st), 0);
    CHECK_EQ(st.tasks, 3);
    CHECK(st.submits <= 2); /* one chained job (+ a warm-up if its buffer grew) */
    CHECK(st.npu_ns > 0);
    npk_rk_close(rt);
}

/* RC_SDPKW: an element-wise call between two int8 matmuls resets nothing and leaves the int8
 * mode in place, so the second matmul needs no reset either. */
static void test_policy(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t a[4 * 64], b[64 * 32];
    int32_t c[4 * 32];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (int8_t)rnd();
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (int8_t)rnd();
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, 64, 32, b, 4, &w), NPK_OK);
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul(rt, w, 4, a, NPK_PREC_INT32, c, &st), NPK_OK);
    CHECK_EQ(st.resets, 1); /* entering int8 */
    CHECK_EQ(run_one(rt, NPK_EW_ADD, NPK_PREC_FP16, 8, 8, NPK_EW_PER_ELEMENT, &st), 0);
    CHECK_EQ(st.resets, 0);
    CHECK_EQ(npk_rk_matmul(rt, w, 4, a, NPK_PREC_INT32, c, &st), NPK_OK);
    CHECK_EQ(st.resets, 0);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
}

static void test_bad_input(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    uint16_t a[8] = {0}, b[8] = {0}, c[8];
    CHECK_EQ(npk_rk_ew(NULL, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = 1, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = a, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = 1, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = NULL, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL A");
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = 0, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = a, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "M=0");
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = 1, .n = NPK_RK_EW_MAX_DIM + 1, .operand = NPK_EW_PER_ELEMENT, .a = a, .b = b, .c = c}, NULL),
             NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "N=16777217 exceeds 16777216");
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_RELU, .prec = NPK_PREC_FP16, .m = 1, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = a, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "relu takes no operand, not per-element");
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_OP_COUNT, .prec = NPK_PREC_FP16, .m = 1, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = a, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "none of the SDP's ops (add|mul|max|min|relu");
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP32, .m = 1, .n = 8, .operand = NPK_EW_PER_ELEMENT, .a = a, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp32 is not an SDP precision");
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = 1, .n = 8, .operand = (npk_rk_ew_operand)7, .a = a, .b = b, .c = c}, NULL),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "operand mode 7");
    npk_rk_close(rt);
}

/* C may be one of the operands. */
static void test_in_place(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int16_t a[3 * 5], b[5];
    for (int i = 0; i < 15; i++)
        a[i] = (int16_t)(i - 7);
    for (int i = 0; i < 5; i++)
        b[i] = (int16_t)(10 * i);
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_INT16, .m = 3, .n = 5, .operand = NPK_EW_PER_CHANNEL, .a = a, .b = b, .c = a}, NULL),
             NPK_OK);
    for (int i = 0; i < 15; i++)
        CHECK_EQ(a[i], (int16_t)(i - 7 + 10 * (i % 5)));
    npk_rk_close(rt);
}

/* One call on device buffers (A, B, C at the given offsets of buffers of rt_buf's engine)
 * against the reference: the mismatching elements (UINT64_MAX: the call failed). C may be A's
 * buffer and offset (c_same). */
static uint64_t run_buffers(npk_rk *rt, npk_rk *rt_buf, npk_rk_ew_op op, npk_rk_prec p, uint32_t m,
                            uint32_t n, npk_rk_ew_operand mode, uint64_t off, bool c_same,
                            npk_rk_stats *st)
{
    size_t count = (size_t)m * n, bytes = count * esize(p);
    size_t nb = (mode == NPK_EW_PER_CHANNEL ? n : count) * esize(p);
    void *a = make(p, count), *b = make(p, nb / esize(p)), *ref = malloc(bytes);
    reference(op, p, m, n, a, mode, b, ref);
    npk_rk_buffer *ab = NULL, *bb = NULL, *cb = NULL;
    CHECK_EQ(npk_rk_buffer_create(rt_buf, off + bytes, &ab), NPK_OK);
    CHECK_EQ(npk_rk_buffer_create(rt_buf, off + nb, &bb), NPK_OK);
    CHECK_EQ(npk_rk_buffer_create(rt_buf, off + bytes, &cb), NPK_OK);
    memcpy((char *)npk_rk_buffer_host(ab) + off, a, bytes);
    memcpy((char *)npk_rk_buffer_host(bb) + off, b, nb);
    memset(npk_rk_buffer_host(cb), 0xA5, off + bytes);
    npk_rk_buffer *c = c_same ? ab : cb;
    uint64_t bad = UINT64_MAX;
    npk_rk_ew_buffers_args args = {op, p, m, n, mode, ab, bb, c, off, off, off};
    if (npk_rk_ew_buffers(rt, &args, st) == NPK_OK) {
        bad = mismatches(p, (const char *)npk_rk_buffer_host(c) + off, ref, count);
        if (!c_same) /* nothing written before C */
            for (size_t i = 0; i < off; i++)
                bad += ((unsigned char *)npk_rk_buffer_host(c))[i] != 0xA5;
    } else {
        fprintf(stderr, "ew buffers %ux%u: %s\n", m, n, npk_last_error());
    }
    npk_rk_buffer_free(ab);
    npk_rk_buffer_free(bb);
    npk_rk_buffer_free(cb);
    free(a);
    free(b);
    free(ref);
    return bad;
}

/* Element-wise ops on device buffers: per element on the buffers themselves (every task
 * unstaged but a tail shorter than an atom), and the staged host path where the layout or the
 * buffers do not allow it (per channel, an unaligned offset, C on A, another engine's buffers),
 * each against the reference; bad input. */
static void test_buffers(void)
{
    npk_rk *rt = NULL, *other = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_open("sim", &other), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    npk_rk_stats st;
    static const struct {
        npk_rk_prec p;
        uint32_t m, n, tail; /* tail: staged tasks expected */
    } direct[] = {
        {NPK_PREC_FP16, 64, 64, 0},    {NPK_PREC_FP16, 1, 8, 0},   {NPK_PREC_INT16, 65, 33, 1},
        {NPK_PREC_FP16, 1, 3, 1},      {NPK_PREC_INT8, 3, 100, 1}, {NPK_PREC_INT8, 64, 128, 0},
        {NPK_PREC_FP16, 1100, 257, 1}, /* past one tile: full tiles, a row tail, an atom tail */
    };
    for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++) {
        CHECK_EQ(run_buffers(rt, rt, NPK_EW_ADD, direct[i].p, direct[i].m, direct[i].n,
                             NPK_EW_PER_ELEMENT, 64, false, &st),
                 0);
        CHECK_EQ(st.sdp_direct + direct[i].tail, st.sdp_tasks);
        CHECK(st.sdp_direct >= 1 || direct[i].m * direct[i].n < 8);
    }
    CHECK_EQ(
        run_buffers(rt, rt, NPK_EW_MUL, NPK_PREC_FP16, 65, 33, NPK_EW_PER_ELEMENT, 0, false, &st),
        0);
    CHECK(st.sdp_direct >= 1);
    /* the host path */
    CHECK_EQ(
        run_buffers(rt, rt, NPK_EW_MAX, NPK_PREC_INT16, 65, 33, NPK_EW_PER_CHANNEL, 64, false, &st),
        0);
    CHECK_EQ(st.sdp_direct, 0);
    CHECK_EQ(
        run_buffers(rt, rt, NPK_EW_MIN, NPK_PREC_FP16, 9, 40, NPK_EW_PER_ELEMENT, 2, false, &st),
        0);
    CHECK_EQ(st.sdp_direct, 0);
    CHECK_EQ(
        run_buffers(rt, rt, NPK_EW_ADD, NPK_PREC_FP16, 9, 40, NPK_EW_PER_ELEMENT, 64, true, &st),
        0);
    CHECK_EQ(st.sdp_direct, 0);
    CHECK_EQ(run_buffers(rt, other, NPK_EW_ADD, NPK_PREC_FP16, 9, 40, NPK_EW_PER_ELEMENT, 64, false,
                         &st),
             0);
    CHECK_EQ(st.sdp_direct, 0);
    CHECK(st.sdp_tasks >= 1);

    npk_rk_buffer *buf = NULL;
    CHECK_EQ(npk_rk_buffer_create(rt, 256, &buf), NPK_OK);
    npk_rk_ew_buffers_args args = {
        NPK_EW_ADD, NPK_PREC_FP16, 8, 8, NPK_EW_PER_ELEMENT, buf, buf, buf, 0, 192, 64};
    CHECK_EQ(npk_rk_ew_buffers(rt, &args, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "B at offset 192, 128 bytes, exceeds its buffer of 256");
    args.b = NULL;
    args.b_off = 0;
    args.c_off = 0;
    CHECK_EQ(npk_rk_ew_buffers(rt, &args, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL B buffer");
    args.b = buf;
    args.m = 0;
    CHECK_EQ(npk_rk_ew_buffers(rt, &args, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "M=0");
    CHECK_EQ(npk_rk_ew_buffers(rt, NULL, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NULL arguments");
    npk_rk_buffer_free(buf);
    npk_rk_close(other);
    npk_rk_close(rt);
}

int main(void)
{
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    test_grid("sim");
    test_grid("sim-rocket");
    test_tiling_and_chain("sim");
    test_tiling_and_chain("sim-rocket");
    test_policy();
    test_bad_input();
    test_in_place();
    test_buffers();
    return check_done();
}
