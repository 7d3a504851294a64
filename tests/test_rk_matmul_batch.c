/* SPDX-License-Identifier: MIT */
/* Several independent matmuls in one call (npk_rk_matmul_batch) on the faithful simulator: a
 * mix of shapes per precision against a CPU reference (exact: small integer values), in every
 * submission form; the batch packs its tasks into fewer submits than the matmuls one by one,
 * and its modelled NPU time is lower; each item's stats; bad input named by item. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"

static uint64_t seed = 23;
static int small(void) /* -3..3 */
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((seed >> 33) % 7) - 3;
}

typedef struct mm {
    uint32_t m, k, n;
    void *a, *b, *c;
    int64_t *ref;
    npk_rk_weights *w;
} mm;

/* Operands of `in` (fp16 bits or int8 values), B packed, the exact reference. */
static void make(npk_rk *rt, npk_rk_prec in, mm *x)
{
    size_t eb = in == NPK_PREC_FP16 ? 2 : 1, ma = (size_t)x->m * x->k, mb = (size_t)x->k * x->n;
    x->a = malloc(ma * eb);
    x->b = malloc(mb * eb);
    x->c = calloc((size_t)x->m * x->n, 4);
    x->ref = calloc((size_t)x->m * x->n, sizeof *x->ref);
    int *av = malloc(ma * sizeof *av), *bv = malloc(mb * sizeof *bv);
    for (size_t i = 0; i < ma; i++) {
        av[i] = small();
        if (in == NPK_PREC_FP16)
            ((uint16_t *)x->a)[i] = npk_f32_to_f16((float)av[i]);
        else
            ((int8_t *)x->a)[i] = (int8_t)av[i];
    }
    for (size_t i = 0; i < mb; i++) {
        bv[i] = small();
        if (in == NPK_PREC_FP16)
            ((uint16_t *)x->b)[i] = npk_f32_to_f16((float)bv[i]);
        else
            ((int8_t *)x->b)[i] = (int8_t)bv[i];
    }
    for (uint32_t i = 0; i < x->m; i++)
        for (uint32_t j = 0; j < x->n; j++)
            for (uint32_t p = 0; p < x->k; p++)
                x->ref[(size_t)i * x->n + j] += av[(size_t)i * x->k + p] * bv[(size_t)p * x->n + j];
    free(av);
    free(bv);
    CHECK_EQ(npk_rk_weights_pack(rt, in, x->k, x->n, x->b, x->m, &x->w), NPK_OK);
}

static uint64_t wrong(const mm *x, npk_rk_prec out)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < (size_t)x->m * x->n; i++) {
        double got = out == NPK_PREC_FP32   ? ((const float *)x->c)[i]
                     : out == NPK_PREC_FP16 ? npk_f16_to_f32(((const uint16_t *)x->c)[i])
                                            : ((const int32_t *)x->c)[i];
        bad += got != (double)x->ref[i];
    }
    return bad;
}

static void drop(npk_rk *rt, mm *x)
{
    npk_rk_weights_free(rt, x->w);
    free(x->a);
    free(x->b);
    free(x->c);
    free(x->ref);
}

enum { SHAPES = 6 };
static const uint32_t shapes[SHAPES][3] = {{1, 2048, 512}, {3, 100, 37},   {1, 64, 1},
                                           {70, 96, 200},  {1, 10752, 64}, {5, 4096, 96}};

/* One batch of the shapes in `in` -> `out` on rt: every item against its reference. */
static void batch_once(npk_rk *rt, npk_rk_prec in, npk_rk_prec out, npk_rk_stats *st)
{
    mm x[SHAPES];
    npk_rk_matmul_item items[SHAPES];
    for (int i = 0; i < SHAPES; i++) {
        x[i] = (mm){shapes[i][0], shapes[i][1], shapes[i][2], NULL, NULL, NULL, NULL, NULL};
        make(rt, in, &x[i]);
        items[i] = (npk_rk_matmul_item){x[i].w, x[i].m, x[i].a, x[i].c, {0}, false};
    }
    npk_status s = npk_rk_matmul_batch(rt, items, SHAPES, out, st);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "batch: %s\n", npk_last_error());
    uint32_t tasks = 0;
    for (int i = 0; i < SHAPES; i++) {
        uint64_t bad = wrong(&x[i], out);
        if (bad)
            fprintf(stderr, "%s item %d (%ux%ux%u, form %s): %llu wrong\n", npk_rk_prec_name(in), i,
                    x[i].m, x[i].k, x[i].n, npk_rk_submission(rt), (unsigned long long)bad);
        CHECK_EQ(bad, 0);
        CHECK(items[i].stats.tasks >= 1);
        CHECK(items[i].stats.core_mask != 0);
        CHECK(items[i].stats.npu_ns > 0);
        tasks += items[i].stats.tasks;
        drop(rt, &x[i]);
    }
    CHECK_EQ(st->tasks, tasks);
}

