/* SPDX-License-Identifier: MIT */
/* Quantised matmuls (W8A8 per channel, per-group scales along K, int4 groups) on the faithful
 * simulator against a CPU reference: every group's int32 partial exact (power-of-two scales make
 * the whole result exact), random scales within an fp32 bound, K-sliced and one-pass runs equal,
 * B transposed, A's three scale forms, fp16 output, edge shapes and bad input. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"

static uint64_t seed = 5;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

static int8_t *make_int(size_t count, int lo, int hi)
{
    int8_t *v = malloc(count + 1);
    for (size_t i = 0; i < count; i++)
        v[i] = (int8_t)(lo + (int)(rnd() % (unsigned)(hi - lo + 1)));
    return v;
}

/* Random scales in [2^-8, 2^-2) with either sign, or one constant power of two. */
static float *make_scales(size_t count, float constant)
{
    float *v = malloc(count * sizeof *v + 1);
    for (size_t i = 0; i < count; i++)
        v[i] = constant ? constant
                        : ldexpf(1.0f + (float)(rnd() % 1024) / 1024.0f, -8 + (int)(rnd() % 6)) *
                              (rnd() & 1 ? -1.0f : 1.0f);
    return v;
}

typedef struct shape {
    npk_rk_prec in;
    uint32_t m, k, n, group;
} shape;

static uint32_t groups_of(const shape *s)
{
    return s->group && s->group < s->k ? (s->k + s->group - 1) / s->group : 1;
}

/* C in double and the per-element bound: |got - ref| <= (groups + 4) * 4u * sum|terms| (+ half
 * an fp16 ulp for fp16 output); exact_only: the bound is 0. */
static uint64_t judge(const shape *s, const int8_t *a, const int8_t *b, const float *sa,
                      uint64_t sa_count, const float *sb, const void *c, npk_rk_prec out,
                      bool exact_only)
{
    uint32_t groups = groups_of(s), gsz = groups == 1 ? s->k : s->group;
    uint64_t bad = 0;
    for (uint32_t i = 0; i < s->m; i++)
        for (uint32_t j = 0; j < s->n; j++) {
            double ref = 0, mag = 0;
            for (uint32_t g = 0; g < groups; g++) {
                int64_t p = 0;
                for (uint32_t x = g * gsz; x < s->k && x < (g + 1) * gsz; x++)
                    p += (int64_t)a[(size_t)i * s->k + x] * b[(size_t)x * s->n + j];
                double f = sa_count == 1      ? sa[0]
                           : sa_count == s->m ? sa[i]
                                              : sa[(size_t)i * groups + g];
                double t = f * sb[(size_t)g * s->n + j] * (double)p;
                ref += t;
                mag += fabs(t);
            }
            double got = out == NPK_PREC_FP32
                             ? ((const float *)c)[(size_t)i * s->n + j]
                             : npk_f16_to_f32(((const uint16_t *)c)[(size_t)i * s->n + j]);
            double tol = exact_only ? 0 : (groups + 4) * 4.0 * ldexp(mag, -24);
            if (out == NPK_PREC_FP16)
                tol += fabs(ref) * ldexp(1.0, -11) + ldexp(1.0, -25);
            if (!(fabs(got - ref) <= tol)) {
                if (bad < 3)
                    fprintf(stderr, "  C[%u][%u] = %.9g, reference %.9g (bound %.3g)\n", i, j, got,
                            ref, tol);
                bad++;
            }
        }
    return bad;
}

/* One shape: weights packed per `per_pass` (0: the model's choice), run, judged. Returns the
 * result (fp32) for comparing runs; NULL on failure. */
