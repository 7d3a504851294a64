/* SPDX-License-Identifier: MIT */
/* `npukit kt serve --protocol daemon` reads large blocks a chunk per turn of its loop and sends
 * the reply a piece per turn, so one client's 4 MiB read_blocks share the loop with everyone
 * else's requests. Checked here:
 *  - the reply is byte for byte the frame a whole cJSON reply makes (any id, every size around
 *    a turn's share, a client that takes it in small bites), and errors are still replies;
 *  - another client's requests are served between the read's chunks: a writer's pipelined
 *    write64s to the block's first and last words land between the read of the first chunk and
 *    of the last, which a read done in one turn can never show (no clock involved);
 *  - a 4 MiB read costs the server its bytes and a piece of hex, not its reply several times;
 *  - clients that leave with a read under way or half taken cost nobody anything.
 * It prints a small client's read64 rate alone and beside a back-to-back reader (figures only:
 * bench/bench_kt_serve_fairness measures them properly). Only loopback, ephemeral ports. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "kt/serve_daemon.h"
#include "kt_raw_testlib.h"
#include "kt_remote_testlib.h"
#include "npukit/kt.h"
#include "npukit/kt_remote.h"

static const uint64_t MEM = 1ull << 40;
enum {
    BLOCK = KT_DAEMON_MAX_BLOCK,
    /* docs/kt-remote.md: a 4 MiB read_block raises the server's peak by under 6 MiB. */
    KT_DOC_READ_BLOCK_PEAK_MIB = 6,
};

static const char HEX[] = "0123456789abcdef";

static uint8_t pattern(size_t i) { return (uint8_t)(i * 13u + (i >> 11)); }

static bool start(kt_test_server *sv, kt_transport *t)
{
    const char *args[] = {"--protocol", "daemon", NULL};
    CHECK(kt_test_server_start(sv, args));
    if (!sv->pid)
        return false;
    kt_daemon *d;
    CHECK_EQ(kt_daemon_connect(sv->addr, NULL, &d, t), NPK_OK);
    return true;
}

/* The block [MEM, MEM + BLOCK) written with pattern(), a turn's share per request so the
 * writes do not raise the server's peak memory above what its DRAM takes. */
static void fill(kt_transport *t)
{
    uint8_t *data = malloc(BLOCK);
    for (size_t i = 0; i < BLOCK; i++)
        data[i] = pattern(i);
    for (size_t at = 0; at < BLOCK; at += SERVE_TURN_BYTES)
        CHECK_EQ(kt_write_block(t, MEM + at, data + at, SERVE_TURN_BYTES), NPK_OK);
    free(data);
}

/* The frame a read_block of n bytes at MEM + off owes request id `id` (JSON text): the object
 * {"id", "ok": true, "value": hex} printed whole by cJSON, after its 4-byte length: what the
 * server sent when it built every reply in one piece. */
static char *expected_reply(const char *id, size_t off, size_t n, size_t *len)
{
    char *hex = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = HEX[pattern(off + i) >> 4];
        hex[2 * i + 1] = HEX[pattern(off + i) & 15];
    }
    hex[2 * n] = '\0';
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "id", cJSON_Parse(id));
    cJSON_AddTrueToObject(r, "ok");
    cJSON_AddStringToObject(r, "value", hex);
    free(hex);
    char *text = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    size_t body = strlen(text);
    char *f = malloc(body + 4);
    kt_raw_frame_header(body, (uint8_t *)f);
    memcpy(f + 4, text, body);
    free(text);
    *len = body + 4;
    return f;
}

static void ask_read(int fd, const char *id, uint64_t addr, size_t n)
{
    char req[200];
    snprintf(req, sizeof req, "{\"id\":%s,\"op\":\"read_block\",\"addr\":%llu,\"nbytes\":%zu}", id,
             (unsigned long long)addr, n);
    CHECK(kt_raw_send_frame(fd, req));
}

/* Take a frame in bites of at most `bite` bytes, as a slow client does. */
static uint8_t *recv_in_bites(int fd, size_t bite, size_t *len)
{
    uint8_t h[4];
    if (!kt_raw_recv_all(fd, h, 4))
        return NULL;
    size_t n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
    uint8_t *f = malloc(n + 4);
    memcpy(f, h, 4);
    for (size_t at = 0; at < n; at += bite)
        if (!kt_raw_recv_all(fd, f + 4 + at, n - at < bite ? n - at : bite)) {
            free(f);
            return NULL;
        }
    *len = n + 4;
    return f;
}

