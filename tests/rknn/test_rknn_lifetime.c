/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Lifetimes in the compatible layer, as threaded clients meet them:
 *   - a mem destroyed by one thread while another thread's rknn_matmul_run uses it: the run
 *     keeps its operands (the destroy waits for it), later runs fail with an error code, and
 *     nothing reads freed memory (ASan in the sanitized build);
 *   - 5000 create/destroy cycles on one handle slot: a stale handle never names the live
 *     context that took its slot (a 12-bit generation wrapped after 4096). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "rknn_matmul_api.h"

typedef struct runner {
    rknn_matmul_ctx ctx;
    atomic_int runs;   /* successful runs */
    atomic_int failed; /* the code of the first failed run, 0 before it */
} runner;

/* Run until a run fails (its operand was destroyed) or 2000 runs. */
static void *run_loop(void *arg)
{
    runner *r = arg;
    for (int i = 0; i < 2000; i++) {
        int rc = rknn_matmul_run(r->ctx);
        if (rc) {
            atomic_store(&r->failed, rc);
            break;
        }
        atomic_fetch_add(&r->runs, 1);
    }
    return NULL;
}

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* One round: a runner thread on A, B, C; this thread destroys all three mid-stream. */
static void race_round(int round)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = 32, info.K = 512, info.N = 128, info.type = RKNN_INT8_MM_INT8_TO_INT32;
    info.B_layout = (int16_t)(round % 2 ? RKNN_MM_LAYOUT_NATIVE : RKNN_MM_LAYOUT_NORM);
    rknn_matmul_io_attr io;
    runner r = {0};
    CHECK_EQ(rknn_matmul_create(&r.ctx, &info, &io), RKNN_SUCC);
    rknn_tensor_mem *m[3] = {rknn_create_mem(r.ctx, io.A.size), rknn_create_mem(r.ctx, io.B.size),
                             rknn_create_mem(r.ctx, io.C.size)};
    CHECK(m[0] && m[1] && m[2]);
    if (!m[0] || !m[1] || !m[2])
        return;
    for (uint32_t i = 0; i < io.A.size; i++)
        ((int8_t *)m[0]->virt_addr)[i] = (int8_t)(i % 5 - 2);
    for (uint32_t i = 0; i < io.B.size; i++)
        ((int8_t *)m[1]->virt_addr)[i] = (int8_t)(i % 3 - 1);
    CHECK_EQ(rknn_matmul_set_io_mem(r.ctx, m[0], &io.A), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(r.ctx, m[1], &io.B), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(r.ctx, m[2], &io.C), RKNN_SUCC);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, run_loop, &r), 0);
    while (atomic_load(&r.runs) < 1 + round && !atomic_load(&r.failed))
        nap_us(200);
    nap_us(100 * round); /* land at different points of a run */
    /* the order varies too: C first in odd rounds */
    for (int i = 0; i < 3; i++)
        CHECK_EQ(rknn_destroy_mem(r.ctx, m[round % 2 ? 2 - i : i]), RKNN_SUCC);
    pthread_join(t, NULL);
    /* the runner stopped at the first run after the destroy, with the layer's error code */
    CHECK_EQ(atomic_load(&r.failed), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_run(r.ctx), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_destroy(r.ctx), RKNN_SUCC);
}

/* A sync of a mem another thread destroys: the sync completes or reports a dead mem. */
static void *sync_loop(void *arg)
{
    rknn_tensor_mem *mem = arg;
    for (int i = 0; i < 100000; i++)
        if (rknn_mem_sync(0, mem, RKNN_MEMORY_SYNC_BIDIRECTIONAL))
            break;
    return NULL;
}

static void test_sync_race(void)
{
    for (int round = 0; round < 4; round++) {
        rknn_tensor_mem *mem = rknn_create_mem(0, 1 << 20);
        CHECK(mem != NULL);
        if (!mem)
            return;
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, sync_loop, mem), 0);
        nap_us(500 + 300 * round);
        CHECK_EQ(rknn_destroy_mem(0, mem), RKNN_SUCC);
        pthread_join(t, NULL);
    }
}

static void test_stale_handles(void)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = 1, info.K = 32, info.N = 16, info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx first, live;
    CHECK_EQ(rknn_matmul_create(&first, &info, &io), RKNN_SUCC);
    live = first;
    int reused = 0;
    for (int cycle = 1; cycle <= 5000; cycle++) {
        CHECK_EQ(rknn_matmul_destroy(live) == RKNN_SUCC, 1);
        if (rknn_matmul_create(&live, &info, &io)) {
            CHECK(!"rknn_matmul_create");
            return;
        }
        reused += live == first;
    }
    CHECK_EQ(reused, 0);
    /* the first handle is dead, although its slot holds a live context */
    CHECK_EQ(rknn_matmul_set_core_mask(first, RKNN_NPU_CORE_AUTO), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_set_core_mask(live, RKNN_NPU_CORE_AUTO), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_destroy(first), RKNN_ERR_CTX_INVALID);
    CHECK_EQ(rknn_matmul_destroy(live), RKNN_SUCC);
}

int main(void)
{
    for (int round = 0; round < 6; round++)
        race_round(round);
    test_sync_race();
    test_stale_handles();
    return check_done();
}
