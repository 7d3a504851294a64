/* SPDX-License-Identifier: MIT */
/* kt_open_spec and the board description: the board's keys read from preset text (limits, each
 * key once, the simulator's keys left to it), the host map against the numbers facts §1.9
 * states, a simulated machine and the same card served by `npukit kt serve` over a pipe
 * enumerating the same units, and bad specs refused with errors that name them. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/kt.h"
#include "npukit/kt_board.h"
#include "npukit/kt_open.h"
#include "npukit/ktsim.h"

static void test_board_keys(void)
{
    kt_board b;
    CHECK_EQ(kt_board_parse("# the simulator's keys are skipped\nname bench-1\ngrid 1 2\n"
                            "generation prestrobe\nstage_flits 64\nctrl_base 0x800000\n"
                            "dram_size 0x100000000\nclock_mhz 200\nmover 0\nrv64 0 0\n"
                            "unit 1 1 saxpy\n",
                            "t", &b),
             NPK_OK);
    CHECK_STR_HAS(b.name, "bench-1");
    CHECK(!b.bitstream_current);
    CHECK_EQ(b.stage_flits, 64);
    CHECK_EQ(b.ctrl_base, 0x800000);
    CHECK_EQ(b.mem_base, 1ull << 40); /* not given: the bench's */
    CHECK_EQ(b.dram_size, 0x100000000ull);
    CHECK_EQ(b.clock_mhz, 200);
    CHECK(!b.mover);
    CHECK(b.cpu_rv64);
    CHECK(kt_board_key("dram_size") && !kt_board_key("grid") && !kt_board_key("unit"));

    /* The simulator reads the same text into the same board. */
    ktsim_config c;
    CHECK_EQ(ktsim_preset_parse("name bench-1\nctrl_base 0x800000\nstage_flits 64\n"
                                "generation prestrobe\nunit 1 1 test\n",
                                "t", &c),
             NPK_OK);
    CHECK_EQ(c.ctrl_base, 0x800000);
    CHECK_EQ(c.stage_flits, 64);
    CHECK_EQ(c.gen, KTSIM_GEN_PRESTROBE);
    CHECK_STR_HAS(c.name, "bench-1");

    static const struct {
        const char *text;
        npk_status st;
        const char *msg;
    } bad[] = {
        {"stage_flits 205\n", NPK_ELIMIT, "t:1: stage_flits=205 exceeds 204"},
        {"dram_size 0x1000000001\n", NPK_ELIMIT, "dram_size=68719476737 exceeds 68719476736"},
        {"grid 1 1\nctrl_base 1\nctrl_base 2\n", NPK_EPARSE,
         "t:3: 'ctrl_base' given again (first on line 2)"},
        {"mem_base -1\n", NPK_EPARSE, "t:1: mem_base='-1' is not a number"},
        {"clock_mhz 300 400\n", NPK_EPARSE, "t:1: 'clock_mhz' takes one value, not 2"},
        {"name a/b\n", NPK_EPARSE, "name 'a/b': letters, digits"},
        {"name abcdefghijklmnopqrstuvwxyz0123456\n", NPK_ELIMIT,
         "name of 33 characters (limit 31)"},
        {"generation old\n", NPK_EPARSE, "generation 'old' is not current or prestrobe"},
        {"mover 2\n", NPK_ELIMIT, "mover=2 exceeds 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(kt_board_parse(bad[i].text, "t", &b), bad[i].st);
        CHECK_STR_HAS(npk_last_error(), bad[i].msg);
        /* the simulator refuses the preset with the board's own message */
        CHECK_EQ(ktsim_preset_parse(bad[i].text, "t", &c), bad[i].st);
        CHECK_STR_HAS(npk_last_error(), bad[i].msg);
    }
    CHECK_EQ(kt_board_load("no-such-board", &b), NPK_ENODEV);
    CHECK_STR_HAS(npk_last_error(), "no mesh preset 'no-such-board': the presets are");
}

/* Facts §1.9: control windows 0x800000 + m * 0x10000 on the v6.x/v7 boards; memory at
 * (mesh + 1) << 40 | inside, the inside address carrying the mesh in [37:36]; mesh 2's staging
 * aperture at 0x3A0_0000_0000. */
