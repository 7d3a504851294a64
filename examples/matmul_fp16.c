/* SPDX-License-Identifier: MIT */
/* fp16 matmul with resident weights: pack B once, multiply several A by it, check each result
 * against the exact product. Runs on the NPU when /dev/dri exposes rknpu, else the simulator.
 *
 *   cc matmul_fp16.c $(pkg-config --cflags --libs npukit) -o matmul_fp16 */
#include <stdio.h>
#include <stdlib.h>

#include <npukit/fp16.h>
#include <npukit/rk.h>
#include <npukit/rk_reference.h>
#include <npukit/version.h>

enum { M = 8, K = 256, N = 64, CALLS = 3 };

int main(void)
{
    static uint16_t a[M * K], b[K * N];
    static float c[M * N];
    for (int i = 0; i < K * N; i++)
        b[i] = npk_f32_to_f16((float)((i * 7) % 17 - 8) / 16.0f);
    npk_rk *rt;
    npk_rk_weights *w;
    if (npk_rk_open("auto", &rt) || npk_rk_weights_pack(rt, NPK_PREC_FP16, K, N, b, M, &w)) {
        fprintf(stderr, "npukit %s: %s\n", npk_version(), npk_last_error());
        return 1;
    }
    int bad = 0;
    for (int call = 0; call < CALLS; call++) { /* B stays in NPU memory between calls */
        for (int i = 0; i < M * K; i++)
            a[i] = npk_f32_to_f16((float)((i * 5 + call) % 13 - 6) / 8.0f);
        npk_rk_stats st;
        npk_rk_verdict v;
        if (npk_rk_matmul(rt, w, M, a, NPK_PREC_FP32, c, &st) ||
            npk_rk_check_matmul(NPK_PREC_FP16, NPK_PREC_FP32, M, K, N, a, b, c, &v)) {
            fprintf(stderr, "matmul: %s\n", npk_last_error());
            bad = 1;
            break;
        }
        printf("call %d: %u task(s), C[0][0] = %g, %llu of %d elements outside the error bound\n", call,
               st.tasks, c[0], (unsigned long long)v.outside, M * N);
        bad |= v.outside != 0;
    }
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    return bad;
}
