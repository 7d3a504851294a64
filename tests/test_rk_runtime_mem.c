/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The runtime's device memory, core pinning, operand layouts and bound weights on the faithful
 * simulator, every result against the CPU reference. */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/layout/rk_layout.h"
#include "npukit/rk_reference.h"
#include "rk/runtime/runtime_internal.h"

/* one generator per thread: the shared-runtime test fills operands from several threads */
static _Thread_local uint64_t seed = 7;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

/* Random elements in the runtime's convention: fp16 multiples of 1/8 in [-1, 1] (exact sums in
 * fp32 at these K), int8 full range, int4 [-8, 7]. */
static void fill(npk_rk_prec p, void *dst, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (p == NPK_PREC_FP16)
            ((uint16_t *)dst)[i] = npk_f32_to_f16((float)((int)(rnd() % 17) - 8) / 8.0f);
        else if (p == NPK_PREC_INT8)
            ((int8_t *)dst)[i] = (int8_t)(rnd() & 0xff);
        else
            ((int8_t *)dst)[i] = (int8_t)((int)(rnd() % 16) - 8);
    }
}

static size_t eb(npk_rk_prec p) { return p == NPK_PREC_FP16 ? 2 : 1; }
static npk_rk_prec out_of(npk_rk_prec in) { return in == NPK_PREC_FP16 ? NPK_PREC_FP32 : NPK_PREC_INT32; }

/* Mismatches of c against the reference of row-major a, b. */
static uint64_t mismatches(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n, const void *a,
                           const void *b, const void *c)
{
    void *ref = calloc((size_t)m * n, 4);
    uint64_t bad = UINT64_MAX;
    if (npk_rk_reference_matmul(in, out_of(in), m, k, n, a, b, ref) == NPK_OK)
        bad = npk_rk_compare(out_of(in), c, ref, (uint64_t)m * n).mismatches;
    free(ref);
    return bad;
}

/* B in every layout from host memory, A and C native, and native B helpers round-trip. */
static void test_layouts(npk_rk *rt, npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n)
{
    void *a = malloc((size_t)m * k * eb(in)), *b = malloc((size_t)k * n * eb(in));
    fill(in, a, (size_t)m * k);
    fill(in, b, (size_t)k * n);
    void *bt = malloc((size_t)k * n * eb(in));
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < n; j++)
            memcpy((uint8_t *)bt + (j * k + i) * eb(in), (uint8_t *)b + (i * n + j) * eb(in),
                   eb(in));
    uint64_t nb = npk_rk_b_layout_bytes(in, k, n, NPK_RK_NATIVE);
    void *bn = malloc(nb);
    CHECK_EQ(npk_rk_b_to_native(in, k, n, b, bn, nb), NPK_OK);
    CHECK_EQ(npk_rk_b_to_native(in, k, n, b, bn, nb - 1), NPK_EINVAL);
    const void *srcs[3] = {b, bn, bt};
    int32_t *c = calloc((size_t)m * n, 4);
    for (int l = 0; l < 3; l++) {
        npk_rk_weights *w = NULL;
        CHECK_EQ(npk_rk_weights_pack_layout(rt, in, k, n, srcs[l], (npk_rk_layout)l, m, &w),
                 NPK_OK);
        memset(c, 0x55, (size_t)m * n * 4);
        CHECK_EQ(npk_rk_matmul(rt, w, m, a, out_of(in), c, NULL), NPK_OK);
        CHECK_EQ(mismatches(in, m, k, n, a, b, c), 0);
        /* A and C native: A packed into the cube layout here, C unpacked from it. */
        if (l == 0) {
            npk_rk_block ab = npk_rk_a_block(in, NPK_MODE_CUBE, m, k);
            uint64_t abytes = npk_rk_a_layout_bytes(in, m, k, NPK_RK_NATIVE);
            CHECK_EQ(abytes, npk_rk_a_bytes(&ab, k));
            void *an = malloc(abytes);
            CHECK_EQ(npk_rk_pack_a(&ab, &(npk_rk_cmatrix){a, m, k, k}, (npk_rk_range){0, m},
                                   (npk_rk_range){0, k}, an, abytes), NPK_OK);
            uint64_t cbytes = npk_rk_c_layout_bytes(out_of(in), m, n, NPK_RK_NATIVE);
            void *cn = malloc(cbytes);
            memset(cn, 0x55, cbytes);
            CHECK_EQ(npk_rk_matmul_layout(rt, w, m, an, NPK_RK_NATIVE, out_of(in), cn,
                                          NPK_RK_NATIVE, NULL), NPK_OK);
            npk_rk_block cb = npk_rk_c_block(out_of(in), NPK_MODE_CUBE, m, n);
            memset(c, 0x55, (size_t)m * n * 4);
            CHECK_EQ(npk_rk_unpack_c(&cb, cn, cbytes, &(npk_rk_matrix){c, m, n, n},
                                     (npk_rk_range){0, m}, (npk_rk_range){0, n}), NPK_OK);
            CHECK_EQ(mismatches(in, m, k, n, a, b, c), 0);
            CHECK_EQ(npk_rk_matmul_layout(rt, w, m, an, (npk_rk_layout)2, out_of(in), cn,
                                          NPK_RK_ROWS, NULL), NPK_EINVAL);
            free(an);
            free(cn);
        }
        npk_rk_weights_free(rt, w);
    }
    free(a);
    free(b);
    free(bt);
    free(bn);
    free(c);
}

