/* SPDX-License-Identifier: MIT */
/* Shared by the client fuzz targets: a lying peer on a loopback socket whose whole answer is the
 * fuzz input (written, then the peer stops sending), so a client transport reads whatever it
 * says. */
#ifndef NPUKIT_FUZZ_PEER_FUZZLIB_H
#define NPUKIT_FUZZ_PEER_FUZZLIB_H

#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "npukit/kt_serve.h"

enum { PEER_MAX = 60000 };

/* The listening socket, made once; its "127.0.0.1:PORT" in addr. */
static int peer_listener(char *addr, size_t len)
{
    static int fd = -1;
    static unsigned port;
    if (fd < 0 && kt_listen_tcp("127.0.0.1:0", false, &fd, &port))
        abort();
    snprintf(addr, len, "127.0.0.1:%u", port);
    return fd;
}

/* Accept the client that just connected and give it the whole input; the returned descriptor
 * stays open (the client's writes land in it) until the caller closes it. */
static int peer_answer(int lfd, const uint8_t *data, size_t size)
{
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        abort();
    if (size > PEER_MAX)
        size = PEER_MAX;
    for (size_t at = 0; at < size;) {
        ssize_t n = send(fd, data + at, size - at, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        at += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    return fd;
}

/* The peer runs on its own thread, since the client's connect waits for its first answer. */
typedef struct peer {
    int lfd, fd;
    const uint8_t *data;
    size_t size;
    pthread_t th;
} peer;

static void *peer_main(void *arg)
{
    peer *p = arg;
    p->fd = peer_answer(p->lfd, p->data, p->size);
    return NULL;
}

static void peer_start(peer *p, const uint8_t *data, size_t size, char *addr, size_t len)
{
    p->lfd = peer_listener(addr, len);
    p->data = data;
    p->size = size;
    p->fd = -1;
    pthread_create(&p->th, NULL, peer_main, p);
}

/* After the client is closed: the peer's side goes too. */
static void peer_end(peer *p)
{
    pthread_join(p->th, NULL);
    if (p->fd >= 0)
        close(p->fd);
}

#endif
