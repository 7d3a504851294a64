/* SPDX-License-Identifier: MIT */
/* The saxpy unit's timing against the RTL (the saxpy_mesh top under Verilator): one 64-element
 * instruction takes 149 cycles from PROG_KICK to its NODE_STATUS update; 8 instructions of 64
 * elements on each of the two units leave CU_COUNTERS busy_cycles at 1139 and 1120. The default
 * preset must reproduce each within 10%. Then the preset's `timing saxpy` row: each key moves the
 * latency by what the model's description says, and bad rows are refused naming the value. */
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"
#include "npukit/kt_saxpy.h"

static const kt_unit SXA = {{1, 1}, {0x5358, 4, 0, 8}, "SX"};
static const kt_unit SXB = {{2, 1}, {0x5358, 4, 0, 8}, "SX"};

enum { X_OFF = 0x10000, Y_OFF = 0x20000, N_INST = 8, N = 64 };

static bool within_10pct(uint64_t got, uint64_t want)
{
    uint64_t diff = got > want ? got - want : want - got;
    bool ok = diff * 10 <= want;
    if (!ok)
        fprintf(stderr, "  modelled %llu, RTL %llu: off by more than 10%%\n",
                (unsigned long long)got, (unsigned long long)want);
    return ok;
}

/* Whole-valued operands (the RTL's arithmetic is exact only there) for 2 * 8 instructions. */
static void upload(kt_dev *d, const ktsim_config *c)
{
    static float x[2 * N_INST * N], y[2 * N_INST * N];
    for (size_t i = 0; i < 2 * N_INST * N; i++) {
        x[i] = (float)(i % 7);
        y[i] = (float)(i % 5);
    }
    CHECK_EQ(kt_write_block(d->t, c->mem_base + X_OFF, x, sizeof x), NPK_OK);
    CHECK_EQ(kt_write_block(d->t, c->mem_base + Y_OFF, y, sizeof y), NPK_OK);
}

/* Cycles from the PROG_KICK write landing to the first change of the unit's NODE_STATUS, with
 * the program registers written straight on the bus (no host access in the measured span) and
 * NODE_STATUS read without side effects every cycle. */
static uint64_t kick_to_status(ktsim *s, kt_dev *d, const ktsim_config *c)
{
    kt_flit f;
    CHECK_EQ(kt_saxpy_inst(&f, N, 2.0f, X_OFF, Y_OFF, 1, true), NPK_OK);
    CHECK_EQ(kt_stage(d, 0, &f, 1), NPK_OK);
    kt_coord at = c->units[0].at; /* the preset's first saxpy unit */
    uint64_t b = c->ctrl_base, ns = b + kt_node_status_offset(at), before, now;
    CHECK_EQ(ktsim_bus_write64(s, b + KT_PROG_BASE, 0), NPK_OK);
    CHECK_EQ(ktsim_bus_write64(s, b + KT_PROG_LEN, 1), NPK_OK);
    CHECK_EQ(ktsim_bus_write64(s, b + KT_PROG_DST, kt_coord_pack(at)), NPK_OK);
    CHECK_EQ(ktsim_bus_write64(s, b + KT_PROG_CRED, 8), NPK_OK);
    CHECK_EQ(ktsim_bus_read64(s, ns, &before), NPK_OK);
    CHECK_EQ(ktsim_bus_write64(s, b + KT_PROG_KICK, 1), NPK_OK);
    uint64_t kick = ktsim_cycle(s);
    for (int i = 0; i < 100000; i++) {
        ktsim_step(s, 1);
        CHECK_EQ(ktsim_bus_read64(s, ns, &now), NPK_OK);
        if (now != before)
            return ktsim_cycle(s) - kick;
    }
    CHECK(!"NODE_STATUS never changed");
    return 0;
}

static uint64_t latency_on(const char *preset, const char *timing_line)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load(preset, &c), NPK_OK);
    if (timing_line) {
        char text[256];
        snprintf(text, sizeof text, "%s\n", timing_line);
        /* parse onto a fresh config, then keep the default preset's machine with that row */
        ktsim_config t;
        CHECK_EQ(ktsim_preset_parse(text, "timing", &t), NPK_OK);
        memcpy(c.timing, t.timing, sizeof c.timing);
    }
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    upload(&d, &c);
    uint64_t cycles = kick_to_status(s, &d, &c);
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
    return cycles;
}

static uint64_t latency_with(const char *timing_line) { return latency_on("default", timing_line); }

static void test_one_instruction(void)
{
    /* the default preset, and the one that mirrors the RTL bench (its FIFO depths) */
    static const char *const presets[] = {"default", "rtl_bench"};
    for (int i = 0; i < 2; i++) {
        uint64_t cycles = latency_on(presets[i], NULL);
        printf("%s: one 64-element instruction: %llu cycles from PROG_KICK to NODE_STATUS (RTL "
               "149)\n",
               presets[i], (unsigned long long)cycles);
        CHECK(within_10pct(cycles, 149));
    }
}

