/* SPDX-License-Identifier: MIT */
/* A unit type added in this one file, outside the library: an "echo" unit ('EC') that retires
 * each instruction with its value after a time its timing row sets, and faults on a bad opcode.
 * Registered in the unit-type table at run time, it is then found by everything that reads the
 * table, with no other file touched:
 *   - the presets: `unit X Y echo` builds, `timing echo key=value` changes its row, and a preset
 *     naming an unknown kind lists echo among the known ones;
 *   - the shell: instructions dispatched by the driver retire with the unit's results, a bad
 *     opcode faults, CU_COUNTERS count them, and the row's keys move busy_cycles as they say;
 *   - the trace: the unit's busy spans are named after its kind, with its instruction fields;
 *   - enumeration: kt_enumerate (what `kt enum` runs) reads type "EC" at its position, and so does
 *     the `npukit kt enum` command itself, run against this process's machine served over the
 *     line protocol (the command's own binary knows only the library's types). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "common/trace_json.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_serve.h"
#include "npukit/ktsim.h"
#include "npukit/ktsim_unit.h" /* all a unit type needs: no library-internal header */

/* ---- the unit type (everything it is, in this section) ---- */

enum { EC_OP_ECHO = 1, EC_TYPE = 0x4543 /* 'EC' */, EC_FAULT = 0xEC0BAD };

static const kt_field ec_layout[] = {
    {"op", 252, 4}, {"count", 224, 16}, {"value", 0, 32}, {NULL, 0, 0}};

/* Its timing keys and its one preset setting, by position in its key tables below. */
enum { EC_T_SETUP, EC_T_ELEMENT, EC_T_RETIRE };
enum { EC_S_BIAS };

typedef struct echo_unit {
    uint32_t setup, element, retire; /* its timing row */
    uint32_t bias;                   /* its `bias=` setting: added to every value it echoes */
    bool active, fault;
    uint32_t remaining, value;
    uint64_t dbg;
} echo_unit;

static void *ec_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    (void)mem;
    echo_unit *u = calloc(1, sizeof *u);
    if (u) {
        u->setup = cfg->timing.value[EC_T_SETUP];
        u->element = cfg->timing.value[EC_T_ELEMENT];
        u->retire = cfg->timing.value[EC_T_RETIRE];
        u->bias = cfg->setting[EC_S_BIAS];
    }
    return u;
}
static void ec_destroy(void *u) { free(u); }
static void ec_reset(void *p) { ((echo_unit *)p)->active = false; }
static bool ec_ready(void *p) { return !((echo_unit *)p)->active; }

static void ec_issue(void *p, const kt_flit *inst)
{
    echo_unit *u = p;
    uint32_t count = (uint32_t)kt_field_get(inst, &ec_layout[1]);
    u->fault = kt_field_get(inst, &ec_layout[0]) != EC_OP_ECHO;
    u->value = (uint32_t)kt_field_get(inst, &ec_layout[2]) + u->bias;
    /* at least a cycle: a unit may not retire in the cycle it accepts */
    u->remaining = 1 + u->setup + count * u->element + u->retire;
    u->active = true;
}

static void ec_tick(void *p, ksim_shell *sh)
{
    echo_unit *u = p;
    if (!u->active)
        return;
    u->dbg++;
    if (--u->remaining)
        return;
    u->active = false;
    ksim_shell_done(sh, u->fault ? EC_FAULT : u->value, u->fault);
}

static bool ec_recv(void *p, const kt_flit *f)
{
    (void)p;
    (void)f;
    return true; /* no receive path: everything is folded */
}
static uint64_t ec_dbg(void *p) { return ((echo_unit *)p)->dbg; }
static bool ec_idle(void *p) { return !((echo_unit *)p)->active; }

static const ktsim_unit_key ec_timing[] = {
    [EC_T_SETUP] = {"setup", 3, 0, 1000},
    [EC_T_ELEMENT] = {"element", 2, 1, 1000},
    [EC_T_RETIRE] = {"retire", 1, 0, 1000},
    {NULL, 0, 0, 0},
};
static const ktsim_unit_key ec_settings[] = {[EC_S_BIAS] = {"bias", 0, 0, 0xFFFF}, {NULL, 0, 0, 0}};

static const ksim_unit_ops echo_type = {
    .kind = "echo",
    .default_type = EC_TYPE,
    .create = ec_create,
    .destroy = ec_destroy,
    .reset = ec_reset,
    .ready = ec_ready,
    .issue = ec_issue,
    .tick = ec_tick,
    .recv = ec_recv,
    .dbg = ec_dbg,
    .idle = ec_idle,
    .layout = ec_layout,
    .settings = ec_settings,
    .timing = ec_timing,
    .timing_source = "a test type: setup 3, 2 cycles per count, retire 1",
};

