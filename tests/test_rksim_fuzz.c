/* SPDX-License-Identifier: MIT */
/* Robustness: valid programs with random register edits (values, targets, whole entries) and
 * random task records are submitted; every one must end as a kernel answer (ok, ETIMEDOUT,
 * EINVAL, ENODEV after a modelled crash) or an "unsupported by the model" refusal, and never
 * hurt the host (the test runs under ASan and UBSan). */
#include "rksim_testlib.h"

#include "npukit/rk_regcmd.h"

enum { ROUNDS = 2000 };

static uint32_t pick_value(uint32_t old)
{
    switch (tl_rand() % 6) {
    case 0:
        return tl_rand() ^ (tl_rand() << 16);      /* anything */
    case 1:
        return old ^ (1u << (tl_rand() % 32));     /* one bit */
    case 2:
        return old + (tl_rand() % 9) - 4;          /* nearby */
    case 3:
        return 0;
    case 4:
        return old << 1;
    default:
        return 0xffffffffu;
    }
}

int main(void)
{
    static const npk_rk_prec ins[3] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    npk_rk_device *d = tl_open(0);
    unsigned outcomes[6] = {0};
    for (int round = 0; round < ROUNDS; round++) {
        /* a modelled crash needs a new device (the reboot); half the rounds run ideal */
        if (rksim_is_dead(npk_rk_device_sim(d)) || round == ROUNDS / 2) {
            npk_rk_device_close(d);
            d = tl_open(round >= ROUNDS / 2 ? RKSIM_HZ_ALL : 0);
        }
        npk_rk_prec in = ins[round % 3];
        npk_rk_mm mm = npk_rk_mm_default(in, in == NPK_PREC_INT4 ? 4 : 1 + tl_rand() % 8,
                                         64, in == NPK_PREC_INT4 ? 64 : 32);
        mm.mode = (int)(tl_rand() % 2);
        if (mm.mode == NPK_MODE_CUBE && mm.m != 1)
            mm.m = 4;
        npk_rk_devtask t;
        if (npk_rk_devtask_create(d, &mm, tl_rand() % 2 ? 0 : 0x403, &t) != NPK_OK) {
            CHECK(rksim_is_dead(npk_rk_device_sim(d)));
            continue;
        }
        unsigned edits = 1 + tl_rand() % 3;
        for (unsigned e = 0; e < edits; e++) {
            unsigned i = tl_rand() % NPK_RK_MATMUL_BODY;
            npk_rk_entry x = t.body[i];
            switch (tl_rand() % 8) {
            case 0: /* another target */
                t.body[i] = npk_rk_entry_make((uint16_t)(tl_rand() & 0xffff),
                                              npk_rk_entry_reg(x), npk_rk_entry_value(x));
                break;
            case 1: /* another register of the table */
                t.body[i] = npk_rk_entry_reg_write((npk_rk_reg_id)(tl_rand() % NPK_REG_COUNT),
                                                   npk_rk_entry_value(x));
                break;
            default:
                t.body[i] = npk_rk_entry_make(npk_rk_entry_target(x), npk_rk_entry_reg(x),
                                              pick_value(npk_rk_entry_value(x)));
                break;
            }
        }
        CHECK_EQ(npk_rk_devtask_write_program(d, &t), NPK_OK);
        struct rknpu_task *rec = t.task.host;
        if (tl_rand() % 10 == 0)
            rec->regcfg_amount = tl_rand() % 300;
        if (tl_rand() % 20 == 0)
            rec->regcmd_addr += (tl_rand() % 64) * 16;
        if (tl_rand() % 3 == 0)
            npk_rk_action(d, RKNPU_ACT_RESET, NULL);
        struct rknpu_submit s;
        npk_status st = npk_rk_devtask_submit(d, &t, tl_rand() % 3, 50, &s);
        CHECK(st == NPK_OK || st == NPK_ETIMEDOUT || st == NPK_EUNSUPPORTED ||
              st == NPK_ENODEV || st == NPK_EINVAL);
        outcomes[tl_report(d)->outcome]++;
        if (st == NPK_EUNSUPPORTED)
            CHECK_STR_HAS(tl_report(d)->message, "unsupported by the model");
        npk_rk_devtask_destroy(d, &t);
    }
    npk_rk_device_close(d);
    /* the mutations reach every kind of ending */
    CHECK(outcomes[RKSIM_OK] > 0);
    CHECK(outcomes[RKSIM_UNSUPPORTED] > 0);
    CHECK(outcomes[RKSIM_WEDGE] + outcomes[RKSIM_FAULT] > 0);
    printf("outcomes: ok %u, wedge %u, fault %u, unsupported %u, crash %u, rejected %u\n",
           outcomes[0], outcomes[1], outcomes[2], outcomes[3], outcomes[4], outcomes[5]);
    return check_done();
}
