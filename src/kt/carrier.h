/* SPDX-License-Identifier: MIT */
/* A byte stream to a peer that may die, hang or babble: a child process on two pipes, or a TCP
 * connection. Every read and write waits at most `timeout_ms` (0: forever, for servers), a peer
 * that closes is reported with its exit status when it was our child, and writing to a dead peer
 * is an error rather than a SIGPIPE. The remote transports (line protocol, card daemon) and
 * their servers share it. */
#ifndef NPUKIT_KT_CARRIER_H
#define NPUKIT_KT_CARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "npukit/status.h"

typedef struct kt_carrier {
    int rfd, wfd; /* the same socket for TCP */
    pid_t pid;    /* the spawned child's process group leader (0: none) */
    bool reaped;
    int wstatus;    /* waitpid status once reaped */
    char what[200]; /* "pipe 'CMD'" or "tcp 127.0.0.1:47155", for messages */
    unsigned timeout_ms;
    char *buf; /* bytes read and not yet consumed: buf[start, end) */
    size_t start, end, cap;
} kt_carrier;

/* Run `cmd` with /bin/sh -c in its own process group, its stdin and stdout on pipes. */
npk_status kt_carrier_spawn(kt_carrier *c, const char *cmd, unsigned timeout_ms);
/* Connect to "HOST:PORT" (a numeric or resolvable host; "[v6]:port" for IPv6 literals). */
npk_status kt_carrier_connect(kt_carrier *c, const char *host_port, unsigned timeout_ms);
/* Wrap descriptors opened elsewhere (an accepted socket, stdin/stdout); the carrier owns them. */
void kt_carrier_from_fds(kt_carrier *c, int rfd, int wfd, const char *what, unsigned timeout_ms);

/* All of `len` bytes within one deadline of `timeout_ms` for the whole message (never a write that
 * blocks past it, however large the message and however slowly the peer reads). */
npk_status kt_carrier_send(kt_carrier *c, const void *buf, size_t len);
/* What the peer takes now without waiting (*sent may be 0); for servers that queue replies and
 * wait on many peers at once. Call it when poll() said the write side is ready. */
npk_status kt_carrier_write_some(kt_carrier *c, const void *buf, size_t len, size_t *sent);
/* Bytes read from the peer and not yet consumed (a whole line may be waiting there). */
size_t kt_carrier_buffered(const kt_carrier *c);
/* The next line without its "\n" (and "\r"), NUL-terminated, valid until the next read. A line
 * longer than `max` is an error. *eof is set (and NPK_OK returned with no line) when the peer
 * closed cleanly before any byte of a line; pass NULL to make that an error too. */
npk_status kt_carrier_line(kt_carrier *c, size_t max, char **line, bool *eof);
/* The same by a deadline the caller set once for a whole exchange (kt_carrier_deadline), so a
 * peer that keeps printing other lines cannot stretch it. */
npk_status kt_carrier_line_by(kt_carrier *c, size_t max, char **line, bool *eof, int64_t deadline);
/* now + timeout_ms on the carrier's clock (-1 with no timeout). */
int64_t kt_carrier_deadline(const kt_carrier *c);
/* Exactly `len` bytes. */
npk_status kt_carrier_read(kt_carrier *c, void *buf, size_t len);

/* Close both directions; a child gets `grace_ms` to exit on its own after its stdin closes, then
 * SIGTERM, then SIGKILL, and is always reaped. */
void kt_carrier_close(kt_carrier *c, unsigned grace_ms);
/* "exited with status 3", "killed by signal 9", "still running" or "" (not a child). Reaps the
 * child if it has exited. */
const char *kt_carrier_exit_text(kt_carrier *c, char *buf, size_t len);

/* The child was reaped and exited with status 0. */
bool kt_carrier_exited_ok(const kt_carrier *c);

/* "HOST:PORT" split; port 0..65535. */
npk_status kt_split_host_port(const char *text, char *host, size_t hostlen, unsigned *port);

#endif