static float *run(npk_rk *rt, const shape *s, const int8_t *a, const int8_t *b, const float *sa,
                  uint64_t sa_count, const float *sb, uint32_t per_pass, bool exact)
{
    npk_rk_qweights_desc d = {.in = s->in,
                              .k = s->k,
                              .n = s->n,
                              .b = b,
                              .layout = NPK_RK_ROWS,
                              .group = s->group,
                              .scale = sb,
                              .scale_count = (uint64_t)groups_of(s) * s->n,
                              .m_hint = s->m,
                              .groups_per_pass = per_pass};
    npk_rk_qweights *q = NULL;
    npk_status st = npk_rk_qweights_pack(rt, &d, &q);
    CHECK_EQ(st, NPK_OK);
    if (st) {
        fprintf(stderr, "  pack %ux%ux%u group %u: %s\n", s->m, s->k, s->n, s->group,
                npk_last_error());
        return NULL;
    }
    npk_rk_qweights_info info;
    CHECK_EQ(npk_rk_qweights_query(q, &info), NPK_OK);
    CHECK_EQ(info.groups, groups_of(s));
    if (per_pass)
        CHECK_EQ(info.groups_per_pass, per_pass < info.groups ? per_pass : info.groups);
    float *c = malloc((size_t)s->m * s->n * sizeof *c);
    npk_rk_stats stats;
    st = npk_rk_matmul_quant(rt, q, s->m, a, sa, sa_count, NPK_PREC_FP32, c, &stats);
    CHECK_EQ(st, NPK_OK);
    if (st)
        fprintf(stderr, "  run: %s\n", npk_last_error());
    uint64_t bad = st ? 1 : judge(s, a, b, sa, sa_count, sb, c, NPK_PREC_FP32, exact);
    CHECK_EQ(bad, 0);
    /* the library's verdict (rk matmul --check) agrees */
    npk_rk_quant_ref ref = {s->in, s->m, s->k, s->n, s->group, a, sa, sa_count, b, sb};
    npk_rk_verdict v;
    CHECK_EQ(npk_rk_check_matmul_quant(&ref, NPK_PREC_FP32, c, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    if (exact)
        CHECK_EQ(v.mismatches, 0);
    printf("%s M=%u K=%u N=%u group %u: %u groups, %u per pass, %u passes, %u tasks, modelled "
           "%.1f us (K-sliced %.1f): %s\n",
           npk_rk_prec_name(s->in), s->m, s->k, s->n, s->group, info.groups, info.groups_per_pass,
           info.passes, stats.tasks, info.chosen_us, info.ksliced_us, bad ? "WRONG" : "ok");
    npk_rk_qweights_free(rt, q);
    if (st || bad) {
        free(c);
        return NULL;
    }
    return c;
}

/* Exact with constant power-of-two scales; within the bound with random scales; K-sliced and
 * one-pass runs bit-identical (the same fp32 additions in the same order). */
static void sweep(npk_rk *rt, const shape *s)
{
    uint32_t groups = groups_of(s);
    int lo = s->in == NPK_PREC_INT4 ? -8 : -128, hi = s->in == NPK_PREC_INT4 ? 7 : 127;
    int8_t *a = make_int((size_t)s->m * s->k, lo, hi), *b = make_int((size_t)s->k * s->n, lo, hi);
    float *one_a = make_scales(1, 0.5f), *one_b = make_scales((size_t)groups * s->n, 0.25f);
    float *c = run(rt, s, a, b, one_a, 1, one_b, 0, true);
    free(c);
    float *sa = make_scales((size_t)s->m * groups, 0), *sb = make_scales((size_t)groups * s->n, 0);
    float *auto_c = run(rt, s, a, b, sa, s->m, sb, 0, false);
    if (groups > 1) {
        /* K-sliced, the model's choice and (where K fits one task) one pass: equal */
        float *sliced = run(rt, s, a, b, sa, s->m, sb, 1, false);
        CHECK(sliced && auto_c && !memcmp(sliced, auto_c, (size_t)s->m * s->n * sizeof *sliced));
        if (s->k <= 4096) {
            float *onepass = run(rt, s, a, b, sa, s->m, sb, groups, false);
            CHECK(sliced && onepass &&
                  !memcmp(sliced, onepass, (size_t)s->m * s->n * sizeof *sliced));
            free(onepass);
        }
        free(sliced);
        float *per_group = run(rt, s, a, b, sa, (uint64_t)s->m * groups, sb, 0, false);
        free(per_group);
    }
    free(auto_c);
    free(a);
    free(b);
    free(one_a);
    free(one_b);
    free(sa);
    free(sb);
}

/* B transposed [N][K] with scales [N][groups] and native B give what B [K][N] with [groups][N]
 * gives; fp16 output is the fp32 result rounded. */
static void layouts(npk_rk *rt)
{
    const shape s = {NPK_PREC_INT8, 7, 200, 45, 64};
    uint32_t groups = groups_of(&s);
    int8_t *a = make_int((size_t)s.m * s.k, -128, 127), *b = make_int((size_t)s.k * s.n, -128, 127);
    float *sa = make_scales(s.m, 0), *sb = make_scales((size_t)groups * s.n, 0);
    int8_t *bt = malloc((size_t)s.k * s.n);
    float *sbt = malloc((size_t)groups * s.n * sizeof *sbt);
    for (uint32_t x = 0; x < s.k; x++)
        for (uint32_t j = 0; j < s.n; j++)
            bt[(size_t)j * s.k + x] = b[(size_t)x * s.n + j];
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t j = 0; j < s.n; j++)
            sbt[(size_t)j * groups + g] = sb[(size_t)g * s.n + j];
    npk_rk_qweights_desc d = {NPK_PREC_INT8,          s.k, s.n, b, NPK_RK_ROWS, s.group, sb,
                              (uint64_t)groups * s.n, s.m, 0};
    npk_rk_qweights *q = NULL, *qt = NULL;
    CHECK_EQ(npk_rk_qweights_pack(rt, &d, &q), NPK_OK);
    d.b = bt;
    d.layout = NPK_RK_TRANSPOSED;
    d.scale = sbt;
    CHECK_EQ(npk_rk_qweights_pack(rt, &d, &qt), NPK_OK);
    /* native B: the scales as for row-major B */
    npk_rk_qweights *qn = NULL;
    uint64_t nbytes = npk_rk_b_layout_bytes(NPK_PREC_INT8, s.k, s.n, NPK_RK_NATIVE);
    void *bn = malloc(nbytes);
    CHECK_EQ(npk_rk_b_to_native(NPK_PREC_INT8, s.k, s.n, b, bn, nbytes), NPK_OK);
    d.b = bn;
    d.layout = NPK_RK_NATIVE;
    d.scale = sb;
    CHECK_EQ(npk_rk_qweights_pack(rt, &d, &qn), NPK_OK);
    float *c = calloc((size_t)s.m * s.n, sizeof *c), *ct = calloc((size_t)s.m * s.n, sizeof *ct);
    float *cn = calloc((size_t)s.m * s.n, sizeof *cn);
    uint16_t *h = calloc((size_t)s.m * s.n, sizeof *h);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, s.m, a, sa, s.m, NPK_PREC_FP32, c, NULL), NPK_OK);
    CHECK_EQ(npk_rk_matmul_quant(rt, qt, s.m, a, sa, s.m, NPK_PREC_FP32, ct, NULL), NPK_OK);
    CHECK(!memcmp(c, ct, (size_t)s.m * s.n * sizeof *c));
    CHECK_EQ(npk_rk_matmul_quant(rt, qn, s.m, a, sa, s.m, NPK_PREC_FP32, cn, NULL), NPK_OK);
    CHECK(!memcmp(c, cn, (size_t)s.m * s.n * sizeof *c));
    npk_rk_qweights_free(rt, qn);
    free(bn);
    free(cn);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, s.m, a, sa, s.m, NPK_PREC_FP16, h, NULL), NPK_OK);
    uint64_t off = 0;
    for (size_t i = 0; i < (size_t)s.m * s.n; i++)
        off += h[i] != npk_f32_to_f16(c[i]);
    CHECK_EQ(off, 0);
    CHECK_EQ(judge(&s, a, b, sa, s.m, sb, h, NPK_PREC_FP16, false), 0);
    /* the verdict catches one wrong element, in fp32 and in fp16 */
    npk_rk_quant_ref ref = {s.in, s.m, s.k, s.n, s.group, a, sa, s.m, b, sb};
    npk_rk_verdict v;
    CHECK_EQ(npk_rk_check_matmul_quant(&ref, NPK_PREC_FP16, h, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    c[5] += fabsf(c[5]) * 0x1p-12f + 0x1p-20f;
    h[7] ^= 4;
    CHECK_EQ(npk_rk_check_matmul_quant(&ref, NPK_PREC_FP32, c, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
    CHECK_EQ(v.first_outside, 5);
    CHECK_EQ(npk_rk_check_matmul_quant(&ref, NPK_PREC_FP16, h, &v), NPK_OK);
    CHECK_EQ(v.outside, 1);
    CHECK_EQ(npk_rk_check_matmul_quant(&ref, NPK_PREC_INT32, h, &v), NPK_EINVAL);
    npk_rk_qweights_free(rt, q);
    npk_rk_qweights_free(rt, qt);
    free(a), free(b), free(bt), free(sa), free(sb), free(sbt), free(c), free(ct), free(h);
}

/* The cost model's choice: at a decode M, one pass over many groups; at a prefill M, K-sliced
 * tasks; never costlier (modelled) than K-sliced. */
static void choice(npk_rk *rt)
{
    const uint32_t k = 4096, n = 256;
    int8_t *b = make_int((size_t)k * n, -128, 127);
    float *sb = make_scales((size_t)(k / 128) * n, 0);
    uint32_t per_pass[2];
    const uint32_t hints[2] = {1, 512};
    double at[2][2]; /* [weights packed for hint i][M = hint j] */
    for (int i = 0; i < 2; i++) {
        npk_rk_qweights_desc d = {NPK_PREC_INT8,           k,        n, b, NPK_RK_ROWS, 128, sb,
                                  (uint64_t)(k / 128) * n, hints[i], 0};
        npk_rk_qweights *q = NULL;
        CHECK_EQ(npk_rk_qweights_pack(rt, &d, &q), NPK_OK);
        npk_rk_qweights_info info = {0};
        npk_rk_qweights_query(q, &info);
        per_pass[i] = info.groups_per_pass;
        for (int j = 0; j < 2; j++)
            CHECK_EQ(npk_rk_matmul_quant_cost(rt, q, hints[j], &at[i][j]), NPK_OK);
        CHECK(at[i][i] == info.chosen_us);
        CHECK(info.chosen_us > 0 && info.chosen_us <= info.ksliced_us);
        printf("choice at m_hint %u, K=%u N=%u group 128: %u groups per pass, modelled %.1f us "
               "(K-sliced %.1f us)\n",
               hints[i], k, n, info.groups_per_pass, info.chosen_us, info.ksliced_us);
        npk_rk_qweights_free(rt, q);
    }
    CHECK(per_pass[0] > 1);
    CHECK_EQ(per_pass[1], 1);
    /* each packing is the cheaper one at its own M (modelled) */
    CHECK(at[0][0] < at[1][0] && at[1][1] < at[0][1]);
    printf("modelled us: decode-packed at M=1 %.1f, M=512 %.1f; prefill-packed at M=1 %.1f, "
           "M=512 %.1f\n",
           at[0][0], at[0][1], at[1][0], at[1][1]);
    free(b);
    free(sb);
}

/* Plans are kept between calls: a call after the runtime's cores, chain or M changed plans
 * anew and is as right as the first. */
static void kept_plans(npk_rk *rt)
{
    const shape s = {NPK_PREC_INT8, 9, 640, 100, 64};
    const uint32_t groups = groups_of(&s);
    int8_t *a = make_int((size_t)s.m * s.k, -128, 127), *b = make_int((size_t)s.k * s.n, -128, 127);
    float *sa = make_scales(s.m, 0), *sb = make_scales((size_t)groups * s.n, 0);
    npk_rk_qweights_desc d = {NPK_PREC_INT8,          s.k, s.n, b, NPK_RK_ROWS, s.group, sb,
                              (uint64_t)groups * s.n, s.m, 2};
    npk_rk_qweights *q = NULL;
    CHECK_EQ(npk_rk_qweights_pack(rt, &d, &q), NPK_OK);
    float *first = calloc((size_t)s.m * s.n, sizeof *first);
    float *c = calloc((size_t)s.m * s.n, sizeof *c);
    npk_rk_stats st[4];
    CHECK_EQ(npk_rk_matmul_quant(rt, q, s.m, a, sa, s.m, NPK_PREC_FP32, first, &st[0]), NPK_OK);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, s.m, a, sa, s.m, NPK_PREC_FP32, c, &st[1]), NPK_OK);
    CHECK(!memcmp(first, c, (size_t)s.m * s.n * sizeof *c));
    CHECK_EQ(st[1].tasks, st[0].tasks);
    CHECK_EQ(npk_rk_set_cores(rt, 1), NPK_OK);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, s.m, a, sa, s.m, NPK_PREC_FP32, c, &st[2]), NPK_OK);
    CHECK_EQ(st[2].core_mask, 1);
    CHECK_EQ(judge(&s, a, b, sa, s.m, sb, c, NPK_PREC_FP32, false), 0);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, s.m, a, sa, s.m, NPK_PREC_FP32, c, &st[3]), NPK_OK);
    CHECK(st[3].submits <= st[2].submits); /* passes are separate jobs: chained within a pass */
    CHECK_EQ(judge(&s, a, b, sa, s.m, sb, c, NPK_PREC_FP32, false), 0);
    const shape s1 = {NPK_PREC_INT8, 1, 640, 100, 64}; /* another M: its own plans */
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 1, a, sa, 1, NPK_PREC_FP32, c, NULL), NPK_OK);
    CHECK_EQ(judge(&s1, a, b, sa, 1, sb, c, NPK_PREC_FP32, false), 0);
    CHECK_EQ(npk_rk_set_chain(rt, 1), NPK_OK);
    CHECK_EQ(npk_rk_set_cores(rt, 3), NPK_OK);
    npk_rk_qweights_free(rt, q);
    free(a), free(b), free(sa), free(sb), free(first), free(c);
}

