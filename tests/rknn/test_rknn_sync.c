/* SPDX-License-Identifier: MIT */
/* rknn_mem_sync never loses data: a client-shaped program (B written and bound once, A
 * rewritten before every call, C read after it) runs every documented sequence of sync calls
 * (none, TO_DEVICE before the run, FROM_DEVICE after it, both, repeated, BIDIRECTIONAL) on A, B
 * and C, for memory from rknn_create_mem and rknn_create_mem2 (cacheable, non-cacheable,
 * default), for fp16 and int8 with B in the normal and the native layout. After each run C must
 * equal a CPU reference and A and B must still hold what the program wrote, in the CPU's view.
 *
 * The kernel is whatever NPUKIT_RK_DEVICE names: the test is registered for the simulator's
 * rknpu and rocket front ends in process, and (built without sanitizers) for /dev/dri/card1
 * and /dev/accel/accel0 under the LD_PRELOAD shim. */
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "rknn_matmul_api.h"

/* fp16 bits of a small integer (exactly representable; |v| < 2048). */
static uint16_t half_of_int(int v)
{
    if (!v)
        return 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned m = (unsigned)(v < 0 ? -v : v), e = 0;
    while ((m >> e) > 1)
        e++;
    /* value = 2^e * (1 + frac/1024) */
    unsigned frac = (unsigned)(((m - (1u << e)) << 10) >> e);
    return (uint16_t)(sign | ((e + 15) << 10) | frac);
}

static uint64_t seed = 5;
static int small(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((seed >> 33) % 7) - 3; /* -3 .. 3: fp32 sums stay exact */
}

enum { MAX_SYNCS = 2 };
/* A sequence of syncs a client makes around a run, on each of A, B and C. */
typedef struct sync_pattern {
    const char *name;
    rknn_mem_sync_mode before[MAX_SYNCS], after[MAX_SYNCS]; /* 0 ends a list */
} sync_pattern;

static const sync_pattern patterns[] = {
    {"none", {0}, {0}},
    {"to-device before", {RKNN_MEMORY_SYNC_TO_DEVICE}, {0}},
    {"from-device after", {0}, {RKNN_MEMORY_SYNC_FROM_DEVICE}},
    {"both", {RKNN_MEMORY_SYNC_TO_DEVICE}, {RKNN_MEMORY_SYNC_FROM_DEVICE}},
    {"repeated",
     {RKNN_MEMORY_SYNC_TO_DEVICE, RKNN_MEMORY_SYNC_TO_DEVICE},
     {RKNN_MEMORY_SYNC_FROM_DEVICE, RKNN_MEMORY_SYNC_FROM_DEVICE}},
    {"bidirectional", {RKNN_MEMORY_SYNC_BIDIRECTIONAL}, {RKNN_MEMORY_SYNC_BIDIRECTIONAL}},
    {"bidirectional after", {0}, {RKNN_MEMORY_SYNC_BIDIRECTIONAL}},
};

/* How a client gets its memory. */
typedef struct mem_kind {
    const char *name;
    int create2;
    uint64_t flags;
} mem_kind;

static const mem_kind kinds[] = {
    {"rknn_create_mem", 0, 0},
    {"rknn_create_mem2 CACHEABLE", 1, RKNN_FLAG_MEMORY_CACHEABLE},
    {"rknn_create_mem2 NON_CACHEABLE", 1, RKNN_FLAG_MEMORY_NON_CACHEABLE},
    {"rknn_create_mem2 0", 1, 0},
};

typedef struct mm_case {
    rknn_matmul_type type;
    int b_layout;
    int m, k, n;
} mm_case;

static const mm_case cases[] = {
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_MM_LAYOUT_NORM, 1, 32,
     16}, /* the shape that lost C */
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_MM_LAYOUT_NATIVE, 3, 64, 32},
    {RKNN_INT8_MM_INT8_TO_INT32, RKNN_MM_LAYOUT_NORM, 2, 64, 32},
    {RKNN_INT8_MM_INT8_TO_INT32, RKNN_MM_LAYOUT_NATIVE, 5, 96, 64},
};

static rknn_tensor_mem *alloc(rknn_matmul_ctx ctx, const mem_kind *k, uint32_t size)
{
    return k->create2 ? rknn_create_mem2(ctx, size, k->flags) : rknn_create_mem(ctx, size);
}

static int sync_all(rknn_matmul_ctx ctx, rknn_tensor_mem *const mems[3],
                    const rknn_mem_sync_mode *modes)
{
    int rc = 0;
    for (int i = 0; i < MAX_SYNCS && modes[i]; i++)
        for (int t = 0; t < 3; t++)
            rc |= rknn_mem_sync(ctx, mems[t], modes[i]);
    return rc;
}

