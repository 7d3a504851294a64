/* SPDX-License-Identifier: MIT */
/* int8 matmul with resident weights, int32 results that must be exact.
 *
 *   cc matmul_int8.c $(pkg-config --cflags --libs npukit) -o matmul_int8 */
#include <stdio.h>

#include <npukit/rk.h>
#include <npukit/rk_reference.h>

enum { M = 4, K = 512, N = 64 };

int main(void)
{
    static int8_t a[M * K], b[K * N];
    static int32_t c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (int8_t)(i * 31 % 255 - 127);
    for (int i = 0; i < K * N; i++)
        b[i] = (int8_t)(i * 17 % 251 - 125);
    npk_rk *rt;
    npk_rk_weights *w;
    npk_rk_stats st;
    npk_rk_verdict v;
    if (npk_rk_open("auto", &rt) || npk_rk_weights_pack(rt, NPK_PREC_INT8, K, N, b, M, &w)) {
        fprintf(stderr, "%s\n", npk_last_error());
        return 1;
    }
    int rc = 1;
    if (npk_rk_matmul(rt, w, M, a, NPK_PREC_INT32, c, &st) ||
        npk_rk_check_matmul(NPK_PREC_INT8, NPK_PREC_INT32, M, K, N, a, b, c, &v))
        fprintf(stderr, "%s\n", npk_last_error());
    else {
        printf("int8 %dx%dx%d: %u task(s), %llu element(s) differ from the exact product\n", M, K, N,
               st.tasks, (unsigned long long)v.mismatches);
        rc = v.mismatches != 0;
    }
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    return rc;
}
