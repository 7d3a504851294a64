/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The compatible rknn_matmul_* interface, through librknnrt.so only: the io attributes the
 * documentation gives, bad input as error codes, and programs in the style of its open users
 * (one B shared by several contexts, operands re-bound every call, a context per core, many
 * contexts, B rewritten between runs, dynamic shapes, quantised types). Results against a CPU
 * reference, exact. */
#include <pthread.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/status.h" /* npk_last_error, exported by librknnrt.so */
#include "rknn_matmul_api.h"

static uint64_t seed = 11;
static int8_t rnd8(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (int8_t)(seed >> 40);
}

static rknn_matmul_info make_info(rknn_matmul_type t, int m, int k, int n, int bl, int al)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = m, info.K = k, info.N = n, info.type = t;
    info.B_layout = (int16_t)bl, info.AC_layout = (int16_t)al;
    return info;
}

/* C = A . B over int8 row-major, in int64. */
static void ref_i8(const int8_t *a, const int8_t *b, int m, int k, int n, int64_t *c)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            int64_t s = 0;
            for (int x = 0; x < k; x++)
                s += a[i * k + x] * b[x * n + j];
            c[i * n + j] = s;
        }
}

static int same_i32(const int32_t *got, const int64_t *want, int count)
{
    for (int i = 0; i < count; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

static void fill8(void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((int8_t *)p)[i] = rnd8();
}

static void test_attrs(void)
{
    rknn_matmul_ctx ctx;
    rknn_matmul_io_attr io;
    rknn_matmul_info info = make_info(RKNN_INT4_MM_INT4_TO_INT16, 3, 64, 128, 0, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    CHECK(!strcmp(io.A.name, "A") && !strcmp(io.B.name, "B") && !strcmp(io.C.name, "C"));
    CHECK_EQ(io.A.n_dims, 2);
    CHECK_EQ(io.A.dims[0], 3);
    CHECK_EQ(io.A.dims[1], 64);
    CHECK_EQ(io.A.size, 3 * 64 / 2);
    CHECK_EQ(io.A.type, RKNN_TENSOR_INT4);
    CHECK_EQ(io.B.size, 64 * 128 / 2);
    CHECK_EQ(io.C.size, 3 * 128 * 2);
    CHECK_EQ(io.C.type, RKNN_TENSOR_INT16);
    CHECK_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
    info = make_info(RKNN_INT4_MM_INT4_TO_INT16, 3, 64, 128, 1, 1);
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    uint32_t a4[] = {2, 3, 32}, b4[] = {2, 2, 64, 32}, c4[] = {16, 3, 8};
    CHECK_EQ(io.A.n_dims, 3);
    CHECK(!memcmp(io.A.dims, a4, sizeof a4));
    CHECK_EQ(io.B.n_dims, 4);
    CHECK(!memcmp(io.B.dims, b4, sizeof b4));
    CHECK(!memcmp(io.C.dims, c4, sizeof c4));
    CHECK_EQ(io.C.size, 16 * 3 * 8 * 2);
    rknn_matmul_destroy(ctx);
    info = make_info(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 5, 96, 48, 1, 1);
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    uint32_t a1[] = {12, 5, 8}, b1[] = {3, 3, 16, 32}, c1[] = {12, 5, 4};
    CHECK(!memcmp(io.A.dims, a1, sizeof a1));
    CHECK(!memcmp(io.B.dims, b1, sizeof b1));
    CHECK(!memcmp(io.C.dims, c1, sizeof c1));
    CHECK_EQ(io.A.size, 5 * 96 * 2);
    CHECK_EQ(io.C.size, 5 * 48 * 4);
    CHECK_EQ(io.C.type, RKNN_TENSOR_FLOAT32);
    rknn_matmul_destroy(ctx);
    info = make_info(RKNN_INT8_MM_INT8_TO_INT8, 5, 96, 64, 2, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    CHECK_EQ(io.B.dims[0], 64);
    CHECK_EQ(io.B.dims[1], 96);
    CHECK_EQ(io.C.size, 5 * 64);
    CHECK_EQ(io.C.type, RKNN_TENSOR_INT8);
    rknn_matmul_destroy(ctx);
}

static void test_bad_input(void)
{
    rknn_matmul_ctx ctx;
    rknn_matmul_io_attr io;
    rknn_matmul_info info = make_info(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 64, 0, 0);
    CHECK_EQ(rknn_matmul_create(NULL, &info, &io), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_create(&ctx, NULL, &io), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_create(&ctx, &info, NULL), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "NULL io_attr");
    for (int t = 5; t <= 12; t++) {
        if (t == 9 || t == 10)
            continue;
        rknn_matmul_info bad = make_info((rknn_matmul_type)t, 4, 64, 64, 0, 0);
        CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
        CHECK_STR_HAS(npk_last_error(), "in this platform");
    }
    rknn_matmul_info bad = make_info((rknn_matmul_type)13, 4, 64, 64, 0, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
    bad = make_info(RKNN_INT8_MM_INT8_TO_INT32, 4, 10272, 64, 0, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "K=10272 exceeds the K limit 10240");
    bad = make_info(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 48, 0, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "N=48 must be a multiple of 32");
    bad = make_info(RKNN_INT8_MM_INT8_TO_INT32, 0, 64, 64, 0, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
    bad = make_info(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 64, 3, 0);
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
    bad = make_info(RKNN_INT8_MM_INT8_TO_INT32, 4, 64, 64, 0, 2);
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);
    bad.AC_layout = 0, bad.AC_quant_type = 1;
    CHECK_EQ(rknn_matmul_create(&ctx, &bad, &io), RKNN_ERR_PARAM_INVALID);

    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "A is not bound");
    rknn_tensor_mem *small = rknn_create_mem(ctx, io.A.size - 1);
    rknn_tensor_mem *a = rknn_create_mem(ctx, io.A.size), *b = rknn_create_mem(ctx, io.B.size);
    rknn_tensor_mem *c = rknn_create_mem(ctx, io.C.size);
    CHECK(small && a && b && c);
    CHECK(rknn_create_mem(ctx, 0) == NULL);
    CHECK(rknn_create_mem2(ctx, 64, 0x100) == NULL);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, small, &io.A), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "A needs 256 bytes");
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, NULL, &io.A), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, a, NULL), RKNN_ERR_PARAM_INVALID);
    rknn_matmul_tensor_attr x = io.A;
    strcpy(x.name, "X");
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, a, &x), RKNN_ERR_PARAM_INVALID);
    rknn_tensor_mem fake = *a; /* a copy is not a mem made here */
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, &fake, &io.A), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, c, &io.C), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_core_mask(ctx, (rknn_core_mask)8), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_ALL), RKNN_SUCC);
    rknn_matmul_shape sh = {5, 64, 64};
    CHECK_EQ(rknn_matmul_set_dynamic_shape(ctx, &sh), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_set_dynamic_shape(ctx, NULL), RKNN_ERR_PARAM_INVALID);
    rknn_quant_params q;
    memset(&q, 0, sizeof q);
    float two[2] = {1, 1};
    strcpy(q.name, "B");
    q.scale = two, q.scale_len = 2;
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "per layer");
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, NULL), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_mem_sync(ctx, a, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC);
    CHECK_EQ(rknn_mem_sync(ctx, a, (rknn_mem_sync_mode)9), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
    /* A mem destroyed while bound: the run says so. */
    CHECK_EQ(rknn_destroy_mem(ctx, a), RKNN_SUCC);
    CHECK_EQ(rknn_destroy_mem(ctx, a), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_mem_sync(ctx, a, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "the mem bound as A was destroyed");
    /* A context used after destroy. */
    CHECK_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_ERR_CTX_INVALID);
    CHECK_STR_HAS(npk_last_error(), "is not a live matmul context");
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_set_dynamic_shape(ctx, &sh), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_destroy(ctx), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_run(0), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_run((rknn_matmul_ctx)0xdeadbeef), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_B_normal_layout_to_native_layout(NULL, b->virt_addr, 64, 64, &info),
             RKNN_ERR_PARAM_INVALID);
    rknn_destroy_mem(0, b);
    rknn_destroy_mem(0, c);
    rknn_destroy_mem(0, small);
}

