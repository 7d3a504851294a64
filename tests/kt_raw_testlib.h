/* SPDX-License-Identifier: MIT */
/* A raw client of the card daemon for tests that need what npukit's own client never does:
 * frames written by hand, replies taken as bytes or never, a receive window kept tiny; and the
 * server's peak memory. Only loopback. */
#ifndef NPUKIT_TESTS_KT_RAW_TESTLIB_H
#define NPUKIT_TESTS_KT_RAW_TESTLIB_H

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "kt/carrier.h"
#include "kt/jsonframe.h"
#include "npukit/kt_remote.h"

enum { KT_RAW_PATIENCE_MS = 20000 };

/* A TCP connection to "127.0.0.1:PORT" whose receive buffer is, with tiny_rcvbuf, as small as
 * the system allows (set before connect, so the window stays small): a peer that takes almost
 * nothing unless it reads. -1 when it cannot connect. */
static inline int kt_raw_connect(const char *addr, bool tiny_rcvbuf)
{
    unsigned port = (unsigned)atoi(strrchr(addr, ':') + 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (tiny_rcvbuf) {
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof one);
    }
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(0x7F000001);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    return fd;
}

static inline bool kt_raw_send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static inline bool kt_raw_recv_all(int fd, void *buf, size_t len)
{
    for (char *p = buf; len;) {
        ssize_t n = recv(fd, p, len, 0);
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* The frame's 4-byte header (the body's length, big-endian) into h. */
static inline void kt_raw_frame_header(size_t n, uint8_t h[4])
{
    h[0] = (uint8_t)(n >> 24), h[1] = (uint8_t)(n >> 16), h[2] = (uint8_t)(n >> 8), h[3] = (uint8_t)n;
}

static inline bool kt_raw_send_frame(int fd, const char *json)
{
    size_t n = strlen(json);
    uint8_t h[4];
    kt_raw_frame_header(n, h);
    return kt_raw_send_all(fd, h, 4) && kt_raw_send_all(fd, json, n);
}

/* The next frame on a raw socket as JSON (NULL when none came in time or the peer closed). */
static inline cJSON *kt_raw_recv_frame(int fd)
{
    kt_carrier c;
    kt_carrier_from_fds(&c, fd, -1, "raw", KT_RAW_PATIENCE_MS);
    cJSON *r = NULL;
    kt_frame_recv(&c, &r);
    free(c.buf); /* the descriptor stays the caller's */
    return r;
}

/* The next frame as it came, header included (*len bytes; NULL when none came or the peer
 * closed): for checking a reply byte for byte. */
static inline uint8_t *kt_raw_recv_bytes(int fd, size_t *len)
{
    uint8_t h[4];
    if (!kt_raw_recv_all(fd, h, 4))
        return NULL;
    size_t n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
    uint8_t *f = malloc(n + 4);
    if (!f)
        return NULL;
    memcpy(f, h, 4);
    if (!kt_raw_recv_all(fd, f + 4, n)) {
        free(f);
        return NULL;
    }
    *len = n + 4;
    return f;
}

static inline const char *kt_raw_error_of(const cJSON *r)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
    return cJSON_IsString(e) ? e->valuestring : "";
}

/* 1 when this test (and so the server, built alike) runs under AddressSanitizer, whose
 * quarantine keeps freed blocks resident a while: peak-memory bounds are looser then. */
#if defined(__SANITIZE_ADDRESS__)
#define NPK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPK_TEST_ASAN 1
#endif
#endif
#ifndef NPK_TEST_ASAN
#define NPK_TEST_ASAN 0
#endif

/* Peak resident memory of a process in KiB (VmHWM; -1 when it cannot be read). */
static inline long kt_test_peak_kib(pid_t pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

/* The daemon's client count from its status op (-1: no answer). */
static inline int kt_test_clients_of(kt_daemon *d)
{
    char st[4096];
    if (kt_daemon_status(d, st, sizeof st))
        return -1;
    const char *at = strstr(st, "\"clients\":");
    return at ? atoi(at + 10) : -1;
}

/* Wait until the daemon reports `want` clients (false if it never does within
 * KT_RAW_PATIENCE_MS). */
static inline bool kt_test_await_clients(kt_daemon *d, int want)
{
    for (int waited = 0; waited < KT_RAW_PATIENCE_MS; waited += 50) {
        if (kt_test_clients_of(d) == want)
            return true;
        struct timespec ms50 = {0, 50 * 1000 * 1000};
        nanosleep(&ms50, NULL);
    }
    return false;
}

#endif
