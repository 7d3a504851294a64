/* SPDX-License-Identifier: MIT */
/* The scheduler numbers of the spec ("The M-tiling scheduler", "Small-K validity"). */
#include "check.h"
#include "rk/program/rk_sched.h"

static void test_linear_fit(void)
{
    /* base = 0xb1 - 15*(2^lg - 1), slope = 15*2^lg, lg = log2(K/256) (fp16). */
    CHECK_EQ(npk_rk_sched_fit_base(NPK_PREC_FP16, 256), 0xB1);
    CHECK_EQ(npk_rk_sched_fit_slope(NPK_PREC_FP16, 256), 15);
    CHECK_EQ(npk_rk_sched_fit_base(NPK_PREC_FP16, 512), 0xB1 - 15);
    CHECK_EQ(npk_rk_sched_fit_slope(NPK_PREC_FP16, 1024), 60);
    /* Below the reference K the base climbs above 0xB1: 0xBC at K=64, 0xBE at K=32. */
    CHECK_EQ(npk_rk_sched_fit_base(NPK_PREC_FP16, 64), 0xBC);
    CHECK_EQ(npk_rk_sched_fit_base(NPK_PREC_FP16, 32), 0xBE);
    /* K=128: half-bank steps, slope (int)7.5 = 7. */
    CHECK_EQ(npk_rk_sched_fit_slope(NPK_PREC_FP16, 128), 7);
    /* int8 uses the same formula at effective K = K/2. */
    CHECK_EQ(npk_rk_sched_fit_base(NPK_PREC_INT8, 1024), npk_rk_sched_fit_base(NPK_PREC_FP16, 512));
    CHECK_EQ(npk_rk_sched_fit_slope(NPK_PREC_INT8, 1024),
             npk_rk_sched_fit_slope(NPK_PREC_FP16, 512));
    /* The floor 0x1B. */
    CHECK_EQ(npk_rk_sched_fit_value(NPK_PREC_FP16, 2047, 1024), 0x1B);
}

static void test_bank_split(void)
{
    /* The fit is exactly one bank moving from weights to data per step at clean pow2 K >= 256:
     * DATA_BANK + WEIGHT_BANK = 12 everywhere, and it agrees with the bank-split synthesis. */
    int bad = 0;
    for (uint32_t k = 256; k <= 1024; k *= 2)
        for (uint32_t m = 64; m <= npk_rk_m_ceiling(NULL, NPK_PREC_FP16, k, 1); m += 64) {
            uint32_t fit = npk_rk_sched_fit_value(NPK_PREC_FP16, m, k);
            uint32_t split = npk_rk_cbuf_con0_banks(NULL, NPK_PREC_FP16, m, k);
            if (npk_rk_cbuf_con0(NPK_PREC_FP16, m, k, 1) != fit)
                bad++;
            unsigned d, w;
            if (!npk_rk_cbuf_split(NULL, split, &d, &w) || fit != split)
                bad++;
        }
    CHECK_EQ(bad, 0);
    unsigned d, w;
    CHECK(npk_rk_cbuf_split(NULL, 0xB1, &d, &w) && d == 1 && w == 11);
    CHECK(npk_rk_cbuf_split(NULL, 0x1B, &d, &w) && d == 11 && w == 1);
    CHECK(!npk_rk_cbuf_split(NULL, 0x0C, &d, &w)); /* below the floor: DATA 12, WEIGHT 0 */
    CHECK(!npk_rk_cbuf_split(NULL, 0xB8, &d, &w)); /* the K=128 fit's base: not a valid split */
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 704, 256, 1), 0x1B);
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 64, 512, 1), 0xA2);
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 4, 32, 0), 0xB1);
    /* sched 1 below the reference K writes the fit's overshooting value (hazard material). */
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 4, 64, 1), 0xBC);
    /* K=128's non-monotonic envelope: M=256 -> 0xA3, M=320 -> 0x9C (12 data banks), M=384 ->
     * 0x95. */
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 256, 128, 1), 0xA3);
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 320, 128, 1), 0x9C);
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_FP16, 384, 128, 1), 0x95);
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_INT8, 704, 512, 1), 0x1B);
    CHECK_EQ(npk_rk_cbuf_con0(NPK_PREC_INT8, 320, 1024, 1),
             0x2A); /* the vendor's K=2048 R=32 value is 0x2A too */
}

