/* SPDX-License-Identifier: MIT */
/* The RV64 complex inside the simulated machine, driven the way a host drives a card: programs
 * from build/rv64 loaded through the load window by the driver's loader. Hello with stdin, a
 * runaway program stopped at the timeout (and the machine booted again), the saxpy dispatcher
 * computing on the units through the mailbox, and the over-dispatch deadlock (the complex at
 * (0,0) itself, without programs, is test_kt_rv64_wiring's). Skips when the RV64 programs are not
 * built. */
#include "kt_testlib.h"
#include "ktsim/rv64_complex.h"
#include "ktsim/rv64_ctrl.h"
#include "npukit/kt.h"
#include "rv64_testlib.h"

static ktsim *sim;
static kt_dev dev;

static npk_status run(const kt_rv64_image *img, const char *in, uint32_t ms, kt_rv64_result *r)
{
    kt_rv64_run_opts o = {in, in ? strlen(in) : 0, ms};
    return kt_rv64_run(ktsim_transport(sim), ktsim_get_config(sim)->ctrl_base, img, &o, r);
}

static void test_hello(const kt_rv64_image *hello)
{
    kt_rv64_result r;
    CHECK_EQ(run(hello, "xyz", 5000, &r), NPK_OK);
    CHECK(r.exited && !r.halted);
    CHECK_EQ(r.exit_word, 0); /* success; what it read is on the console */
    CHECK_STR_HAS(r.console, "hello from the RV64 complex\nstdin: 3 bytes: xyz\n");
    CHECK(r.retired > 100 && r.cycles >= r.retired);
    kt_rv64_result_free(&r);
    char big[80];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK_EQ(run(hello, big, 5000, &r), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "79 bytes, the complex's queue holds 64");
}

static void test_runaway(const kt_rv64_image *spin, const kt_rv64_image *hello)
{
    kt_rv64_result r;
    CHECK_EQ(run(spin, NULL, 300, &r), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "neither exited nor halted within 300 ms");
    CHECK_STR_HAS(npk_last_error(), "the core was stopped");
    CHECK(r.timed_out && !r.exited && !r.halted);
    CHECK_STR_HAS(r.console, "spinning\n");
    CHECK(r.retired > 1000);
    kt_rv64_result_free(&r);
    /* Stopped: the counters no longer move. */
    {
        struct ksim_rv64c *c = ktsim_rv64(sim);
        uint64_t before = c->core.retired;
        ktsim_step(sim, 1000);
        CHECK_EQ(c->core.retired, before);
    }
    /* A stopped program may leave console bytes behind, even a half-made host request with an
     * unknown code: the next run empties them without acting on them or showing them. */
    {
        struct ksim_rv64c *c = ktsim_rv64(sim);
        const char left[] = "leftover\x05X\x05";
        for (size_t i = 0; i + 1 < sizeof left; i++)
            ksim_rv64c_console(c, (uint8_t)left[i]);
    }
    /* And the machine boots the next program. */
    CHECK_EQ(run(hello, "", 5000, &r), NPK_OK);
    CHECK(r.exited);
    CHECK_EQ(r.exit_word, 0);
    CHECK_STR_HAS(r.console, "stdin: 0 bytes: \n");
    CHECK(!strstr(r.console, "leftover"));
    CHECK_EQ(r.rings + r.clears, 0);
    kt_rv64_result_free(&r);
}

enum { N = 1024 };
static void seed(float *x, float *y)
{
    for (unsigned i = 0; i < N; i++) {
        /* Whole values: the unit converts its operands to integers, as the RTL does. */
        x[i] = (float)((int)i - 500);
        y[i] = (float)((int)(i % 7) - 3);
    }
    CHECK_EQ(ktsim_dram_write(sim, 0x100000, x, N * 4), NPK_OK);
    CHECK_EQ(ktsim_dram_write(sim, 0x200000, y, N * 4), NPK_OK);
}

static void test_saxpy_dispatcher(const kt_rv64_image *prog)
{
    static float x[N], y[N], got[N];
    seed(x, y);
    kt_rv64_result r;
    CHECK_EQ(run(prog, NULL, 20000, &r), NPK_OK);
    CHECK(r.exited);
    CHECK_EQ(r.exit_word, 0);
    CHECK_STR_HAS(r.console, "16 instructions dispatched, 16 completed, 0 faults");
    kt_rv64_result_free(&r);
    CHECK_EQ(ktsim_dram_read(sim, 0x200000, got, N * 4), NPK_OK);
    unsigned bad = 0;
    for (unsigned i = 0; i < N; i++)
        bad += got[i] != 2.0f * x[i] + y[i]; /* exact: small whole values */
    CHECK_EQ(bad, 0);
}

/* The complex's dispatches enter the mesh by the memory port, on the link into router (1,1)
 * that carries the unit's memory responses back. The surplus instructions fill that link's input
 * FIFO and the unit's queues before all 24 are out, so the program never gets past its M_GO loop
 * (M_STAT[15] stays set: the offered flit is never taken), and the unit, whose memory responses
 * queue behind them, never finishes. */
static void test_overdispatch(const kt_rv64_image *prog)
{
    static float x[N], y[N];
    seed(x, y);
    kt_rv64_result r;
    CHECK_EQ(run(prog, NULL, 1500, &r), NPK_ETIMEDOUT);
    CHECK(!r.console || !strstr(r.console, "dispatched"));
    kt_rv64_result_free(&r);
    /* The mesh shows the deadlock: nothing has moved for a long time with work outstanding,
     * and a dispatch is still offered. How many cycles the wall-clock budget above simulated
     * depends on the host (under emulation fewer than 100000): the clock is advanced by a fixed
     * count more, which a stalled mesh adds to its stall whole. */
    ktsim_step(sim, 100001);
    uint64_t stalled = ktsim_stalled_cycles(sim);
    printf("over-dispatch: mesh stalled for %llu cycles\n", (unsigned long long)stalled);
    CHECK(stalled > 100000);
    CHECK(ktsim_rv64(sim)->offered);
}

int main(void)
{
    kt_rv64_image hello, spin, saxpy, over;
    if (!rv64_test_image("hello.elf", &hello) || !rv64_test_image("runaway.elf", &spin) ||
        !rv64_test_image("saxpy_dispatch.elf", &saxpy) ||
        !rv64_test_image("overdispatch.elf", &over))
        return rv64_test_skip("build/rv64/*.elf");
    sim = kt_test_sim("rv64", KT_GEN_PRESET, NULL);
    CHECK(sim && ktsim_rv64(sim));
    CHECK_EQ(kt_open(&dev, ktsim_transport(sim), ktsim_get_config(sim)->ctrl_base, NULL), NPK_OK);
    test_hello(&hello);
    test_runaway(&spin, &hello);
    test_saxpy_dispatcher(&saxpy);
    test_overdispatch(&over);
    ktsim_destroy(sim);
    kt_rv64_image_free(&hello);
    kt_rv64_image_free(&spin);
    kt_rv64_image_free(&saxpy);
    kt_rv64_image_free(&over);
    return check_done();
}
