/* SPDX-License-Identifier: MIT */
/* int4's native multi-M batch rule (spec "0x107c — entries per activation slice"): 0x107c =
 * K/16 gates it and opens rows x K <= 16384, min(M/2, 16384/K) rows per submit over M
 * physical lines (8 @ K=2048, 32 @ K=512); the synthesizer's checks refuse a program past it or
 * at another stride, naming the value and the limit; the simulator runs the gate's stride
 * against a CPU reference and refuses several rows at another. */
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_synth.h"
#include "rk/hw/rk_cbuf.h"
#include "rksim_testlib.h"

static const npk_rk_batch_rule *rule(void) { return npk_rk_batch_rule_of(NPK_PREC_INT4); }

/* The rule at the gate's stride: rows per submit over `lines` physical lines. */
static uint32_t rows_at(uint32_t lines, uint32_t k)
{
    return npk_rk_batch_rows(NULL, rule(), lines, k, npk_rk_batch_gate(rule(), k));
}

static void test_table(void)
{
    CHECK(rule() != NULL);
    CHECK(npk_rk_batch_rule_of(NPK_PREC_FP16) == NULL); /* in-task batch: no such rule */
    CHECK(npk_rk_batch_rule_of(NPK_PREC_INT8) == NULL);
    CHECK_STR_HAS(rule()->source, "0x107c");
    CHECK_EQ(rule()->entry_elems, 16);
    CHECK_EQ(rule()->lines_per_row, 2);
    /* the budget is the int4 row's bank (16384 elements in a 32 KB bank) */
    CHECK_EQ(rule()->budget_elems, npk_rk_bank_elems(NULL, NPK_PREC_INT4));
    CHECK_EQ(npk_rk_batch_budget(NULL, rule()), 16384);
    npk_rk_soc big = *npk_rk_soc_default(); /* a bank twice the size holds twice the rows */
    big.bank_bytes *= 2;
    CHECK_EQ(npk_rk_batch_rows(&big, rule(), 1000, 2048, 128), 16);
    CHECK_EQ(npk_rk_batch_gate(rule(), 2048), 128);
    CHECK_EQ(npk_rk_batch_gate(NULL, 2048), 0);
}

static void test_spec_examples(void)
{
    /* "8 @ K=2048, 32 @ K=512": the budget term, whatever the lines beyond it */
    CHECK_EQ(rows_at(16, 2048), 8);
    CHECK_EQ(rows_at(1000, 2048), 8);
    CHECK_EQ(rows_at(64, 512), 32);
    CHECK_EQ(rows_at(4096, 512), 32);
    /* the M/2 term below it */
    CHECK_EQ(rows_at(10, 2048), 5);
    CHECK_EQ(rows_at(40, 512), 20);
    /* M = 1 line holds no padded row; odd M rounds down */
    CHECK_EQ(rows_at(1, 512), 0);
    CHECK_EQ(rows_at(2, 512), 1);
    CHECK_EQ(rows_at(15, 2048), 7);
    CHECK_EQ(rows_at(17, 2048), 8);
    CHECK_EQ(rows_at(63, 512), 31);
    /* K at the budget's boundaries: 16384 leaves one row, past it none */
    CHECK_EQ(rows_at(100, 8192), 2);
    CHECK_EQ(rows_at(100, 16384), 1);
    CHECK_EQ(rows_at(100, 16384 + 32), 0);
    CHECK_EQ(rows_at(100, 0), 0);
    /* a closed gate: another stride gives no batch */
    CHECK_EQ(npk_rk_batch_rows(NULL, rule(), 64, 512, 512 / 8), 0);
    CHECK_EQ(npk_rk_batch_rows(NULL, rule(), 64, 512, 512 / 32), 0); /* dense K/32: open RE */
    CHECK_EQ(npk_rk_batch_rows(NULL, NULL, 64, 512, 32), 0);
}

static npk_status check_int4(uint32_t m, uint32_t k, uint32_t a_pitch)
{
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT4, m, k, 64);
    mm.mode = NPK_MODE_LINE;
    mm.a_pitch = a_pitch;
    return npk_rk_mm_check(&mm, NULL);
}

