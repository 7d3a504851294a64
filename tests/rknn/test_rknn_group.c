/* SPDX-License-Identifier: MIT */
/* Type 9 (RKNN_INT8_MM_INT8_TO_FLOAT32) with B quantised per group, as the vendor's matmul demo
 * runs it by default (PER_GROUP_SYM, group_size 32), through librknnrt.so only: every B layout
 * and A/C layout, symmetric and asymmetric B, B and its scales changed between runs, against a
 * CPU reference; bad group sizes and scale counts refused. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/status.h" /* npk_last_error, exported by librknnrt.so */
#include "rknn_matmul_api.h"

static uint64_t seed = 23;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

typedef struct setup {
    int m, k, n, group, b_layout, ac_layout, quant;
} setup;

/* B [K][N] row-major into the bound layout. */
static void place_b(const setup *s, const int8_t *b, void *dst, rknn_matmul_info *info)
{
    if (s->b_layout == RKNN_MM_LAYOUT_NORM)
        memcpy(dst, b, (size_t)s->k * s->n);
    else if (s->b_layout == RKNN_MM_LAYOUT_TP_NORM)
        for (int x = 0; x < s->k; x++)
            for (int j = 0; j < s->n; j++)
                ((int8_t *)dst)[(size_t)j * s->k + x] = b[(size_t)x * s->n + j];
    else
        CHECK_EQ(rknn_B_normal_layout_to_native_layout((void *)b, dst, s->k, s->n, info),
                 RKNN_SUCC);
}

/* Elements of C outside sA * sum_g sB * (P_g - zB * rowsum_g) within the fp32 bound. */
static int wrong(const setup *s, const int8_t *a, const int8_t *b, float sa, const float *sb,
                 const int32_t *zb, const float *c)
{
    const int groups = s->k / s->group;
    int bad = 0;
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            double ref = 0, mag = 0;
            for (int g = 0; g < groups; g++) {
                int64_t p = 0;
                for (int x = g * s->group; x < (g + 1) * s->group; x++)
                    p += (int64_t)a[(size_t)i * s->k + x] *
                         (b[(size_t)x * s->n + j] - (zb ? zb[g * s->n + j] : 0));
                double t = (double)sa * sb[g * s->n + j] * (double)p;
                ref += t;
                mag += fabs(t);
            }
            size_t at =
                s->ac_layout ? ((size_t)(j / 4) * s->m + i) * 4 + j % 4 : (size_t)i * s->n + j;
            if (!(fabs(c[at] - ref) <= (groups + 6) * 4.0 * ldexp(mag, -24) + 1e-30)) {
                if (bad++ < 3)
                    fprintf(stderr, "  C[%d][%d] = %.9g, reference %.9g\n", i, j, c[at], ref);
            }
        }
    return bad;
}

