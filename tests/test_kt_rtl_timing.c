/* SPDX-License-Identifier: MIT */
/* ktsim against figures measured on the RTL (the saxpy_mesh top under Verilator, one clock
 * domain), which beat the spec where they disagree:
 *   - the mover, GO until AUX_STAT busy drops: copy of 16 words 81 cycles, fill of 16 words 54,
 *     gather of 4 one-word rows 87, generate of 16 words 1458 (the model's rows, fitted over a
 *     sweep of sizes in test_kt_mover_sweep, and the whole machine land within 10%);
 *   - AUX_STAT's read/write counters count memory-port traffic only: 0/0 after a mover copy;
 *   - a mailbox round trip (kick, advance d cycles, one RX_STATUS read; the smallest d that sees
 *     the CU_CTRL reply): 9 to a unit one router away, 4 for a flit looped back to the
 *     orchestrator itself — on the preset that mirrors the bench (rtl_bench);
 *   - the saxpy unit on that preset: one 64-element instruction 149 cycles from PROG_KICK to
 *     NODE_STATUS. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt_flat_mem_testlib.h"
#include "kt_testlib.h"
#include "ktsim/mover.h"
#include "npukit/kt.h"
#include "npukit/kt_mover.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"

static bool within_10pct(uint64_t got, uint64_t want)
{
    uint64_t diff = got > want ? got - want : want - got;
    bool ok = diff * 10 <= want;
    if (!ok)
        fprintf(stderr, "  modelled %llu, RTL %llu: off by more than 10%%\n",
                (unsigned long long)got, (unsigned long long)want);
    return ok;
}

/* ---- the mover on its own: ticks from the GO pulse until busy drops ---- */

enum { MEM = KT_FLAT_MEM };


static uint64_t model_cycles(const kt_mv_move *move)
{
    uint8_t *mem = calloc(1, MEM);
    ksim_mover_mem mm = {kt_flat_read, kt_flat_write, NULL, mem};
    ksim_mover *mv = ksim_mover_create(&mm, NULL, NULL);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(move, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    for (size_t i = 0; i < n; i++)
        ksim_mover_cfg(mv, w[i].offset, w[i].value);
    uint64_t cycles = 0;
    while (ksim_mover_busy(mv) && cycles < 1000000) {
        ksim_mover_tick(mv);
        cycles++;
    }
    CHECK_EQ(kt_mv_status_decode(ksim_mover_stat(mv)).fault, 0);
    ksim_mover_destroy(mv);
    free(mem);
    return cycles;
}

static const uint32_t rows4[4] = {3, 0, 7, 1};

typedef struct mover_case {
    const char *what;
    kt_mv_move move;
    uint64_t rtl;
} mover_case;

static void mover_cases(mover_case c[4])
{
    c[0] = (mover_case){"copy 16 words", kt_mv_copy(0x2000, 0x1000, 16), 81};
    c[1] = (mover_case){"fill 16 words", kt_mv_fill(0x2000, 16, KT_MV_W32, 0x5A5A5A5A), 54};
    c[2] = (mover_case){"gather 4 rows", kt_mv_gather(0x2000, 0x1000, rows4, 4, 0x3000, 32, 1), 87};
    c[3] = (mover_case){"generate 16 words", kt_mv_generate(0x2000, 16, 0x1234), 1458};
}

static void test_mover_rows(void)
{
    mover_case c[4];
    mover_cases(c);
    for (int i = 0; i < 4; i++) {
        uint64_t got = model_cycles(&c[i].move);
        printf("mover %-18s model %5llu cycles, RTL %5llu\n", c[i].what, (unsigned long long)got,
               (unsigned long long)c[i].rtl);
        CHECK(within_10pct(got, c[i].rtl));
    }
    /* every mode that runs has a row naming its source; the faulting ones have none */
    for (unsigned m = 0; m < 8; m++) {
        const ksim_mover_timing *t = ksim_mover_timing_row(m);
        bool runs = m == KT_MV_COPY || m == KT_MV_GATHER_MODE || m == KT_MV_GENERATE ||
                    m == KT_MV_FILL || m == KT_MV_XFORM;
        CHECK_EQ(t != NULL, runs);
        if (t)
            CHECK(t->source && *t->source && t->drain >= 1);
    }
}

/* ---- the whole machine on the bench's preset ---- */

static void seed_dram(ktsim *s)
{
    uint8_t buf[0x3000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 13 + 1);
    CHECK_EQ(ktsim_dram_write(s, 0, buf, sizeof buf), NPK_OK);
    uint8_t idx[32] = {0};
    for (int i = 0; i < 4; i++)
        idx[4 * i] = (uint8_t)rows4[i];
    CHECK_EQ(ktsim_dram_write(s, 0x3000, idx, sizeof idx), NPK_OK);
}

/* The writes straight on the bus, then cycles from the GO pulse until AUX_STAT busy drops,
 * AUX_STAT read every cycle without side effects. */
static uint64_t machine_cycles(ktsim *s, const ktsim_config *c, const kt_mv_move *move,
                               kt_mv_status *after)
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(move, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(ktsim_bus_write64(s, c->ctrl_base + KT_AUX_CFG + w[i].offset, w[i].value), NPK_OK);
        ktsim_step(s, 1);
    }
    uint64_t go = ktsim_cycle(s), v = 0;
    for (int i = 0; i < 100000; i++) {
        CHECK_EQ(ktsim_bus_read64(s, c->ctrl_base + KT_AUX_STAT, &v), NPK_OK);
        if (!kt_mv_status_decode(v).busy)
            break;
        ktsim_step(s, 1);
    }
    *after = kt_mv_status_decode(v);
    return ktsim_cycle(s) - go;
}

