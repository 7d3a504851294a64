/* SPDX-License-Identifier: MIT */
/* What one client's large blocks cost the card daemon's other clients: a client reads a
 * register word back to back for SECONDS alone, then as long again while another client (a
 * child process) sends 4 MiB write_blocks back to back, then as long again beside one asking
 * for 4 MiB read_blocks back to back; its requests per second and its worst waits, side by side
 * from one run, and the ratios. The daemon parses large frames on a thread of their own, moves
 * a block to or from the machine a 256 KiB chunk per turn of its loop and sends a read_block's
 * reply a piece per turn, the other clients' requests between the chunks (docs/kt-remote.md).
 *
 * Usage: bench_kt_serve_fairness [SECONDS] (default 3; NPUKIT_CLI, else the npukit beside this program) */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_cli.h"
#include "../tests/kt_raw_testlib.h"
#include "../tests/kt_remote_testlib.h"
#include "common/measure.h"
#include "npukit/kt_remote.h"

static const uint64_t MEM = 1ull << 40;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reads for `secs`: requests per second, and the median and 99th-percentile wait in ms. */
static void reader(const char *addr, double secs, double out[3])
{
    kt_daemon *d;
    kt_transport t;
    out[0] = out[1] = out[2] = 0;
    if (kt_daemon_connect(addr, NULL, &d, &t))
        return;
    size_t cap = 1u << 20, n = 0;
    double *lat = malloc(cap * sizeof *lat);
    uint64_t t0 = npk_now_ns(), v;
    while (n < cap && (double)(npk_now_ns() - t0) * 1e-9 < secs) {
        uint64_t t1 = npk_now_ns();
        if (kt_read64(&t, MEM, &v))
            break;
        lat[n++] = (double)(npk_now_ns() - t1) * 1e-6;
    }
    qsort(lat, n, sizeof *lat, by_value);
    out[0] = n / secs;
    out[1] = n ? lat[n / 2] : 0;
    out[2] = n ? lat[n * 99 / 100] : 0;
    free(lat);
    kt_transport_close(&t);
}

/* The n-byte block as one write_block frame (header included): 8 MiB of hex. */
static char *block_frame(const uint8_t *block, size_t n, size_t *len)
{
    static const char hex[] = "0123456789abcdef";
    size_t cap = 2 * n + 128, at = 4;
    char *f = malloc(cap);
    at += (size_t)snprintf(f + at, cap - at,
                           "{\"id\":1,\"op\":\"write_block\",\"addr\":%llu,\"data\":\"",
                           (unsigned long long)MEM);
    for (size_t i = 0; i < n; i++) {
        f[at++] = hex[block[i] >> 4];
        f[at++] = hex[block[i] & 15];
    }
    at += (size_t)snprintf(f + at, cap - at, "\"}");
    size_t body = at - 4;
    f[0] = (char)(body >> 24), f[1] = (char)(body >> 16), f[2] = (char)(body >> 8), f[3] = (char)body;
    *len = at;
    return f;
}

/* A client that sends the frame over and over, taking each reply, counting the blocks written
 * in *done: what a driver writing large blocks sends (npukit's own client splits them). */
static int write_blocks(const char *addr, const char *f, size_t len, volatile unsigned *done)
{
    int fd = kt_raw_connect(addr, false);
    if (fd < 0)
        return 1;
    char reply[4096];
    for (;;) {
        uint8_t h[4];
        if (!kt_raw_send_all(fd, f, len) || !kt_raw_recv_all(fd, h, 4))
            return 1;
        size_t n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
        if (n > sizeof reply || !kt_raw_recv_all(fd, reply, n))
            return 1;
        ++*done;
    }
}

/* A client that asks for the n-byte block at MEM over and over, taking each reply's bytes
 * without parsing them (as a fast driver would), counting the blocks read in *done. */
