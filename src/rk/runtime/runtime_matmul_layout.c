/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* A matmul with A and C in the native layouts: A unpacked into rows, the matmul
 * (runtime_matmul.c), C packed back. Above both the layouts and the matmul spine. */
#include <stdlib.h>
#include <string.h>

#include "rk/layout/rk_layout.h"
#include "runtime_internal.h"

npk_status npk_rk_matmul_layout(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                npk_rk_layout a_layout, npk_rk_prec out, void *c,
                                npk_rk_layout c_layout, npk_rk_stats *stats)
{
    if ((a_layout != NPK_RK_ROWS && a_layout != NPK_RK_NATIVE) ||
        (c_layout != NPK_RK_ROWS && c_layout != NPK_RK_NATIVE))
        return npk_fail(NPK_EINVAL, "matmul: A layout %d, C layout %d (0 rows, 1 native)",
                        (int)a_layout, (int)c_layout);
    if (a_layout == NPK_RK_ROWS && c_layout == NPK_RK_ROWS)
        return npk_rk_matmul(rt, w, m, a, out, c, stats);
    if (!rt || !w || !a || !c)
        return npk_rk_matmul(rt, w, m, a, out, c, stats); /* names the NULL */
    if (!m || m > NPK_RK_LAYOUT_MAX_DIM || !npk_rk_c_layout_bytes(out, m, w->n, NPK_RK_ROWS))
        return npk_rk_matmul(rt, w, m, a, out, c, stats); /* names the bad M or output */
    void *arows = NULL, *crows = NULL;
    npk_status s = NPK_OK;
    if (a_layout == NPK_RK_NATIVE) {
        /* The native A is read into row-major rows the runtime packs per task: its tiles are
         * cut from the user's matrix at M-tile and K-slice boundaries of the plan's choosing. */
        arows = malloc((size_t)npk_rk_a_layout_bytes(w->in, m, w->k, NPK_RK_ROWS));
        npk_rk_block blk = npk_rk_a_block(w->in, NPK_MODE_CUBE, m, w->k);
        if (!arows)
            s = npk_fail(NPK_ENOMEM, "matmul: no memory for A's rows");
        else
            s = npk_rk_unpack_a(&blk, a, npk_rk_a_bytes(&blk, w->k),
                                &(npk_rk_matrix){arows, m, w->k, w->k}, (npk_rk_range){0, m},
                                (npk_rk_range){0, w->k});
    }
    if (s == NPK_OK && c_layout == NPK_RK_NATIVE &&
        !(crows = malloc((size_t)npk_rk_c_layout_bytes(out, m, w->n, NPK_RK_ROWS))))
        s = npk_fail(NPK_ENOMEM, "matmul: no memory for C's rows");
    if (s == NPK_OK)
        s = npk_rk_matmul(rt, w, m, arows ? arows : a, out, crows ? crows : c, stats);
    if (s == NPK_OK && crows) {
        npk_rk_block blk = npk_rk_c_block(out, NPK_MODE_CUBE, m, w->n);
        size_t bytes = npk_rk_c_bytes(&blk, w->n);
        memset(c, 0, bytes); /* the N padding of the last channel group */
        s = npk_rk_pack_c(&blk, &(npk_rk_cmatrix){crows, m, w->n, w->n}, (npk_rk_range){0, m},
                          (npk_rk_range){0, w->n}, c, bytes);
    }
    free(arows);
    free(crows);
    return s;
}
