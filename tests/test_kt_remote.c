/* SPDX-License-Identifier: MIT */
/* The remote transports: the line protocol over a child's pipes and over TCP, the card daemon
 * client, the address maps, and `npukit kt serve` behind both protocols. Peers that misbehave
 * (die, stall, refuse, babble, send oversized or malformed frames) are scripted here; every wait
 * is bounded. Only loopback sockets on ephemeral ports. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "kt/carrier.h"
#include "kt/hexcodec.h"
#include "kt/jsonframe.h"
#include "kt_remote_testlib.h"
#include "npukit/kt.h"
#include "npukit/kt_remote.h"
#include "npukit/kt_serve.h"
#include "ktsim/ktsim_card.h"

static const uint64_t CTRL = 0x10000000, MEM = 1ull << 40;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- pieces ---- */

static void test_hex_and_json(void)
{
    uint8_t b[3] = {0x00, 0xAB, 0x7f}, back[3];
    char h[7];
    kt_hex_encode(b, 3, h);
    CHECK(!strcmp(h, "00ab7f"));
    CHECK(kt_hex_decode("00AB7f", 6, back) && !memcmp(b, back, 3));
    CHECK(!kt_hex_decode("0ab", 3, back));
    CHECK(!kt_hex_decode("0g", 2, back));
    uint64_t v;
    CHECK(kt_hex_u64("ffffffffffffffff", &v) && v == UINT64_MAX);
    CHECK(!kt_hex_u64("1ffffffffffffffff", &v)); /* 17 digits */
    CHECK(!kt_hex_u64("", &v));
    CHECK(!kt_hex_u64("12 ", &v));

    /* 64-bit integers survive a JSON round trip exactly, strings that look like numbers stay
     * strings, and the limit is 2^64 - 1. */
    const char *text = "{\"id\":7,\"value\":18446744073709551615,\"s\":\"x\\\"12345678901234567890\","
                       "\"f\":12345678901234567.5,\"n\":-123456789012345678}";
    cJSON *j;
    CHECK_EQ(kt_frame_parse(text, strlen(text), &j), NPK_OK);
    CHECK(kt_json_u64(j, "value", &v) && v == UINT64_MAX);
    CHECK(kt_json_u64(j, "id", &v) && v == 7);
    CHECK(!strcmp(cJSON_GetObjectItem(j, "s")->valuestring, "x\"12345678901234567890"));
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(j, "f")));
    CHECK(!kt_json_u64(j, "n", &v));
    CHECK(!kt_json_u64(j, "f", &v));
    cJSON_Delete(j);
    cJSON *o = cJSON_CreateObject();
    kt_json_add_u64(o, "big", 0xFEDCBA9876543210ull);
    kt_json_add_u64(o, "small", 5);
    char *f;
    size_t n;
    CHECK_EQ(kt_frame_encode(o, &f, &n), NPK_OK);
    size_t len;
    CHECK_EQ(kt_frame_length((uint8_t *)f, &len), NPK_OK);
    CHECK_EQ(len, n - 4);
    CHECK_EQ(kt_frame_parse(f + 4, len, &j), NPK_OK);
    CHECK(kt_json_u64(j, "big", &v) && v == 0xFEDCBA9876543210ull);
    cJSON_Delete(j);
    free(f);
    cJSON_Delete(o);
    /* Malformed and oversized frames are named. */
    CHECK_EQ(kt_frame_parse("{\"a\":", 5, &j), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "invalid JSON");
    CHECK_EQ(kt_frame_parse("[1,2]", 5, &j), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "not an object");
    CHECK_EQ(kt_frame_parse("{}\0{}", 5, &j), NPK_EPARSE);
    /* What cJSON alone would accept but read otherwise than the other end: an escaped NUL
     * (the string would end there), a key twice (first wins in cJSON, last in Python), a
     * number beyond a double (infinity). An escaped backslash before u0000 is no NUL. */
    static const struct {
        const char *text, *why;
    } refused[] = {
        {"{\"op\":\"status\\u0000x\"}", "\\u0000"},
        {"{\"data\":\"abab\\u0000zz\"}", "\\u0000"},
        {"{\"op\":\"hello\",\"op\":\"status\"}", "\"op\" appears twice"},
        {"{\"a\":{\"k\":1,\"j\":2,\"k\":3}}", "\"k\" appears twice"},
        {"{\"id\":1e400}", "beyond a double"},
        {"{\"v\":[1,-1e999]}", "beyond a double"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_EQ(kt_frame_parse(refused[i].text, strlen(refused[i].text), &j), NPK_EPARSE);
        CHECK_STR_HAS(npk_last_error(), refused[i].why);
    }
    const char *fine = "{\"s\":\"a\\\\u0000\",\"t\":\"\\u0001\",\"u\":[1,1]}";
    CHECK_EQ(kt_frame_parse(fine, strlen(fine), &j), NPK_OK);
    CHECK(!strcmp(cJSON_GetObjectItem(j, "s")->valuestring, "a\\u0000"));
    cJSON_Delete(j);
    uint8_t big[4] = {0x04, 0x00, 0x00, 0x01}; /* 64 MiB + 1 */
    CHECK_EQ(kt_frame_length(big, &len), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "67108865 bytes exceeds");
    uint8_t max[4] = {0x04, 0x00, 0x00, 0x00};
    CHECK_EQ(kt_frame_length(max, &len), NPK_OK);
}