/* One native B shared by three contexts of different M, freed through another than the one
 * that made it; A and C re-bound before every run. */
static void test_shared_b_rebinding(void)
{
    const int k = 128, n = 64, ms[3] = {1, 7, 33};
    rknn_matmul_ctx ctx[3];
    rknn_matmul_io_attr io[3];
    for (int i = 0; i < 3; i++) {
        rknn_matmul_info info = make_info(RKNN_INT8_MM_INT8_TO_INT32, ms[i], k, n, 1, 0);
        CHECK_EQ(rknn_matmul_create(&ctx[i], &info, &io[i]), RKNN_SUCC);
    }
    int8_t b[128 * 64];
    fill8(b, sizeof b);
    rknn_matmul_info info0 = make_info(RKNN_INT8_MM_INT8_TO_INT32, 1, k, n, 1, 0);
    rknn_tensor_mem *bm = rknn_create_mem(ctx[0], io[0].B.size);
    CHECK_EQ(rknn_B_normal_layout_to_native_layout(b, bm->virt_addr, k, n, &info0), RKNN_SUCC);
    rknn_tensor_mem *am[2], *cm[2];
    for (int s = 0; s < 2; s++) {
        am[s] = rknn_create_mem(ctx[1], 33 * k);
        cm[s] = rknn_create_mem(ctx[2], 33 * n * 4);
    }
    for (int i = 0; i < 3; i++)
        CHECK_EQ(rknn_matmul_set_io_mem(ctx[i], bm, &io[i].B), RKNN_SUCC);
    int64_t ref[33 * 64];
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < 3; i++) {
            int s = (round + i) & 1;
            fill8(am[s]->virt_addr, (size_t)ms[i] * k);
            memset(cm[s]->virt_addr, 0x5a, (size_t)ms[i] * n * 4);
            CHECK_EQ(rknn_matmul_set_io_mem(ctx[i], am[s], &io[i].A), RKNN_SUCC);
            CHECK_EQ(rknn_matmul_set_io_mem(ctx[i], cm[s], &io[i].C), RKNN_SUCC);
            CHECK_EQ(rknn_matmul_run(ctx[i]), RKNN_SUCC);
            ref_i8(am[s]->virt_addr, b, ms[i], k, n, ref);
            CHECK(same_i32(cm[s]->virt_addr, ref, ms[i] * n));
        }
    CHECK_EQ(rknn_destroy_mem(ctx[2], bm), RKNN_SUCC); /* made through ctx[0] */
    CHECK_EQ(rknn_matmul_run(ctx[1]), RKNN_ERR_PARAM_INVALID);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(rknn_matmul_destroy(ctx[i]), RKNN_SUCC);
    for (int s = 0; s < 2; s++) {
        CHECK_EQ(rknn_destroy_mem(0, am[s]), RKNN_SUCC);
        CHECK_EQ(rknn_destroy_mem(0, cm[s]), RKNN_SUCC);
    }
}