static void bad_input(npk_rk *rt, npk_rk *other)
{
    int8_t b[64 * 32] = {0}, a[3 * 64] = {0};
    float sb[2 * 32], sa[3] = {1, 1, 1};
    for (int i = 0; i < 64; i++)
        sb[i] = 1;
    npk_rk_qweights_desc d = {NPK_PREC_INT8, 64, 32, b, NPK_RK_ROWS, 32, sb, 64, 3, 0};
    npk_rk_qweights *q = NULL;
    npk_rk_qweights_desc x = d;
    x.group = 48;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "group 48");
    x = d;
    x.scale = NULL;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    x = d;
    x.scale_count = 32;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "64 wanted");
    x = d;
    sb[17] = NAN;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "scale[17]");
    sb[17] = INFINITY;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    sb[17] = 1;
    x.in = NPK_PREC_FP16;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    x = d;
    x.layout = (npk_rk_layout)7;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    x = d;
    x.k = 0;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    x = d;
    x.in = NPK_PREC_INT4;
    b[5] = 8;
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_EINVAL);
    b[5] = 0;
    /* int4's exact int16 partials bound its K slices: 64 groups of 32 in one pass do not fit */
    int8_t *b4 = calloc(4096, 32);
    float *s4 = malloc(128 * 32 * sizeof *s4);
    for (int i = 0; i < 128 * 32; i++)
        s4[i] = 1;
    x = (npk_rk_qweights_desc){NPK_PREC_INT4, 4096, 32, b4, NPK_RK_ROWS, 32, s4, 128 * 32, 1, 64};
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_ELIMIT);
    free(b4);
    free(s4);
    /* a per-channel int8 K whose int32 sum could wrap: refused before anything is packed */
    x = (npk_rk_qweights_desc){NPK_PREC_INT8, 131072 + 32, 1, b, NPK_RK_ROWS, 0, sb, 1, 1, 0};
    CHECK_EQ(npk_rk_qweights_pack(rt, &x, &q), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "could wrap");
    CHECK_EQ(npk_rk_qweights_pack(rt, NULL, &q), NPK_EINVAL);
    CHECK(q == NULL);

    CHECK_EQ(npk_rk_qweights_pack(rt, &d, &q), NPK_OK);
    float c[3 * 32];
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 3, a, sa, 3, NPK_PREC_FP32, c, NULL), NPK_OK);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 3, a, sa, 3, NPK_PREC_INT32, c, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 3, a, sa, 2, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "2 given");
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 3, a, NULL, 3, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    sa[1] = NAN;
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 3, a, sa, 3, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "A scale[1]");
    sa[1] = 1;
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 0, a, sa, 1, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, 3, NULL, sa, 3, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul_quant(other, q, 3, a, sa, 3, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul_quant(rt, NULL, 3, a, sa, 3, NPK_PREC_FP32, c, NULL), NPK_EINVAL);
    npk_rk_qweights_free(rt, q);
    npk_rk_qweights_free(rt, NULL);
}

