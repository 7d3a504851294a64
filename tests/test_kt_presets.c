/* SPDX-License-Identifier: MIT */
/* Presets as data: every bundled preset loads, builds and presents the address map and units its
 * documentation (data/kt/README.md) states — the bench map of facts §1.9 and the card map as a
 * preset — plus parse errors, and the driver's cu_version refusal in both of its forms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt_testlib.h"
#include "npukit/kt.h"
#include "npukit/kt_mover.h"
#include "npukit/ktsim.h"
#include "npukit/ktsim_unit.h"

static ktsim *build(const char *name, ktsim_config *c) { return kt_test_sim(name, KT_GEN_PRESET, c); }

static void test_bundled_documented(void)
{
    /* Every bundled preset has a paragraph in the README, under its own name. */
    const char *src = getenv("NPUKIT_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/data/kt/README.md", src ? src : ".");
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    static char text[32768];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    for (const char *const *p = ktsim_preset_names(); *p; p++) {
        char want[64];
        snprintf(want, sizeof want, "**`%s`**", *p);
        CHECK_STR_HAS(text, want);
        ktsim_config c;
        ktsim *s = build(*p, &c);
        CHECK(s != NULL);
        CHECK_EQ(strcmp(c.name, *p), 0); /* the file names itself */
        ktsim_destroy(s);
    }
}

/* The bench map: orchestrator at MAG_BASE 0x1000_0000, DRAM of mesh 0 at 1 << 40. */
static void test_default_bench_map(void)
{
    ktsim_config c;
    ktsim *s = build("default", &c);
    if (!s)
        return;
    CHECK_EQ(c.ctrl_base, 0x10000000);
    CHECK_EQ(c.engine_base, 0);
    CHECK_EQ(c.mem_base, 1ull << 40);
    CHECK_EQ(c.gen, KTSIM_GEN_CURRENT);
    uint64_t caps;
    CHECK_EQ(kt_read64(ktsim_transport(s), 0x10000000 + KT_CAPS, &caps), NPK_OK);
    CHECK_EQ(caps, 0x0000000101040120ull); /* 288-bit flit, POS_WIDTH 4, grid 1..1 */
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    kt_unit u[8];
    size_t nu = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &nu), NPK_OK);
    CHECK_EQ(nu, 3);
    ktsim_destroy(s);
}

/* mg2_vc2 is upstream's mesh_1x1_2+2 top: enumeration lists what that RTL lists — its map
 * (vec north and south of the router, mat on the local port and the east edge) and every unit's
 * CU_CAPS from the generated top's parameters: 'MG' and 'VC', cu_version 4, two buffers,
 * INST_DEPTH 512 (0x4D47_0420_2000_0000, 0x5643_0420_2000_0000). */
static void test_mg2_vc2(void)
{
    ktsim_config c;
    ktsim *s = build("mg2_vc2", &c);
    if (!s)
        return;
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    kt_unit u[8];
    size_t nu = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &nu), NPK_OK);
    static const struct {
        uint8_t x, y;
        uint64_t caps;
    } want[] = {{1, 0, 0x5643042020000000ull},
                {1, 1, 0x4D47042020000000ull},
                {2, 1, 0x4D47042020000000ull},
                {1, 2, 0x5643042020000000ull}};
    CHECK_EQ(nu, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < nu && i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ(u[i].at.x, want[i].x);
        CHECK_EQ(u[i].at.y, want[i].y);
        uint64_t caps = 0;
        bool present = false;
        CHECK_EQ(kt_ctrl_read(&d, u[i].at, KT_CU_CAPS, &caps, &present), NPK_OK);
        CHECK_EQ(caps, want[i].caps);
    }
    ktsim_destroy(s);
}

/* The card map (v6.x/v7 boards): control window at 0x80_0000, nothing at the bench MAG_BASE, the
 * v6.7 card's measured CAPS, generated tops' INST_DEPTH 512, a pre-strobe bitstream, and 4 GiB
 * of DRAM behind (mesh + 1) << 40. */
static void test_card_map(void)
{
    ktsim_config c;
    ktsim *s = build("card", &c);
    if (!s)
        return;
    kt_transport *t = ktsim_transport(s);
    CHECK_EQ(c.gen, KTSIM_GEN_PRESTROBE);
    uint64_t v;
    CHECK_EQ(kt_read64(t, 0x800000 + KT_CAPS, &v), NPK_OK);
    CHECK_EQ(v, 0x0000000201040120ull);
    CHECK_EQ(kt_read64(t, 0x10000000 + KT_CAPS, &v), NPK_EFAULT); /* no main_orch, no bench map */
    kt_dev d;
    CHECK_EQ(kt_open(&d, t, 0x800000, NULL), NPK_OK);
    kt_unit u[8];
    size_t nu = 0;
    CHECK_EQ(kt_enumerate(&d, u, 8, &nu), NPK_OK);
    CHECK_EQ(nu, 4);
    for (size_t i = 0; i < nu; i++) {
        CHECK_EQ(u[i].caps.inst_depth, 512);
        CHECK_EQ(u[i].caps.version, 4);
    }
    /* The last granule of the populated 4 GiB is writable; one past it has no slave. */
    uint8_t g[32] = {1};
    CHECK_EQ(kt_write_block(t, (1ull << 40) + 0xFFFFFFE0ull, g, 32), NPK_OK);
    CHECK_EQ(kt_write_block(t, (1ull << 40) + 0x100000000ull, g, 32), NPK_EFAULT);
    ktsim_destroy(s);
}