/* ---- what finds it ---- */

static const char preset[] = "name echo_mesh\n"
                             "grid 1 1\n"
                             "mem_port 0 1\n"
                             "unit 1 1 echo version=4 inst_depth=8\n"
                             "unit 2 1 saxpy version=4 inst_depth=8\n";

static ktsim *build(const char *extra, ktsim_config *c)
{
    char text[512];
    snprintf(text, sizeof text, "%s%s", preset, extra);
    CHECK_EQ(ktsim_preset_parse(text, "echo", c), NPK_OK);
    ktsim *s = NULL;
    CHECK_EQ(ktsim_create(c, &s), NPK_OK);
    return s;
}

static kt_flit echo_inst(unsigned op, uint16_t count, uint32_t value, uint8_t txn, bool last)
{
    kt_flit f;
    memset(&f, 0, sizeof f);
    CHECK_EQ(kt_field_put(&f, &ec_layout[0], op), NPK_OK);
    CHECK_EQ(kt_field_put(&f, &ec_layout[1], count), NPK_OK);
    CHECK_EQ(kt_field_put(&f, &ec_layout[2], value), NPK_OK);
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, txn, last, 0};
    CHECK_EQ(kt_header_put(&f, &h), NPK_OK);
    return f;
}

static void test_register(void)
{
    CHECK_EQ(ksim_unit_register(&echo_type), NPK_OK);
    CHECK(ksim_unit_find("echo") == &echo_type);
    CHECK(ksim_unit_register(&echo_type) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "'echo' is already in the table");
    ksim_unit_ops nameless = echo_type;
    nameless.kind = "a_kind_far_too_long";
    CHECK(ksim_unit_register(&nameless) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "a kind is 1..15 characters");
    nameless.kind = "half";
    nameless.tick = NULL;
    CHECK(ksim_unit_register(&nameless) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "are required");
    nameless.tick = echo_type.tick;
    nameless.timing_source = "";
    CHECK(ksim_unit_register(&nameless) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "'half': a timing row needs its source");
    /* its key tables: no shell key, none twice, defaults inside their ranges, at most 16 */
    nameless = echo_type;
    nameless.kind = "half";
    static const ktsim_unit_key shells[] = {{"inst_depth", 1, 0, 9}, {NULL, 0, 0, 0}};
    static const ktsim_unit_key twice[] = {{"a", 1, 0, 9}, {"a", 1, 0, 9}, {NULL, 0, 0, 0}};
    static const ktsim_unit_key outside[] = {{"a", 10, 0, 9}, {NULL, 0, 0, 0}};
    static ktsim_unit_key many[KTSIM_UNIT_MAX_KEYS + 2];
    static char names[KTSIM_UNIT_MAX_KEYS + 1][4];
    for (int i = 0; i <= KTSIM_UNIT_MAX_KEYS; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        many[i] = (ktsim_unit_key){names[i], 0, 0, 1};
    }
    struct {
        const ktsim_unit_key *settings, *timing;
        const char *msg;
    } bad[] = {
        {shells, NULL, "setting key 'inst_depth' is the shell's"},
        {twice, NULL, "setting key 'a' named twice"},
        {NULL, outside, "timing key 'a' default 10 outside 0..9"},
        {many, NULL, "17 setting keys, at most 16"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nameless.settings = bad[i].settings;
        nameless.timing = bad[i].timing ? bad[i].timing : echo_type.timing;
        CHECK(ksim_unit_register(&nameless) != NPK_OK);
        CHECK_STR_HAS(npk_last_error(), bad[i].msg);
    }
    CHECK(ksim_unit_find("half") == NULL); /* nothing refused is in the table */
}

static void test_presets(void)
{
    ktsim_config c;
    CHECK_EQ(ktsim_preset_parse("timing echo setup=7\n", "p", &c), NPK_OK);
    uint32_t setup = 0, element = 0, retire = 0;
    CHECK(ktsim_timing_get(&c, "echo", "setup", &setup));
    CHECK(ktsim_timing_get(&c, "echo", "element", &element));
    CHECK(ktsim_timing_get(&c, "echo", "retire", &retire));
    CHECK(setup == 7 && element == 2 && retire == 1);
    CHECK(ktsim_unit_timing_keys("echo") == ec_timing);
    CHECK(ktsim_timing_find(&c, "saxpy") != NULL); /* the library's own row is still there */
    CHECK_EQ(ktsim_preset_parse("timing test setup=1\n", "p", &c), NPK_EPARSE);
    /* the lists name the library's types first, in the table's order, then this one last: a
     * type the library gains between them leaves these checks standing */
    CHECK_STR_HAS(npk_last_error(), "saxpy, mat, ");
    CHECK_STR_HAS(npk_last_error(), ", echo have");
    CHECK_EQ(ktsim_preset_parse("timing echo read_wait=1\n", "p", &c), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "unknown timing key 'read_wait' (setup, element, retire)");
    /* its own setting on its unit line: range-checked, and another type's is refused */
    CHECK_EQ(ktsim_preset_parse("unit 1 1 echo bias=70000\n", "p", &c), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "p:1: bias=70000 outside 0..65535 (unit echo)");
    CHECK_EQ(ktsim_preset_parse("unit 1 1 echo latency=3\n", "p", &c), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "unknown unit setting 'latency'");
    CHECK_EQ(ktsim_preset_parse("unit 1 1 echo bias=1 bias=2\n", "p", &c), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "unit setting 'bias' given twice");
    ktsim_unit_cfg u = {.kind = "echo"};
    CHECK_EQ(ktsim_unit_set(&u, "bias", 5), NPK_OK);
    CHECK(u.setting[EC_S_BIAS] == 5 && u.settings_given == 1u << EC_S_BIAS);
    ktsim *s = NULL;
    CHECK_EQ(ktsim_preset_parse("unit 1 1 nosuch\n", "p", &c), NPK_OK);
    CHECK(ktsim_create(&c, &s) != NPK_OK);
    CHECK_STR_HAS(npk_last_error(), "unknown model 'nosuch' (known: test, saxpy, mat, ");
    CHECK_STR_HAS(npk_last_error(), ", echo)");
    CHECK_EQ(ktsim_preset_parse("unit 1 1 nosuch speed=1\n", "p", &c), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "unit kind 'nosuch' is not one of test, saxpy, mat, ");
    CHECK_STR_HAS(npk_last_error(), ", echo)");
}

/* Dispatch `n` echo instructions through the driver; the unit's NODE_STATUS and counters. */
static void run_echo(const char *extra, unsigned op, uint32_t *busy, kt_node_status *last)
{
    ktsim_config c;
    ktsim *s = build(extra, &c);
    if (!s)
        return;
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    kt_unit u[4];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 4, &n), NPK_OK);
    const kt_unit *ec = kt_find_unit(u, n, EC_TYPE);
    CHECK(ec != NULL);
    if (!ec) {
        ktsim_destroy(s);
        return;
    }
    CHECK(ec->at.x == 1 && ec->at.y == 1 && !strcmp(ec->type_text, "EC"));
    CHECK_EQ(ec->caps.version, 4);
    CHECK_EQ(ec->caps.inst_depth, 8);
    kt_flit f[3] = {echo_inst(op, 4, 0x1111, 1, false), echo_inst(op, 4, 0x2222, 2, false),
                    echo_inst(op, 4, 0x3333, 3, true)};
    CHECK_EQ(kt_stage(&d, 0, f, 3), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, ec, 0, 3, 0, &tk), NPK_OK);
    kt_wait_result r = {0};
    npk_status st = kt_wait(&d, &tk, &r);
    CHECK_EQ(st, op == EC_OP_ECHO ? NPK_OK : NPK_EFAULT);
    *last = r.last;
    uint64_t v;
    bool present;
    CHECK_EQ(kt_ctrl_read(&d, ec->at, KT_CU_COUNTERS, &v, &present), NPK_OK);
    kt_cu_counters k = kt_cu_counters_decode(v);
    CHECK_EQ(k.retired, 3);
    *busy = k.busy_cycles;
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