static void test_forms(void)
{
    static const char *const forms[] = {"single",    "chained",  "concat",
                                        "multitask", "nonblock", "rowoffset"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        npk_rk *rt = NULL;
        CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
        CHECK_EQ(npk_rk_set_chain(rt, 8), NPK_OK);
        CHECK_EQ(npk_rk_set_submission(rt, forms[f]), NPK_OK);
        npk_rk_stats st;
        batch_once(rt, NPK_PREC_INT8, NPK_PREC_INT32, &st);
        if (f == 0) { /* the precisions in the default form */
            batch_once(rt, NPK_PREC_FP16, NPK_PREC_FP32, &st);
            batch_once(rt, NPK_PREC_FP16, NPK_PREC_FP16, &st);
        }
        npk_rk_close(rt);
    }
}

/* Decode-sized matmuls: the batch takes fewer submits and less modelled NPU time than the same
 * matmuls called one by one (chain 16: each core's 8 tasks in one job). */
static void test_amortises(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 16), NPK_OK);
    enum { L = 8 };
    mm x[L];
    npk_rk_matmul_item items[L];
    for (int i = 0; i < L; i++) {
        x[i] = (mm){1, 1024, 384, NULL, NULL, NULL, NULL, NULL};
        make(rt, NPK_PREC_INT8, &x[i]);
        items[i] = (npk_rk_matmul_item){x[i].w, 1, x[i].a, x[i].c, {0}, false};
    }
    npk_rk_stats one, batch;
    uint64_t single_ns = 0, single_submits = 0;
    for (int rep = 0; rep < 2; rep++) { /* the second round: warm buffers for both */
        single_ns = single_submits = 0;
        for (int i = 0; i < L; i++) {
            CHECK_EQ(npk_rk_matmul(rt, x[i].w, 1, x[i].a, NPK_PREC_INT32, x[i].c, &one), NPK_OK);
            single_ns += one.npu_span_ns;
            single_submits += one.submits;
        }
        CHECK_EQ(npk_rk_matmul_batch(rt, items, L, NPK_PREC_INT32, &batch), NPK_OK);
    }
    for (int i = 0; i < L; i++)
        CHECK_EQ(wrong(&x[i], NPK_PREC_INT32), 0);
    CHECK(batch.submits < single_submits);
    CHECK(batch.npu_span_ns < single_ns);
    fprintf(stderr,
            "8 x 1x1024x384 int8: %llu submits, %.1f us modelled one by one; %u, %.1f us "
            "batched\n",
            (unsigned long long)single_submits, single_ns / 1e3, batch.submits,
            batch.npu_span_ns / 1e3);
    for (int i = 0; i < L; i++)
        drop(rt, &x[i]);
    npk_rk_close(rt);
}

static void test_bad_input(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    mm a = {2, 64, 32, NULL, NULL, NULL, NULL, NULL}, b = a;
    make(rt, NPK_PREC_FP16, &a);
    b.n = 64;
    make(rt, NPK_PREC_INT8, &b);
    npk_rk_matmul_item items[2] = {{a.w, a.m, a.a, a.c, {0}, false}, {b.w, b.m, b.a, b.c, {0}, false}};
    CHECK_EQ(npk_rk_matmul_batch(NULL, items, 2, NPK_PREC_FP32, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul_batch(rt, NULL, 2, NPK_PREC_FP32, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 0, NPK_PREC_FP32, NULL), NPK_ELIMIT);
    CHECK_EQ(npk_rk_matmul_batch(rt, items, NPK_RK_BATCH_MAX + 1, NPK_PREC_FP32, NULL), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "1..4096");
    /* one input precision per call */
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 2, NPK_PREC_FP32, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "item 1");
    /* an item's own check, named by its index */
    items[1] = items[0];
    items[1].m = 0;
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 2, NPK_PREC_FP32, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "item 1: matmul: M=0");
    /* overlapping C */
    items[1].m = 1;
    items[1].c = (char *)a.c + 4;
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 2, NPK_PREC_FP32, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "items 0 and 1 overlap");
    drop(rt, &a);
    drop(rt, &b);
    npk_rk_close(rt);
}

int main(void)
{
    test_forms();
    test_amortises();
    test_bad_input();
    return check_done();
}
