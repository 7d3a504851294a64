/* SPDX-License-Identifier: MIT */
/* `npukit kt serve` answers every operation of the card daemon's client and every command of the
 * Verilated card harness, as those programs send them (docs/kt-remote.md lists both protocols
 * with their source): each through a real socket or pipe, replies and errors in the upstream
 * form ("Type: message"). Only loopback sockets on ephemeral ports. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "check.h"
#include "kt/carrier.h"
#include "kt/jsonframe.h"
#include "kt_remote_testlib.h"
#include "npukit/kt_remote.h"

enum { PATIENCE_MS = 20000 };

/* One request (JSON text without the id) and its reply. */
static cJSON *call(kt_carrier *c, int id, const char *body)
{
    char text[600];
    snprintf(text, sizeof text, "{\"id\":%d,%s}", id, body);
    size_t n = strlen(text); /* sent as written: integers keep every digit */
    uint8_t h[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    cJSON *r = NULL;
    if (kt_carrier_send(c, h, 4) || kt_carrier_send(c, text, n) || kt_frame_recv(c, &r))
        fprintf(stderr, "request %s: %s\n", text, npk_last_error());
    const cJSON *rid = cJSON_GetObjectItem(r, "id");
    CHECK(cJSON_IsNumber(rid) && rid->valueint == id);
    return r;
}

static bool ok_of(const cJSON *r)
{
    const cJSON *e = cJSON_GetObjectItem(r, "error");
    if (cJSON_IsString(e))
        fprintf(stderr, "error: %s\n", e->valuestring);
    return cJSON_IsTrue(cJSON_GetObjectItem(r, "ok"));
}

static const char *error_of(const cJSON *r)
{
    const cJSON *e = cJSON_GetObjectItem(r, "error");
    return cJSON_IsString(e) ? e->valuestring : "";
}

static char *value_text(const cJSON *r)
{
    return cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "value"));
}

/* The value as text must contain `want`. */
static void value_has(const cJSON *r, const char *want)
{
    char *t = value_text(r);
    CHECK_STR_HAS(t, want);
    free(t);
}