static void test_ceilings(void)
{
    /* fp16 sched 1: 704 at K=256, 352 at K=512, 176 at K=1024 (= 180224/K). */
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 256, 1), 704);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 512, 1), 352);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 1024, 1), 176);
    /* fp16 sched 0: 16384/K. */
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 256, 0), 64);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 10752, 0), 1);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 32, 0), 512);
    /* int8 sched 1: 704/320/128/64 at K=512/1024/2048/4096. */
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT8, 512, 1), 704);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT8, 1024, 1), 320);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT8, 2048, 1), 128);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT8, 4096, 1), 64);
    /* The K=128 cap at 256 (non-monotonic envelope above it). */
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 128, 1), 256);
    /* int4: rows x K <= 16384 (8 at K=2048, 32 at K=512). */
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT4, 2048, 0), 8);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT4, 512, 0), 32);
}

static void test_validity(void)
{
    const char *why;
    /* fp16 sched 1 needs K >= 96; int8 K >= 256. */
    CHECK(!npk_rk_sched_valid(NPK_PREC_FP16, 32, 1, &why));
    CHECK(!npk_rk_sched_valid(NPK_PREC_FP16, 64, 1, &why));
    CHECK_STR_HAS(why, "K >= 96");
    CHECK(!npk_rk_sched_valid(NPK_PREC_FP16, 96, 1, &why));
    CHECK_STR_HAS(why, "power-of-two");
    CHECK(!npk_rk_sched_valid(NPK_PREC_FP16, 640, 1, &why));
    CHECK(!npk_rk_sched_valid(NPK_PREC_FP16, 2048, 1, &why));
    CHECK_STR_HAS(why, "K >= 2048");
    CHECK(npk_rk_sched_valid(NPK_PREC_FP16, 128, 1, &why));
    for (uint32_t k = 32; k <= 128; k += 32)
        CHECK(!npk_rk_sched_valid(NPK_PREC_INT8, k, 1, &why));
    CHECK_STR_HAS(why, "K >= 256");
    CHECK(!npk_rk_sched_valid(NPK_PREC_INT8, 256, 1, &why));
    CHECK_STR_HAS(why, "512..4096");
    CHECK(npk_rk_sched_valid(NPK_PREC_INT8, 512, 1, &why));
    CHECK(!npk_rk_sched_valid(NPK_PREC_INT4, 512, 1, &why));
    CHECK_STR_HAS(why, "described only for");
    CHECK_STR_HAS(why, "fp16");
    CHECK_STR_HAS(why, "int8");
    /* the sched-1 ceilings against the spec's closed forms at every valid K: fp16 11 banks x
     * 32 KB / (K x 2 B), 256 at K=128; int8 64*floor(11*512/K) */
    for (uint32_t k = 32; k <= 8192; k += 32) {
        uint32_t fp16 = k == 128 ? 256 : 11u * 32768 / (k * 2), int8 = 64 * ((11u * 512) / k);
        bool pow2 = !(k & (k - 1));
        CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, k, 1),
                 pow2 && k >= 128 && k <= 1024 ? fp16 : 0);
        CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_INT8, k, 1),
                 pow2 && k >= 512 && k <= 4096 ? int8 : 0);
    }
    CHECK(npk_rk_sched_valid(NPK_PREC_INT4, 512, 0, &why));
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 64, 1), 0);
    /* auto: sched 0 while one bank holds M, sched 1 above it, none past the ceiling. */
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 64, 256), 0);
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 65, 256), 1);
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 704, 256), 1);
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 705, 256), NPK_SCHED_AUTO);
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 100, 64), NPK_SCHED_0);
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 300, 64), NPK_SCHED_AUTO);
    /* FEATURE_GRAINS = min(M+1, R), R = 32768/K fp16, 65536/K int8. */
    CHECK_EQ(npk_rk_feature_grains(NULL, NPK_PREC_FP16, 4, 32), 5);
    CHECK_EQ(npk_rk_feature_grains(NULL, NPK_PREC_FP16, 704, 256), 128);
    CHECK_EQ(npk_rk_feature_grains(NULL, NPK_PREC_INT8, 704, 512), 128);
    CHECK_EQ(npk_rk_rows_per_tile(NULL, NPK_PREC_INT8, 1024), 64);
}

int main(void)
{
    test_linear_fit();
    test_bank_split();
    test_ceilings();
    test_validity();
    return check_done();
}