/* A native B above the segment K is ceil(K / 8192) segments: the second starts after the first
 * segment's bytes. */
static void test_segments(void)
{
    CHECK_EQ(npk_rk_b_layout_bytes(NPK_PREC_FP16, 8224, 16, NPK_RK_NATIVE),
             npk_rk_b_bytes(NPK_PREC_FP16, 8192, 16) + npk_rk_b_bytes(NPK_PREC_FP16, 32, 16));
    CHECK_EQ(npk_rk_b_layout_bytes(NPK_PREC_INT8, 10240, 32, NPK_RK_NATIVE), 10240 * 32);
    CHECK_EQ(npk_rk_b_layout_bytes(NPK_PREC_INT4, 64, 64, NPK_RK_NATIVE), 64 * 64 / 2);
    CHECK_EQ(npk_rk_b_layout_bytes(NPK_PREC_INT4, 64, 64, NPK_RK_ROWS), 64 * 64);
    CHECK_EQ(npk_rk_b_layout_bytes(NPK_PREC_FP32, 64, 64, NPK_RK_ROWS), 0);
    int8_t b[8224 * 32];
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (int8_t)(i / 32 % 8224 >= 8192 ? 1 : 0); /* only K rows >= 8192 are non-zero */
    static int8_t nat[8224 * 32];
    CHECK_EQ(npk_rk_b_to_native(NPK_PREC_INT8, 8224, 32, b, nat, sizeof nat), NPK_OK);
    size_t first = npk_rk_b_bytes(NPK_PREC_INT8, 8192, 32), nonzero = 0;
    for (size_t i = 0; i < sizeof nat; i++)
        nonzero += nat[i] != 0;
    CHECK_EQ(nonzero, 32 * 32);
    for (size_t i = 0; i < first; i++)
        if (nat[i]) {
            CHECK(!"segment 0 holds a row of segment 1");
            break;
        }
}

/* Buffers are process-wide: made through one runtime, used by others (shared or not) as A, B
 * and C, freed after their creator is closed. Bound B is re-read at every call. */
