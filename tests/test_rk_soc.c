/* SPDX-License-Identifier: MIT */
/* The SoC rows: RK3588's numbers as the spec and facts state them, RK3576's from what is public
 * (2 cores) and marked unvalidated, every value with a source; the CBUF formulas follow the row
 * they are given (a made-up geometry changes them as the bank arithmetic says); the simulator
 * models the SoC it is configured with and refuses what the facts do not describe. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "npukit/rk_cbuf.h"
#include "npukit/rk_sched.h"
#include "npukit/rk_soc.h"
#include "npukit/rknpu_uapi.h"
#include "npukit/rksim.h"

static void test_rows(void)
{
    const npk_rk_soc *a = npk_rk_soc_find("rk3588");
    CHECK(a && a == npk_rk_soc_default() && a == npk_rk_soc_or_default(NULL));
    if (!a)
        return;
    /* spec Limits & tiling, facts A.1, C.1 #16, E.1 */
    CHECK_EQ(a->cores, 3);
    CHECK_EQ(a->cbuf_banks * a->bank_bytes, 384 * 1024);
    CHECK_EQ(a->bank_bytes, 32 * 1024);
    CHECK_EQ(a->cbuf_entry_bytes, 64);
    CHECK_EQ(a->hw_version, 0x46495245u);
    CHECK_EQ(a->k_max_single, 10752);
    CHECK_EQ(a->n_max, 8192);
    CHECK_EQ(a->m_max, (1u << 11) - 1);
    CHECK_EQ(a->grains_max, (1u << 10) - 1);
    CHECK(a->validated && a->encodings_described);
    const npk_rk_soc *b = npk_rk_soc_find("rk3576");
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK_EQ(b->cores, 2); /* facts E.1 */
    CHECK(!b->validated && !b->encodings_described);
    CHECK_EQ(b->hw_version, 0); /* no board read published */
    CHECK(npk_rk_soc_find("rk9999") == NULL && npk_rk_soc_find(NULL) == NULL);
    CHECK_EQ(npk_rk_soc_max_cores(), 3);
    for (unsigned i = 0; i < npk_rk_soc_count(); i++) {
        const npk_rk_soc_sources *s = &npk_rk_soc_at(i)->sources;
        const char *all[] = {s->cores,      s->cbuf,   s->cbuf_entry,           s->clock,
                             s->hw_version, s->limits, npk_rk_soc_at(i)->source};
        for (unsigned j = 0; j < sizeof all / sizeof all[0]; j++)
            CHECK(all[j] && *all[j]);
        if (!npk_rk_soc_at(i)->validated)
            CHECK_STR_HAS(s->cbuf, "unvalidated");
    }
}

/* A made-up SoC of 16 banks of 16 KB: the bank arithmetic follows it. */
static void test_formulas_take_the_row(void)
{
    npk_rk_soc half = *npk_rk_soc_default();
    half.cbuf_banks = 16;
    half.bank_bytes = 16384;
    /* fp16 M=64, K=256: 64 x 256 x 2 = 32 KB of features: one RK3588 bank, two of 16 KB */
    CHECK_EQ(npk_rk_cbuf_con0_banks(NULL, NPK_PREC_FP16, 64, 256), 11u << 4 | 1);
    CHECK_EQ(npk_rk_cbuf_con0_banks(&half, NPK_PREC_FP16, 64, 256), 14u << 4 | 2);
    unsigned d = 0, w = 0;
    CHECK(npk_rk_cbuf_split(NULL, 0xB1, &d, &w) && d == 1 && w == 11);
    CHECK(!npk_rk_cbuf_split(&half, 0xB1, &d, &w)); /* 11 + 1 is not 16 banks */
    CHECK(npk_rk_cbuf_split(&half, 0xE2, &d, &w) && d == 2 && w == 14);
    /* sched 0 holds one bank of features: 16384 fp16 elements in 32 KB, 8192 in 16 KB */
    CHECK_EQ(npk_rk_bank_elems(NULL, NPK_PREC_FP16), 16384);
    CHECK_EQ(npk_rk_bank_elems(&half, NPK_PREC_FP16), 8192);
    CHECK_EQ(npk_rk_m_ceiling(NULL, NPK_PREC_FP16, 256, NPK_SCHED_0), 64);
    CHECK_EQ(npk_rk_m_ceiling(&half, NPK_PREC_FP16, 256, NPK_SCHED_0), 32);
    /* int8 sched 1 at K=512: 64*floor(11*512/K) = 704 rows in 11 data banks; 15 banks of
     * 16 KB hold 15 x 16384 / 512 = 480 rows, 448 in whole 64-row groups */
    CHECK_EQ(npk_rk_sched1_rows(NULL, NPK_PREC_INT8, 512), 704);
    CHECK_EQ(npk_rk_sched1_rows(&half, NPK_PREC_INT8, 512), 448);
    CHECK_EQ(npk_rk_sched_choose(NULL, NPK_PREC_FP16, 64, 256), NPK_SCHED_0);
    CHECK_EQ(npk_rk_sched_choose(&half, NPK_PREC_FP16, 64, 256), NPK_SCHED_1);
}

static int hw_version(rksim *s, uint32_t *v)
{
    struct rknpu_action a = {RKNPU_GET_HW_VERSION, 0};
    int rc = rksim_ioctl(s, DRM_IOCTL_RKNPU_ACTION, &a);
    *v = a.value;
    return rc;
}

static void test_simulator_soc(void)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    rksim *s = NULL;
    uint32_t v = 0;
    CHECK_EQ(rksim_create(&cfg, &s), NPK_OK);
    if (s) {
        CHECK_STR_HAS(rksim_soc_name(s), "rk3588");
        CHECK_EQ(hw_version(s, &v), 0);
        CHECK_EQ(v, 0x46495245u);
        rksim_destroy(s);
    }
    cfg.soc = "rk3576";
    CHECK_EQ(rksim_create(&cfg, &s), NPK_OK);
    if (s) {
        CHECK_STR_HAS(rksim_soc_name(s), "rk3576");
        CHECK_EQ(hw_version(s, &v), -EOPNOTSUPP); /* not guessed */
        rksim_destroy(s);
    }
    cfg.cores = 3;
    CHECK_EQ(rksim_create(&cfg, &s), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "cores = 3, rk3576 has 1..2");
    cfg.cores = 0;
    cfg.soc = "rk9999";
    CHECK_EQ(rksim_create(&cfg, &s), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "soc 'rk9999' is not a row");
    rksim_config_default(&cfg);
    setenv("NPUKIT_RKSIM_SOC", "rk3576", 1);
    CHECK_EQ(rksim_config_from_env(&cfg), NPK_OK);
    CHECK_STR_HAS(cfg.soc, "rk3576");
    setenv("NPUKIT_RKSIM_SOC", "rk1808", 1);
    CHECK_EQ(rksim_config_from_env(&cfg), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NPUKIT_RKSIM_SOC='rk1808'");
    unsetenv("NPUKIT_RKSIM_SOC");
}

int main(void)
{
    test_rows();
    test_formulas_take_the_row();
    test_simulator_soc();
    return check_done();
}
