/* SPDX-License-Identifier: MIT */
/* Type 9 with B quantised per group: C[i][j] = sA * sum over groups g of sB[g][j] *
 * (P_g[i][j] - zB[g][j] * rowsum_g(A)[i]), P_g the exact int32 sum over group g of K, computed
 * by the runtime's quantised matmul (each group its own exact partial, scaled and added in fp32;
 * the runtime's cost model chooses K-sliced tasks or one pass per several groups). B's scales
 * (and zero points) are [K / group_size][N], the order the vendor's documentation and demo fill
 * them in, for every B layout. B is re-read at every run, as the vendor's runtime does: its bytes
 * and the scales are checksummed and the weights repacked when either changed. */
#include "rknn_group.h"

#include <stdlib.h>
#include <string.h>

struct rknn_group_state {
    npk_rk_qweights *qw;
    uint64_t b_sum, q_sum; /* checksums of B's bytes and of its scales and zero points */
};

bool rknn_group_wanted(const rknn_mm_ctx *c)
{
    return c->info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_SYM ||
           c->info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_ASYM;
}

int rknn_group_check(const rknn_matmul_info *info, int32_t k)
{
    if (info->B_quant_type != RKNN_QUANT_TYPE_PER_GROUP_SYM &&
        info->B_quant_type != RKNN_QUANT_TYPE_PER_GROUP_ASYM)
        return RKNN_SUCC;
    if (info->type != RKNN_INT8_MM_INT8_TO_FLOAT32)
        return rknn_error(NPK_EUNSUPPORTED,
                          "B_quant_type %d (per group) with %s: per-group B runs with type 9 "
                          "(RKNN_INT8_MM_INT8_TO_FLOAT32) on rk3588",
                          info->B_quant_type, get_matmul_type_string(info->type));
    if (info->group_size <= 0 || info->group_size % (int)NPK_RK_QGROUP_ALIGN)
        return rknn_error(NPK_EINVAL,
                          "group_size %d: a positive multiple of %u (the NPU's K granule)",
                          info->group_size, NPK_RK_QGROUP_ALIGN);
    if (k % info->group_size)
        return rknn_error(NPK_EINVAL,
                          "group_size %d does not divide K=%d: B's scales are N x K / group_size",
                          info->group_size, k);
    return RKNN_SUCC;
}

int32_t rknn_group_scale_len(const rknn_mm_ctx *c)
{
    return c->shapes[0].N * (c->shapes[0].K / c->info.group_size);
}

void rknn_group_free(rknn_mm_ctx *c)
{
    if (!c->group)
        return;
    npk_rk_qweights_free(c->rt, c->group->qw);
    free(c->group);
    c->group = NULL;
}

/* The quantised weights for B's current bytes and scales: kept while both are unchanged. */
static npk_status weights(rknn_mm_ctx *c, const rknn_matmul_shape *sh, const uint8_t *b,
                          uint32_t b_size, const float *scale)
{
    const int32_t groups = sh->K / c->info.group_size, len = groups * sh->N;
    uint64_t b_sum = npk_rk_checksum(b, b_size);
    uint64_t q_sum = npk_rk_checksum(scale, (uint64_t)len * sizeof *scale) ^
                     (c->b_zp ? npk_rk_checksum(c->b_zp, (uint64_t)len * sizeof *c->b_zp) : 0);
    if (!c->group && !(c->group = calloc(1, sizeof *c->group)))
        return npk_fail(NPK_ENOMEM, "rknn_matmul_run: out of memory");
    struct rknn_group_state *g = c->group;
    if (g->qw && g->b_sum == b_sum && g->q_sum == q_sum)
        return NPK_OK;
    npk_rk_qweights_free(c->rt, g->qw);
    g->qw = NULL;
    const bool tp = c->info.B_layout == RKNN_MM_LAYOUT_TP_NORM;
    float *st = NULL; /* the runtime takes a transposed B's scales as [N][groups] */
    if (tp && !(st = malloc((size_t)len * sizeof *st)))
        return npk_fail(NPK_ENOMEM, "rknn_matmul_run: out of memory for B's scales");
    for (int32_t q = 0; tp && q < groups; q++)
        for (int32_t j = 0; j < sh->N; j++)
            st[(size_t)j * groups + q] = scale[(size_t)q * sh->N + j];
    npk_rk_qweights_desc d = {
        .in = NPK_PREC_INT8,
        .k = (uint32_t)sh->K,
        .n = (uint32_t)sh->N,
        .b = b,
        .layout = c->info.B_layout == RKNN_MM_LAYOUT_NATIVE ? NPK_RK_NATIVE
                  : tp                                      ? NPK_RK_TRANSPOSED
                                                            : NPK_RK_ROWS,
        .group = (uint32_t)c->info.group_size,
        .scale = tp ? st : scale,
        .scale_count = (uint64_t)len,
        .m_hint = (uint32_t)sh->M,
    };
    npk_status s = npk_rk_qweights_pack(c->rt, &d, &g->qw);
    free(st);
    if (s == NPK_OK) {
        g->b_sum = b_sum;
        g->q_sum = q_sum;
    }
    return s;
}