static void test_checks(void)
{
    /* at and past the budget: K=256 holds 64 rows, K=480 34, K=32 512 */
    CHECK_EQ(check_int4(64, 256, 0), NPK_OK);
    CHECK_EQ(check_int4(65, 256, 0), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "M=65");
    CHECK_STR_HAS(npk_last_error(), "16384");
    CHECK_STR_HAS(npk_last_error(), "= 64 rows");
    CHECK_EQ(check_int4(34, 480, 0), NPK_OK);
    CHECK_EQ(check_int4(35, 480, 0), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "16800"); /* rows x K */
    CHECK_EQ(check_int4(512, 32, 0), NPK_OK);
    CHECK_EQ(check_int4(513, 32, 0), NPK_ELIMIT);
    /* odd M and M = 1 */
    CHECK_EQ(check_int4(33, 480, 0), NPK_OK);
    CHECK_EQ(check_int4(1, 480, 0), NPK_OK);
    /* the gate: several rows only at 0x107c = K/16 (a_pitch K, the default) */
    CHECK_EQ(check_int4(8, 256, 256), NPK_OK);
    CHECK_EQ(check_int4(8, 256, 512), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "LINE_STRIDE 32");
    CHECK_STR_HAS(npk_last_error(), "K/16 = 16");
    CHECK_EQ(check_int4(1, 256, 512), NPK_OK); /* one row reads the same at any stride */
    /* the rule is the line form's: cube mode keeps its own ceiling */
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT4, 64, 256, 64);
    mm.mode = NPK_MODE_CUBE;
    CHECK_EQ(npk_rk_mm_check(&mm, NULL), NPK_OK);
    /* --unchecked emits a program past the rule (for the simulator to judge) */
    mm = npk_rk_mm_default(NPK_PREC_INT4, 8, 256, 64);
    mm.mode = NPK_MODE_LINE;
    mm.a_pitch = 512;
    mm.unchecked = true;
    CHECK_EQ(npk_rk_mm_check(&mm, NULL), NPK_OK);
}

/* One int4 line-form task on the simulator at a row pitch; returns the submit's status. */
static npk_status sim_run(uint32_t m, uint32_t k, uint32_t a_pitch, size_t *bad)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    tl_case_init(&t, NPK_PREC_INT4, NPK_PREC_INT16, m, k, 64);
    tl_case_reference(&t);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT4, m, k, 64);
    mm.out = NPK_PREC_INT16;
    mm.mode = NPK_MODE_LINE;
    mm.a_pitch = a_pitch;
    mm.unchecked = a_pitch != 0;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    npk_rk_devtask tk;
    npk_status s = npk_rk_devtask_create(d, &mm, 0, &tk);
    CHECK_EQ(s, NPK_OK);
    if (s == NPK_OK) {
        CHECK_EQ(npk_rk_devtask_load(d, &tk, t.a, t.b), NPK_OK);
        struct rknpu_submit sub;
        s = npk_rk_devtask_submit(d, &tk, 0, 6000, &sub);
        if (s == NPK_OK) {
            CHECK_EQ(npk_rk_devtask_read(d, &tk, t.c), NPK_OK);
            *bad = tl_mismatches(&t);
        }
        npk_rk_devtask_destroy(d, &tk);
    }
    tl_case_free(&t);
    npk_rk_device_close(d);
    return s;
}

static void test_simulator(void)
{
    size_t bad = 1;
    /* the budget's edge at the gate, against the CPU reference */
    CHECK_EQ(sim_run(64, 256, 0, &bad), NPK_OK);
    CHECK_EQ(bad, 0);
    bad = 1;
    CHECK_EQ(sim_run(34, 480, 0, &bad), NPK_OK);
    CHECK_EQ(bad, 0);
    /* one row at another stride reads the same */
    bad = 1;
    CHECK_EQ(sim_run(1, 256, 512, &bad), NPK_OK);
    CHECK_EQ(bad, 0);
    /* several rows at another stride are outside the evidence: refused, naming the register */
    CHECK_EQ(sim_run(4, 256, 512, &bad), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "LINE_STRIDE");
}

int main(void)
{
    test_table();
    test_spec_examples();
    test_checks();
    test_simulator();
    return check_done();
}