static void test_board_map(void)
{
    kt_board b;
    CHECK_EQ(kt_board_load("card", &b), NPK_OK);
    CHECK_EQ(kt_board_ctrl_base(&b, 0), 0x800000);
    CHECK_EQ(kt_board_ctrl_base(&b, 3), 0x830000);
    CHECK_EQ(kt_board_mem_base(&b, 0), 1ull << 40);
    CHECK_EQ(kt_board_mem_base(&b, 2), 3ull << 40 | 2ull << 36);
    CHECK_EQ(kt_board_stage_base(&b, 2), 0x3A000000000ull);
    CHECK(!b.bitstream_current); /* the card preset models the pre-strobe bitstream */
}

/* Units enumerated on a machine, as "(x,y)TYPE " concatenated. */
static void enumerate(kt_machine *m, char *out, size_t len)
{
    kt_dev d;
    kt_options o = {0};
    o.stage_flits = kt_machine_board(m)->stage_flits;
    kt_unit u[16];
    size_t n = 0;
    out[0] = '\0';
    CHECK_EQ(kt_open(&d, kt_machine_transport(m), kt_machine_ctrl_base(m, 0), &o), NPK_OK);
    CHECK_EQ(kt_enumerate(&d, u, 16, &n), NPK_OK);
    for (size_t i = 0; i < n; i++) {
        size_t at = strlen(out);
        snprintf(out + at, len - at, "(%u,%u)%s ", u[i].at.x, u[i].at.y, u[i].type_text);
    }
}

static void test_sim(void)
{
    kt_machine *m = NULL;
    CHECK_EQ(kt_open_spec(NULL, NULL, &m), NPK_OK);
    if (!m)
        return;
    CHECK_EQ(kt_machine_kind_of(m), KT_MACHINE_SIM);
    CHECK_STR_HAS(kt_machine_kind(m), "simulator");
    CHECK_STR_HAS(kt_machine_board(m)->name, "default");
    CHECK(kt_machine_sim(m) && !kt_machine_line(m) && !kt_machine_daemon(m));
    char units[256];
    enumerate(m, units, sizeof units);
    CHECK_STR_HAS(units, "(1,1)SX (2,1)SX (1,2)");
    uint64_t c0 = 0, c1 = 0;
    CHECK(kt_machine_cycle(m, &c0));
    kt_machine_step(m, 1000);
    CHECK(kt_machine_cycle(m, &c1) && c1 == c0 + 1000);
    CHECK_EQ(kt_machine_close(m), NPK_OK);

    /* Four meshes of the card, bases moved by the options: the simulator is laid out there. */
    kt_open_opts o = {.meshes = 4, .ctrl_base_set = true, .ctrl_base = 0x20000000};
    CHECK_EQ(kt_open_spec("sim:card", &o, &m), NPK_OK);
    if (!m)
        return;
    CHECK_EQ(kt_machine_meshes(m), 4);
    CHECK_EQ(kt_machine_ctrl_base(m, 3), 0x20030000);
    CHECK_EQ(kt_machine_mem_base(m, 3), 4ull << 40 | 3ull << 36);
    uint64_t caps = 0;
    CHECK_EQ(kt_read64(kt_machine_transport(m), kt_machine_ctrl_base(m, 3) + KT_CAPS, &caps),
             NPK_OK);
    CHECK_EQ(caps & 0xFFFF, 288); /* FLIT_WIDTH: an orchestrator answers there */
    enumerate(m, units, sizeof units);
    CHECK_STR_HAS(units, "(1,1)SX (2,1)SX");
    CHECK_EQ(kt_machine_close(m), NPK_OK);
    CHECK_EQ(kt_machine_close(NULL), NPK_OK);
}

