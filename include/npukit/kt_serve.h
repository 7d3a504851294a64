/* SPDX-License-Identifier: MIT */
/* Serving a machine behind the two remote protocols of kt_remote.h, so that any client of those
 * protocols (a driver written for the Verilated card or for the card daemon, scripts, other
 * languages) can drive it unchanged. The machine is any transport plus a few optional hooks,
 * normally the simulator. */
#ifndef NPUKIT_KT_SERVE_H
#define NPUKIT_KT_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one client may cost the others (the defaults; kt_serve_target overrides the timeouts).
 * A client is turned away, with a reply saying why, once KT_SERVE_MAX_CLIENTS are connected
 * (daemon) or while another client is served (line protocol, one at a time). The daemon's slots
 * are shared out so that one peer cannot hold them all: one peer address holds at most
 * KT_SERVE_MAX_PER_PEER connections, and the last KT_SERVE_RESERVED slots go only to an address
 * with no connection yet. Its idle timeout counts work: requests that only ask (hello, status,
 * clocks) do not keep a connection alive. */
enum {
    KT_SERVE_MAX_CLIENTS = 32,
    KT_SERVE_MAX_PER_PEER = 16,
    KT_SERVE_RESERVED = 4,
    KT_SERVE_FRAME_MS = 10000,        /* a request frame or line from first byte to last, and a
                                       * reply from queued to taken by the client */
    KT_SERVE_IDLE_MS = 60000,         /* a connection with no request in flight (line protocol) */
    KT_SERVE_DAEMON_IDLE_MS = 300000, /* the same for the daemon, whose clients hold leases */
};

typedef struct kt_serve_target {
    kt_transport *t;  /* the machine's host interface */
    const char *name; /* shown in READY and hello */
    unsigned meshes;
    void *ctx;
    /* T: run cycles with no host traffic (NULL: refused). */
    void (*advance)(void *ctx, uint64_t cycles);
    /* S: the clock (NULL: not reported). */
    uint64_t (*cycle)(void *ctx);
    /* S: the model's first fault, or NULL. */
    const char *(*fault)(void *ctx);
    /* BR / BW: DRAM of channel (mesh) `ch` at byte offset `off` (NULL: refused). A read fails
     * with NPK_ELIMIT for bytes outside the populated DRAM (refused) and with NPK_EFAULT for
     * never-written words, which it fills with zeros (a backdoor reads the array as it is). */
    npk_status (*dram_read)(void *ctx, unsigned ch, uint64_t off, void *buf, size_t len);
    npk_status (*dram_write)(void *ctx, unsigned ch, uint64_t off, const void *buf, size_t len);
    /* Bytes of DRAM per channel behind dram_read/dram_write (the public arrays SC/PE/PK list). */
    uint64_t dram_bytes;
    /* A control-program engine answers on the bus (announced as engine=1 / "engine": true; a
     * card has none, so a client runs engine programs only where this is said). */
    bool engine;
    /* hello's "backend": the machine behind the server ("ktsim", or the transport a bridge
     * forwards to; NULL: "ktsim"). */
    const char *backend;
    /* Per-connection limits in ms (0: the defaults above; UINT32_MAX: none). */
    unsigned frame_ms, idle_ms;
    /* The card daemon's clock governor: a mesh no run holds drops to the idle profile after this
     * long without a run (0: upstream's default, 10 s; its daemon's idle_seconds). */
    unsigned governor_idle_ms;
    /* The daemon's `shutdown` op ends the server (false: refused with PermissionError, as
     * upstream's daemon refuses `program` unless started to allow it). */
    bool allow_shutdown;
} kt_serve_target;

/* One line-protocol session on a pair of descriptors: READY, then commands until Q or the end of
 * input, then both descriptors are closed. Errors in commands are E replies; only a broken
 * channel ends the session early. */
NPUKIT_API npk_status kt_serve_line_session(const kt_serve_target *tg, int in_fd, int out_fd);
/* Line protocol on a listening socket: connections one after another, each a session; returns
 * only on a failed accept. */
NPUKIT_API npk_status kt_serve_line_listen(const kt_serve_target *tg, int listen_fd);

/* Card-daemon protocol: clients on the listening socket (or, with listen_fd < 0, one client on
 * in_fd/out_fd), each operation run to completion before the next, leases and run tokens dropped
 * with their connection. Returns after a `shutdown` operation, or when the single client leaves.
 * `log` (may be NULL) gets one line per connection event and per refused frame. */
NPUKIT_API npk_status kt_serve_daemon(const kt_serve_target *tg, int listen_fd, int in_fd,
                                      int out_fd, void (*log)(const char *line));

/* A listening TCP socket on "HOST:PORT" (port 0: the system picks; *port gets the bound one).
 * Only loopback addresses unless `any_address`: a served machine takes writes from anyone who
 * can reach it. */
NPUKIT_API npk_status kt_listen_tcp(const char *host_port, bool any_address, int *fd,
                                    unsigned *port);

#ifdef __cplusplus
}
#endif
#endif