static void test_buffers(void)
{
    npk_rk *r1, *r2, *r3;
    CHECK_EQ(npk_rk_open_shared("sim", &r1), NPK_OK);
    CHECK_EQ(npk_rk_open_shared("sim", &r2), NPK_OK);
    CHECK_EQ(npk_rk_open("sim", &r3), NPK_OK);
    CHECK(r1->eng == r2->eng && r1->eng != r3->eng);
    const uint32_t m = 5, k = 96, n = 48;
    npk_rk_buffer *ba, *bb, *bc, *bn;
    CHECK_EQ(npk_rk_buffer_create(r1, 0, &ba), NPK_EINVAL);
    CHECK_EQ(npk_rk_buffer_create(NULL, 64, &ba), NPK_EINVAL);
    CHECK_EQ(npk_rk_buffer_create(r1, (uint64_t)m * k * 2, &ba), NPK_OK);
    CHECK_EQ(npk_rk_buffer_create(r1, (uint64_t)k * n * 2, &bb), NPK_OK);
    CHECK_EQ(npk_rk_buffer_create(r1, (uint64_t)m * n * 4, &bc), NPK_OK);
    CHECK_EQ(npk_rk_buffer_create(r1, 64 + npk_rk_b_layout_bytes(NPK_PREC_FP16, k, n, NPK_RK_NATIVE),
                                  &bn), NPK_OK);
    CHECK(npk_rk_buffer_size(ba) >= (uint64_t)m * k * 2);
    CHECK(npk_rk_buffer_iova(ba) != 0);
    uint16_t *a = npk_rk_buffer_host(ba), *b = npk_rk_buffer_host(bb);
    float *c = npk_rk_buffer_host(bc);
    fill(NPK_PREC_FP16, a, (size_t)m * k);
    fill(NPK_PREC_FP16, b, (size_t)k * n);
    CHECK_EQ(npk_rk_b_to_native(NPK_PREC_FP16, k, n, b, (uint8_t *)npk_rk_buffer_host(bn) + 64,
                                npk_rk_buffer_size(bn) - 64), NPK_OK);
    CHECK_EQ(npk_rk_buffer_sync(bn, 0, 0, NPK_RK_SYNC_TO_DEVICE), NPK_OK);
    CHECK_EQ(npk_rk_buffer_sync(bn, 1, npk_rk_buffer_size(bn), NPK_RK_SYNC_TO_DEVICE), NPK_EINVAL);
    CHECK_EQ(npk_rk_buffer_sync(bn, 0, 0, (npk_rk_sync_dir)4), NPK_EINVAL);
    npk_rk_close(r1); /* the buffers keep its engine */

    /* Native B on the same engine at a 64-byte offset: read in place. On another engine: a
     * checksummed copy. Row-major: a checksummed copy. */
    npk_rk_weights *wn2, *wn3, *wr2;
    CHECK_EQ(npk_rk_weights_bind(r2, NPK_PREC_FP16, k, n, bn, 64, NPK_RK_NATIVE, m, &wn2), NPK_OK);
    CHECK(npk_rk_weights_in_place(wn2));
    CHECK_EQ(npk_rk_weights_bind(r3, NPK_PREC_FP16, k, n, bn, 64, NPK_RK_NATIVE, m, &wn3), NPK_OK);
    CHECK(!npk_rk_weights_in_place(wn3));
    CHECK_EQ(npk_rk_weights_bind(r2, NPK_PREC_FP16, k, n, bb, 0, NPK_RK_ROWS, m, &wr2), NPK_OK);
    CHECK(!npk_rk_weights_in_place(wr2));
    npk_rk_weights *bad;
    CHECK_EQ(npk_rk_weights_bind(r2, NPK_PREC_FP16, k, n, bb, 2, NPK_RK_ROWS, m, &bad), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "does not fit");
    CHECK(bad == NULL);

    npk_rk_weights *ws[3] = {wn2, wn3, wr2};
    npk_rk *rts[3] = {r2, r3, r2};
    for (int round = 0; round < 3; round++) {
        if (round == 2) { /* B changes between calls: every binding sees the new bytes */
            fill(NPK_PREC_FP16, b, (size_t)k * n);
            CHECK_EQ(npk_rk_b_to_native(NPK_PREC_FP16, k, n, b,
                                        (uint8_t *)npk_rk_buffer_host(bn) + 64,
                                        npk_rk_buffer_size(bn) - 64), NPK_OK);
        }
        for (int i = 0; i < 3; i++) {
            npk_rk_stats st;
            memset(c, 0x55, (size_t)m * n * 4);
            CHECK_EQ(npk_rk_matmul(rts[i], ws[i], m, a, NPK_PREC_FP32, c, &st), NPK_OK);
            CHECK_EQ(mismatches(NPK_PREC_FP16, m, k, n, a, b, c), 0);
            /* The copies are packed on the first call and when B changed, not otherwise. */
            CHECK_EQ(st.b_repacks, i == 0 || round == 1 ? 0 : 1);
            if (i != 0)
                CHECK(st.b_check_ns > 0);
        }
    }
    /* A bound int4 row-major B out of range is refused when read. */
    npk_rk_weights *w4;
    int8_t *b4 = npk_rk_buffer_host(bb);
    fill(NPK_PREC_INT4, b4, 64 * 64);
    CHECK_EQ(npk_rk_weights_bind(r3, NPK_PREC_INT4, 64, 64, bb, 0, NPK_RK_ROWS, 1, &w4), NPK_OK);
    int8_t a4[64] = {1};
    int32_t c4[64];
    CHECK_EQ(npk_rk_matmul(r3, w4, 1, a4, NPK_PREC_INT32, c4, NULL), NPK_OK);
    for (int j = 0; j < 64; j++)
        CHECK_EQ(c4[j], b4[j]);
    b4[100] = 9;
    CHECK_EQ(npk_rk_matmul(r3, w4, 1, a4, NPK_PREC_INT32, c4, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "B[100] = 9 is outside the int4 range");
    npk_rk_weights_free(r3, w4);

    npk_rk_weights_free(r2, wn2);
    npk_rk_weights_free(r3, wn3);
    npk_rk_weights_free(r2, wr2);
    npk_rk_close(r2);
    npk_rk_close(r3);
    /* The last runtime of the engine is gone: the buffers still are its last references. */
    npk_rk_buffer_free(ba);
    npk_rk_buffer_free(bb);
    npk_rk_buffer_free(bc);
    npk_rk_buffer_free(bn);
    npk_rk_buffer_free(NULL);
}

/* A native B above the segment K, bound in place: the segments are the runtime's K slices. */
static void test_segments_in_place(npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open_shared("sim", &rt), NPK_OK);
    npk_rk_buffer *buf;
    uint64_t bytes = npk_rk_b_layout_bytes(in, k, n, NPK_RK_NATIVE);
    CHECK_EQ(npk_rk_buffer_create(rt, bytes, &buf), NPK_OK);
    void *a = malloc((size_t)m * k * eb(in)), *b = malloc((size_t)k * n * eb(in));
    int32_t *c = malloc((size_t)m * n * 4);
    fill(in, a, (size_t)m * k);
    fill(in, b, (size_t)k * n);
    CHECK_EQ(npk_rk_b_to_native(in, k, n, b, npk_rk_buffer_host(buf), bytes), NPK_OK);
    npk_rk_weights *w;
    CHECK_EQ(npk_rk_weights_bind(rt, in, k, n, buf, 0, NPK_RK_NATIVE, m, &w), NPK_OK);
    CHECK(npk_rk_weights_in_place(w));
    CHECK_EQ(w->k_slice, k > 8192 ? 8192 : (k + 31) / 32 * 32);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, out_of(in), c, NULL), NPK_OK);
    CHECK_EQ(mismatches(in, m, k, n, a, b, c), 0);
    npk_rk_weights_free(rt, w);
    npk_rk_buffer_free(buf);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(c);
}