static void test_daemon_ops(void)
{
    kt_test_server sv;
    const char *args[] = {"--protocol", "daemon", "--meshes", "2", NULL};
    CHECK(kt_test_server_start(&sv, args));
    if (!sv.pid)
        return;
    kt_carrier c;
    CHECK_EQ(kt_carrier_connect(&c, sv.addr, PATIENCE_MS), NPK_OK);
    cJSON *r;
    int id = 0;
    /* Every operation the client sends, in the order of its source. */
    r = call(&c, ++id, "\"op\":\"hello\"");
    value_has(r, "\"board\":\"default\"");
    value_has(r, "\"meshes\":2");
    value_has(r, "\"backend\":\"ktsim\"");
    value_has(r, "\"beat_bytes\":8");
    value_has(r, "\"governor\":true");
    cJSON_Delete(r);
    uint64_t mem = 1ull << 40;
    char q[300];
    snprintf(q, sizeof q, "\"op\":\"write_block\",\"addr\":%llu,\"data\":\"%064x\"",
             (unsigned long long)mem, 0);
    r = call(&c, ++id, q);
    CHECK(ok_of(r));
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"write64\",\"addr\":%llu,\"data\":%llu",
             (unsigned long long)mem + 8, 0x1122334455667788ull);
    r = call(&c, ++id, q);
    CHECK(ok_of(r));
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"read64\",\"addr\":%llu", (unsigned long long)mem + 8);
    r = call(&c, ++id, q);
    value_has(r, "1234605616436508552"); /* 0x1122334455667788, every digit */
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"write32\",\"addr\":%llu,\"data\":%u",
             (unsigned long long)mem + 12, 0xAABBCCDDu);
    r = call(&c, ++id, q);
    CHECK(ok_of(r));
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"read32\",\"addr\":%llu", (unsigned long long)mem + 8);
    r = call(&c, ++id, q);
    value_has(r, "1432778632"); /* 0x55667788: the low half kept */
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"read_block\",\"addr\":%llu,\"nbytes\":16",
             (unsigned long long)mem);
    r = call(&c, ++id, q);
    value_has(r, "\"000000000000000088776655ddccbbaa\""); /* write32 kept the low half */
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"clocks\"");
    /* upstream's reply: the four rates in MHz and nothing else */
    value_has(r, "\"0\":{\"noc\":100,\"mat2x\":200,\"vec\":100,\"mag\":100}");
    value_has(r, "\"1\":{\"noc\":100,\"mat2x\":200,\"vec\":100,\"mag\":100}");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"run_begin\",\"meshes\":[1],\"level\":\"ship\"");
    CHECK(ok_of(r));
    int token = cJSON_GetObjectItem(r, "value") ? cJSON_GetObjectItem(r, "value")->valueint : 0;
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"clocks\"");
    value_has(r, "\"1\":{\"noc\":300,\"mat2x\":600,\"vec\":300,\"mag\":300}");
    value_has(r, "\"0\":{\"noc\":100,\"mat2x\":200,\"vec\":100,\"mag\":100}");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"claim\",\"mesh\":0,\"base\":4096,\"size\":4096");
    CHECK(ok_of(r));
    int lease = cJSON_GetObjectItem(r, "value") ? cJSON_GetObjectItem(r, "value")->valueint : 0;
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"status\"");
    value_has(r, "\"clients\":1");
    value_has(r, "\"base\":4096,\"end\":8192");
    value_has(r, "\"governor\":{\"current\":{\"0\":\"low\",\"1\":\"ship\"}");
    value_has(r, "\"runs\":{\"1\":[[1],\"ship\"]}");
    value_has(r, "\"idle_level\":\"low\"");
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"release\",\"lease\":%d", lease);
    r = call(&c, ++id, q);
    CHECK(ok_of(r));
    cJSON_Delete(r);
    snprintf(q, sizeof q, "\"op\":\"run_end\",\"token\":%d", token);
    r = call(&c, ++id, q);
    CHECK(ok_of(r));
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"program\",\"bitstream\":\"top.bit\"");
    CHECK(!ok_of(r));
    CHECK_STR_HAS(error_of(r), "PermissionError: daemon started without --allow-program");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"reset_core\"");
    CHECK(ok_of(r));
    cJSON_Delete(r);
    /* Errors in the daemon's form. */
    r = call(&c, ++id, "\"op\":\"read64\"");
    CHECK_STR_HAS(error_of(r), "KeyError: ");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"read64\",\"addr\":\"x\"");
    CHECK_STR_HAS(error_of(r), "ValueError: op read64 needs 'addr'");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"nope\"");
    CHECK_STR_HAS(error_of(r), "ValueError: unknown op 'nope'"); /* Python's repr, as upstream */
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"run_begin\",\"meshes\":[0],\"level\":\"turbo\"");
    CHECK_STR_HAS(error_of(r), "ValueError: run_begin needs 'level', one of low, mid, ship");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"read64\",\"addr\":1099521064960"); /* never-written DRAM */
    CHECK_STR_HAS(error_of(r), "OSError: ");
    cJSON_Delete(r);
    /* shutdown: refused unless the server was started to allow it (any client could end it). */
    r = call(&c, ++id, "\"op\":\"shutdown\"");
    CHECK(!ok_of(r));
    CHECK_STR_HAS(error_of(r), "PermissionError: daemon started without --allow-shutdown");
    cJSON_Delete(r);
    kt_carrier_close(&c, 0);
    kt_test_server_stop(&sv);
    /* Allowed: answered, then the server ends. */
    const char *allow[] = {"--protocol", "daemon", "--allow-shutdown", NULL};
    CHECK(kt_test_server_start(&sv, allow));
    CHECK_EQ(kt_carrier_connect(&c, sv.addr, PATIENCE_MS), NPK_OK);
    r = call(&c, ++id, "\"op\":\"shutdown\"");
    CHECK(ok_of(r));
    cJSON_Delete(r);
    int status = -1;
    for (int i = 0; i < PATIENCE_MS / 10 && waitpid(sv.pid, &status, WNOHANG) != sv.pid; i++) {
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sv.pid = 0;
    kt_carrier_close(&c, 0);
}

/* The governor's idle window is an option (upstream's daemon's idle_seconds; its test uses
 * 0.2 s): status reports it, and a mesh a run raised drops back to the idle profile once the run
 * has ended and the window has passed (polled, with a generous deadline: no timing is asserted
 * beyond "it drops"). A bad window is refused naming the value and the range. */
static void test_governor_idle_window(void)
{
    kt_test_server sv;
    const char *args[] = {"--protocol", "daemon", "--meshes", "2", "--idle-seconds", "0.2", NULL};
    CHECK(kt_test_server_start(&sv, args));
    if (!sv.pid)
        return;
    kt_carrier c;
    CHECK_EQ(kt_carrier_connect(&c, sv.addr, PATIENCE_MS), NPK_OK);
    int id = 0;
    cJSON *r = call(&c, ++id, "\"op\":\"status\"");
    value_has(r, "\"idle_seconds\":0.2");
    cJSON_Delete(r);
    r = call(&c, ++id, "\"op\":\"run_begin\",\"meshes\":[1],\"level\":\"mid\"");
    int token = cJSON_GetObjectItem(r, "value") ? cJSON_GetObjectItem(r, "value")->valueint : 0;
    cJSON_Delete(r);
    char q[64];
    snprintf(q, sizeof q, "\"op\":\"run_end\",\"token\":%d", token);
    cJSON_Delete(call(&c, ++id, q));
    bool dropped = false;
    for (int i = 0; i < 500 && !dropped; i++) { /* at most 5 s */
        r = call(&c, ++id, "\"op\":\"clocks\"");
        char *t = value_text(r);
        dropped = t && strstr(t, "\"1\":{\"noc\":100,");
        free(t);
        cJSON_Delete(r);
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        if (!dropped)
            nanosleep(&ms10, NULL);
    }
    CHECK(dropped);
    kt_carrier_close(&c, 0);
    kt_test_server_stop(&sv);
    char cmd[512], out[512] = "";
    snprintf(cmd, sizeof cmd, "'%s' kt serve --protocol daemon --idle-seconds 0 2>&1",
             kt_test_cli());
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    CHECK(p && pclose(p) != 0);
    CHECK_STR_HAS(out, "--idle-seconds '0': a number of seconds 0.001..86400");
}

