/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Submission forms (rk.h npk_rk_set_submission) end to end on the simulator, against the CPU
 * reference, on both kernel interfaces where the kernel allows the form; the refusals; and the
 * simulator executing an incremental task without the register state it relies on. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define RK_TEST_SEED 11
#include "rk_operands_testlib.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rk_reference.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "npukit/rksim.h"
#include "rk/runtime/runtime_forms.h"

typedef struct shape {
    npk_rk_prec in, out;
    uint32_t m, k, n;
} shape;

/* One matmul through `form` (chain tasks per job) on `device`; checks it against the
 * reference and returns its stats. */
static bool run_form(const char *device, const char *form, unsigned chain, const shape *sh,
                     npk_rk_stats *st)
{
    npk_rk *rt = NULL;
    npk_rk_weights *w = NULL;
    void *a = rk_test_operands(sh->in, (size_t)sh->m * sh->k),
         *b = rk_test_operands(sh->in, (size_t)sh->k * sh->n);
    void *c = calloc((size_t)sh->m * sh->n, 4);
    bool ok = npk_rk_open(device, &rt) == NPK_OK && npk_rk_set_submission(rt, form) == NPK_OK &&
              (chain == 1 || npk_rk_set_chain(rt, chain) == NPK_OK) &&
              npk_rk_set_submission(rt, form) == NPK_OK &&
              npk_rk_weights_pack(rt, sh->in, sh->k, sh->n, b, sh->m, &w) == NPK_OK;
    npk_status s = ok ? npk_rk_matmul(rt, w, sh->m, a, sh->out, c, st) : NPK_EINVAL;
    if (s)
        fprintf(stderr, "  %s %s %ux%ux%u: %s\n", device, form, sh->m, sh->k, sh->n,
                npk_last_error());
    npk_rk_verdict v = {0};
    bool right = s == NPK_OK &&
                 npk_rk_check_matmul(sh->in, sh->out, sh->m, sh->k, sh->n, a, b, c, &v) == NPK_OK &&
                 v.outside == 0;
    if (ok && s == NPK_OK && !right)
        fprintf(stderr, "  %s %s %ux%ux%u: %llu elements wrong\n", device, form, sh->m, sh->k,
                sh->n, (unsigned long long)v.outside);
    CHECK(!rt || !strcmp(npk_rk_submission(rt), form));
    npk_rk_weights_free(rt, w);
    npk_rk_close(rt);
    free(a);
    free(b);
    free(c);
    return right;
}

/* The table, its default and the refusals. */
static void test_table(void)
{
    CHECK_EQ(npk_rk_submission_count(), 6);
    CHECK(!strcmp(npk_rk_submission_name(0), "single"));
    CHECK(npk_rk_submission_name(6) == NULL);
    for (unsigned i = 0; i < npk_rk_submission_count(); i++)
        CHECK(npk_rk_submission_about(i) && *npk_rk_submission_about(i));

    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK(!strcmp(npk_rk_submission(rt), "single")); /* the board-validated default */
    CHECK_EQ(npk_rk_set_submission(rt, "fast"), NPK_EINVAL);
    CHECK(strstr(npk_last_error(), "'fast'") && strstr(npk_last_error(), "multitask"));
    CHECK_EQ(npk_rk_set_submission(rt, NULL), NPK_EINVAL);
    CHECK_EQ(npk_rk_set_submission(NULL, "single"), NPK_EINVAL);
    /* chaining a single runtime selects the chained form; other forms keep theirs */
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK);
    CHECK(!strcmp(npk_rk_submission(rt), "chained"));
    CHECK_EQ(npk_rk_set_submission(rt, "concat"), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 8), NPK_OK);
    CHECK(!strcmp(npk_rk_submission(rt), "concat"));
    npk_rk_close(rt);

    /* rocket: no core mask or subcore ranges; a chained job is one rocket job of tasks the
     * kernel kicks one by one */
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    CHECK_EQ(npk_rk_set_submission(rt, "multitask"), NPK_EUNSUPPORTED);
    CHECK(strstr(npk_last_error(), "rocket") && strstr(npk_last_error(), "subcore"));
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK); /* single -> chained */
    CHECK(!strcmp(npk_rk_submission(rt), "chained"));
    CHECK_EQ(npk_rk_set_submission(rt, "chained"), NPK_OK);
    CHECK_EQ(npk_rk_set_submission(rt, "concat"), NPK_OK);
    CHECK_EQ(npk_rk_set_chain(rt, 4), NPK_OK); /* one regcmd array is one kick */
    CHECK_EQ(npk_rk_set_submission(rt, "nonblock"), NPK_OK);
    CHECK_EQ(npk_rk_set_submission(rt, "rowoffset"), NPK_OK); /* a concat job */
    npk_rk_close(rt);
}