/* Pinned cores: the tasks run on the pinned core's buffers only. */
static void test_core_mask(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_core_mask(rt), 7);
    CHECK_EQ(npk_rk_set_core_mask(rt, 8), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "core mask 0x8: rk3588 has cores 0..2");
    CHECK_EQ(npk_rk_set_core_mask(rt, 4), NPK_OK);
    CHECK_EQ(npk_rk_core_mask(rt), 4);
    const uint32_t m = 3, k = 64, n = 192;
    int8_t a[3 * 64], b[64 * 192];
    int32_t c[3 * 192];
    fill(NPK_PREC_INT8, a, sizeof a);
    fill(NPK_PREC_INT8, b, sizeof b);
    npk_rk_weights *w;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &w), NPK_OK);
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_INT32, c, &st), NPK_OK);
    CHECK_EQ(mismatches(NPK_PREC_INT8, m, k, n, a, b, c), 0);
    CHECK_EQ(st.core_mask, 4);
    CHECK_EQ(st.cores_used, 1);
    CHECK(rt->core[2].output.size > 0);
    CHECK_EQ(rt->core[0].output.size, 0);
    CHECK_EQ(rt->core[1].output.size, 0);
    /* Cores 0 and 2: N spreads over both, core 1 stays idle. */
    CHECK_EQ(npk_rk_set_core_mask(rt, 5), NPK_OK);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, NPK_PREC_INT32, c, &st), NPK_OK);
    CHECK_EQ(mismatches(NPK_PREC_INT8, m, k, n, a, b, c), 0);
    CHECK_EQ(st.cores_used, 2);
    CHECK(rt->core[0].output.size > 0);
    CHECK_EQ(rt->core[1].output.size, 0);
    CHECK_EQ(npk_rk_set_core_mask(rt, 0), NPK_OK);
    CHECK_EQ(npk_rk_core_mask(rt), 7);
    CHECK_EQ(npk_rk_set_cores(rt, 2), NPK_OK);
    CHECK_EQ(npk_rk_core_mask(rt), 3);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
}