/* A context per core, each pinned, driven from its own thread. */
typedef struct core_job {
    int core;
    int bad;
} core_job;

static void *core_main(void *arg)
{
    core_job *j = arg;
    const int m = 9, k = 256, n = 96;
    rknn_matmul_ctx ctx;
    rknn_matmul_io_attr io;
    rknn_matmul_info info = make_info(RKNN_INT8_MM_INT8_TO_INT32, m, k, n, 0, 0);
    if (rknn_matmul_create(&ctx, &info, &io) ||
        rknn_matmul_set_core_mask(ctx, (rknn_core_mask)(1 << j->core))) {
        j->bad = 1;
        return NULL;
    }
    rknn_tensor_mem *a = rknn_create_mem(ctx, io.A.size), *b = rknn_create_mem(ctx, io.B.size);
    rknn_tensor_mem *c = rknn_create_mem(ctx, io.C.size);
    int64_t *ref = malloc(sizeof(int64_t) * m * n);
    rknn_matmul_set_io_mem(ctx, a, &io.A);
    rknn_matmul_set_io_mem(ctx, b, &io.B);
    rknn_matmul_set_io_mem(ctx, c, &io.C);
    for (int it = 0; it < 8; it++) {
        uint32_t x = (uint32_t)(j->core * 7919 + it); /* per thread: the shared one would race */
        for (uint32_t e = 0; e < io.A.size + io.B.size; e++) {
            x = x * 1103515245u + 12345u;
            int8_t v = (int8_t)(x >> 16);
            if (e < io.A.size)
                ((int8_t *)a->virt_addr)[e] = v;
            else
                ((int8_t *)b->virt_addr)[e - io.A.size] = v;
        }
        int8_t *av = malloc(io.A.size), *bv = malloc(io.B.size);
        memcpy(av, a->virt_addr, io.A.size);
        memcpy(bv, b->virt_addr, io.B.size);
        if (rknn_matmul_run(ctx))
            j->bad++;
        ref_i8(av, bv, m, k, n, ref);
        j->bad += !same_i32(c->virt_addr, ref, m * n);
        free(av);
        free(bv);
    }
    free(ref);
    rknn_destroy_mem(ctx, a);
    rknn_destroy_mem(ctx, b);
    rknn_destroy_mem(ctx, c);
    rknn_matmul_destroy(ctx);
    return NULL;
}