/* The row-offset form's placement: tiles share a DST row while 0x1068's 4 bits reach them. */
static void test_surface_place(void)
{
    const uint32_t row[] = {0, 4, 8, 12, 16, 20, 31, 47};
    uint32_t base[8], v[8];
    npk_rk_surface_place(row, 8, base, v);
    const uint32_t want_base[] = {0, 0, 0, 0, 16, 16, 16, 47};
    for (unsigned i = 0; i < 8; i++) {
        CHECK_EQ(base[i], want_base[i]);
        CHECK_EQ(v[i], row[i] - want_base[i]);
        CHECK(v[i] <= 15);
    }
    const uint32_t one = 0;
    npk_rk_surface_place(&one, 1, base, v);
    CHECK_EQ(base[0], 0);
    CHECK_EQ(v[0], 0);
}

/* One matmul through the row-offset form on `device`, `chain` tiles per job, against the
 * reference; and the same shape through "single" for the submit counts. */
static void check_rowoffset(const char *device, unsigned chain, const shape *sh)
{
    npk_rk_stats single, st;
    CHECK(run_form(device, "single", 1, sh, &single));
    CHECK(run_form(device, "rowoffset", chain, sh, &st));
    CHECK_EQ(st.tasks, single.tasks);
    CHECK(st.submits <= single.submits);
    printf("  rowoffset %s %ux%ux%u chain %u: %u tasks, %u submits (single %u)\n", device, sh->m,
           sh->k, sh->n, chain, st.tasks, st.submits, single.submits);
}

/* The row-offset form on the edge shapes: M = 1, M not a multiple of the M-tile, several tiles
 * sharing one DST (offsets 0..15) and several DST rows, K slices, on both kernels; its
 * refusal for the inputs 0x1068 is not described for. */
static void test_rowoffset(void)
{
    const shape sh[] = {
        {NPK_PREC_INT8, NPK_PREC_INT32, 1, 4096, 64},   /* M = 1 */
        {NPK_PREC_INT8, NPK_PREC_INT32, 13, 4096, 64},  /* tiles of 8 and a short last one */
        {NPK_PREC_INT8, NPK_PREC_INT32, 37, 8192, 40},  /* K slices, N not aligned */
        {NPK_PREC_INT8, NPK_PREC_INT32, 250, 300, 200}, /* 3 tiles on each of 3 cores */
        {NPK_PREC_INT8, NPK_PREC_INT32, 300, 300, 33},  /* tiles far apart: a DST row each */
    };
    for (unsigned i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        check_rowoffset("sim", 8, &sh[i]);
        check_rowoffset("sim", 3, &sh[i]);
    }
    check_rowoffset("sim-rocket", 8, &sh[1]);
    check_rowoffset("sim-rocket", 4, &sh[2]);

    /* fp16 / int4: refused, naming the register and the form */
    const shape other[] = {{NPK_PREC_FP16, NPK_PREC_FP32, 4, 64, 32},
                           {NPK_PREC_INT4, NPK_PREC_INT32, 4, 64, 64}};
    for (unsigned i = 0; i < 2; i++) {
        npk_rk *rt = NULL;
        npk_rk_weights *w = NULL;
        void *a = rk_test_operands(other[i].in, 4 * 64),
             *b = rk_test_operands(other[i].in, 64 * 64);
        float c[4 * 64];
        CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
        CHECK_EQ(npk_rk_set_submission(rt, "rowoffset"), NPK_OK);
        CHECK_EQ(npk_rk_weights_pack(rt, other[i].in, other[i].k, other[i].n, b, 4, &w), NPK_OK);
        CHECK_EQ(npk_rk_matmul(rt, w, other[i].m, a, other[i].out, c, NULL), NPK_EUNSUPPORTED);
        CHECK(strstr(npk_last_error(), "rowoffset") && strstr(npk_last_error(), "0x1068") &&
              strstr(npk_last_error(), npk_rk_prec_name(other[i].in)));
        npk_rk_weights_free(rt, w);
        npk_rk_close(rt);
        free(a);
        free(b);
    }
}