static void run_setup(const setup *s)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = s->m, info.K = s->k, info.N = s->n, info.type = RKNN_INT8_MM_INT8_TO_FLOAT32;
    info.B_layout = (int16_t)s->b_layout, info.AC_layout = (int16_t)s->ac_layout;
    info.B_quant_type = (int16_t)s->quant;
    info.group_size = (int16_t)s->group;
    rknn_matmul_ctx ctx;
    rknn_matmul_io_attr io;
    int rc = rknn_matmul_create(&ctx, &info, &io);
    CHECK_EQ(rc, RKNN_SUCC);
    if (rc) {
        fprintf(stderr, "  create: %s\n", npk_last_error());
        return;
    }
    const int groups = s->k / s->group, len = groups * s->n;
    float sa = 0.015625f, *sb = malloc(len * sizeof *sb);
    int32_t *zb = s->quant == RKNN_QUANT_TYPE_PER_GROUP_ASYM ? malloc(len * sizeof *zb) : NULL;
    for (int i = 0; i < len; i++) {
        sb[i] = ldexpf(1.0f + (float)(rnd() % 256) / 256.0f, -6 - (int)(rnd() % 4));
        if (zb)
            zb[i] = (int32_t)(rnd() % 9) - 4;
    }
    rknn_quant_params q;
    memset(&q, 0, sizeof q);
    strcpy(q.name, "A");
    q.scale = &sa, q.scale_len = 1;
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
    strcpy(q.name, "B");
    q.scale = sb, q.scale_len = len, q.zp = zb, q.zp_len = zb ? len : 0;
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
    rknn_tensor_mem *ma = rknn_create_mem(ctx, io.A.size), *mb = rknn_create_mem(ctx, io.B.size);
    rknn_tensor_mem *mc = rknn_create_mem(ctx, io.C.size);
    int8_t *a = malloc((size_t)s->m * s->k), *b = malloc((size_t)s->k * s->n);
    for (size_t i = 0; i < (size_t)s->m * s->k; i++)
        a[i] = (int8_t)(rnd() >> 8);
    for (size_t i = 0; i < (size_t)s->k * s->n; i++)
        b[i] = (int8_t)(rnd() >> 8);
    if (s->ac_layout) /* A native: [K/16][M][16] */
        for (int i = 0; i < s->m; i++)
            for (int x = 0; x < s->k; x++)
                ((int8_t *)ma->virt_addr)[((size_t)(x / 16) * s->m + i) * 16 + x % 16] =
                    a[(size_t)i * s->k + x];
    else
        memcpy(ma->virt_addr, a, (size_t)s->m * s->k);
    place_b(s, b, mb->virt_addr, &info);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, ma, &io.A), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, mb, &io.B), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(ctx, mc, &io.C), RKNN_SUCC);
    rc = rknn_matmul_run(ctx);
    CHECK_EQ(rc, RKNN_SUCC);
    if (rc)
        fprintf(stderr, "  run: %s\n", npk_last_error());
    int bad = rc ? -1 : wrong(s, a, b, sa, sb, zb, mc->virt_addr);
    CHECK_EQ(bad, 0);
    /* B rewritten in its mem, then new scales: each run follows */
    for (size_t i = 0; i < (size_t)s->k * s->n; i++)
        b[i] = (int8_t)(rnd() >> 8);
    place_b(s, b, mb->virt_addr, &info);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
    CHECK_EQ(wrong(s, a, b, sa, sb, zb, mc->virt_addr), 0);
    for (int i = 0; i < len; i++)
        sb[i] *= -2;
    strcpy(q.name, "B");
    q.scale = sb, q.scale_len = len, q.zp = zb, q.zp_len = zb ? len : 0;
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
    CHECK_EQ(wrong(s, a, b, sa, sb, zb, mc->virt_addr), 0);
    printf("type 9 per group (%s) M=%d K=%d N=%d group %d, B layout %d, AC layout %d: %s\n",
           zb ? "asym" : "sym", s->m, s->k, s->n, s->group, s->b_layout, s->ac_layout,
           bad ? "WRONG" : "ok");
    rknn_destroy_mem(ctx, ma);
    rknn_destroy_mem(ctx, mb);
    rknn_destroy_mem(ctx, mc);
    CHECK_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
    free(a), free(b), free(sb), free(zb);
}

static void bad_input(void)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = 4, info.K = 128, info.N = 64, info.type = RKNN_INT8_MM_INT8_TO_FLOAT32;
    info.B_quant_type = RKNN_QUANT_TYPE_PER_GROUP_SYM;
    rknn_matmul_ctx ctx;
    rknn_matmul_io_attr io;
    const int16_t sizes[] = {0, -32, 16, 48, 96}; /* not positive multiples of 32 dividing K */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        info.group_size = sizes[i];
        CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
    }
    info.group_size = 96;
    CHECK_STR_HAS(npk_last_error(), "does not divide K=128");
    info.group_size = 32;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    CHECK(rknn_matmul_create(&ctx, &info, &io) != RKNN_SUCC);
    CHECK_STR_HAS(npk_last_error(), "type 9");
    info.type = RKNN_INT8_MM_INT8_TO_FLOAT32;
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    float sb[4 * 64];
    for (int i = 0; i < 4 * 64; i++)
        sb[i] = 1;
    rknn_quant_params q;
    memset(&q, 0, sizeof q);
    strcpy(q.name, "B");
    q.scale = sb, q.scale_len = 64; /* per channel's count, not N x K / group_size */
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
    CHECK_STR_HAS(npk_last_error(), "per group");
    q.scale_len = 4 * 64;
    sb[9] = NAN;
    CHECK_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
    CHECK_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

int main(void)
{
    for (int bl = 0; bl < 3; bl++)
        for (int al = 0; al < 2; al++)
            for (int qt = RKNN_QUANT_TYPE_PER_GROUP_SYM; qt <= RKNN_QUANT_TYPE_PER_GROUP_ASYM; qt++)
                run_setup(&(setup){5, 128, 64, 32, bl, al, qt});
    run_setup(&(setup){1, 4096, 64, 32, 0, 0, RKNN_QUANT_TYPE_PER_GROUP_SYM});   /* decode */
    run_setup(&(setup){33, 512, 96, 128, 2, 0, RKNN_QUANT_TYPE_PER_GROUP_SYM});  /* prefill */
    run_setup(&(setup){2, 10240, 32, 64, 1, 1, RKNN_QUANT_TYPE_PER_GROUP_ASYM}); /* K at the cap */
    bad_input();
    return check_done();
}