static void test_maps(void)
{
    kt_memt *m;
    kt_transport in, rb, win, gran;
    CHECK_EQ(kt_memt_create(&m, true, &in), NPK_OK);
    in.max_block = 64;
    CHECK_EQ(kt_map_rebased(&in, CTRL, 0x800000, &rb), NPK_OK);
    CHECK(rb.bulk);
    CHECK_EQ(rb.max_block, 0);
    CHECK_EQ(kt_write64(&rb, CTRL + 0x18, 0x1234), NPK_OK);
    const uint64_t *a, *v;
    CHECK_EQ(kt_memt_writes(m, &a, &v), 1);
    CHECK_EQ(a[0], 0x800018);
    CHECK_EQ(v[0], 0x1234);
    uint64_t x;
    CHECK_EQ(kt_read64(&rb, CTRL + 0x18, &x), NPK_OK);
    CHECK_EQ(x, 0x1234);
    CHECK_EQ(kt_read64(&rb, 0x40, &x), NPK_EINVAL); /* the engine's window: not on a card */
    CHECK_STR_HAS(npk_last_error(), "engine");
    CHECK_STR_HAS(npk_last_error(), "0x40");
    CHECK_EQ(kt_memt_writes(m, NULL, NULL), 1); /* nothing reached the card */

    CHECK_EQ(kt_map_window(&in, 0x100000, 0x100, 0, &win), NPK_OK);
    uint8_t buf[64] = {1, 2, 3};
    CHECK_EQ(kt_write_block(&win, 0xC0, buf, 64), NPK_OK);
    CHECK_EQ(kt_write_block(&win, 0xC8, buf, 64), NPK_ELIMIT); /* one word past the end */
    CHECK_STR_HAS(npk_last_error(), "0x100 bytes");
    CHECK_EQ(kt_read64(&win, 0x100, &x), NPK_ELIMIT);
    CHECK_EQ(kt_read64(&win, 0xF8, &x), NPK_OK);
    CHECK_EQ(kt_read64(&win, 0xC0, &x), NPK_OK);
    CHECK_EQ(x, kt_le64(buf));
    CHECK_EQ(kt_map_window(&in, 0, 0, 0, &gran), NPK_EINVAL);
    CHECK_EQ(kt_map_window(&in, 0, 0x100, 24, &gran), NPK_EINVAL);

    /* The 32-byte granule: only whole aligned granules are written; reads are free. */
    CHECK_EQ(kt_map_window(&in, 0x200000, 0x1000, 32, &gran), NPK_OK);
    size_t before = kt_memt_writes(m, NULL, NULL);
    CHECK_EQ(kt_write64(&gran, 0x20, 5), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "32-byte DRAM granule");
    CHECK_EQ(kt_write_block(&gran, 0x28, buf, 32), NPK_EINVAL);
    CHECK_EQ(kt_write_block(&gran, 0x20, buf, 40), NPK_EINVAL);
    CHECK_EQ(kt_memt_writes(m, NULL, NULL), before);
    CHECK_EQ(kt_write_block(&gran, 0x20, buf, 64), NPK_OK);
    CHECK_EQ(kt_memt_writes(m, &a, NULL), before + 8);
    CHECK_EQ(gran.count.block_writes, 2 + 1); /* two refused, one whole here, split below at 64 */
    CHECK_EQ(in.count.block_writes, 1 + 2);
    CHECK_EQ(a[before], 0x200020);
    CHECK_EQ(kt_read64(&gran, 0x28, &x), NPK_OK);
    kt_transport_close(&rb);
    kt_transport_close(&win);
    kt_transport_close(&gran);
    kt_transport_close(&in);
}