static const shape shapes[] = {
    {NPK_PREC_INT8, NPK_PREC_INT32, 1, 5000, 1000}, /* M=1, K slices, three cores */
    {NPK_PREC_FP16, NPK_PREC_FP32, 300, 3000, 130}, /* M-tiles x K slices, non-aligned */
    {NPK_PREC_INT4, NPK_PREC_INT32, 7, 2000, 300},  /* int4, several tasks per core */
    {NPK_PREC_INT8, NPK_PREC_INT32, 37, 100, 33},   /* one task */
    {NPK_PREC_FP16, NPK_PREC_FP16, 1, 40, 17},      /* fp16 out, tiny */
};

/* Every form on every shape on both kernels where allowed, against the reference; the
 * submit counts each form promises. */
static void test_forms_results(void)
{
    for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const shape *sh = &shapes[i];
        npk_rk_stats single, st;
        CHECK(run_form("sim", "single", 1, sh, &single));
        CHECK(single.submits >= single.tasks); /* warm-ups on top of one per task */
        CHECK(run_form("sim", "chained", 4, sh, &st));
        CHECK(st.submits <= single.submits);
        CHECK(run_form("sim", "concat", 4, sh, &st));
        CHECK(st.submits <= single.submits);
        CHECK(run_form("sim-rocket", "concat", 4, sh, &st));
        CHECK(run_form("sim", "multitask", 4, sh, &st));
        CHECK(st.submits <= single.submits);
        CHECK(run_form("sim", "nonblock", 1, sh, &st));
        CHECK_EQ(st.submits, single.submits);
        CHECK(st.wait_ns > 0); /* the completion wait ran (and was timed apart) */
        CHECK(run_form("sim-rocket", "nonblock", 1, sh, &st));
        CHECK(st.wait_ns > 0);
        CHECK(run_form("sim-rocket", "single", 1, sh, &st));
    }
    /* the gains the forms exist for, where a core has several tasks */
    npk_rk_stats a, b;
    CHECK(run_form("sim", "single", 1, &shapes[2], &a));
    CHECK(run_form("sim", "concat", 8, &shapes[2], &b));
    CHECK(b.submits * 2 <= a.submits);
    CHECK(b.npu_span_ns < a.npu_span_ns); /* no per-submit floor between its tasks */
    CHECK(run_form("sim", "multitask", 8, &shapes[2], &b));
    CHECK(b.submits <= 2); /* every core's tasks in one SUBMIT (+ its warm-up) */
}

/* Plans whose rows are split over the cores (N too narrow for the N split to use them all)
 * compute right in every form, bit-exact for integers against the reference, on all 3 cores. */
static void test_planner_axes(void)
{
    const shape sh[] = {
        {NPK_PREC_FP16, NPK_PREC_FP32, 1000, 1024, 32},
        {NPK_PREC_INT8, NPK_PREC_INT32, 1000, 600, 32},
        {NPK_PREC_INT4, NPK_PREC_INT32, 301, 900, 40},
    };
    for (unsigned i = 0; i < sizeof sh / sizeof sh[0]; i++) {
        npk_rk_stats st;
        CHECK(run_form("sim", "single", 1, &sh[i], &st));
        CHECK_EQ(st.cores_used, 3);
        CHECK(run_form("sim", "concat", 4, &sh[i], &st));
        CHECK_EQ(st.cores_used, 3);
        if (sh[i].in == NPK_PREC_INT8) {
            CHECK(run_form("sim", "rowoffset", 8, &sh[i], &st));
            CHECK_EQ(st.cores_used, 3);
        }
    }
}

/* Write an incremental program into t's regcmd: only the feature address (the register the
 * vendor's later tasks update), padded to whole entry pairs, then the trailer. */
static void write_incremental(npk_rk_device *dev, npk_rk_devtask *t)
{
    npk_rk_entry *r = t->regcmd.host;
    r[0] = npk_rk_entry_reg_write(NPK_REG_CNA_FEATURE_DATA_ADDR, t->a.iova);
    r[1] = 0;
    CHECK_EQ(npk_rk_trailer(r + 2, 0, 0, NPK_RK_ENABLE_MATMUL), NPK_OK);
    ((struct rknpu_task *)t->task.host)->regcfg_amount = 2;
    CHECK_EQ(npk_rk_mem_sync(dev, &t->regcmd, 0, t->regcmd.size, RKNPU_MEM_SYNC_TO_DEVICE), NPK_OK);
    CHECK_EQ(npk_rk_mem_sync(dev, &t->task, 0, t->task.size, RKNPU_MEM_SYNC_TO_DEVICE), NPK_OK);
}