/* Runtimes sharing an engine from several threads, all on core 0 or spread: their jobs take
 * turns on a core (one feature address, no reset under another's job), every result exact. */
typedef struct job {
    npk_rk *rt;
    npk_rk_prec in;
    unsigned mask;
    uint64_t bad;
} job;

static void *job_main(void *arg)
{
    job *j = arg;
    const uint32_t m = 9, k = 128, n = 64;
    void *a = malloc((size_t)m * k * 2), *b = malloc((size_t)k * n * 2);
    int32_t *c = malloc((size_t)m * n * 4);
    npk_rk_weights *w = NULL;
    j->bad = 0;
    if (npk_rk_set_core_mask(j->rt, j->mask) ||
        npk_rk_weights_pack(j->rt, j->in, k, n, (fill(j->in, b, (size_t)k * n), b), m, &w))
        j->bad = UINT64_MAX;
    for (int it = 0; it < 20 && !j->bad; it++) {
        fill(j->in, a, (size_t)m * k);
        if (npk_rk_matmul(j->rt, w, m, a, out_of(j->in), c, NULL))
            j->bad = UINT64_MAX;
        else
            j->bad += mismatches(j->in, m, k, n, a, b, c);
    }
    npk_rk_weights_free(j->rt, w);
    free(a);
    free(b);
    free(c);
    return NULL;
}

static void test_shared_threads(void)
{
    enum { N = 4 };
    job jobs[N];
    pthread_t th[N];
    const npk_rk_prec ins[N] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_FP16, NPK_PREC_INT4};
    const unsigned masks[N] = {1, 1, 0, 6};
    for (int i = 0; i < N; i++) {
        jobs[i] = (job){.in = ins[i], .mask = masks[i]};
        CHECK_EQ(npk_rk_open_shared("sim", &jobs[i].rt), NPK_OK);
    }
    CHECK_EQ(npk_rk_set_chain(jobs[0].rt, 4), NPK_EBUSY);
    CHECK_STR_HAS(npk_last_error(), "shared with other runtimes");
    CHECK_EQ(npk_rk_set_chain(jobs[0].rt, 1), NPK_OK);
    for (int i = 0; i < N; i++)
        pthread_create(&th[i], NULL, job_main, &jobs[i]);
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(jobs[i].bad, 0);
    }
    for (int i = 0; i < N; i++)
        npk_rk_close(jobs[i].rt);
}

int main(void)
{
    test_segments();
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    test_layouts(rt, NPK_PREC_FP16, 3, 100, 40);
    test_layouts(rt, NPK_PREC_INT8, 4, 64, 32);
    test_layouts(rt, NPK_PREC_INT4, 5, 96, 64);
    test_layouts(rt, NPK_PREC_FP16, 2, 8224, 16); /* two native segments */
    test_layouts(rt, NPK_PREC_INT8, 1, 10240, 32);
    npk_rk_close(rt);
    test_buffers();
    test_segments_in_place(NPK_PREC_FP16, 3, 8224, 16);
    test_segments_in_place(NPK_PREC_INT8, 2, 10240, 64);
    test_segments_in_place(NPK_PREC_INT8, 7, 1000, 32);
    test_core_mask();
    test_shared_threads();
    return check_done();
}