/* ---- the line protocol against scripted peers ---- */

static npk_status spawn_script(const char *script, unsigned timeout_ms, kt_line **l, kt_transport *t)
{
    kt_remote_opts o = {timeout_ms};
    return kt_line_spawn(script, &o, l, t);
}

static void test_line_scripted(void)
{
    kt_line *l;
    kt_transport t;
    uint64_t v;
    /* Model output before READY and between replies is skipped; hex both ways. */
    CHECK_EQ(spawn_script("printf 'booting\\nREADY sys=1\\n'; read c; echo 'model: hello'; echo 'V 2a'; "
                          "read c; [ \"$c\" = 'W 18 ffffffffffffffff' ] && echo OK; read c; [ \"$c\" = Q ]",
                          5000, &l, &t),
             NPK_OK);
    CHECK(!strcmp(kt_line_banner(l), "READY sys=1"));
    CHECK(t.bulk);
    CHECK_EQ(t.max_block, KT_LINE_MAX_BLOCK);
    CHECK_EQ(kt_read64(&t, 0x10, &v), NPK_OK);
    CHECK_EQ(v, 0x2a);
    CHECK_EQ(kt_write64(&t, 0x18, UINT64_MAX), NPK_OK);
    CHECK_EQ(kt_line_finish(l), NPK_OK); /* it saw Q and exited 0 */
    kt_transport_close(&t);

    /* An E line is an error quoting the command and the peer's text. */
    CHECK_EQ(spawn_script("echo READY; read c; echo 'E no slave answers'; read c", 5000, &l, &t), NPK_OK);
    CHECK_EQ(kt_read64(&t, 0x10, &v), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "`R 10`");
    CHECK_STR_HAS(npk_last_error(), "E no slave answers");
    kt_transport_close(&t);

    /* Garbage in a reply. */
    CHECK_EQ(spawn_script("echo READY; read c; echo 'V zz'; read c", 5000, &l, &t), NPK_OK);
    CHECK_EQ(kt_read64(&t, 0x10, &v), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "`V zz`");
    CHECK_STR_HAS(npk_last_error(), "`R 10`");
    kt_transport_close(&t);
    CHECK_EQ(spawn_script("echo READY; read c; echo 'V 0011'; read c; echo 'V 12'; read c", 5000, &l, &t), NPK_OK);
    uint8_t blk[16];
    CHECK_EQ(kt_read_block(&t, 0x20, blk, 16), NPK_EPROTO); /* 2 bytes for 16 */
    CHECK_STR_HAS(npk_last_error(), "`RB 20 10`");
    CHECK_STR_HAS(npk_last_error(), "16 bytes");
    CHECK_EQ(kt_write64(&t, 0x20, 1), NPK_EPROTO); /* V where OK belongs */
    kt_transport_close(&t);

    /* A peer that dies mid-command: its exit status and last output are in the error. */
    CHECK_EQ(spawn_script("echo READY; read c; echo 'model: assertion failed'; exit 3", 5000, &l, &t), NPK_OK);
    CHECK_EQ(kt_write64(&t, 0x40, 7), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "`W 40 7`");
    CHECK_STR_HAS(npk_last_error(), "exited with status 3");
    CHECK_STR_HAS(npk_last_error(), "model: assertion failed");
    CHECK_EQ(kt_read64(&t, 0x40, &v), NPK_EIO); /* and stays an error */
    kt_transport_close(&t);

    /* A peer that stalls: the timeout, not a hang; closing ends the whole process group. */
    CHECK_EQ(spawn_script("echo READY; read c; sleep 30", 300, &l, &t), NPK_OK);
    double t0 = now_s();
    CHECK_EQ(kt_read64(&t, 0x10, &v), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "within 300 ms");
    CHECK_STR_HAS(npk_last_error(), "`R 10`");
    kt_transport_close(&t);
    CHECK(now_s() - t0 < 10.0);

    /* Start-up failures: no READY, a reply before READY, a silent peer. */
    CHECK_EQ(spawn_script("echo 'not a harness'; exit 2", 5000, &l, &t), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "exited with status 2");
    CHECK_STR_HAS(npk_last_error(), "not a harness");
    CHECK_EQ(spawn_script("echo 'V 1'; sleep 5", 5000, &l, &t), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "READY");
    t0 = now_s();
    CHECK_EQ(spawn_script("sleep 30", 200, &l, &t), NPK_ETIMEDOUT);
    CHECK(now_s() - t0 < 10.0);
    CHECK_EQ(spawn_script("exec /nonexistent/harness 2>/dev/null", 5000, &l, &t), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "exited with status 127");

    /* An exit status other than 0 at the end is reported by finish. */
    CHECK_EQ(spawn_script("echo READY; read c; exit 5", 5000, &l, &t), NPK_OK);
    CHECK_EQ(kt_line_finish(l), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "exited with status 5");
    kt_transport_close(&t);

    /* A second READY means the peer restarted under us. */
    CHECK_EQ(spawn_script("echo READY; read c; echo READY; read c", 5000, &l, &t), NPK_OK);
    CHECK_EQ(kt_read64(&t, 0x10, &v), NPK_EPROTO);
    CHECK_STR_HAS(npk_last_error(), "second READY");
    kt_transport_close(&t);
}

