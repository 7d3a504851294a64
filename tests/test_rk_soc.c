/* SPDX-License-Identifier: MIT */
/* The SoC rows: RK3588's numbers as the spec and facts state them, RK3576's from what is public
 * (2 cores) and marked unvalidated, every value with a source; the CBUF formulas follow the row
 * they are given (a made-up geometry changes them as the bank arithmetic says); the simulator
 * models the SoC it is configured with and refuses what the facts do not describe. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "rk/hw/rk_cbuf.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_synth.h"
#include "rk/hw/rk_timing.h"
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
    /* the bound of per-core arrays holds every row */
    CHECK(npk_rk_soc_max_cores() <= NPK_RK_SOC_MAX_CORES);
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
    /* the internal M-scheduler's rows per tile, R = cbuf_elems / K: the spec's RK3588 numbers
     * (cbuf_elems 32768 fp16, 65536 int8) for the RK3588 row, half of them in 16 KB banks */
    const npk_rk_soc *rk3588 = npk_rk_soc_find("rk3588");
    CHECK_EQ(npk_rk_tile_elems(rk3588, NPK_PREC_FP16), 32768);
    CHECK_EQ(npk_rk_tile_elems(rk3588, NPK_PREC_INT8), 65536);
    CHECK_EQ(npk_rk_rows_per_tile(rk3588, NPK_PREC_FP16, 256), 128);
    CHECK_EQ(npk_rk_rows_per_tile(rk3588, NPK_PREC_INT8, 1024), 64);
    CHECK_EQ(npk_rk_rows_per_tile(&half, NPK_PREC_FP16, 256), 64);
    CHECK_EQ(npk_rk_rows_per_tile(&half, NPK_PREC_INT8, 1024), 32);
    CHECK_EQ(npk_rk_rows_per_tile(rk3588, NPK_PREC_FP16, 0), 0);
    /* FEATURE_GRAINS = min(M + 1, R) */
    CHECK_EQ(npk_rk_feature_grains(rk3588, NPK_PREC_FP16, 704, 256), 128);
    CHECK_EQ(npk_rk_feature_grains(&half, NPK_PREC_FP16, 704, 256), 64);
    CHECK_EQ(npk_rk_feature_grains(&half, NPK_PREC_FP16, 4, 256), 5);
    /* a bigger bank: the sched-0 ceiling and R both grow with it */
    npk_rk_soc wide = *npk_rk_soc_default();
    wide.bank_bytes = 65536;
    CHECK_EQ(npk_rk_rows_per_tile(&wide, NPK_PREC_FP16, 256), 256);
    CHECK_EQ(npk_rk_m_ceiling(&wide, NPK_PREC_FP16, 256, NPK_SCHED_0), 128);
    /* DATA_ENTRIES = ceil(K*eb / entry bytes): fp16 K=256 is 512 bytes, 8 RK3588 entries of
     * 64 bytes, 16 of 32; int8 K=100 rounds up to 2; int4 K=256 is 128 bytes */
    npk_rk_soc narrow = *npk_rk_soc_default();
    narrow.cbuf_entry_bytes = 32;
    CHECK_EQ(npk_rk_cbuf_data_entries(NULL, NPK_PREC_FP16, 256), 8);
    CHECK_EQ(npk_rk_cbuf_data_entries(&narrow, NPK_PREC_FP16, 256), 16);
    CHECK_EQ(npk_rk_cbuf_data_entries(rk3588, NPK_PREC_INT8, 100), 2);
    CHECK_EQ(npk_rk_cbuf_data_entries(rk3588, NPK_PREC_INT4, 256), 2);
    CHECK_EQ(npk_rk_cbuf_data_entries(&narrow, NPK_PREC_INT4, 256), 4);
    /* ... and synthesis writes the row's: the same task for the two rows differs in it */
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 64, 256, 64);
    npk_rk_entry body[2][NPK_RK_MATMUL_BODY];
    CHECK_EQ(npk_rk_synth_matmul(&mm, body[0], NULL), NPK_OK);
    mm.soc = &narrow;
    CHECK_EQ(npk_rk_synth_matmul(&mm, body[1], NULL), NPK_OK);
    const uint16_t con1 = npk_rk_reg_info(NPK_REG_CNA_CBUF_CON1)->offset;
    unsigned seen = 0;
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_entry_reg(body[0][i]) == con1) {
            CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CBUF_CON1, DATA_ENTRIES),
                                      npk_rk_entry_value(body[0][i])),
                     8);
            CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CBUF_CON1, DATA_ENTRIES),
                                      npk_rk_entry_value(body[1][i])),
                     16);
            seen++;
        }
    CHECK_EQ(seen, 1);
}

/* RK3576's row: where its numbers are RK3588's (assumed: no public figure differs), the
 * formulas and the timing model give RK3588's results; where they differ (2 cores), the planner
 * follows the row. */