static void test_mover_machine(void)
{
    ktsim_config c;
    ktsim *s = kt_test_sim("rtl_bench", KT_GEN_PRESET, &c);
    if (!s)
        return;
    seed_dram(s);
    mover_case mc[4];
    mover_cases(mc);
    for (int i = 0; i < 4; i++) {
        kt_mv_status st;
        uint64_t got = machine_cycles(s, &c, &mc[i].move, &st);
        printf("rtl_bench mover %-18s %5llu cycles GO to idle, RTL %5llu\n", mc[i].what,
               (unsigned long long)got, (unsigned long long)mc[i].rtl);
        CHECK(within_10pct(got, mc[i].rtl));
        CHECK_EQ(st.fault, 0);
        /* the mover has its own AXI master: the memory ports' counters do not move */
        CHECK_EQ(st.reads, 0);
        CHECK_EQ(st.writes, 0);
    }
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* ---- the mailbox round trip ---- */

/* Whether a CU_CTRL request kicked to `dst` has its reply in RX after d cycles: the kick is a
 * host write, then d cycles, then one RX_STATUS read (all through the transport, as the bench's
 * harness does W, T d, R). A flit to the orchestrator's own position loops back as it is. */
static bool reply_seen_after(const char *preset, kt_coord dst, uint64_t d)
{
    ktsim_config c;
    ktsim *s = kt_test_sim(preset, KT_GEN_PRESET, &c);
    if (!s)
        return false;
    kt_transport *t = ktsim_transport(s);
    kt_flit f;
    CHECK_EQ(kt_flit_ctrl_request(&f, dst, c.mem_port[0], KT_CU_CAPS, 7), NPK_OK);
    for (unsigned w = 0; w < KT_FLIT_WORDS; w++)
        CHECK_EQ(kt_write64(t, c.ctrl_base + KT_TX_FLIT + 8 * w, f.w[w]), NPK_OK);
    CHECK_EQ(kt_write64(t, c.ctrl_base + KT_TX_KICK, 1), NPK_OK);
    ktsim_step(s, d);
    uint64_t v = 0;
    CHECK_EQ(kt_read64(t, c.ctrl_base + KT_RX_STATUS, &v), NPK_OK);
    ktsim_destroy(s);
    return !kt_word_get(&kt_word_rx_status, KT_RX_STATUS_F_EMPTY, v);
}

static uint64_t smallest_d(const char *preset, kt_coord dst)
{
    for (uint64_t d = 0; d < 200; d++)
        if (reply_seen_after(preset, dst, d))
            return d;
    CHECK(!"the reply never arrived");
    return 0;
}

static void test_mailbox_round_trip(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("rtl_bench", &c), NPK_OK);
    kt_coord unit = c.units[0].at, self = c.mem_port[0];
    uint64_t du = smallest_d("rtl_bench", unit), dl = smallest_d("rtl_bench", self);
    printf("mailbox round trip: unit (%u,%u) d = %llu (RTL 9), loopback d = %llu (RTL 4)\n", unit.x,
           unit.y, (unsigned long long)du, (unsigned long long)dl);
    CHECK_EQ(du, 9);
    CHECK_EQ(dl, 4);
}

int main(void)
{
    test_mover_rows();
    test_mover_machine();
    test_mailbox_round_trip();
    return check_done();
}