/* ---- the reply on the wire ---- */

static void test_reply_bytes(void)
{
    kt_test_server sv;
    kt_transport t;
    if (!start(&sv, &t))
        return;
    fill(&t);
    static const char *const ids[] = {"7", "\"r\\\"q\\u00e9\"", "null", "[1,\"a\"]", "1.5", "-3"};
    const size_t turn = SERVE_TURN_BYTES;
    const struct {
        size_t off, n;
    } cases[] = {
        {0, 8},                       /* one word */
        {8, turn},                    /* one turn's share: the reply built whole */
        {8, turn + 8},                /* one word past it: chunked */
        {16, 3 * turn + 24},          /* starts and ends inside granules */
        {16, BLOCK - 16},             /* to the end of the block */
        {0, BLOCK},                   /* the largest */
    };
    int fd = kt_raw_connect(sv.addr, false);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *id = ids[c % (sizeof ids / sizeof ids[0])];
        ask_read(fd, id, MEM + cases[c].off, cases[c].n);
        size_t got_len = 0, want_len;
        uint8_t *got = kt_raw_recv_bytes(fd, &got_len);
        char *want = expected_reply(id, cases[c].off, cases[c].n, &want_len);
        CHECK(got != NULL);
        CHECK_EQ(got_len, want_len);
        bool same = got && got_len == want_len && !memcmp(got, want, want_len);
        if (!same)
            fprintf(stderr, "read_block of %zu bytes at +%zu, id %s: reply differs\n", cases[c].n,
                    cases[c].off, id);
        CHECK(same);
        free(got);
        free(want);
    }
    /* A client that takes the largest reply 4 KiB at a time through a tiny window. */
    int slow = kt_raw_connect(sv.addr, true);
    ask_read(slow, "\"slow\"", MEM, BLOCK);
    size_t got_len = 0, want_len;
    uint8_t *got = recv_in_bites(slow, 4096, &got_len);
    char *want = expected_reply("\"slow\"", 0, BLOCK, &want_len);
    CHECK(got && got_len == want_len && !memcmp(got, want, want_len));
    free(got);
    free(want);
    close(slow);
    /* Errors are replies: the granule the machine refuses, named (the first chunks read); a
     * shape the transport refuses, named whole. */
    ask_read(fd, "1", MEM + BLOCK - 2 * turn, 4 * turn);
    cJSON *r = kt_raw_recv_frame(fd);
    CHECK(r && cJSON_IsFalse(cJSON_GetObjectItem(r, "ok")));
    CHECK_STR_HAS(kt_raw_error_of(r), "OSError: read of never-written DRAM granule 0x400000");
    cJSON_Delete(r);
    ask_read(fd, "2", MEM + 8, 2 * turn + 4);
    r = kt_raw_recv_frame(fd);
    char msg[120];
    snprintf(msg, sizeof msg, "ValueError: block length %zu at 0x%llx is not a non-zero multiple",
             2 * turn + 4, (unsigned long long)(MEM + 8));
    CHECK_STR_HAS(kt_raw_error_of(r), msg);
    cJSON_Delete(r);
    uint8_t word[8];
    CHECK_EQ(kt_read_block(&t, MEM, word, 8), NPK_OK); /* the server goes on */
    CHECK_EQ(word[0], pattern(0));
    close(fd);
    kt_transport_close(&t);
    kt_test_server_stop(&sv);
}

/* ---- other clients between the chunks ---- */

typedef struct drain_arg {
    int fd;
    unsigned want, ok;
} drain_arg;

/* Take the writer's replies as they come, so its pipeline never waits on them (one carrier for
 * all: it reads ahead). */
static void *drain(void *arg)
{
    drain_arg *a = arg;
    kt_carrier c;
    kt_carrier_from_fds(&c, a->fd, -1, "writer", KT_RAW_PATIENCE_MS);
    for (unsigned i = 0; i < a->want; i++) {
        cJSON *r = NULL;
        if (kt_frame_recv(&c, &r))
            break;
        a->ok += cJSON_IsTrue(cJSON_GetObjectItem(r, "ok"));
        cJSON_Delete(r);
    }
    free(c.buf); /* the descriptor stays the caller's */
    return NULL;
}