/* The unit's `bias=` setting reaches its model: an instruction that is not a batch's last
 * reports INST_COMPLETE with the unit's exec_result, value + bias. */
static void test_setting_reaches_unit(void)
{
    static const char text[] = "name echo_mesh\ngrid 1 1\nmem_port 0 1\n"
                               "unit 1 1 echo version=4 inst_depth=8 bias=5\n";
    ktsim_config c;
    CHECK_EQ(ktsim_preset_parse(text, "bias", &c), NPK_OK);
    ktsim *s = NULL;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    if (!s)
        return;
    kt_dev d;
    CHECK_EQ(kt_open(&d, ktsim_transport(s), c.ctrl_base, NULL), NPK_OK);
    kt_unit u[2];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&d, u, 2, &n), NPK_OK);
    kt_flit f = echo_inst(EC_OP_ECHO, 1, 0x1111, 1, false);
    CHECK_EQ(kt_stage(&d, 0, &f, 1), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&d, &u[0], 0, 1, 0, &tk), NPK_OK);
    kt_wait_result r = {0};
    CHECK_EQ(kt_wait(&d, &tk, &r), NPK_OK);
    CHECK_EQ(r.last.code, KT_SIG_INST_COMPLETE);
    CHECK_EQ(r.last.arg, 0x1111 + 5);
    ktsim_destroy(s);
}

