/* SPDX-License-Identifier: MIT */
/* The example programs under examples/rv64 that need more than a console, run through the
 * driver's loader: doorbell (the software interrupt, acknowledged by asking the host to clear
 * HR_DBELL) and mover_copy (a GENERATE and a COPY commanded through the control region, then a
 * ring to mesh 1 once the mover is idle), on a two-mesh card so the ring has somewhere to go.
 * Skips when the RV64 programs are not built. */
#include "kt_testlib.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_mover_hw.h"
#include "kt/kt_rv64_request.h"
#include "ktsim/ktsim_card.h"
#include "rv64_testlib.h"

static void test_doorbell(ktsim_card *card, const kt_rv64_image *img)
{
    kt_rv64_result r;
    kt_rv64_run_opts o = {NULL, 0, 10000};
    CHECK_EQ(kt_rv64_run(ktsim_card_transport(card), ktsim_card_ctrl_base(card, 0), img, &o, &r),
             NPK_OK);
    CHECK(r.exited && !r.halted);
    CHECK_EQ(r.exit_word, 0); /* success; the count is on the console and in rings/clears */
    CHECK_EQ(r.rings, 3);
    CHECK_EQ(r.clears, 3);
    CHECK_STR_HAS(r.console, "round 1: asking the host to ring\n"
                             "round 1: doorbell taken, acknowledged, R_DBELL reads 0\n");
    CHECK_STR_HAS(r.console, "round 3: doorbell taken, acknowledged, R_DBELL reads 0\n"
                             "3 doorbells handled\n");
    CHECK(!strchr(r.console, KT_RV64_REQ)); /* requests are not text */
    kt_rv64_result_free(&r);
}

enum { WORDS = 64 };
static const uint64_t SRC = 0x40000, DST = 0x80000, SEED = 0x243F6A8885A308D3ull;

static void test_mover_copy(ktsim_card *card, const kt_rv64_image *img)
{
    kt_rv64_result r;
    kt_rv64_run_opts o = {NULL, 0, 10000};
    uint64_t before = ktsim_card_db_status(card, 1);
    CHECK_EQ(kt_rv64_run(ktsim_card_transport(card), ktsim_card_ctrl_base(card, 0), img, &o, &r),
             NPK_OK);
    CHECK(r.exited && !r.halted);
    CHECK_EQ(r.exit_word, 0); /* two moves completed, no fault */
    CHECK_STR_HAS(r.console, "copied them to 0x80000, 2 moves done, then rang mesh 1");
    CHECK(!strstr(r.console, "faulted"));
    kt_rv64_result_free(&r);
    /* The ring crosses the link after the program has stopped: let it arrive. */
    ktsim_card_step(card, 2000);
    CHECK_EQ(ktsim_card_db_status(card, 1) - before, 1); /* one ring, from mesh 0, in [15:0] */
    /* Both blocks hold the GENERATE pattern of the source addresses. */
    ktsim *m0 = ktsim_card_mesh(card, 0);
    static uint8_t src[WORDS * KT_MV_WORD], dst[WORDS * KT_MV_WORD];
    CHECK_EQ(ktsim_dram_read(m0, SRC, src, sizeof src), NPK_OK);
    CHECK_EQ(ktsim_dram_read(m0, DST, dst, sizeof dst), NPK_OK);
    unsigned bad = 0;
    for (unsigned w = 0; w < WORDS; w++) {
        uint8_t want[KT_MV_WORD];
        kt_mv_generate_word(SEED, SRC + (uint64_t)w * KT_MV_WORD, want);
        bad += memcmp(src + w * KT_MV_WORD, want, KT_MV_WORD) != 0;
        bad += memcmp(dst + w * KT_MV_WORD, want, KT_MV_WORD) != 0;
    }
    CHECK_EQ(bad, 0);
}

int main(void)
{
    kt_rv64_image bell, copy;
    if (!rv64_test_image("doorbell.elf", &bell))
        return rv64_test_skip("build/rv64/doorbell.elf");
    if (!rv64_test_image("mover_copy.elf", &copy)) {
        kt_rv64_image_free(&bell);
        return rv64_test_skip("build/rv64/mover_copy.elf");
    }
    ktsim_card_opts opts = {.meshes = 2};
    ktsim_card *card = NULL;
    CHECK_EQ(ktsim_card_open_preset("rv64", false, &opts, &card), NPK_OK);
    if (card) {
        test_doorbell(card, &bell);
        test_mover_copy(card, &copy);
        test_mover_copy(card, &copy); /* the count at 0x20 runs on: the program counts its own */
        test_doorbell(card, &bell); /* and the machine runs the next program */
        ktsim_card_destroy(card);
    }
    kt_rv64_image_free(&bell);
    kt_rv64_image_free(&copy);
    return check_done();
}