/* 8 instructions on each unit, dispatched one program after the other as a host does, then the
 * counters: busy_cycles spans each unit's 8 instructions back to back. */
static void test_busy_cycles(void)
{
    ktsim_config c;
    ktsim *s = kt_test_sim("default", KT_GEN_PRESET, &c);
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    upload(&d, &c);
    kt_flit p[2 * N_INST];
    for (unsigned k = 0; k < 2 * N_INST; k++)
        CHECK_EQ(kt_saxpy_inst(&p[k], N, 2.0f, X_OFF + k * 4 * N, Y_OFF + k * 4 * N, (uint8_t)k,
                               k % N_INST == N_INST - 1),
                 NPK_OK);
    CHECK_EQ(kt_stage(&d, 0, p, 2 * N_INST), NPK_OK);
    kt_ticket ta, tb;
    CHECK_EQ(kt_dispatch(&d, &SXA, 0, N_INST, 0, &ta), NPK_OK);
    CHECK_EQ(kt_dispatch(&d, &SXB, N_INST, N_INST, 0, &tb), NPK_OK);
    CHECK_EQ(kt_wait(&d, &ta, NULL), NPK_OK);
    CHECK_EQ(kt_wait(&d, &tb, NULL), NPK_OK);
    const kt_unit *units[2] = {&SXA, &SXB};
    const uint32_t rtl[2] = {1139, 1120};
    for (int u = 0; u < 2; u++) {
        uint64_t v;
        bool present;
        CHECK_EQ(kt_ctrl_read(&d, units[u]->at, KT_CU_COUNTERS, &v, &present), NPK_OK);
        kt_cu_counters k = kt_cu_counters_decode(v);
        printf("unit (%u,%u): %u retired, busy_cycles %u (RTL %u)\n", units[u]->at.x,
               units[u]->at.y, k.retired, k.busy_cycles, rtl[u]);
        CHECK_EQ(k.retired, N_INST);
        CHECK(within_10pct(k.busy_cycles, rtl[u]));
    }
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* The row's keys, each moved alone: a read round trip happens twice per instruction, an element
 * 64 times, setup and retire once — so the latency moves by exactly that much. */
static void test_row_moves_latency(void)
{
    ktsim_config c;
    ktsim_config_default(&c);
    uint32_t setup, read_wait, element, retire;
    CHECK(ktsim_timing_get(&c, "saxpy", "setup", &setup));
    CHECK(ktsim_timing_get(&c, "saxpy", "read_wait", &read_wait));
    CHECK(ktsim_timing_get(&c, "saxpy", "element", &element));
    CHECK(ktsim_timing_get(&c, "saxpy", "retire", &retire));
    CHECK(!ktsim_timing_get(&c, "saxpy", "latency", &setup)); /* not one of its keys */
    CHECK(ktsim_timing_find(&c, "test") == NULL);
    CHECK(ktsim_unit_timing_keys("test") == NULL);
    uint64_t base = latency_with(NULL);
    char line[128];
    snprintf(line, sizeof line, "timing saxpy read_wait=%u", read_wait + 10);
    CHECK_EQ(latency_with(line), base + 2 * 10);
    snprintf(line, sizeof line, "timing saxpy element=%u", element + 1);
    CHECK_EQ(latency_with(line), base + N);
    snprintf(line, sizeof line, "timing saxpy setup=%u retire=%u", setup + 3, retire + 4);
    CHECK_EQ(latency_with(line), base + 7);
}

static void test_row_refusals(void)
{
    ktsim_config c;
    struct {
        const char *text, *msg;
    } bad[] = {
        {"timing test latency=3\n", "unit kind 'test' has no timing row"},
        {"timing saxpy\n", "timing needs KIND key=value"},
        {"timing saxpy speed=3\n", "unknown timing key 'speed'"},
        {"timing saxpy element=0\n", "element=0 outside 1..65536"},
        {"timing saxpy read_wait=2000000\n", "read_wait=2000000 outside 0..1048576"},
        {"timing saxpy setup=x\n", "setup='x' is not a number"},
        {"timing saxpy setup=1 setup=2\n", "timing key 'setup' given twice"},
        {"timing saxpy setup=1\ntiming saxpy retire=2\n", "p:2: timing saxpy given again"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(ktsim_preset_parse(bad[i].text, "p", &c) != NPK_OK);
        CHECK_STR_HAS(npk_last_error(), bad[i].msg);
    }
    CHECK_EQ(ktsim_preset_parse("timing saxpy setup=5 # comment\n", "p", &c), NPK_OK);
    uint32_t setup = 0;
    CHECK(ktsim_timing_get(&c, "saxpy", "setup", &setup));
    CHECK_EQ(setup, 5);
}

int main(void)
{
    test_one_instruction();
    test_busy_cycles();
    test_row_moves_latency();
    test_row_refusals();
    return check_done();
}