static uint64_t word_in_hex(const char *hex)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) { /* little-endian bytes */
        unsigned hi = (unsigned)(strchr(HEX, hex[2 * i]) - HEX);
        unsigned lo = (unsigned)(strchr(HEX, hex[2 * i + 1]) - HEX);
        v = v << 8 | (hi << 4 | lo);
    }
    return v;
}

/* One reader asks for the block while a writer has `pairs` pairs of write64s queued at the
 * server: value j to the block's first word, then j to its last, for j = 1..pairs. The read's
 * first chunk sees the first word as a, its last chunk the last word as b. Read in one turn,
 * b is a or a - 1; read a chunk per turn with the writer served between the chunks, b > a.
 * False when the writer's queue ran dry before the read began (inconclusive: a >= pairs - 1). */
static bool interleaved_once(const char *addr, unsigned pairs, uint64_t *a, uint64_t *b)
{
    const uint64_t first = MEM, last = MEM + BLOCK - 8;
    int rd = kt_raw_connect(addr, false), wr = kt_raw_connect(addr, false);
    /* the read's frame but its last byte: it cannot start until that comes */
    char req[200];
    int n = snprintf(req + 4, sizeof req - 4,
                     "{\"id\":1,\"op\":\"read_block\",\"addr\":%llu,\"nbytes\":%d}",
                     (unsigned long long)MEM, BLOCK);
    kt_raw_frame_header((size_t)n, (uint8_t *)req);
    CHECK(kt_raw_send_all(rd, req, (size_t)n + 3));
    size_t cap = (size_t)pairs * 2 * 96, at = 0;
    char *pipe = malloc(cap);
    for (unsigned j = 1; j <= pairs; j++)
        for (int k = 0; k < 2; k++) {
            int m = snprintf(pipe + at + 4, cap - at - 4,
                             "{\"id\":%u,\"op\":\"write64\",\"addr\":%llu,\"data\":%u}", 2 * j + k,
                             (unsigned long long)(k ? last : first), j);
            kt_raw_frame_header((size_t)m, (uint8_t *)pipe + at);
            at += (size_t)m + 4;
        }
    drain_arg da = {wr, 2 * pairs, 0};
    pthread_t th;
    pthread_create(&th, NULL, drain, &da);
    CHECK(kt_raw_send_all(wr, pipe, at));
    CHECK(kt_raw_send_all(rd, req + 4 + n - 1, 1));
    cJSON *r = kt_raw_recv_frame(rd);
    const cJSON *v = cJSON_GetObjectItem(r, "value");
    CHECK(cJSON_IsString(v) && strlen(v->valuestring) == 2u * BLOCK);
    if (cJSON_IsString(v) && strlen(v->valuestring) == 2u * BLOCK) {
        *a = word_in_hex(v->valuestring);
        *b = word_in_hex(v->valuestring + 2 * (BLOCK - 8));
    }
    cJSON_Delete(r);
    pthread_join(th, NULL);
    CHECK_EQ(da.ok, 2 * pairs);
    free(pipe);
    close(rd);
    close(wr);
    return *a + 1 < pairs;
}

static void test_reads_share_the_loop(void)
{
    kt_test_server sv;
    kt_transport t;
    if (!start(&sv, &t))
        return;
    fill(&t);
    uint64_t a = 0, b = 0;
    bool conclusive = false;
    /* A writer whose queue ran dry first says nothing: again with a longer queue. */
    for (unsigned pairs = 2000; !conclusive && pairs <= 16000; pairs *= 2) {
        CHECK_EQ(kt_write64(&t, MEM, 0), NPK_OK);
        CHECK_EQ(kt_write64(&t, MEM + BLOCK - 8, 0), NPK_OK);
        conclusive = interleaved_once(sv.addr, pairs, &a, &b);
        printf("a 4 MiB read_block beside %u pairs of pipelined write64s: first word %llu, last "
               "word %llu: %lld of the writer's requests served between its first and last "
               "chunk%s\n",
               pairs, (unsigned long long)a, (unsigned long long)b, 2 * ((long long)b - (long long)a),
               conclusive ? "" : " (its queue ran dry first: again)");
    }
    CHECK(conclusive);
    CHECK(b > a);
    kt_transport_close(&t);
    kt_test_server_stop(&sv);
}