/* The same card behind `npukit kt serve` on a pipe: the board's map, the same units. */
static void test_pipe(void)
{
    const char *cli = getenv("NPUKIT_CLI");
    if (!cli) {
        printf("NPUKIT_CLI not set: the pipe: machine is not tried\n");
        return;
    }
    char spec[4200];
    snprintf(spec, sizeof spec, "pipe:'%s' kt serve --sim card", cli);
    kt_open_opts o = {.board = "card", .timeout_ms = 30000};
    kt_machine *m = NULL;
    CHECK_EQ(kt_open_spec(spec, &o, &m), NPK_OK);
    if (!m) {
        fprintf(stderr, "%s\n", npk_last_error());
        return;
    }
    CHECK_EQ(kt_machine_kind_of(m), KT_MACHINE_PIPE);
    CHECK_STR_HAS(kt_machine_kind(m), "line protocol (pipe)");
    CHECK(!kt_machine_sim(m) && kt_machine_line(m));
    CHECK_EQ(kt_machine_ctrl_base(m, 0), 0x800000);
    char units[256];
    enumerate(m, units, sizeof units);
    CHECK_STR_HAS(units, "(1,1)SX (2,1)SX (1,2)TU (2,2)TU");
    /* DRAM through the board's memory window */
    uint8_t w[32], r[32];
    for (unsigned i = 0; i < sizeof w; i++)
        w[i] = (uint8_t)(i * 5 + 3);
    kt_transport *t = kt_machine_transport(m);
    CHECK_EQ(kt_write_block(t, kt_machine_mem_base(m, 0) + 0x1000, w, sizeof w), NPK_OK);
    CHECK_EQ(kt_read_block(t, kt_machine_mem_base(m, 0) + 0x1000, r, sizeof r), NPK_OK);
    CHECK(!memcmp(w, r, sizeof w));
    uint64_t cyc = 0;
    CHECK(kt_machine_cycle(m, &cyc) && cyc > 0);
    CHECK_EQ(kt_machine_close(m), NPK_OK);
}

static void test_bad_specs(void)
{
    static const struct {
        const char *spec;
        kt_open_opts o;
        npk_status st;
        const char *msg;
    } bad[] = {
        {"bogus:1", {0}, NPK_EINVAL, "machine spec 'bogus:1': use pipe:"},
        {"simulator", {0}, NPK_EINVAL, "or sim[:PRESET]"},
        {"pipe:", {0}, NPK_EINVAL, "machine spec 'pipe:': nothing after 'pipe:'"},
        {"tcp:", {0}, NPK_EINVAL, "nothing after 'tcp:'"},
        {"sim:no-such-preset", {0}, NPK_ENODEV, "no mesh preset 'no-such-preset': the presets are"},
        {"sim:card", {.board = "default"}, NPK_EINVAL, "board 'default' names another"},
        {"sim", {.meshes = 5}, NPK_ELIMIT, "meshes=5 exceeds 4"},
        {"pipe:true", {.prestrobe = true}, NPK_EINVAL, "prestrobe applies to the simulator only"},
        {"pipe:true", {.board = "no-such-board"}, NPK_ENODEV, "no mesh preset 'no-such-board'"},
        {"pipe:echo READY; sleep 5",
         {.engine = true},
         NPK_EUNSUPPORTED,
         "announces no control-program engine"},
        {"pipe:sleep 5", {.timeout_ms = 200}, NPK_ETIMEDOUT, "within 200 ms"},
        {"tcp:127.0.0.1:1", {.timeout_ms = 2000}, NPK_EIO, "127.0.0.1:1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kt_machine *m = (kt_machine *)&m; /* not NULL: the call must clear it */
        npk_status st = kt_open_spec(bad[i].spec, &bad[i].o, &m);
        if (bad[i].st == NPK_EPROTO || bad[i].st == NPK_EIO || bad[i].st == NPK_ETIMEDOUT)
            CHECK(st != NPK_OK); /* the exact code is the transport's */
        else
            CHECK_EQ(st, bad[i].st);
        CHECK(m == NULL);
        CHECK_STR_HAS(npk_last_error(), bad[i].msg);
        if (st == NPK_OK)
            kt_machine_close(m);
    }
}

int main(void)
{
    test_board_keys();
    test_board_map();
    test_sim();
    test_pipe();
    test_bad_specs();
    return check_done();
}