static void test_shell_and_timing(void)
{
    uint32_t busy, busy_slow, busy_bad;
    kt_node_status last, bad;
    run_echo("", EC_OP_ECHO, &busy, &last);
    /* the batch's last instruction reports BATCH_COMPLETE with its txn */
    CHECK_EQ(last.code, KT_SIG_BATCH_COMPLETE);
    CHECK_EQ(last.count, 3);
    /* three instructions, each setup + 4 * element + retire (+1) cycles: the row's keys move
     * busy_cycles by exactly what they say */
    run_echo("timing echo setup=13 element=3\n", EC_OP_ECHO, &busy_slow, &last);
    CHECK_EQ(busy_slow, busy + 3 * (10 + 4 * 1));
    run_echo("", 9, &busy_bad, &bad);
    CHECK_EQ(bad.code, KT_SIG_FAULT);
    CHECK_EQ(bad.arg, EC_FAULT);
}

/* ---- the kt enum command against this process's machine, served on loopback ---- */

typedef struct served {
    int listen_fd;
    kt_serve_target tg;
} served;

static void advance(void *ctx, uint64_t cycles) { ktsim_step(ctx, cycles); }
static uint64_t clock_of(void *ctx) { return ktsim_cycle(ctx); }

static void *serve_one(void *p)
{
    served *sv = p;
    int fd = accept(sv->listen_fd, NULL, NULL);
    if (fd >= 0)
        kt_serve_line_session(&sv->tg, fd, dup(fd)); /* closes both */
    return NULL;
}

static void test_cli_enum(void)
{
    ktsim_config c;
    ktsim *s = build("", &c);
    if (!s)
        return;
    served sv = {-1,
                 {.t = ktsim_transport(s),
                  .name = "echo_mesh",
                  .meshes = 1,
                  .ctx = s,
                  .advance = advance,
                  .cycle = clock_of}};
    unsigned port = 0;
    CHECK_EQ(kt_listen_tcp("127.0.0.1:0", false, &sv.listen_fd, &port), NPK_OK);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, serve_one, &sv), 0);
    const char *cli = getenv("NPUKIT_CLI");
    char cmd[1024], out[8192] = "";
    /* the child keeps out of this process's trace file */
    snprintf(cmd, sizeof cmd, "NPUKIT_TRACE= '%s' kt enum --card tcp:127.0.0.1:%u --json",
             cli && *cli ? cli : "build/npukit", port);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    if (p)
        CHECK_EQ(pclose(p), 0);
    else
        shutdown(sv.listen_fd, SHUT_RDWR); /* nobody will connect: let the server go */
    pthread_join(th, NULL);
    close(sv.listen_fd);
    CHECK_STR_HAS(out, "{\"x\":1,\"y\":1,\"type\":\"EC\",\"type_code\":17731,"
                       "\"version\":4,\"n_buffers\":0,\"inst_depth\":8}");
    CHECK_STR_HAS(out, "\"type\":\"SX\"");
    ktsim_destroy(s);
}

static char trace_file[] = "/tmp/npukit_unit_plugin_XXXXXX";

static void test_trace(void)
{
    /* the machine ran above was traced (NPUKIT_TRACE set before the first event) */
    npk_trace_close();
    FILE *f = fopen(trace_file, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    CHECK_STR_HAS(text, "\"name\":\"echo\"");
    CHECK_STR_HAS(text, "CU (1,1) echo");
    CHECK_STR_HAS(text, "\"count\":4");
    CHECK_STR_HAS(text, "\"value\":8738"); /* 0x2222 */
}

int main(void)
{
    int fd = mkstemp(trace_file);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("NPUKIT_TRACE", trace_file, 1);
    test_register();
    test_presets();
    test_shell_and_timing();
    test_setting_reaches_unit();
    test_cli_enum();
    test_trace();
    unlink(trace_file);
    return check_done();
}