/* A bridge reports the backend it forwards to. */
static void test_bridge_backend(void)
{
    char card[300];
    snprintf(card, sizeof card, "pipe:'%s' kt serve --sim card", kt_test_cli());
    kt_test_server sv;
    const char *args[] = {"--protocol", "daemon", "--sim", "card", "--card", card, NULL};
    CHECK(kt_test_server_start(&sv, args));
    if (!sv.pid)
        return;
    kt_carrier c;
    CHECK_EQ(kt_carrier_connect(&c, sv.addr, PATIENCE_MS), NPK_OK);
    cJSON *r = call(&c, 1, "\"op\":\"hello\"");
    value_has(r, "\"backend\":\"line(pipe)\"");
    value_has(r, "\"engine\":false");
    cJSON_Delete(r);
    kt_carrier_close(&c, 0);
    kt_test_server_stop(&sv);
}

/* The harness's commands on a pipe, as its transport sends them. */
static void test_line_commands(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "'%s' kt serve --stdio --meshes 2", kt_test_cli());
    kt_carrier c;
    CHECK_EQ(kt_carrier_spawn(&c, cmd, PATIENCE_MS), NPK_OK);
    char *line;
    CHECK_EQ(kt_carrier_line(&c, 1000, &line, NULL), NPK_OK);
    CHECK_STR_HAS(line, "READY");
    static const char *const session[][2] = {
        {"WB 10000000000 0000000000000000000000000000000000000000000000000000000000000000", "OK"},
        {"W 10000000000 1122334455667788", "OK"},
        {"R 10000000000", "V 1122334455667788"},
        {"WB 10000000000 88776655443322110102030405060708", "OK"},
        {"RB 10000000000 10", "V 88776655443322110102030405060708"},
        {"T 10", "OK"},
        {"S", "V sys="},
        {"SC", "V card.mesh0.dram:words:4194304:64 card.mesh1.dram:words:4194304:64"},
        {"SC mesh1", "V card.mesh1.dram:words:4194304:64"},
        {"SC nothing", "V "},
        {"PK card.mesh1.dram words 5 "
         "0102030000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000ff",
         "OK"},
        {"PE card.mesh1.dram words 5 1",
         "V 0102030000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000ff"},
        {"BR 1 5", "V ff00000000000000000000000000000000000000000000000000000000000000"
                   "0000000000000000000000000000000000000000000000000000000000030201"},
        {"PE card.mesh1.dram word 5 1", "E no public array"},
        {"PK card.mesh1.dram words 5 0102", "E PK data is not whole 64-byte elements"},
        {"BW 0 0 " /* 128 digits, most significant first */
         "0000000000000000000000000000000000000000000000000000000000000000"
         "00000000000000000000000000000000000000000000000000000000000000aa",
         "OK"},
        {"BR 0 0", "V 0000000000000000000000000000000000000000000000000000000000000000"
                   "00000000000000000000000000000000000000000000000000000000000000aa"},
        {"ZZ", "E unknown command 'ZZ'"},
        {"R", "E R takes 1 arguments, got 0"},
    };
    for (size_t i = 0; i < sizeof session / sizeof session[0]; i++) {
        char text[400];
        int n = snprintf(text, sizeof text, "%s\n", session[i][0]);
        CHECK_EQ(kt_carrier_send(&c, text, (size_t)n), NPK_OK);
        line = NULL;
        CHECK_EQ(kt_carrier_line(&c, 1 << 20, &line, NULL), NPK_OK);
        bool ok = line && !strncmp(line, session[i][1], strlen(session[i][1]));
        if (!ok)
            fprintf(stderr, "`%.40s` answered `%.140s`, want `%s`\n", session[i][0],
                    line ? line : "(nothing)", session[i][1]);
        CHECK(ok);
    }
    kt_carrier_send(&c, "Q\n", 2);
    kt_carrier_close(&c, 5000);
    CHECK(kt_carrier_exited_ok(&c));
}

/* A preset whose top has no host engine (engine 0: the card) is served without announcing one. */
static void test_preset_without_engine(void)
{
    static const struct {
        const char *preset, *want;
    } rows[] = {{"card", "engine=0"}, {"default", "engine=1"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "'%s' kt serve --stdio --sim %s", kt_test_cli(), rows[i].preset);
        kt_carrier c;
        CHECK_EQ(kt_carrier_spawn(&c, cmd, PATIENCE_MS), NPK_OK);
        char *line = NULL;
        CHECK_EQ(kt_carrier_line(&c, 1000, &line, NULL), NPK_OK);
        CHECK_STR_HAS(line, rows[i].want);
        kt_carrier_send(&c, "Q\n", 2);
        kt_carrier_close(&c, 5000);
    }
}

int main(void)
{
    alarm(600);
    test_daemon_ops();
    test_governor_idle_window();
    test_bridge_backend();
    test_line_commands();
    test_preset_without_engine();
    return check_done();
}