static void test_context_per_core(void)
{
    core_job jobs[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        jobs[i] = (core_job){i, 0};
        pthread_create(&th[i], NULL, core_main, &jobs[i]);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(jobs[i].bad, 0);
    }
}

/* Many contexts alive at once, each with its own operands. */
static void test_many_contexts(void)
{
    enum { N = 40 };
    rknn_matmul_ctx ctx[N];
    rknn_matmul_io_attr io[N];
    rknn_tensor_mem *mem[N][3];
    for (int i = 0; i < N; i++) {
        rknn_matmul_info info = make_info(RKNN_INT8_MM_INT8_TO_INT32, 1 + i, 64, 32, i % 3, 0);
        CHECK_EQ(rknn_matmul_create(&ctx[i], &info, &io[i]), RKNN_SUCC);
        mem[i][0] = rknn_create_mem(ctx[i], io[i].A.size);
        mem[i][1] = rknn_create_mem(ctx[i], io[i].B.size);
        mem[i][2] = rknn_create_mem(ctx[i], io[i].C.size);
        fill8(mem[i][0]->virt_addr, io[i].A.size);
        memset(mem[i][1]->virt_addr, 0, io[i].B.size);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx[i], mem[i][0], &io[i].A), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx[i], mem[i][1], &io[i].B), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx[i], mem[i][2], &io[i].C), RKNN_SUCC);
    }
    /* B = all ones in every layout: C[r][j] is the sum of A's row r. */
    for (int i = 0; i < N; i++) {
        int8_t ones[64 * 32];
        memset(ones, 1, sizeof ones);
        rknn_matmul_info info = make_info(RKNN_INT8_MM_INT8_TO_INT32, 1 + i, 64, 32, i % 3, 0);
        if (i % 3 == 1)
            rknn_B_normal_layout_to_native_layout(ones, mem[i][1]->virt_addr, 64, 32, &info);
        else
            memcpy(mem[i][1]->virt_addr, ones, sizeof ones);
    }
    int bad = 0;
    for (int i = N - 1; i >= 0; i--) {
        CHECK_EQ(rknn_matmul_run(ctx[i]), RKNN_SUCC);
        const int8_t *a = mem[i][0]->virt_addr;
        const int32_t *c = mem[i][2]->virt_addr;
        for (int r = 0; r <= i; r++) {
            int32_t s = 0;
            for (int x = 0; x < 64; x++)
                s += a[r * 64 + x];
            for (int j = 0; j < 32; j++)
                bad += c[r * 32 + j] != s;
        }
    }
    CHECK_EQ(bad, 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(rknn_matmul_destroy(ctx[i]), RKNN_SUCC);
        for (int j = 0; j < 3; j++)
            CHECK_EQ(rknn_destroy_mem(ctx[(i + 1) % N], mem[i][j]), RKNN_SUCC);
    }
}

/* The NPU reads B at every run: rewriting B's bytes between runs gives the new result, in
 * every layout, for int8 and for int4 (two elements a byte). */