/* ---- npukit's driver against kt serve, compared with the simulator in-process ---- */

typedef struct enum_result {
    kt_unit u[16];
    size_t n;
    kt_counters count;
} enum_result;

static void enumerate(kt_transport *t, enum_result *r)
{
    kt_dev d;
    memset(r, 0, sizeof *r);
    kt_counters_reset(t);
    CHECK_EQ(kt_open(&d, t, CTRL, NULL), NPK_OK);
    CHECK_EQ(kt_enumerate(&d, r->u, 16, &r->n), NPK_OK);
    r->count = t->count;
}

static void direct_enum(enum_result *r)
{
    ktsim_card_opts o = {1, false, true, 0, 0, 0};
    ktsim_card *c;
    CHECK_EQ(ktsim_card_open_preset("default", false, &o, &c), NPK_OK);
    enumerate(ktsim_card_transport(c), r);
    ktsim_card_destroy(c);
}

static void same_enum(const enum_result *want, const enum_result *got)
{
    CHECK(want->n >= 3);
    CHECK_EQ(got->n, want->n);
    for (size_t i = 0; i < want->n && i < got->n; i++) {
        CHECK(kt_coord_eq(got->u[i].at, want->u[i].at));
        CHECK_EQ(got->u[i].caps.type, want->u[i].caps.type);
        CHECK_EQ(got->u[i].caps.inst_depth, want->u[i].caps.inst_depth);
    }
    CHECK_EQ(kt_counters_transactions(&got->count), kt_counters_transactions(&want->count));
    CHECK_EQ(got->count.reads, want->count.reads);
    CHECK_EQ(got->count.block_reads, want->count.block_reads);
    CHECK_EQ(got->count.bytes_read + got->count.bytes_written, want->count.bytes_read + want->count.bytes_written);
}