static void test_rk3576_row(void)
{
    const npk_rk_soc *a = npk_rk_soc_find("rk3588"), *b = npk_rk_soc_find("rk3576");
    if (!a || !b)
        return;
    static const npk_rk_prec inputs[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        const npk_rk_prec p = inputs[i];
        CHECK_EQ(npk_rk_rows_per_tile(b, p, 512), npk_rk_rows_per_tile(a, p, 512));
        CHECK_EQ(npk_rk_m_ceiling(b, p, 512, NPK_SCHED_0),
                 npk_rk_m_ceiling(a, p, 512, NPK_SCHED_0));
        CHECK(npk_rk_time_task_us(b, (int)p, NPK_PREC_INT32, 64, 512, 64) ==
              npk_rk_time_task_us(a, (int)p, NPK_PREC_INT32, 64, 512, 64));
    }
    npk_rk_plan_request r;
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 256, 1024, 1536);
    npk_rk_plan p3, p2;
    r.soc = a; /* every core of the row */
    r.cores = a->cores;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p3), NPK_OK);
    r.soc = b;
    r.cores = b->cores;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p2), NPK_OK);
    CHECK_EQ(p3.cores_used, 3);
    CHECK_EQ(p2.cores_used, 2);
    CHECK(p2.model_us > p3.model_us); /* the same work on two cores */
    npk_rk_plan_free(&p3);
    npk_rk_plan_free(&p2);
    r.cores = 3;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "cores=3: rk3576 has 1..2 cores");
}

/* The timing model reads every number from the row: the RK3588 row's are the documented ones
 * (600 MHz, the 54 us floor, 3 us per chained task, 8.6 GB/s, the fitted efficiencies), and a
 * row with another clock or DMA rate moves the figures as the formula says. */
static void test_timing_takes_the_row(void)
{
    const npk_rk_soc *a = npk_rk_soc_default();
    CHECK(npk_rk_time_clock_hz(a) == 600e6);
    CHECK(npk_rk_time_clock_hz(NULL) == 600e6);
    CHECK(npk_rk_time_job_floor_us(a) == 54.0);
    CHECK(npk_rk_time_task_step_us(a) == 3.0);
    CHECK(npk_rk_time_mac_efficiency(a, NPK_PREC_FP16) == 0.31);
    CHECK(npk_rk_time_mac_efficiency(a, NPK_PREC_INT8) == 0.117);
    CHECK(npk_rk_time_mac_efficiency(a, NPK_PREC_INT4) == 0.167);
    CHECK(npk_rk_time_mac_efficiency(a, NPK_PREC_FP32) == 0); /* not a matmul input */
    /* 8.6 GB/s: 8.6 MB read in 1000 us */
    CHECK(npk_rk_time_sdp_us(a, 8.6e6, 0) > 999.99 && npk_rk_time_sdp_us(a, 8.6e6, 0) < 1000.01);
    npk_rk_soc fast = *a;
    fast.clock_mhz = 1200;
    fast.timing.dma_bytes_per_s = 17.2e9;
    fast.timing.job_floor_us = 27.0;
    /* fp16 512x2048x2048 with no bytes: MACs only, half the time at twice the clock */
    double t600 = npk_rk_time_matmul_us(a, NPK_PREC_FP16, 512, 2048, 2048, 0, 0);
    double t1200 = npk_rk_time_matmul_us(&fast, NPK_PREC_FP16, 512, 2048, 2048, 0, 0);
    CHECK(t600 > 2 * t1200 - 1e-6 && t600 < 2 * t1200 + 1e-6);
    CHECK(npk_rk_time_sdp_us(&fast, 8.6e6, 0) < 500.01);
    CHECK(npk_rk_time_task_us(&fast, NPK_PREC_INT8, NPK_PREC_INT32, 1, 32, 32) <
          npk_rk_time_task_us(a, NPK_PREC_INT8, NPK_PREC_INT32, 1, 32, 32) - 26.9);
    /* the planner costs with its request's row */
    npk_rk_plan_request r;
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 512, 2048, 2048);
    npk_rk_plan pa, pf;
    r.soc = a;
    CHECK_EQ(npk_rk_plan_matmul(&r, &pa), NPK_OK);
    r.soc = &fast;
    CHECK_EQ(npk_rk_plan_matmul(&r, &pf), NPK_OK);
    CHECK(pf.model_us < 0.6 * pa.model_us);
    npk_rk_plan_free(&pa);
    npk_rk_plan_free(&pf);
    /* every row names the timing numbers' sources */
    for (unsigned i = 0; i < npk_rk_soc_count(); i++) {
        const npk_rk_soc *s = npk_rk_soc_at(i);
        const char *all[] = {s->sources.job_floor, s->sources.task, s->sources.dma,
                             s->sources.mac_efficiency};
        for (unsigned j = 0; j < sizeof all / sizeof all[0]; j++)
            CHECK(all[j] && *all[j]);
        CHECK(s->clock_mhz > 0 && s->timing.dma_bytes_per_s > 0 && s->timing.job_floor_us > 0);
    }
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
    test_rk3576_row();
    test_timing_takes_the_row();
    test_simulator_soc();
    return check_done();
}
