/* SPDX-License-Identifier: MIT */
/* The feature row pitch (npk_rk_set_feature_pitch): the pitch rows and their evidence (fp16 at
 * 1/2/4/8 board-confirmed; int4 at 2, its K/16 zero-line padding, inferred), matmuls through the
 * runtime with the rows a pitch apart on both simulated kernels against the CPU reference, the
 * slot bounding a pitched tile's rows, int4's rows in chained rocket jobs, and the refusals
 * naming what is described. */
#include <stdlib.h>
#include <string.h>

#include "rk_runtime_case_testlib.h"

static npk_status set_pitch(npk_rk *rt, const void *arg)
{
    return npk_rk_set_feature_pitch(rt, *(const unsigned *)arg);
}

static void test_rows(void)
{
    const unsigned fp16[] = {1, 2, 4, 8};
    for (unsigned i = 0; i < 4; i++) {
        const npk_rk_pitch_row *r = npk_rk_pitch_row_of(NPK_PREC_FP16, fp16[i]);
        CHECK(r && r->board_confirmed && strstr(r->source, "0x107c"));
    }
    CHECK(npk_rk_pitch_row_of(NPK_PREC_FP16, 3) == NULL);
    CHECK(npk_rk_pitch_row_of(NPK_PREC_INT8, 1) != NULL);
    CHECK(npk_rk_pitch_row_of(NPK_PREC_INT8, 2) == NULL); /* not probed */
    const npk_rk_pitch_row *i4 = npk_rk_pitch_row_of(NPK_PREC_INT4, 2);
    CHECK(i4 && !i4->board_confirmed); /* the zero-line reading is inferred */
    CHECK_STR_HAS(i4->source, "mc_phys = 2H");
    CHECK(npk_rk_pitch_row_of(NPK_PREC_INT4, 1) == NULL); /* dense K/32: open RE */
    char buf[32];
    CHECK(!strcmp(npk_rk_pitch_list(NPK_PREC_FP16, buf, sizeof buf), "1, 2, 4, 8"));
    CHECK(!strcmp(npk_rk_pitch_list(NPK_PREC_INT4, buf, sizeof buf), "2"));
    CHECK(!strcmp(npk_rk_pitch_list(NPK_PREC_BF16, buf, sizeof buf), "none"));
    CHECK(npk_rk_pitch_row_at(0) != NULL);

    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_feature_pitch(rt), 0);
    CHECK_EQ(npk_rk_set_feature_pitch(rt, 3), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "feature pitch 3");
    CHECK_EQ(npk_rk_set_feature_pitch(rt, 2), NPK_OK);
    CHECK_EQ(npk_rk_feature_pitch(rt), 2);
    CHECK_EQ(npk_rk_set_feature_pitch(NULL, 2), NPK_EINVAL);
    npk_rk_close(rt);
}

/* One pitched matmul on every core against the reference; its tasks. */
static uint32_t pitched(const char *dev, npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n,
                        unsigned pitch)
{
    npk_rk_stats st = {0};
    npk_rk_verdict v;
    npk_status s = rk_case_run(dev, in, m, k, n, set_pitch, &pitch, &st, &v);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "%s %s %ux%ux%u pitch %u: %s\n", dev, npk_rk_prec_name(in), m, k, n, pitch,
                npk_last_error());
    return st.tasks;
}

static void test_runs(void)
{
    const char *devs[] = {"sim", "sim-rocket"};
    for (unsigned d = 0; d < 2; d++) {
        const char *dev = devs[d];
        /* fp16 at the board-confirmed pitches */
        for (unsigned p = 1; p <= 8; p *= 2)
            pitched(dev, NPK_PREC_FP16, 100, 300, 64, p);
        pitched(dev, NPK_PREC_INT8, 70, 200, 96, 1);
        /* int4's zero-line form: M = 1, odd M, the budget's edge at K=256 (64 rows) and K=480
         * (34 rows), a K split (K = 1000 in slices of at most 480) */
        pitched(dev, NPK_PREC_INT4, 1, 256, 128, 2);
        pitched(dev, NPK_PREC_INT4, 33, 480, 128, 2);
        pitched(dev, NPK_PREC_INT4, 64, 256, 128, 2);
        pitched(dev, NPK_PREC_INT4, 65, 1000, 64, 2);
    }
    /* 200 rows at K=480 on one core hold at most 34 rows a task: at least 6 tasks */
    npk_rk_stats st = {0};
    npk_rk_verdict v;
    const unsigned two = 2;
    CHECK_EQ(rk_case_run("sim", NPK_PREC_INT4, 200, 480, 64, set_pitch, &two, &st, &v), NPK_OK);
    CHECK(st.tasks >= 6);
    /* fp16 at pitch 8: a tile's pitched rows fit the feature slot (the CBUF's 384 KB): 24 rows
     * of K=1024, so 300 rows take at least 13 tasks */
    const unsigned eight = 8;
    CHECK_EQ(rk_case_run("sim", NPK_PREC_FP16, 300, 1024, 32, set_pitch, &eight, &st, &v), NPK_OK);
    CHECK(st.tasks >= 13);
}

/* int4 batching as far as rocket's uAPI goes: the zero-line rows in one task and a core's
 * tasks in one job of up to 4 (each kicked on its own), against the reference */
static npk_status pitch_chain(npk_rk *rt, const void *arg)
{
    (void)arg;
    npk_status s = npk_rk_set_feature_pitch(rt, 2);
    return s ? s : npk_rk_set_chain(rt, 4);
}

static void test_rocket_jobs(void)
{
    npk_rk_stats st = {0};
    npk_rk_verdict v;
    CHECK_EQ(rk_case_run("sim-rocket", NPK_PREC_INT4, 200, 480, 64, pitch_chain, NULL, &st, &v),
             NPK_OK);
    CHECK(st.tasks >= 6);
    CHECK(st.submits - st.warmups < st.tasks);
}

static void test_refusals(void)
{
    npk_rk_stats st;
    npk_rk_verdict v;
    const unsigned four = 4, two = 2, one = 1;
    CHECK_EQ(rk_case_run("sim", NPK_PREC_INT4, 8, 256, 64, set_pitch, &four, &st, &v),
             NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "described only at 2");
    CHECK_EQ(rk_case_run("sim", NPK_PREC_INT4, 8, 256, 64, set_pitch, &one, &st, &v),
             NPK_EUNSUPPORTED);
    CHECK_EQ(rk_case_run("sim", NPK_PREC_INT8, 8, 256, 64, set_pitch, &two, &st, &v),
             NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "int8: described only at 1");
}

int main(void)
{
    test_rows();
    test_runs();
    test_rocket_jobs();
    test_refusals();
    return check_done();
}
