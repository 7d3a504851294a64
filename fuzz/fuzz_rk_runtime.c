/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the runtime's public entry points with arbitrary shapes, precisions and
 * operand bytes on the simulator: pack weights, multiply, free. Invalid requests must come back
 * as statuses; valid ones must complete. Shapes are bounded (M*K*N <= 2^18) so each input runs
 * in milliseconds. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "npukit/rk.h"

static uint32_t take(const uint8_t **p, size_t *left, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes && *left; i++, (*p)++, (*left)--)
        v = v << 8 | **p;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static npk_rk *rt;
    if (!rt) {
        setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
        if (npk_rk_open("sim", &rt) != NPK_OK)
            abort();
    }
    const uint8_t *p = data;
    size_t left = size;
    npk_rk_prec in = (npk_rk_prec)(take(&p, &left, 1) % 9), out = (npk_rk_prec)(take(&p, &left, 1) % 9);
    uint32_t m = take(&p, &left, 2), k = take(&p, &left, 2), n = take(&p, &left, 2);
    unsigned cores = take(&p, &left, 1) % 5;
    if ((uint64_t)(m ? m : 1) * (k ? k : 1) * (n ? n : 1) > (1u << 18))
        return 0;
    size_t asz = (size_t)m * k * 2 + 1, bsz = (size_t)k * n * 2 + 1, csz = (size_t)m * n * 4 + 1;
    uint8_t *a = calloc(asz, 1), *b = calloc(bsz, 1), *c = calloc(csz, 1);
    if (a && b && c) {
        for (size_t i = 0; i < asz + bsz; i++) /* operand bytes repeat the input */
            *(i < asz ? &a[i] : &b[i - asz]) = size ? data[i % size] : 0;
        npk_rk_weights *w = NULL;
        npk_rk_set_cores(rt, cores);
        if (npk_rk_weights_pack(rt, in, k, n, b, m, &w) == NPK_OK) {
            npk_rk_matmul(rt, w, m, a, out, c, NULL);
            npk_rk_weights_free(rt, w);
        }
    }
    free(a);
    free(b);
    free(c);
    return 0;
}
