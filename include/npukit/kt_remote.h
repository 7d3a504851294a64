/* SPDX-License-Identifier: MIT */
/* KohakuTPU transports to machines outside this process, and address maps that wrap transports.
 *
 * Sources: the line protocol and the card daemon's frames and ops are facts §4.1 (the upstream
 * Verilator transport and daemon rows).
 *
 * Line protocol (the Verilated card harness speaks it on stdin/stdout): one command per line,
 * one reply line, lowercase hex without 0x, single spaces.
 *   R a → V d        W a d → OK          RB a n → V <bytes as hex, in address order>
 *   WB a <hex> → OK  T n → OK (advance n cycles)   S → V key=value ...   Q → (quit, no reply)
 *   BR ch w → V <512-bit word, most significant digit first>   BW ch w <128 hex digits> → OK
 *   any failure → E text
 * The peer announces itself with a line starting READY; lines that start with none of "V ",
 * "OK", "E ", "READY" are the model's own output and are skipped (the last few are kept and
 * quoted in errors). Blocks travel at most 2048 bytes per line. Two carriers: a child process
 * started from a command line (stdin/stdout pipes; reaped, its exit status reported) and TCP.
 *
 * Card daemon: TCP (default 127.0.0.1:47155), frames of a 4-byte big-endian length and one UTF-8
 * JSON object (at most 64 MiB). Requests {"id":n,"op":...}, replies {"id","ok":true,"value"} or
 * {"id","ok":false,"error":"..."}. Many clients share one daemon, which runs one operation at a
 * time; leases (claim/release) and run tokens die with the connection.
 *
 * Every wait is bounded by the timeout (0 = 10 s). A peer that dies, stalls or answers something
 * the protocol does not allow is an error naming the command sent and the reply received.
 */
#ifndef NPUKIT_KT_REMOTE_H
#define NPUKIT_KT_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KT_LINE_MAX_BLOCK = 2048,       /* bytes of one RB/WB line (npukit's own cap on a line) */
    KT_DAEMON_PORT = 47155,         /* facts §4.1, the card daemon's TCP port */
    KT_DAEMON_MAX_FRAME = 64 << 20, /* bytes of one JSON frame (facts §4.1: at most 64 MiB) */
    KT_DAEMON_MAX_BLOCK = 4 << 20,  /* bytes of one read_block/write_block (8 MiB of hex) */
    /* bytes of a reply the client takes (a read_block's: its hex and this): a peer that
     * answers more is refused from the frame's header, before a byte of it is stored */
    KT_DAEMON_MAX_REPLY = 1 << 20,
    KT_REMOTE_TIMEOUT_MS = 10000,
    KT_LINE_CHATTER_KEEP = 4, /* model output lines quoted in an error */
    KT_BACKDOOR_WORD = 64,    /* bytes of one BR/BW DRAM word */
    /* Cycles one T command may advance on `kt serve` (kt_line_advance splits longer waits): a
     * simulated cycle of a card costs microseconds, and the line server serves one client. */
    KT_LINE_MAX_ADVANCE = 1 << 20,
};

typedef struct kt_remote_opts {
    unsigned timeout_ms; /* per reply (0 = KT_REMOTE_TIMEOUT_MS) */
} kt_remote_opts;

/* ---- line protocol ---- */
typedef struct kt_line kt_line;

/* Start `cmd` (run by /bin/sh -c) and wait for its READY line. The transport is bulk with
 * max_block = KT_LINE_MAX_BLOCK; kt_transport_close sends Q, closes and reaps. */
NPUKIT_API npk_status kt_line_spawn(const char *cmd, const kt_remote_opts *o, kt_line **out,
                                    kt_transport *t);
/* Connect to a harness listening on "HOST:PORT" and wait for its READY line. */
NPUKIT_API npk_status kt_line_connect(const char *host_port, const kt_remote_opts *o, kt_line **out,
                                      kt_transport *t);
