/* SPDX-License-Identifier: MIT */
/* Several matmuls in one call against the same matmuls called one by one, at list lengths 1, 8
 * and 64 of decode-sized matmuls (M = 1, K = 2048, N = 512, int8: one expert's projection, a
 * GEMV whose cost is the submit floor): the modelled NPU time per matmul (the simulator's
 * hw_elapse_time, a model: the job floor is paid per SUBMIT) and the submits, in one run on the
 * simulator with 64 tasks per SUBMIT. Every batched result is checked against the one-by-one
 * result, bit for bit.
 *
 * Usage: bench_rk_batch [K N]   (default 2048 512) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk.h"

enum { LMAX = 64 };

int main(int argc, char **argv)
{
    uint32_t k = argc > 2 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2048;
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 512;
    if (!k || !n) {
        fprintf(stderr, "usage: bench_rk_batch [K N]\n");
        return 2;
    }
    npk_rk *rt = NULL;
    if (npk_rk_open("sim", &rt) || npk_rk_set_chain(rt, NPK_RK_MAX_CHAIN)) {
        fprintf(stderr, "bench_rk_batch: %s\n", npk_last_error());
        return 1;
    }
    npk_rk_weights *w[LMAX] = {0};
    int8_t *a = malloc(k), *b = malloc((size_t)k * n);
    int32_t *one = malloc((size_t)LMAX * n * 4), *all = malloc((size_t)LMAX * n * 4);
    int rc = 0;
    uint64_t seed = 99;
    for (uint32_t i = 0; i < k; i++)
        a[i] = (int8_t)((seed = seed * 6364136223846793005ull + 1) >> 57) - 64;
    for (int l = 0; l < LMAX && !rc; l++) {
        for (size_t i = 0; i < (size_t)k * n; i++)
            b[i] = (int8_t)((seed = seed * 6364136223846793005ull + 1) >> 56);
        rc = npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, 1, &w[l]) != NPK_OK;
    }
    printf("decode matmuls 1x%ux%u int8 on the simulator, %u tasks per SUBMIT\n", k, n,
           NPK_RK_MAX_CHAIN);
    printf("%6s %18s %16s %7s %16s\n", "list", "one by one us/mm", "batched us/mm", "ratio",
           "submits 1x1/batch");
    static const unsigned lengths[] = {1, 8, 64};
    for (size_t li = 0; li < 3 && !rc; li++) {
        const unsigned len = lengths[li];
        npk_rk_matmul_item items[LMAX];
        uint64_t single_npu = 0, single_submits = 0;
        npk_rk_stats st, bst = {0};
        for (int rep = 0; rep < 2 && !rc; rep++) { /* the second: warm output buffers */
            single_npu = single_submits = 0;
            for (unsigned l = 0; l < len && !rc; l++) {
                rc = npk_rk_matmul(rt, w[l], 1, a, NPK_PREC_INT32, one + (size_t)l * n, &st) !=
                     NPK_OK;
                single_npu += st.npu_span_ns;
                single_submits += st.submits;
            }
            for (unsigned l = 0; l < len; l++)
                items[l] = (npk_rk_matmul_item){w[l], 1, a, all + (size_t)l * n, {0}, false};
            rc = rc || npk_rk_matmul_batch(rt, items, len, NPK_PREC_INT32, &bst) != NPK_OK;
        }
        if (rc) {
            fprintf(stderr, "bench_rk_batch: %s\n", npk_last_error());
            break;
        }
        if (memcmp(one, all, (size_t)len * n * 4)) {
            fprintf(stderr, "bench_rk_batch: list %u: batched results differ\n", len);
            rc = 1;
            break;
        }
        double s_us = single_npu / 1e3 / len, b_us = bst.npu_span_ns / 1e3 / len;
        printf("%6u %18.1f %16.1f %7.2f %11llu/%-4u\n", len, s_us, b_us, s_us / b_us,
               (unsigned long long)single_submits, bst.submits);
    }
    printf("(NPU times are the simulator's model: host times on the simulator include the "
           "simulation itself and are not shown)\n");
    for (int l = 0; l < LMAX; l++)
        npk_rk_weights_free(rt, w[l]);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(one);
    free(all);
    return rc;
}
