/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* The multitask form's program shape, as the vendor's int4 capture has it (spec "TWO distinct
 * batch mechanisms": "task[0,1] full (108 regs), task[2+] lightweight ... incremental"): a
 * core's tasks 0 and 1 carry the whole body, later ones only the registers that differ — and
 * the result still matches the CPU. */
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/runtime/runtime_internal.h"

enum { M = 8, K = 8192, N = 64 };

int main(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_cores(rt, 1), NPK_OK);
    CHECK_EQ(npk_rk_set_submission(rt, "multitask"), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)K * N * 2);
    float *c = malloc((size_t)M * N * 4);
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = npk_f32_to_f16((float)((int)(i % 7) - 3));
    for (size_t i = 0; i < (size_t)K * N; i++)
        b[i] = npk_f32_to_f16((float)((int)(i % 5) - 2));
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, K, N, b, 64, &w), NPK_OK); /* K slices */
    npk_rk_stats st;
    CHECK_EQ(npk_rk_matmul(rt, w, M, a, NPK_PREC_FP32, c, &st), NPK_OK);
    CHECK(st.tasks >= 3); /* a job of at least three tasks on the core */
    const struct rknpu_task *rec = rt->core[rt->core_map[0]].task.host;
    CHECK_EQ(rec[0].regcfg_amount, NPK_RK_MATMUL_BODY);
    CHECK_EQ(rec[1].regcfg_amount, NPK_RK_MATMUL_BODY);
    CHECK(rec[2].regcfg_amount < NPK_RK_MATMUL_BODY); /* incremental */
    size_t bad = 0;
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            double ref = 0;
            for (uint32_t k = 0; k < K; k++)
                ref += npk_f16_to_f32(a[(size_t)i * K + k]) * npk_f16_to_f32(b[(size_t)k * N + j]);
            bad += c[(size_t)i * N + j] != (float)ref;
        }
    CHECK_EQ(bad, 0);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(c);
    return check_done();
}