/* One client: B once, then three calls with a new A each; every check counted. */
static void run_client(const mm_case *mc, const mem_kind *kind, const sync_pattern *p)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = mc->m, info.K = mc->k, info.N = mc->n, info.type = mc->type;
    info.B_layout = (int16_t)mc->b_layout;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    if (rknn_matmul_create(&ctx, &info, &io)) {
        CHECK(!"rknn_matmul_create");
        return;
    }
    const bool fp16 = mc->type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    const int m = mc->m, k = mc->k, n = mc->n;
    const size_t eb = fp16 ? 2 : 1;
    int *av = malloc(sizeof(int) * (size_t)m * k), *bv = malloc(sizeof(int) * (size_t)k * n);
    uint8_t *a_bytes = malloc((size_t)m * k * eb), *b_rows = malloc((size_t)k * n * eb);
    uint8_t *b_bytes = malloc(io.B.size);
    rknn_tensor_mem *mems[3] = {alloc(ctx, kind, io.A.size), alloc(ctx, kind, io.B.size),
                                alloc(ctx, kind, io.C.size)};
    bool ok = av && bv && a_bytes && b_rows && b_bytes && mems[0] && mems[1] && mems[2];
    CHECK(ok);
    for (int i = 0; ok && i < k * n; i++) {
        bv[i] = mc->m == 1 ? 1 : small(); /* all ones: C[0] = K */
        if (fp16)
            ((uint16_t *)b_rows)[i] = half_of_int(bv[i]);
        else
            ((int8_t *)b_rows)[i] = (int8_t)bv[i];
    }
    if (ok && mc->b_layout == RKNN_MM_LAYOUT_NATIVE)
        ok = !rknn_B_normal_layout_to_native_layout(b_rows, b_bytes, k, n, &info);
    else if (ok)
        memcpy(b_bytes, b_rows, io.B.size);
    if (ok) {
        memcpy(mems[1]->virt_addr, b_bytes, io.B.size);
        ok = !rknn_matmul_set_io_mem(ctx, mems[0], &io.A) &&
             !rknn_matmul_set_io_mem(ctx, mems[1], &io.B) &&
             !rknn_matmul_set_io_mem(ctx, mems[2], &io.C);
        CHECK(ok);
    }
    int bad = 0;
    for (int call = 0; ok && call < 3; call++) {
        for (int i = 0; i < m * k; i++) {
            av[i] = mc->m == 1 ? 1 : small();
            if (fp16)
                ((uint16_t *)a_bytes)[i] = half_of_int(av[i]);
            else
                ((int8_t *)a_bytes)[i] = (int8_t)av[i];
        }
        memcpy(mems[0]->virt_addr, a_bytes, io.A.size);
        int rc = sync_all(ctx, mems, p->before);
        rc |= rknn_matmul_run(ctx);
        rc |= sync_all(ctx, mems, p->after);
        if (rc) {
            CHECK(!"sync or run failed");
            break;
        }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                long want = 0;
                for (int x = 0; x < k; x++)
                    want += (long)av[i * k + x] * bv[x * n + j];
                const void *c = mems[2]->virt_addr;
                long got = fp16 ? (long)((const float *)c)[i * n + j]
                                : (long)((const int32_t *)c)[i * n + j];
                if (got != want && bad++ < 3)
                    fprintf(stderr,
                            "%s, %s, %s, type %d B layout %d, call %d: C[%d][%d] = %ld, "
                            "want %ld\n",
                            p->name, kind->name, getenv("NPUKIT_RK_DEVICE"), mc->type, mc->b_layout,
                            call, i, j, got, want);
            }
        if (memcmp(mems[0]->virt_addr, a_bytes, io.A.size) && bad++ < 3)
            fprintf(stderr, "%s, %s: A changed in the CPU's view\n", p->name, kind->name);
        if (memcmp(mems[1]->virt_addr, b_bytes, io.B.size) && bad++ < 3)
            fprintf(stderr, "%s, %s: B changed in the CPU's view\n", p->name, kind->name);
    }
    CHECK_EQ(bad, 0);
    for (int t = 0; t < 3; t++)
        if (mems[t])
            CHECK_EQ(rknn_destroy_mem(ctx, mems[t]), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
    free(av);
    free(bv);
    free(a_bytes);
    free(b_rows);
    free(b_bytes);
}

/* The smallest program that lost C: C[0] before and after a FROM_DEVICE sync. */
static void test_c_survives_sync(void)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = 1, info.K = 32, info.N = 16, info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    rknn_tensor_mem *a = rknn_create_mem(ctx, io.A.size), *b = rknn_create_mem(ctx, io.B.size);
    rknn_tensor_mem *c = rknn_create_mem(ctx, io.C.size);
    for (uint32_t i = 0; i < io.A.size / 2; i++)
        ((uint16_t *)a->virt_addr)[i] = 0x3c00; /* 1.0 */
    for (uint32_t i = 0; i < io.B.size / 2; i++)
        ((uint16_t *)b->virt_addr)[i] = 0x3c00;
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, c, &io.C), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
    float before = ((float *)c->virt_addr)[0];
    CHECK_EQ(rknn_mem_sync(ctx, c, RKNN_MEMORY_SYNC_FROM_DEVICE), RKNN_SUCC);
    float after = ((float *)c->virt_addr)[0];
    CHECK(before == 32.0f);
    CHECK(after == 32.0f);
    rknn_destroy_mem(ctx, a);
    rknn_destroy_mem(ctx, b);
    rknn_destroy_mem(ctx, c);
    rknn_matmul_destroy(ctx);
}

int main(void)
{
    test_c_survives_sync();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++)
                run_client(&cases[c], &kinds[k], &patterns[p]);
    return check_done();
}