/* ---- memory, and clients that leave ---- */

static void test_read_block_peak(void)
{
    kt_test_server sv;
    kt_transport t;
    if (!start(&sv, &t))
        return;
    fill(&t);
    uint8_t *got = malloc(BLOCK);
    long base_kib = kt_test_peak_kib(sv.pid);
    CHECK_EQ(kt_read_block(&t, MEM, got, BLOCK), NPK_OK);
    long grew = kt_test_peak_kib(sv.pid) - base_kib;
    printf("daemon peak memory for a 4 MiB read_block: +%ld KiB\n", grew);
#if NPK_TEST_ASAN
    CHECK(grew <= 2 * KT_DOC_READ_BLOCK_PEAK_MIB * 1024); /* freed blocks stay a while */
#else
    CHECK(grew <= KT_DOC_READ_BLOCK_PEAK_MIB * 1024);
#endif
    bool same = true;
    for (size_t i = 0; i < BLOCK && same; i++)
        same = got[i] == pattern(i);
    CHECK(same);
    free(got);
    kt_transport_close(&t);
    kt_test_server_stop(&sv);
}

static void test_readers_that_leave(void)
{
    kt_test_server sv;
    kt_transport t;
    if (!start(&sv, &t))
        return;
    fill(&t);
    kt_daemon *d = NULL;
    kt_transport t2;
    CHECK_EQ(kt_daemon_connect(sv.addr, NULL, &d, &t2), NPK_OK);
    for (int round = 0; round < 3; round++) {
        int gone = kt_raw_connect(sv.addr, round == 2);
        ask_read(gone, "1", MEM, BLOCK);
        if (round == 1) { /* a few KiB of the reply taken, then gone */
            char some[4096];
            CHECK(kt_raw_recv_all(gone, some, sizeof some));
        }
        close(gone); /* round 0: at once; round 2: with the reply stuck in a tiny window */
        uint64_t v = 0;
        CHECK_EQ(kt_read64(&t, MEM + 8, &v), NPK_OK);
        CHECK(kt_test_await_clients(d, 2));
    }
    kt_transport_close(&t2);
    kt_transport_close(&t);
    kt_test_server_stop(&sv);
}

/* ---- figures ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct reader_arg {
    const char *addr;
    volatile int stop;
    unsigned blocks;
} reader_arg;

/* 4 MiB read_blocks back to back, each reply taken as bytes, until told to stop. */
static void *read_back_to_back(void *arg)
{
    reader_arg *a = arg;
    int fd = kt_raw_connect(a->addr, false);
    while (!a->stop) {
        ask_read(fd, "1", MEM, BLOCK);
        size_t len;
        uint8_t *f = kt_raw_recv_bytes(fd, &len);
        if (!f)
            break;
        free(f);
        a->blocks++;
    }
    close(fd);
    return NULL;
}

static double read64_rate(kt_transport *t, double secs)
{
    unsigned n = 0;
    uint64_t v;
    double t0 = now_s(), t1 = t0;
    while ((t1 = now_s()) - t0 < secs && !kt_read64(t, MEM, &v))
        n++;
    return n / (t1 - t0);
}

static void figures(void)
{
    kt_test_server sv;
    kt_transport t;
    if (!start(&sv, &t))
        return;
    fill(&t);
    double alone = read64_rate(&t, 0.5);
    reader_arg ra = {sv.addr, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, read_back_to_back, &ra);
    double beside = read64_rate(&t, 0.5);
    ra.stop = 1;
    pthread_join(th, NULL);
    printf("a client's read64: %.0f/s alone, %.0f/s beside a client reading 4 MiB blocks back to "
           "back (%u read): %.2f of alone (figures only; bench_kt_serve_fairness measures)\n",
           alone, beside, ra.blocks, alone > 0 ? beside / alone : 0);
    kt_transport_close(&t);
    kt_test_server_stop(&sv);
}

int main(void)
{
    alarm(600); /* a hang is a failure, not a stuck test run */
    test_reply_bytes();
    test_reads_share_the_loop();
    test_read_block_peak();
    test_readers_that_leave();
    figures();
    return check_done();
}