static int read_blocks(const char *addr, size_t n, volatile unsigned *done)
{
    char req[128];
    int len = snprintf(req + 4, sizeof req - 4,
                       "{\"id\":1,\"op\":\"read_block\",\"addr\":%llu,\"nbytes\":%zu}",
                       (unsigned long long)MEM, n);
    req[0] = req[1] = 0, req[2] = (char)(len >> 8), req[3] = (char)len;
    int fd = kt_raw_connect(addr, false);
    char *reply = malloc(2 * n + 4096);
    if (fd < 0 || !reply)
        return 1;
    for (;;) {
        uint8_t h[4];
        if (!kt_raw_send_all(fd, req, (size_t)len + 4) || !kt_raw_recv_all(fd, h, 4))
            return 1;
        size_t k = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
        if (k > 2 * n + 4096 || !kt_raw_recv_all(fd, reply, k))
            return 1;
        ++*done;
    }
}

/* The reader's figures beside a child running `load` (it counts its blocks in *done). */
static unsigned beside_load(const char *addr, double secs, double out[3],
                            int (*load)(const char *addr, const void *arg, volatile unsigned *done),
                            const void *arg, volatile unsigned *done)
{
    *done = 0;
    pid_t child = fork();
    if (child == 0) /* 4 MiB blocks back to back until stopped */
        _exit(load(addr, arg, done));
    reader(addr, secs, out);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return *done;
}

typedef struct frame_arg {
    const char *f;
    size_t len;
} frame_arg;

static int load_writes(const char *addr, const void *arg, volatile unsigned *done)
{
    const frame_arg *fa = arg;
    return write_blocks(addr, fa->f, fa->len, done);
}

static int load_reads(const char *addr, const void *arg, volatile unsigned *done)
{
    return read_blocks(addr, *(const size_t *)arg, done);
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 3;
    if (!(secs > 0 && secs <= 600)) {
        fprintf(stderr, "bench_kt_serve_fairness: seconds %s, expected (0, 600]\n", argv[1]);
        return 2;
    }
    if (!getenv("NPUKIT_CLI")) {
        char cli[4096];
        bench_cli_path(argv[0], cli, sizeof cli);
        setenv("NPUKIT_CLI", cli, 1);
    }
    kt_test_server sv;
    const char *args[] = {"--protocol", "daemon", NULL};
    if (!kt_test_server_start(&sv, args)) {
        fprintf(stderr, "bench_kt_serve_fairness: the server did not start (%s)\n", kt_test_cli());
        return 1;
    }
    kt_daemon *d;
    kt_transport t;
    size_t n = KT_DAEMON_MAX_BLOCK;
    uint8_t *block = calloc(1, n);
    if (kt_daemon_connect(sv.addr, NULL, &d, &t) || kt_write_block(&t, MEM, block, n)) {
        fprintf(stderr, "bench_kt_serve_fairness: %s\n", npk_last_error());
        kt_test_server_stop(&sv);
        return 1;
    }
    kt_transport_close(&t);
    double alone[3], writes[3], reads[3];
    reader(sv.addr, secs, alone);
    frame_arg fa;
    fa.f = block_frame(block, n, &fa.len);
    volatile unsigned *done = mmap(NULL, sizeof *done, PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (done == MAP_FAILED)
        return 1;
    unsigned written = beside_load(sv.addr, secs, writes, load_writes, &fa, done);
    unsigned read = beside_load(sv.addr, secs, reads, load_reads, &n, done);
    free((char *)fa.f);
    kt_test_server_stop(&sv);
    free(block);
    printf("a client's read64, alone: %.0f/s (median %.3f ms, p99 %.3f ms)\n", alone[0], alone[1],
           alone[2]);
    printf("beside a client writing 4 MiB blocks back to back (%u written): %.0f/s (median %.3f "
           "ms, p99 %.3f ms): %.2f of alone\n",
           written, writes[0], writes[1], writes[2], alone[0] > 0 ? writes[0] / alone[0] : 0);
    printf("beside a client reading 4 MiB blocks back to back (%u read): %.0f/s (median %.3f "
           "ms, p99 %.3f ms): %.2f of alone\n",
           read, reads[0], reads[1], reads[2], alone[0] > 0 ? reads[0] / alone[0] : 0);
    return 0;
}