static void test_b_rewritten(void)
{
    const int m = 3, k = 64, n = 64;
    for (int t = 0; t < 2; t++) {
        rknn_matmul_type type = t ? RKNN_INT4_MM_INT4_TO_INT16 : RKNN_INT8_MM_INT8_TO_INT32;
        for (int bl = 0; bl < 3; bl++) {
            rknn_matmul_ctx ctx;
            rknn_matmul_io_attr io;
            rknn_matmul_info info = make_info(type, m, k, n, bl, 0);
            CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
            rknn_tensor_mem *a = rknn_create_mem(ctx, io.A.size);
            rknn_tensor_mem *b = rknn_create_mem(ctx, io.B.size);
            rknn_tensor_mem *c = rknn_create_mem(ctx, io.C.size);
            rknn_matmul_set_io_mem(ctx, a, &io.A);
            rknn_matmul_set_io_mem(ctx, b, &io.B);
            rknn_matmul_set_io_mem(ctx, c, &io.C);
            /* A = e0 (row r picks B's row r... of K): A[r][x] = (x == r). */
            memset(a->virt_addr, 0, io.A.size);
            for (int r = 0; r < m; r++) {
                size_t e = (size_t)r * k + r;
                if (t)
                    ((uint8_t *)a->virt_addr)[e / 2] |= (uint8_t)(1u << (4 * (e & 1)));
                else
                    ((int8_t *)a->virt_addr)[e] = 1;
            }
            for (int v = 1; v <= 3; v++) {
                /* B = all v: every C element is v. */
                int8_t bn[64 * 64];
                memset(bn, v, sizeof bn);
                uint8_t packed[64 * 64];
                for (size_t e = 0; e < (size_t)k * n; e++)
                    packed[e / 2] = (uint8_t)(e & 1 ? packed[e / 2] | v << 4 : v);
                const void *normal = t ? (const void *)packed : (const void *)bn;
                if (bl == 1)
                    CHECK_EQ(rknn_B_normal_layout_to_native_layout((void *)normal, b->virt_addr,
                                                                   k, n, &info), RKNN_SUCC);
                else
                    memcpy(b->virt_addr, normal, io.B.size);
                CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
                int bad = 0;
                for (int e = 0; e < m * n; e++)
                    bad += (t ? ((int16_t *)c->virt_addr)[e] : ((int32_t *)c->virt_addr)[e]) != v;
                CHECK_EQ(bad, 0);
            }
            rknn_destroy_mem(ctx, a);
            rknn_destroy_mem(ctx, b);
            rknn_destroy_mem(ctx, c);
            rknn_matmul_destroy(ctx);
        }
    }
}

/* Dynamic shapes: one context, M of 1, 4 and 19. */
static void test_dynamic_shapes(void)
{
    rknn_matmul_shape shapes[3] = {{1, 96, 32}, {4, 96, 32}, {19, 96, 32}};
    rknn_matmul_io_attr io[3];
    rknn_matmul_ctx ctx;
    rknn_matmul_info info = make_info(RKNN_INT8_MM_INT8_TO_INT32, 0, 0, 0, 0, 1);
    rknn_matmul_shape bad[2] = {{1, 96, 32}, {4, 128, 32}};
    CHECK_EQ(rknn_matmul_create_dynamic_shape(&ctx, &info, 2, bad, io), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "only M may differ");
    CHECK_EQ(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io), RKNN_SUCC);
    CHECK_EQ(io[2].A.dims[1], 19);
    rknn_tensor_mem *a = rknn_create_mem(ctx, io[2].A.size), *b = rknn_create_mem(ctx, io[2].B.size);
    rknn_tensor_mem *c = rknn_create_mem(ctx, io[2].C.size);
    int8_t arows[19 * 96], brows[96 * 32];
    fill8(brows, sizeof brows);
    memcpy(b->virt_addr, brows, sizeof brows);
    int64_t ref[19 * 32];
    for (int s = 2; s >= 0; s--) {
        CHECK_EQ(rknn_matmul_set_dynamic_shape(ctx, &shapes[s]), RKNN_SUCC);
        int m = shapes[s].M;
        fill8(arows, sizeof arows);
        /* native A (K/16, M, 16) and native C (N/4, M, 4) */
        for (int i = 0; i < m; i++)
            for (int x = 0; x < 96; x++)
                ((int8_t *)a->virt_addr)[((x / 16) * m + i) * 16 + x % 16] = arows[i * 96 + x];
        CHECK_EQ(rknn_matmul_set_io_mem(ctx, a, &io[s].A), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx, b, &io[s].B), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx, c, &io[s].C), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
        ref_i8(arows, brows, m, 96, 32, ref);
        int badc = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < 32; j++)
                badc += ((int32_t *)c->virt_addr)[((j / 4) * m + i) * 4 + j % 4] != ref[i * 32 + j];
        CHECK_EQ(badc, 0);
    }
    rknn_destroy_mem(ctx, a);
    rknn_destroy_mem(ctx, b);
    rknn_destroy_mem(ctx, c);
    rknn_matmul_destroy(ctx);
}