static void test_line_pipe_serve(const enum_result *want)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' kt serve --protocol line --stdio", kt_test_cli());
    kt_line *l;
    kt_transport t;
    kt_remote_opts o = {20000};
    CHECK_EQ(kt_line_spawn(cmd, &o, &l, &t), NPK_OK);
    if (check_failed)
        return;
    CHECK_STR_HAS(kt_line_banner(l), "READY");
    CHECK_STR_HAS(kt_line_banner(l), "machine=default");
    enum_result got;
    enumerate(&t, &got);
    same_enum(want, &got);

    /* Blocks longer than a line are split at 2048-byte boundaries and come back intact. */
    uint8_t data[5000], back[5000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13 + 5);
    kt_counters_reset(&t);
    CHECK_EQ(kt_write_block(&t, MEM + 0x1000, data, sizeof data), NPK_OK);
    CHECK_EQ(t.count.block_writes, 3);
    CHECK_EQ(kt_read_block(&t, MEM + 0x1000, back, sizeof back), NPK_OK);
    CHECK(!memcmp(data, back, sizeof data));
    CHECK_EQ(t.count.block_reads, 3);

    /* T and S: the clock moves by at least what was asked. */
    char st[200];
    uint64_t c0 = 0, c1 = 0;
    CHECK_EQ(kt_line_status(l, st, sizeof st), NPK_OK);
    CHECK(kt_line_status_cycle(st, &c0));
    CHECK_STR_HAS(st, "sys="); /* the card harness's key, and the earlier one */
    CHECK_STR_HAS(st, " cycle=");
    CHECK_EQ(kt_line_advance(l, 0x1000), NPK_OK);
    CHECK_EQ(kt_line_status(l, st, sizeof st), NPK_OK);
    CHECK(kt_line_status_cycle(st, &c1));
    CHECK(c1 >= c0 + 0x1000);
    CHECK_STR_HAS(st, "fault=0");

    /* The DRAM backdoor: whole 64-byte words go through BR/BW, the ragged ends through the bus,
     * and the bus reads back what the backdoor wrote. */
    CHECK_EQ(kt_line_use_backdoor(l, 0, MEM, 0x10000000), NPK_OK);
    CHECK_EQ(kt_line_use_backdoor(l, 0, MEM + 8, 0x100), NPK_EINVAL);
    uint64_t words0 = kt_line_backdoor_words(l);
    CHECK_EQ(kt_write_block(&t, MEM + 0x40020, data, 32 + 4 * 64 + 32), NPK_OK);
    CHECK_EQ(kt_line_backdoor_words(l) - words0, 4 + 1 /* the probe */);
    for (unsigned w = 0; w < (32 + 4 * 64 + 32) / 8; w++) {
        uint64_t v;
        CHECK_EQ(kt_read64(&t, MEM + 0x40020 + 8 * w, &v), NPK_OK);
        CHECK_EQ(v, kt_le64(data + 8 * w));
    }
    memset(back, 0, sizeof back);
    CHECK_EQ(kt_read_block(&t, MEM + 0x40000, back, 512), NPK_OK);
    CHECK(!memcmp(back + 32, data, 320));
    uint8_t word[64];
    CHECK_EQ(kt_line_backdoor_read(l, 0, (0x40040) / 64, word), NPK_OK);
    CHECK(!memcmp(word, data + 32, 64));
    CHECK_EQ(kt_line_backdoor_read(l, 3, 0, word), NPK_EIO); /* no mesh 3 */
    CHECK_STR_HAS(npk_last_error(), "channel 3");
    CHECK_EQ(kt_line_finish(l), NPK_OK);
    kt_transport_close(&t);
}

