/* SPDX-License-Identifier: MIT */
/* The runtime chooses the vendor's multi-task SUBMIT (one row per task) by cost for int4, whose
 * rows the vendor batches that way (spec "TWO distinct batch mechanisms"): the choice follows
 * the planner's model (checked against plans this test makes itself), flips between M = 1 and
 * larger M, gives exact results either way, and any form set explicitly is kept; int8 and fp16
 * (in-task batch) and the rocket kernel (no multi-task SUBMIT) are never weighed. */
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_plan.h"
#include "rk_runtime_case_testlib.h"

enum { K = 256, N = 384, CORES = 3 };

/* The model's totals for int4 M x K x N on three cores, planned here as the runtime plans:
 * the default form (a submit per task) and "multitask" with one row per task. */
static void model(uint32_t m, double *single_us, double *multi_us)
{
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, NPK_PREC_INT4, m, K, N);
    req.out = NPK_PREC_INT16; /* the int4 task's output, one K slice */
    req.cores = CORES;
    req.k_slice = K;
    req.k_pad = 0;
    npk_rk_plan p;
    CHECK_EQ(npk_rk_plan_matmul(&req, &p), NPK_OK);
    *single_us = p.total_us;
    npk_rk_plan_free(&p);
    CHECK_EQ(npk_rk_submission_plan("multitask", 1, &req), NPK_OK);
    req.m_tile_max = 1;
    CHECK_EQ(npk_rk_plan_matmul(&req, &p), NPK_OK);
    *multi_us = p.total_us;
    for (size_t i = 0; i < p.count; i++) /* one row per task */
        CHECK_EQ(p.tasks[i].m1 - p.tasks[i].m0, 1);
    npk_rk_plan_free(&p);
}

static void test_choice_follows_model(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    int8_t *b = calloc((size_t)K * N, 1);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT4, K, N, b, 1, &w), NPK_OK);
    const uint32_t ms[] = {1, 2, 3, 4, 8, 16, 64};
    unsigned multis = 0;
    const char *last = NULL;
    for (unsigned i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        const char *form = NULL;
        double own = 0, multi = 0, want_own, want_multi;
        CHECK_EQ(npk_rk_submission_choice(rt, w, ms[i], NPK_PREC_INT32, &form, &own, &multi),
                 NPK_OK);
        model(ms[i], &want_own, &want_multi);
        CHECK(own == want_own && multi == want_multi);
        CHECK(!strcmp(form, multi < own ? "multitask" : "single"));
        printf("  int4 %ux%ux%u on %u cores: single %.1f us, multitask %.1f us -> %s\n", ms[i], K,
               N, CORES, own, multi, form);
        multis += !strcmp(form, "multitask");
        last = form;
    }
    /* the model flips: a few rows are cheaper one a task in one SUBMIT of every core (no worker
     * threads to start), many rows in row tiles of a submit each */
    CHECK(multis > 0);
    CHECK(!strcmp(last, "single"));
    CHECK(!strcmp(npk_rk_submission(rt), "single")); /* the runtime's own form is unchanged */

    /* a form set explicitly is kept, "auto" weighs again */
    const char *form = NULL;
    double multi = -1;
    CHECK_EQ(npk_rk_set_submission(rt, "single"), NPK_OK);
    CHECK_EQ(npk_rk_submission_choice(rt, w, 1, NPK_PREC_INT32, &form, NULL, &multi), NPK_OK);
    CHECK(!strcmp(form, "single") && multi == 0);
    CHECK_EQ(npk_rk_set_submission(rt, "multitask"), NPK_OK);
    CHECK_EQ(npk_rk_submission_choice(rt, w, 64, NPK_PREC_INT32, &form, NULL, &multi), NPK_OK);
    CHECK(!strcmp(form, "multitask") && multi == 0);
    CHECK_EQ(npk_rk_set_submission(rt, "auto"), NPK_OK);
    CHECK(!strcmp(npk_rk_submission(rt), "single"));
    CHECK_EQ(npk_rk_submission_choice(rt, w, 3, NPK_PREC_INT32, &form, NULL, &multi), NPK_OK);
    CHECK(!strcmp(form, "multitask") && multi > 0);
    CHECK_EQ(npk_rk_submission_choice(rt, NULL, 1, NPK_PREC_INT32, &form, NULL, NULL),
             NPK_EINVAL);
    CHECK_EQ(npk_rk_submission_choice(rt, w, 0, NPK_PREC_INT32, &form, NULL, NULL), NPK_EINVAL);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(b);
}

/* One int4 matmul of M rows on three cores (form: NULL, the choice), exact; its stats. */
static npk_status three_cores(npk_rk *rt, const void *arg)
{
    npk_status s = npk_rk_set_cores(rt, CORES);
    return s || !arg ? s : npk_rk_set_submission(rt, arg);
}

static npk_rk_stats run(uint32_t m, const char *form)
{
    npk_rk_stats st = {0};
    npk_rk_verdict v;
    CHECK_EQ(rk_case_run("sim", NPK_PREC_INT4, m, K, N, three_cores, form, &st, &v), NPK_OK);
    return st;
}

static void test_runs(void)
{
    /* M = 3: the choice is one SUBMIT of the three cores, a row each; forced single: a
     * submit per task */
    npk_rk_stats st = run(3, NULL);
    CHECK_EQ(st.submits - st.warmups, 1);
    CHECK_EQ(st.tasks, 3);
    st = run(3, "single");
    CHECK_EQ(st.submits - st.warmups, st.tasks);
    CHECK(st.tasks > 1);
    /* M = 64: the choice is the default form, a submit per task */
    st = run(64, NULL);
    CHECK_EQ(st.submits - st.warmups, st.tasks);
    st = run(64, "multitask"); /* forced: the runtime's plan, every core in one SUBMIT */
    CHECK_EQ(st.submits - st.warmups, 1);

    npk_rk *rt = NULL;
    int8_t *b = calloc((size_t)K * N, 1);
    npk_rk_weights *w = NULL;
    const char *form = NULL;
    double multi = -1;
    /* int8 and fp16 are batched in-task by the vendor: not weighed */
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, K, N, b, 1, &w), NPK_OK);
    CHECK_EQ(npk_rk_submission_choice(rt, w, 3, NPK_PREC_INT32, &form, NULL, &multi), NPK_OK);
    CHECK(!strcmp(form, "single") && multi == 0);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    /* rocket has no multi-task SUBMIT: not weighed */
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT4, K, N, b, 1, &w), NPK_OK);
    CHECK_EQ(npk_rk_submission_choice(rt, w, 3, NPK_PREC_INT32, &form, NULL, &multi), NPK_OK);
    CHECK(!strcmp(form, "single") && multi == 0);
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(b);
}

int main(void)
{
    test_choice_follows_model();
    test_runs();
    return check_done();
}
