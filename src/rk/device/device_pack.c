/* SPDX-License-Identifier: MIT */
/* Operand packing for npk_rk_devtask through the layout module (see device_pack.h). */
#include "device_pack.h"

#include "rk/layout/rk_layout.h"

static npk_rk_block a_block(const npk_rk_pack_geom *g)
{
    npk_rk_block b = npk_rk_a_block(g->in, g->mode, g->m, g->k);
    if (g->mode == NPK_MODE_LINE)
        b.stride = g->a_stride;
    return b;
}

static npk_rk_block c_block(const npk_rk_pack_geom *g)
{
    npk_rk_block b = npk_rk_c_block(g->out, g->mode, g->m, g->n);
    if (g->mode == NPK_MODE_LINE)
        b.stride = g->c_stride;
    return b;
}

size_t npk_rk_devpack_a_bytes(const npk_rk_pack_geom *g)
{
    npk_rk_block b = a_block(g);
    return npk_rk_a_bytes(&b, g->k);
}

size_t npk_rk_devpack_b_bytes(const npk_rk_pack_geom *g)
{
    return npk_rk_b_bytes(g->in, g->k, g->n);
}

size_t npk_rk_devpack_c_bytes(const npk_rk_pack_geom *g)
{
    npk_rk_block b = c_block(g);
    return npk_rk_c_bytes(&b, g->n);
}

npk_status npk_rk_devpack_a(const npk_rk_pack_geom *g, const void *a, void *dst, size_t size)
{
    npk_rk_block b = a_block(g);
    npk_rk_cmatrix src = {a, g->m, g->k, g->k};
    return npk_rk_pack_a(&b, &src, (npk_rk_range){0, g->m}, (npk_rk_range){0, g->k}, dst, size);
}

npk_status npk_rk_devpack_b(const npk_rk_pack_geom *g, const void *bm, void *dst, size_t size)
{
    npk_rk_cmatrix src = {bm, g->k, g->n, g->n};
    return npk_rk_pack_b(g->in, &src, (npk_rk_range){0, g->k}, (npk_rk_range){0, g->n}, dst, size);
}

npk_status npk_rk_devpack_unpack_c(const npk_rk_pack_geom *g, const void *src, size_t size, void *c)
{
    npk_rk_block b = c_block(g);
    npk_rk_matrix dst = {c, g->m, g->n, g->n};
    return npk_rk_unpack_c(&b, src, size, &dst, (npk_rk_range){0, g->m}, (npk_rk_range){0, g->n});
}