/* The READY line the peer opened with. */
NPUKIT_API const char *kt_line_banner(const kt_line *l);
/* T: let the model run `cycles` cycles with no host traffic. */
NPUKIT_API npk_status kt_line_advance(kt_line *l, uint64_t cycles);
/* S: the status text after "V " (key=value pairs). */
NPUKIT_API npk_status kt_line_status(kt_line *l, char *buf, size_t len);
/* The clock in an S reply's text: the card harness's `sys=` (hex), else `cycle=`. */
NPUKIT_API bool kt_line_status_cycle(const char *status, uint64_t *cycle);
/* BR / BW: one 64-byte DRAM word of channel `ch` at word index `word`, bytes in address order. */
NPUKIT_API npk_status kt_line_backdoor_read(kt_line *l, unsigned ch, uint64_t word,
                                            uint8_t out[KT_BACKDOOR_WORD]);
NPUKIT_API npk_status kt_line_backdoor_write(kt_line *l, unsigned ch, uint64_t word,
                                             const uint8_t in[KT_BACKDOOR_WORD]);
/* Serve whole 64-byte words of blocks that lie inside [host_base, host_base + size) through the
 * DRAM backdoor of channel `ch` instead of the modelled bus (the rest of a block still goes as
 * RB/WB). Checked once with a BR of word 0: a peer that answers E does not offer the backdoor
 * and the blocks keep the bus. Only where no cache sits between the bus and DRAM. Up to 4. */
NPUKIT_API npk_status kt_line_use_backdoor(kt_line *l, unsigned ch, uint64_t host_base,
                                           uint64_t size);
/* Blocks that went through the backdoor so far (64-byte words). */
NPUKIT_API uint64_t kt_line_backdoor_words(const kt_line *l);
/* Send Q, close, and reap a child: its exit status is an error if not 0 (idempotent; the
 * transport's close does this and ignores the result). */
NPUKIT_API npk_status kt_line_finish(kt_line *l);

/* ---- card daemon ---- */
typedef struct kt_daemon kt_daemon;

/* Connect ("HOST:PORT", NULL = 127.0.0.1:47155) and say hello. bulk; max_block KT_DAEMON_MAX_BLOCK.
 */
NPUKIT_API npk_status kt_daemon_connect(const char *host_port, const kt_remote_opts *o,
                                        kt_daemon **out, kt_transport *t);
/* The hello reply's value as JSON text, and its beat_bytes (0 when the daemon did not say). */
NPUKIT_API const char *kt_daemon_hello(const kt_daemon *d);
NPUKIT_API unsigned kt_daemon_beat_bytes(const kt_daemon *d);
/* A lease on [base, base + size) of mesh `mesh` (refused while another client holds an overlap). */
NPUKIT_API npk_status kt_daemon_claim(kt_daemon *d, unsigned mesh, uint64_t base, uint64_t size,
                                      uint64_t *lease);
NPUKIT_API npk_status kt_daemon_release(kt_daemon *d, uint64_t lease);
/* A run on the meshes in `mesh_mask` at clock profile `level` ("low", "mid", "ship"). */
NPUKIT_API npk_status kt_daemon_run_begin(kt_daemon *d, unsigned mesh_mask, const char *level,
                                          uint64_t *token);
NPUKIT_API npk_status kt_daemon_run_end(kt_daemon *d, uint64_t token);
/* The status op's value as JSON text. */
NPUKIT_API npk_status kt_daemon_status(kt_daemon *d, char *buf, size_t len);

/* ---- address maps: transports over a transport ----
 * Each maps the addresses it is given onto an inner transport, refuses anything outside its
 * range (naming the address and the range) before any of it reaches the inner transport, keeps
 * the inner transport's bulk flag, passes blocks down whole (the inner transport splits them and
 * counts the pieces), and never closes the inner transport. */

/* The bench map's orchestrator at `mag_base` (0x1000_0000) moved to a card's control window at
 * `ctrl_window`: a → ctrl_window + (a - mag_base). Addresses below mag_base belong to the
 * control-program engine, which a card does not have: refused. */
NPUKIT_API npk_status kt_map_rebased(kt_transport *inner, uint64_t mag_base, uint64_t ctrl_window,
                                     kt_transport *out);
/* `size` bytes at `base` addressed from 0. With `granule` (a power of two, e.g. 32) only whole,
 * aligned granules may be written — card DRAM zero-fills the rest of a partial one — so write64
 * is refused when granule > 8 and blocks must start and end on granule boundaries. */
NPUKIT_API npk_status kt_map_window(kt_transport *inner, uint64_t base, uint64_t size,
                                    unsigned granule, kt_transport *out);

#ifdef __cplusplus
}
#endif
#endif