/* Types 3 and 9 with B quantised per channel, asymmetric: the host stage's formula. */
static void test_quant_per_channel(void)
{
    const int m = 6, k = 64, n = 32;
    for (int t = 0; t < 2; t++) {
        rknn_matmul_type type = t ? RKNN_INT8_MM_INT8_TO_FLOAT32 : RKNN_INT8_MM_INT8_TO_INT8;
        rknn_matmul_info info = make_info(type, m, k, n, 0, 0);
        info.B_quant_type = RKNN_QUANT_TYPE_PER_CHANNEL_ASYM;
        rknn_matmul_ctx ctx;
        rknn_matmul_io_attr io;
        CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
        float sa = 0.02f, sc = 3.0f, sb[32];
        int32_t zb[32], zc = 5;
        for (int j = 0; j < n; j++)
            sb[j] = 0.01f * (1 + j % 5), zb[j] = j % 7 - 3;
        rknn_quant_params q;
        memset(&q, 0, sizeof q);
        strcpy(q.name, "A");
        q.scale = &sa, q.scale_len = 1;
        CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
        strcpy(q.name, "B");
        q.scale = sb, q.scale_len = n, q.zp = zb, q.zp_len = n;
        CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
        strcpy(q.name, "C");
        q.scale = &sc, q.scale_len = 1, q.zp = &zc, q.zp_len = 1;
        CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
        rknn_quant_params got;
        memset(&got, 0, sizeof got);
        strcpy(got.name, "B");
        float scale = 0;
        CHECK_EQ(rknn_matmul_get_quant_params(ctx, &got, &scale), RKNN_SUCC);
        CHECK_EQ(got.scale_len, n);
        CHECK(got.scale[4] == sb[4] && got.zp[4] == zb[4]);
        CHECK(scale == sa * sb[0]);
        rknn_tensor_mem *a = rknn_create_mem(ctx, io.A.size), *b = rknn_create_mem(ctx, io.B.size);
        rknn_tensor_mem *c = rknn_create_mem(ctx, io.C.size);
        fill8(a->virt_addr, io.A.size);
        fill8(b->virt_addr, io.B.size);
        rknn_matmul_set_io_mem(ctx, a, &io.A);
        rknn_matmul_set_io_mem(ctx, b, &io.B);
        rknn_matmul_set_io_mem(ctx, c, &io.C);
        CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
        int bad = 0;
        const int8_t *av = a->virt_addr, *bv = b->virt_addr;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double real = 0;
                for (int x = 0; x < k; x++)
                    real += (double)sa * av[i * k + x] * sb[j] * (bv[x * n + j] - zb[j]);
                if (t) {
                    bad += fabs(((float *)c->virt_addr)[i * n + j] - real) > 1e-4 * (1 + fabs(real));
                } else {
                    double want = fmin(127, fmax(-128, nearbyint(real / sc) + zc));
                    bad += ((int8_t *)c->virt_addr)[i * n + j] != want;
                }
            }
        CHECK_EQ(bad, 0);
        rknn_destroy_mem(ctx, a);
        rknn_destroy_mem(ctx, b);
        rknn_destroy_mem(ctx, c);
        rknn_matmul_destroy(ctx);
    }
}

int main(void)
{
    test_attrs();
    test_bad_input();
    test_shared_b_rebinding();
    test_context_per_core();
    test_many_contexts();
    test_b_rewritten();
    test_dynamic_shapes();
    test_quant_per_channel();
    return check_done();
}
