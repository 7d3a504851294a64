/* SPDX-License-Identifier: MIT */
/* CNA_CBUF_CON0.DATA_REUSE: an operation takes the feature the core's last operation left in
 * the CBUF and fetches nothing at FEATURE_DATA_ADDR; after a reset, with nothing resident or
 * with another tile's shape it is refused (the facts describe reuse of the same tile only).
 * Through both kernels' front ends. */
#include "rksim_testlib.h"

#include <stdio.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rknpu_uapi.h"

enum { M = 8, K = 64, N = 32 };

/* The task's CBUF_CON0 value (every copy holds the same). */
static uint32_t cbuf_con0(const npk_rk_devtask *t)
{
    for (size_t i = 0; i < t->body_count; i++)
        if (npk_rk_reg_lookup(npk_rk_entry_target(t->body[i]), npk_rk_entry_reg(t->body[i])) ==
            npk_rk_reg_info(NPK_REG_CNA_CBUF_CON0))
            return npk_rk_entry_value(t->body[i]);
    return 0;
}

static npk_status run(npk_rk_device *d, tl_case *c, npk_rk_devtask *t)
{
    struct rknpu_submit sub;
    memset(c->c, 0, (size_t)c->m * c->n * 4);
    npk_status s = npk_rk_devtask_submit(d, t, 0, 100, &sub);
    if (s == NPK_OK)
        CHECK_EQ(npk_rk_devtask_read(d, t, c->c), NPK_OK);
    return s;
}

static void test_reuse(bool rocket)
{
    npk_rk_device *d = tl_open_kernel(rocket);
    /* task 1 computes X . W1; task 2 is armed to reuse X with W2, its own feature buffer
     * holding other rows (Y) that the reuse must not read */
    tl_case c1, c2;
    tl_case_init(&c1, NPK_PREC_FP16, NPK_PREC_FP32, M, K, N);
    tl_case_init(&c2, NPK_PREC_FP16, NPK_PREC_FP32, M, K, N);
    tl_case_reference(&c1);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, M, K, N);
    npk_rk_devtask t1, t2;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t1), NPK_OK);
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t2), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t1, c1.a, c1.b), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t2, c2.a, c2.b), NPK_OK);
    const uint32_t reuse = npk_rk_field_put(NPK_RKF(CNA_CBUF_CON0, DATA_REUSE), 1);
    CHECK(tl_task_set(&t2, NPK_REG_CNA_CBUF_CON0, cbuf_con0(&t2) | reuse));
    CHECK_EQ(npk_rk_devtask_write_program(d, &t2), NPK_OK);
    if (!rocket)
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    /* nothing resident yet (a fresh core, or just reset) */
    CHECK_EQ(run(d, &c2, &t2), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(d)->message, "DATA_REUSE with no feature resident");
    CHECK_EQ(run(d, &c1, &t1), NPK_OK);
    CHECK_EQ(tl_mismatches(&c1), 0);
    /* the reference of task 2 with X as its feature */
    memcpy(c2.a, c1.a, (size_t)M * K * 2);
    tl_case_reference(&c2);
    CHECK_EQ(run(d, &c2, &t2), NPK_OK);
    CHECK_EQ(tl_mismatches(&c2), 0);
    CHECK_EQ(tl_report(d)->hazards, 0);
    /* the same again: the reused feature stays resident */
    CHECK_EQ(run(d, &c2, &t2), NPK_OK);
    CHECK_EQ(tl_mismatches(&c2), 0);
    /* nothing is read at FEATURE_DATA_ADDR: an address outside every buffer does not fault */
    CHECK(tl_task_set(&t2, NPK_REG_CNA_FEATURE_DATA_ADDR, 0x10));
    CHECK_EQ(npk_rk_devtask_write_program(d, &t2), NPK_OK);
    CHECK_EQ(run(d, &c2, &t2), NPK_OK);
    CHECK_EQ(tl_mismatches(&c2), 0);
    /* without the bit the address is read: a DMA fault */
    CHECK(tl_task_set(&t2, NPK_REG_CNA_CBUF_CON0, cbuf_con0(&t2) & ~reuse));
    CHECK_EQ(npk_rk_devtask_write_program(d, &t2), NPK_OK);
    run(d, &c2, &t2);
    CHECK_EQ(tl_report(d)->outcome, RKSIM_FAULT);
    if (!rocket) {
        /* a reset forgets the CBUF's feature */
        CHECK(tl_task_set(&t2, NPK_REG_CNA_CBUF_CON0, cbuf_con0(&t2) | reuse));
        CHECK_EQ(npk_rk_devtask_write_program(d, &t2), NPK_OK);
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
        CHECK_EQ(run(d, &c2, &t2), NPK_EUNSUPPORTED);
    }
    /* WEIGHT_REUSE (bit 13) is a hint, and no part of the bank split hazards 8-12 judge */
    const uint32_t wreuse = npk_rk_field_put(NPK_RKF(CNA_CBUF_CON0, WEIGHT_REUSE), 1);
    CHECK(tl_task_set(&t1, NPK_REG_CNA_CBUF_CON0, cbuf_con0(&t1) | wreuse));
    CHECK_EQ(npk_rk_devtask_write_program(d, &t1), NPK_OK);
    CHECK_EQ(run(d, &c1, &t1), NPK_OK);
    CHECK_EQ(tl_mismatches(&c1), 0);
    CHECK_EQ(tl_report(d)->hazards, 0);
    /* another tile's shape: refused, naming both */
    npk_rk_mm other = npk_rk_mm_default(NPK_PREC_FP16, M, 2 * K, N);
    tl_case c3;
    tl_case_init(&c3, NPK_PREC_FP16, NPK_PREC_FP32, M, 2 * K, N);
    npk_rk_devtask t3;
    CHECK_EQ(npk_rk_devtask_create(d, &other, 0, &t3), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t3, c3.a, c3.b), NPK_OK);
    CHECK(tl_task_set(&t3, NPK_REG_CNA_CBUF_CON0, cbuf_con0(&t3) | reuse));
    CHECK_EQ(npk_rk_devtask_write_program(d, &t3), NPK_OK);
    if (!rocket)
        CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(run(d, &c1, &t1), NPK_OK);
    CHECK_EQ(run(d, &c3, &t3), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(d)->message, "same tile only");
    printf("%s: DATA_REUSE runs on the resident tile, refuses the rest\n",
           rocket ? "rocket" : "rknpu");
    npk_rk_devtask_destroy(d, &t3);
    npk_rk_devtask_destroy(d, &t2);
    npk_rk_devtask_destroy(d, &t1);
    tl_case_free(&c3);
    tl_case_free(&c2);
    tl_case_free(&c1);
    npk_rk_device_close(d);
}

int main(void)
{
    test_reuse(false);
    test_reuse(true);
    return check_done();
}