static void test_parse_errors(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_parse("grid 1 2\nbogus 3\n", "x.mesh", &c), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "x.mesh:2: unknown setting 'bogus'");
    CHECK_EQ(ktsim_preset_parse("stage_flits 205\n", "x.mesh", &c), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "exceeds 204");
    CHECK_EQ(ktsim_preset_parse("unit 1 1 test inst_depth=70000\n", "x.mesh", &c), NPK_ELIMIT);
    CHECK_EQ(ktsim_preset_parse("generation old\n", "x.mesh", &c), NPK_EPARSE);
    /* Defaults the README states, and a unit with a two-letter type. */
    CHECK_EQ(ktsim_preset_parse("# only a unit\nunit 2 1 test type=QQ\n", "y.mesh", &c), NPK_OK);
    CHECK_EQ(c.stage_flits, 128);
    CHECK_EQ(c.router_fifo, 32);
    CHECK_EQ(c.n_mem_ports, 1);
    CHECK_EQ(c.mem_port[0].x, 0);
    CHECK_EQ(c.mem_port[0].y, 1);
    CHECK_EQ(c.units[0].type, 0x5151);
    CHECK_EQ(c.units[0].inst_depth, 32);
    CHECK_EQ(c.units[0].version, 1);
    const ksim_unit_ops *tu = ksim_unit_find("test"); /* its one setting, latency, 16 */
    CHECK(tu && tu->settings && !strcmp(tu->settings[0].name, "latency"));
    CHECK_EQ(c.units[0].setting[0], 16);
}

/* cu_version (spec §1.3): every endpoint of an image carries the same build number. The error
 * names the value found and the value it was compared with. */
static void test_version_messages(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_load("default", &c), NPK_OK);
    c.units[2].version = 5; /* the test unit at (1,2), enumerated last */
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_dev d;
    kt_unit u[8];
    size_t n;
    /* Without an expectation: the first unit found sets it. */
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_EMISMATCH);
    CHECK_STR_HAS(npk_last_error(), "unit at (1,2) reports cu_version 5 but the unit at (1,1) reports 4");
    /* With the caller's expectation: found and expected, both named. */
    kt_options o = {0};
    o.expect_version = 5;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_EMISMATCH);
    CHECK_STR_HAS(npk_last_error(), "unit at (1,1) reports cu_version 4, expected 5");
    o.expect_version = 4;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, &o), NPK_OK);
    CHECK_EQ(kt_enumerate(&d, u, 8, &n), NPK_EMISMATCH);
    CHECK_STR_HAS(npk_last_error(), "unit at (1,2) reports cu_version 5, expected 4");
    ktsim_destroy(s);
}

/* Every bundled preset's memory agent carries the mover: a copy through the plain simulator
 * (no card around it) completes and lands; a preset that says `mover 0` has none, and the same
 * copy ends with the driver's "GO did not start a move". */
static void test_mover_on_every_agent(void)
{
    for (const char *const *n = ktsim_preset_names(); *n; n++) {
        ktsim_config c;
        ktsim *s = build(*n, &c);
        if (!s)
            continue;
        CHECK(c.mover);
        kt_transport *t = ktsim_transport(s);
        uint8_t src[64], got[64];
        for (unsigned i = 0; i < sizeof src; i++)
            src[i] = (uint8_t)(i * 7 + 1);
        CHECK_EQ(kt_write_block(t, c.mem_base + 0x4000, src, sizeof src), NPK_OK);
        kt_mv_move m = kt_mv_copy(0x8000, 0x4000, 2);
        npk_status st = kt_mv_run(t, c.ctrl_base, &m, 0, NULL);
        /* A pre-strobe bitstream rewrites the source walker on every DIM write (README): the
         * copy reads never-written DRAM and faults AXI, as the hardware does. */
        CHECK_EQ(st, c.gen == KTSIM_GEN_PRESTROBE ? NPK_EFAULT : NPK_OK);
        if (!st) {
            CHECK_EQ(kt_read_block(t, c.mem_base + 0x8000, got, sizeof got), NPK_OK);
            CHECK(!memcmp(src, got, sizeof src));
        }
        ktsim_destroy(s);
    }
    ktsim_config c;
    CHECK_EQ(ktsim_preset_parse("name bare\nmover 0\nunit 1 1 test\n", "text", &c), NPK_OK);
    CHECK(!c.mover);
    ktsim *s;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    kt_mv_move m = kt_mv_fill(0x8000, 1, KT_MV_W32, 5);
    CHECK_EQ(kt_mv_run(ktsim_transport(s), c.ctrl_base, &m, 0, NULL), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "GO did not start a move");
    ktsim_destroy(s);
    CHECK_EQ(ktsim_preset_parse("mover 2\n", "text", &c), NPK_ELIMIT);
    /* a mesh without a clock has no simulated time */
    CHECK_EQ(ktsim_preset_parse("name still\nclock_mhz 0\nunit 1 1 test\n", "text", &c),
             NPK_OK);
    CHECK_EQ(ktsim_create(&c, &s), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "clock_mhz=0 in preset 'still'");
}

int main(void)
{
    test_mover_on_every_agent();
    test_bundled_documented();
    test_default_bench_map();
    test_card_map();
    test_mg2_vc2();
    test_parse_errors();
    test_version_messages();
    return check_done();
}