/* Asymmetric B: C[i][j] -= sA * sum_g sB[g][j] * zB[g][j] * rowsum_g(A)[i]. */
static void zero_points(const rknn_mm_ctx *c, const rknn_matmul_shape *sh, const int8_t *a,
                        const float *scale, float *rows)
{
    const int32_t gsz = c->info.group_size, groups = sh->K / gsz;
    for (int32_t i = 0; i < sh->M; i++)
        for (int32_t q = 0; q < groups; q++) {
            int64_t rs = 0;
            for (int32_t x = q * gsz; x < (q + 1) * gsz; x++)
                rs += a[(size_t)i * sh->K + x];
            for (int32_t j = 0; j < sh->N; j++) {
                size_t e = (size_t)q * sh->N + j;
                rows[(size_t)i * sh->N + j] -=
                    (float)((double)c->a_scale * scale[e] * c->b_zp[e] * (double)rs);
            }
        }
}

npk_status rknn_group_run(rknn_mm_ctx *c, const rknn_matmul_shape *sh,
                          const rknn_matmul_io_attr *at, const uint8_t *a, const uint8_t *b,
                          uint8_t *out)
{
    const int32_t len = rknn_group_scale_len(c);
    const bool native = c->info.AC_layout == RKNN_MM_LAYOUT_NATIVE;
    const size_t mk = (size_t)sh->M * sh->K, mn = (size_t)sh->M * sh->N;
    /* B's scales as set, or the documented default 1.0 */
    float *ones = NULL;
    const float *scale = c->b_scale && c->b_len == len ? c->b_scale : NULL;
    if (!scale && (ones = malloc((size_t)len * sizeof *ones)))
        for (int32_t i = 0; i < len; i++)
            ones[i] = 1.0f;
    if (!scale)
        scale = ones;
    int8_t *arows = native ? malloc(mk) : NULL;
    float *crows = native ? malloc(mn * sizeof *crows) : (float *)(void *)out;
    npk_status s = !scale || (native && (!arows || !crows))
                       ? npk_fail(NPK_ENOMEM, "rknn_matmul_run: out of memory")
                       : weights(c, sh, b, at->B.size, scale);
    if (s == NPK_OK && native) /* A native: [K/16][M][16] */
        for (int32_t i = 0; i < sh->M; i++)
            for (int32_t x = 0; x < sh->K; x++)
                arows[(size_t)i * sh->K + x] =
                    ((const int8_t *)a)[((size_t)(x / 16) * sh->M + i) * 16 + x % 16];
    const int8_t *av = native ? arows : (const int8_t *)a;
    if (s == NPK_OK)
        s = npk_rk_matmul_quant(c->rt, c->group->qw, (uint32_t)sh->M, av, &c->a_scale, 1,
                                NPK_PREC_FP32, crows, NULL);
    if (s == NPK_OK && c->b_zp && c->b_len == len)
        zero_points(c, sh, av, scale, crows);
    if (s == NPK_OK && native)
        rknn_rows_to_groups(crows, out, (size_t)sh->M, (size_t)sh->N, 4, c->row->c_native_group);
    free(ones);
    free(arows);
    if (native)
        free(crows);
    return s;
}
