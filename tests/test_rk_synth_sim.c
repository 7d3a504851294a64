/* SPDX-License-Identifier: MIT */
/* Every program the synthesizer emits without `unchecked` runs on the faithful simulator without
 * tripping a hazard and gives the exact product: every dtype x output x mode x schedule over
 * shapes at the edges of the schedules (small and large K, M = 1, a multiple of 4, M above a
 * bank's capacity). A combination the synthesizer refuses is fine; one it emits that hangs,
 * faults or computes wrong is the bug this test exists for. */
#include "rksim_testlib.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_synth.h"

static unsigned emitted, refused, wrong;

static void run(npk_rk_device *d, npk_rk_prec in, npk_rk_prec out, int mode, int sched, uint32_t m,
                uint32_t k, uint32_t n)
{
    npk_rk_mm mm = npk_rk_mm_default(in, m, k, n);
    mm.out = out;
    mm.mode = mode;
    mm.sched = sched;
    npk_rk_entry prog[NPK_RK_MATMUL_BODY];
    npk_rk_synth_info info;
    if (npk_rk_synth_matmul(&mm, prog, &info) != NPK_OK) {
        refused++;
        return;
    }
    emitted++;
    tl_case t;
    tl_case_init(&t, in, out, m, k, n);
    tl_case_reference(&t);
    npk_rk_devtask task;
    struct rknpu_submit sub;
    /* the driver's defences: each case has its own feature buffer, so reset first (hazard 2,
     * and hazard 3 on entering integer mode); buffers are not cacheable (no hazard 1) */
    npk_status s = npk_rk_action(d, RKNPU_ACT_RESET, NULL);
    if (!s)
        s = npk_rk_devtask_create(d, &mm, 0, &task);
    if (!s) {
        s = npk_rk_devtask_load(d, &task, t.a, t.b);
        if (!s)
            s = npk_rk_devtask_submit(d, &task, 0, 6000, &sub);
        if (!s)
            s = npk_rk_devtask_read(d, &task, t.c);
        npk_rk_devtask_destroy(d, &task);
    }
    uint32_t hazards = tl_report(d)->hazards;
    size_t bad = s ? 0 : tl_mismatches(&t);
    if (s || hazards || bad) {
        wrong++;
        fprintf(stderr,
                "FAIL %s->%s %s sched %d M=%u K=%u N=%u: %s, hazards 0x%x, %zu wrong (%s)\n",
                npk_rk_prec_name(in), npk_rk_prec_name(out), mode ? "cube" : "line", sched, m, k, n,
                s ? npk_status_name(s) : "completed", hazards, bad, s ? npk_last_error() : "");
    }
    tl_case_free(&t);
}

int main(void)
{
    static const npk_rk_prec ins[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    static const npk_rk_prec outs[] = {NPK_PREC_FP32, NPK_PREC_FP16, NPK_PREC_INT32, NPK_PREC_INT16,
                                       NPK_PREC_INT8};
    static const int scheds[] = {0, 1, NPK_SCHED_AUTO};
    static const struct {
        uint32_t m, k, n;
    } shapes[] = {{1, 64, 64},    {4, 32, 64},    {8, 256, 64},
                  {64, 512, 128}, {300, 512, 64}, {704, 256, 64}};
    npk_rk_device *d = tl_open(0);
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++)
        for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
            for (int mode = NPK_MODE_LINE; mode <= NPK_MODE_CUBE; mode++)
                for (size_t sc = 0; sc < sizeof scheds / sizeof scheds[0]; sc++)
                    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
                        run(d, ins[i], outs[o], mode, scheds[sc], shapes[sh].m, shapes[sh].k,
                            shapes[sh].n);
    printf("%u programs emitted and run, %u refused, %u wrong\n", emitted, refused, wrong);
    CHECK_EQ(wrong, 0);
    CHECK(emitted >= 60); /* the sweep reaches every dtype, mode and schedule */

    /* fp16 output in cube mode at M > 1 is an ordinary output (SIZE_E = F-1): only the forced
     * atom-8 write-out (SIZE_E 0) hangs, hazard 15, which the synthesizer never emits */
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 16);
    mm.out = NPK_PREC_FP16;
    mm.mode = NPK_MODE_CUBE;
    npk_rk_entry prog[NPK_RK_MATMUL_BODY];
    npk_rk_synth_info info;
    CHECK_EQ(npk_rk_synth_matmul(&mm, prog, &info), NPK_OK);
    npk_rk_device_close(d);
    return check_done();
}