int main(void)
{
    npk_rk *rt = NULL, *other = NULL;
    if (npk_rk_open("sim", &rt) || npk_rk_open("sim", &other)) {
        fprintf(stderr, "open: %s\n", npk_last_error());
        return 1;
    }
    const shape shapes[] = {
        {NPK_PREC_INT8, 1, 64, 32, 32},     /* M = 1, two groups */
        {NPK_PREC_INT8, 3, 100, 17, 32},    /* K not a multiple of the group, N unaligned */
        {NPK_PREC_INT8, 5, 256, 33, 0},     /* W8A8 per channel */
        {NPK_PREC_INT8, 64, 1000, 70, 128}, /* a short last group */
        {NPK_PREC_INT8, 2, 96, 40, 4096},   /* a group longer than K: one group */
        {NPK_PREC_INT8, 1, 10752, 19, 0},   /* K at the int8 task limit, per channel */
        {NPK_PREC_INT8, 2, 10784, 19, 0},   /* past it: K slices summed in int32 */
        {NPK_PREC_INT8, 1, 10784, 19, 256}, /* past it, per group */
        {NPK_PREC_INT4, 4, 200, 66, 32},    /* int4 weights with per-group scales */
        {NPK_PREC_INT4, 1, 1000, 20, 0},    /* int4 per channel: exact int16 slices */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        sweep(rt, &shapes[i]);
    layouts(rt);
    choice(rt);
    kept_plans(rt);
    bad_input(rt, other);
    npk_rk_close(other);
    npk_rk_close(rt);
    return check_done();
}