static bool matches(const npk_rk_devtask *t, const void *a, const void *b, const int32_t *c)
{
    npk_rk_verdict v = {0};
    return npk_rk_check_matmul(t->mm.in, t->mm.out, t->mm.m, t->mm.k, t->mm.n, a, b, c, &v) ==
               NPK_OK &&
           v.outside == 0;
}

/* An incremental task runs on the register file the task before it left (the simulator keeps
 * it, as the NPU does, facts B.1): right on its own full program's state, a clear failure with
 * no state (after a reset), and a wrong answer on another job's state. */
static void test_incremental_state(void)
{
    npk_rk_device *dev = NULL;
    CHECK_EQ(npk_rk_device_open_sim(NULL, &dev), NPK_OK);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, 4, 64, 32);
    npk_rk_mm mm2 = npk_rk_mm_default(NPK_PREC_INT8, 8, 128, 64);
    npk_rk_devtask t, t2;
    CHECK_EQ(npk_rk_devtask_create(dev, &mm, 0, &t), NPK_OK);
    CHECK_EQ(npk_rk_devtask_create(dev, &mm2, 0, &t2), NPK_OK);
    int8_t *a = rk_test_operands(NPK_PREC_INT8, 4 * 64),
           *a2 = rk_test_operands(NPK_PREC_INT8, 4 * 64);
    int8_t *b = rk_test_operands(NPK_PREC_INT8, 64 * 32);
    int8_t *a3 = rk_test_operands(NPK_PREC_INT8, 8 * 128),
           *b3 = rk_test_operands(NPK_PREC_INT8, 128 * 64);
    int32_t c[4 * 32], c3[8 * 64];
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_devtask_load(dev, &t, a, b), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(dev, &t2, a3, b3), NPK_OK);
    CHECK_EQ(npk_rk_action(dev, RKNPU_ACT_RESET, NULL), NPK_OK); /* int8 entry (policy) */
    for (int warm = 0; warm < 2; warm++) /* the first submit to a fresh output is stale */
        CHECK_EQ(npk_rk_devtask_submit(dev, &t, 0, 1000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(dev, &t, c), NPK_OK);
    CHECK(matches(&t, a, b, c));

    /* 1. on its own full program's state: new A rows at the same address, right answer */
    write_incremental(dev, &t);
    CHECK_EQ(npk_rk_devtask_load(dev, &t, a2, b), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(dev, &t, 0, 1000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(dev, &t, c), NPK_OK);
    CHECK(matches(&t, a2, b, c));

    /* 2. with no state (a reset cleared the register file): the job fails, naming why */
    CHECK_EQ(npk_rk_action(dev, RKNPU_ACT_RESET, NULL), NPK_OK);
    npk_status s = npk_rk_devtask_submit(dev, &t, 0, 1000, &sub);
    CHECK(s != NPK_OK);
    const rksim_report *rep = rksim_last_report(npk_rk_device_sim(dev));
    CHECK(rep->outcome != RKSIM_OK && rep->message[0]);
    printf("  incremental task after a reset: %s (%s)\n", npk_last_error(),
           rksim_outcome_name(rep->outcome));

    /* 3. on another job's state: it runs that job's shape into that job's output; its own
     * output is never written — a wrong answer the NPU cannot detect */
    CHECK_EQ(npk_rk_action(dev, RKNPU_ACT_RESET, NULL), NPK_OK);
    for (int warm = 0; warm < 2; warm++)
        CHECK_EQ(npk_rk_devtask_submit(dev, &t2, 0, 1000, &sub), NPK_OK);
    memset(t.c.host, 0, t.c.size);
    CHECK_EQ(npk_rk_devtask_clean_output(dev, &t), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(dev, &t, 0, 1000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(dev, &t, c), NPK_OK);
    CHECK(!matches(&t, a2, b, c));
    CHECK_EQ(npk_rk_devtask_read(dev, &t2, c3), NPK_OK);

    npk_rk_devtask_destroy(dev, &t);
    npk_rk_devtask_destroy(dev, &t2);
    npk_rk_device_close(dev);
    free(a);
    free(a2);
    free(b);
    free(a3);
    free(b3);
}

int main(void)
{
    test_table();
    test_surface_place();
    test_rowoffset();
    test_incremental_state();
    test_forms_results();
    test_planner_axes();
    return check_done();
}