static void test_line_tcp_serve(const enum_result *want)
{
    kt_test_server sv;
    const char *args[] = {"--protocol", "line", NULL};
    CHECK(kt_test_server_start(&sv, args));
    if (!sv.pid)
        return;
    for (int round = 0; round < 2; round++) { /* the server outlives a client's Q */
        kt_line *l;
        kt_transport t;
        CHECK_EQ(kt_line_connect(sv.addr, NULL, &l, &t), NPK_OK);
        if (check_failed)
            break;
        enum_result got;
        enumerate(&t, &got);
        same_enum(want, &got);
        kt_transport_close(&t);
    }
    kt_test_server_stop(&sv);
    kt_line *l;
    kt_transport t;
    kt_remote_opts o = {2000};
    CHECK_EQ(kt_line_connect(sv.addr, &o, &l, &t), NPK_ENODEV); /* nobody listens any more */
    CHECK_STR_HAS(npk_last_error(), sv.addr);
}

/* ---- the card daemon ---- */

static void test_daemon_serve(const enum_result *want)
{
    kt_test_server sv;
    const char *args[] = {"--protocol", "daemon", "--meshes", "2", NULL};
    CHECK(kt_test_server_start(&sv, args));
    if (!sv.pid)
        return;
    kt_daemon *d1, *d2;
    kt_transport t1, t2;
    CHECK_EQ(kt_daemon_connect(sv.addr, NULL, &d1, &t1), NPK_OK);
    CHECK_EQ(kt_daemon_connect(sv.addr, NULL, &d2, &t2), NPK_OK);
    if (check_failed) {
        kt_test_server_stop(&sv);
        return;
    }
    CHECK_EQ(kt_daemon_beat_bytes(d1), 8);
    CHECK_STR_HAS(kt_daemon_hello(d1), "\"meshes\":2");
    enum_result got;
    enumerate(&t1, &got);
    same_enum(want, &got);

    /* All 64 bits of a value cross the JSON, both ways. */
    uint64_t v = 0;
    uint8_t granule[32] = {0};
    CHECK_EQ(kt_write_block(&t1, MEM + 0x2000, granule, 32), NPK_OK);
    CHECK_EQ(kt_write64(&t1, MEM + 0x2008, 0xFEDCBA9876543210ull), NPK_OK);
    CHECK_EQ(kt_read64(&t2, MEM + 0x2008, &v), NPK_OK); /* the other client sees it */
    CHECK_EQ(v, 0xFEDCBA9876543210ull);
    uint8_t data[3000], back[3000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    CHECK_EQ(kt_write_block(&t2, MEM + 0x3000, data, 3008 - 8), NPK_OK);
    CHECK_EQ(kt_read_block(&t1, MEM + 0x3000, back, 3000), NPK_OK);
    CHECK(!memcmp(data, back, 3000));
    CHECK_EQ(kt_read64(&t1, MEM + 0x900000, &v), NPK_EIO); /* the daemon's refusal, quoted */
    CHECK_STR_HAS(npk_last_error(), "refused read64");
    CHECK_STR_HAS(npk_last_error(), "never-written DRAM");

    /* Leases: overlap refused, another mesh free, released ones reusable, dead with the client. */
    uint64_t l1, l2, l3;
    CHECK_EQ(kt_daemon_claim(d1, 0, 0x1000, 0x1000, &l1), NPK_OK);
    CHECK_EQ(kt_daemon_claim(d2, 0, 0x1800, 0x100, &l2), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "overlapping");
    CHECK_EQ(kt_daemon_claim(d2, 1, 0x1800, 0x100, &l2), NPK_OK);
    CHECK_EQ(kt_daemon_claim(d2, 2, 0, 0x100, &l3), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "mesh 2 does not exist");
    CHECK_EQ(kt_daemon_release(d2, l1), NPK_EIO); /* not its lease */
    char st[1024];
    CHECK_EQ(kt_daemon_status(d2, st, sizeof st), NPK_OK);
    CHECK_STR_HAS(st, "\"clients\":2");
    CHECK_STR_HAS(st, "\"runs\":0");
    uint64_t tok;
    CHECK_EQ(kt_daemon_run_begin(d1, 1, "ship", &tok), NPK_OK);
    CHECK_EQ(kt_daemon_run_begin(d1, 4, "ship", &tok), NPK_EIO);
    CHECK_EQ(kt_daemon_run_begin(d1, 1, "turbo", &tok), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "low, mid, ship");
    CHECK_EQ(kt_daemon_status(d2, st, sizeof st), NPK_OK);
    CHECK_STR_HAS(st, "\"runs\":1");
    kt_transport_close(&t1); /* its lease and run die with it */
    for (int i = 0; i < 200; i++) { /* the daemon notices the close when it next polls */
        CHECK_EQ(kt_daemon_status(d2, st, sizeof st), NPK_OK);
        if (strstr(st, "\"clients\":1"))
            break;
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
    }
    CHECK_STR_HAS(st, "\"runs\":0");
    CHECK_EQ(kt_daemon_claim(d2, 0, 0x1000, 0x1000, &l1), NPK_OK);
    CHECK_EQ(kt_daemon_release(d2, l1), NPK_OK);
    CHECK_EQ(kt_daemon_release(d2, l2), NPK_OK);

    /* Bad frames from a raw client: an error reply naming the fault, then the connection ends;
     * the daemon keeps serving the others. */
    kt_carrier raw;
    CHECK_EQ(kt_carrier_connect(&raw, sv.addr, 5000), NPK_OK);
    CHECK_EQ(kt_carrier_send(&raw, "\x05\x00\x00\x00", 4), NPK_OK); /* 80 MiB */
    cJSON *r = NULL;
    CHECK_EQ(kt_frame_recv(&raw, &r), NPK_OK);
    CHECK(r && cJSON_IsFalse(cJSON_GetObjectItem(r, "ok")));
    CHECK_STR_HAS(r ? cJSON_GetObjectItem(r, "error")->valuestring : NULL, "exceeds");
    cJSON_Delete(r);
    CHECK_EQ(kt_frame_recv(&raw, &r), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "closed");
    kt_carrier_close(&raw, 0);
    CHECK_EQ(kt_carrier_connect(&raw, sv.addr, 5000), NPK_OK);
    CHECK_EQ(kt_carrier_send(&raw, "\x00\x00\x00\x09{\"id\": 1,", 13), NPK_OK);
    CHECK_EQ(kt_frame_recv(&raw, &r), NPK_OK);
    CHECK_STR_HAS(r ? cJSON_GetObjectItem(r, "error")->valuestring : NULL, "malformed frame");
    cJSON_Delete(r);
    CHECK_EQ(kt_frame_recv(&raw, &r), NPK_EIO);
    kt_carrier_close(&raw, 0);
    CHECK_EQ(kt_read64(&t2, MEM + 0x2008, &v), NPK_OK);
    CHECK_EQ(v, 0xFEDCBA9876543210ull);
    kt_transport_close(&t2);
    kt_test_server_stop(&sv);
}

/* A daemon that misbehaves on purpose, one connection per mode. */
typedef enum fake_mode { FAKE_OVERSIZE, FAKE_BAD_JSON, FAKE_WRONG_ID, FAKE_REFUSE, FAKE_STALL } fake_mode;

typedef struct fake_daemon {
    int fd;
    fake_mode mode;
} fake_daemon;

static void fake_reply(kt_carrier *c, const char *json)
{
    size_t n = strlen(json);
    uint8_t h[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    kt_carrier_send(c, h, 4);
    kt_carrier_send(c, json, n);
}

static void *fake_daemon_main(void *arg)
{
    fake_daemon *f = arg;
    int fd = accept(f->fd, NULL, NULL);
    if (fd < 0)
        return NULL;
    kt_carrier c;
    kt_carrier_from_fds(&c, fd, fd, "fake", 5000);
    cJSON *req;
    if (kt_frame_recv(&c, &req) == NPK_OK) { /* hello */
        cJSON_Delete(req);
        fake_reply(&c, "{\"id\":1,\"ok\":true,\"value\":{\"beat_bytes\":8}}");
        if (kt_frame_recv(&c, &req) == NPK_OK) {
            cJSON_Delete(req);
            if (f->mode == FAKE_OVERSIZE)
                kt_carrier_send(&c, "\x04\x00\x00\x01", 4);
            else if (f->mode == FAKE_BAD_JSON)
                fake_reply(&c, "{\"id\":2,\"ok\":tru");
            else if (f->mode == FAKE_WRONG_ID)
                fake_reply(&c, "{\"id\":9,\"ok\":true,\"value\":1}");
            else if (f->mode == FAKE_REFUSE) {
                fake_reply(&c, "{\"id\":2,\"ok\":false,\"error\":\"TimeoutError: JTAG cable unplugged\"}");
                if (kt_frame_recv(&c, &req) == NPK_OK) { /* still usable afterwards */
                    cJSON_Delete(req);
                    fake_reply(&c, "{\"id\":3,\"ok\":true,\"value\":18446744073709551615}");
                }
            }
            if (f->mode == FAKE_STALL || f->mode == FAKE_OVERSIZE || f->mode == FAKE_BAD_JSON) {
                char one; /* hold the connection until the client gives up and closes it */
                kt_carrier_read(&c, &one, 1);
            }
        }
    }
    kt_carrier_close(&c, 0);
    return NULL;
}

static void test_daemon_misbehaving(void)
{
    static const struct {
        fake_mode mode;
        npk_status want;
        const char *text;
    } cases[] = {
        {FAKE_OVERSIZE, NPK_EPROTO, "exceeds the limit"},
        {FAKE_BAD_JSON, NPK_EPARSE, "malformed frame"},
        {FAKE_WRONG_ID, NPK_EPROTO, "is not {\"id\": 2"},
        {FAKE_REFUSE, NPK_EIO, "JTAG cable unplugged"},
        {FAKE_STALL, NPK_ETIMEDOUT, "within 300 ms"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_daemon f = {-1, cases[i].mode};
        unsigned port;
        CHECK_EQ(kt_listen_tcp("127.0.0.1:0", false, &f.fd, &port), NPK_OK);
        pthread_t th;
        pthread_create(&th, NULL, fake_daemon_main, &f);
        char addr[32];
        snprintf(addr, sizeof addr, "127.0.0.1:%u", port);
        kt_daemon *d;
        kt_transport t;
        kt_remote_opts o = {300};
        CHECK_EQ(kt_daemon_connect(addr, &o, &d, &t), NPK_OK);
        uint64_t v = 0;
        double t0 = now_s();
        CHECK_EQ(kt_read64(&t, 0x10000010, &v), cases[i].want);
        CHECK_STR_HAS(npk_last_error(), cases[i].text);
        CHECK_STR_HAS(npk_last_error(), "read64");
        CHECK(now_s() - t0 < 10.0);
        if (cases[i].mode == FAKE_REFUSE) {
            CHECK_EQ(kt_read64(&t, 0x10000010, &v), NPK_OK);
            CHECK_EQ(v, UINT64_MAX);
        } else {
            CHECK_EQ(kt_read64(&t, 0x10000010, &v), NPK_EIO); /* the connection is gone for good */
            CHECK_STR_HAS(npk_last_error(), "closed earlier");
        }
        kt_transport_close(&t);
        pthread_join(th, NULL);
        close(f.fd);
    }
    /* Nobody at the address: a clear refusal, quickly. */
    kt_daemon *d;
    kt_transport t;
    unsigned port;
    int fd;
    CHECK_EQ(kt_listen_tcp("127.0.0.1:0", false, &fd, &port), NPK_OK);
    close(fd); /* a port that was just free */
    char addr[32];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", port);
    CHECK_EQ(kt_daemon_connect(addr, NULL, &d, &t), NPK_ENODEV);
    CHECK_EQ(kt_listen_tcp("0.0.0.0:0", false, &fd, &port), NPK_EINVAL); /* loopback only by default */
    CHECK_STR_HAS(npk_last_error(), "not a loopback address");
    CHECK_EQ(kt_daemon_connect("localhost", NULL, &d, &t), NPK_EINVAL);
}

int main(void)
{
    test_hex_and_json();
    test_maps();
    test_line_scripted();
    enum_result want;
    direct_enum(&want);
    test_line_pipe_serve(&want);
    test_line_tcp_serve(&want);
    test_daemon_serve(&want);
    test_daemon_misbehaving();
    return check_done();
}
