/* SPDX-License-Identifier: MIT */
/* The waits' pacing on its own (no machine): a wait that found its work longer than estimated
 * scales later estimates up, waits done at their first read bring the scale back down, a fixed
 * --poll-us interval learns nothing, and kt_forget_known drops what the session knew. */
#include "check.h"
#include "npukit/kt.h"

static uint64_t paused;
static void pause_fn(void *user, uint64_t cycles)
{
    (void)user;
    paused += cycles;
}

/* One wait of `expect` cycles that needs `misses` early reads before it finds its work done. */
static void one_wait(kt_dev *d, uint64_t expect, unsigned misses)
{
    kt_pacer p = kt_pace_start(d, expect, d->waits.paused_cycles);
    for (unsigned i = 0; i < misses; i++)
        kt_pace_read(&p, false);
    kt_pace_read(&p, true);
}

int main(void)
{
    kt_dev d = {0};
    d.opt.pause = pause_fn;

    one_wait(&d, 1000, 0);
    CHECK_EQ(d.expect_scale, 16); /* on time: the estimate stands */
    CHECK_EQ(d.waits.checks, 1);
    CHECK_EQ(d.waits.polls, 0);

    one_wait(&d, 1000, 6); /* far longer than estimated */
    uint32_t grown = d.expect_scale;
    CHECK(grown > 16);
    CHECK(grown <= 16 * 64);
    CHECK_EQ(d.waits.polls, 6);

    /* Later waits estimate with the learnt scale: the first pause is longer. */
    paused = 0;
    kt_pacer p = kt_pace_start(&d, 1000, d.waits.paused_cycles);
    CHECK_EQ(paused, 1000ull * grown / 16);
    kt_pace_read(&p, true);
    CHECK(d.expect_scale < grown); /* done at the first read: the excess halves */

    /* A run of quick waits brings the scale back to under twice the plain estimate (the
     * decay stops once the excess is below one estimate), and never under it. */
    for (int i = 0; i < 400; i++)
        one_wait(&d, 1000, 0);
    CHECK(d.expect_scale >= 16 && d.expect_scale < 32);

    /* A fixed interval neither pauses for the estimate nor learns from a slow wait. */
    kt_dev f = {0};
    f.opt.pause = pause_fn;
    f.opt.poll_cycles = 50;
    paused = 0;
    one_wait(&f, 1000, 3);
    CHECK_EQ(paused, 150);
    CHECK(f.expect_scale <= 16);

    /* kt_forget_known: nothing the session knew without a read survives. */
    d.stream_idle = true;
    d.count_known[0] = 0xff;
    d.known_status[3] = 0x1234;
    kt_forget_known(&d);
    CHECK(!d.stream_idle);
    CHECK_EQ(d.count_known[0], 0);
    CHECK_EQ(d.known_status[3], 0);
    return check_done();
}
