/* SPDX-License-Identifier: MIT */
/* Open a KohakuTPU machine from a spec string: the simulated card of a preset in this process,
 * or a machine outside it — a Verilated card harness or `npukit kt serve` over a pipe or TCP
 * (line protocol), or a card daemon. Whatever is behind it, the machine is one kt_transport and a
 * board description (kt_board.h: the address map, STAGE_FLITS, DRAM size, generation, clock),
 * which is what kt_open and the rest of the driver need.
 *
 * Specs:
 *   sim | sim:PRESET         the simulator of a preset (name under data/kt or a .mesh path);
 *                            "" and NULL mean "sim:default"
 *   pipe:COMMAND ARGS        a line-protocol peer started by /bin/sh -c, over its stdin/stdout
 *   tcp:HOST:PORT            a line-protocol peer listening on TCP
 *   daemon | daemon:HOST:PORT  a card daemon (default 127.0.0.1:47155): a lease on every mesh's
 *                            control window and a run at the ship clocks are taken at open
 * For the machines outside the process, opts.board names the board's preset (default
 * "default"): the hardware does not report its map or STAGE_FLITS. Bases given in opts override
 * the board's.
 *
 *   kt_machine *m;
 *   if (kt_open_spec("pipe:npukit kt serve --sim card", NULL, &m)) puts(npk_last_error());
 *   kt_dev d;
 *   kt_options o = {.stage_flits = kt_machine_board(m)->stage_flits};
 *   kt_open(&d, kt_machine_transport(m), kt_machine_ctrl_base(m, 0), &o);
 *   ...
 *   kt_machine_close(m);
 */
#ifndef NPUKIT_KT_OPEN_H
#define NPUKIT_KT_OPEN_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_board.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything optional: a zeroed struct (or NULL) is one mesh, no engine, the board's bases. */
typedef struct kt_open_opts {
    const char *board;  /* a machine outside the process: its board's preset (NULL: "default");
                         * the simulator: a preset other than the spec's is refused */
    unsigned meshes;    /* meshes to drive, 1..KT_BOARD_MAX_MESHES (0: 1) */
    bool engine;        /* the host control-program engine (a remote machine must announce one) */
    bool prestrobe;     /* the simulator only: model the pre-strobe bitstream */
    bool backdoor;      /* pipe:/tcp: DRAM blocks through the BR/BW backdoor where offered */
    bool ctrl_base_set; /* ctrl_base overrides the board's control window of mesh 0 */
    bool mem_base_set;  /* mem_base overrides the board's DRAM window of mesh 0 */
    uint64_t ctrl_base;
    uint64_t mem_base;
    unsigned timeout_ms; /* a remote machine: how long to wait for each reply (0: 10 s) */
} kt_open_opts;

typedef struct kt_machine kt_machine;

/* The machine kinds kt_machine_kind names. */
typedef enum kt_machine_kind_t {
    KT_MACHINE_SIM = 0,
    KT_MACHINE_PIPE = 1,
    KT_MACHINE_TCP = 2,
    KT_MACHINE_DAEMON = 3,
} kt_machine_kind_t;

/* Open the machine `spec` names. A bad spec, a board preset that does not load, a peer that does
 * not answer within the timeout are errors (npk_last_error() names the spec and what is wrong). */
NPUKIT_API npk_status kt_open_spec(const char *spec, const kt_open_opts *opts, kt_machine **out);
/* Close it (NULL is fine): the daemon's leases and run end, a pipe child is reaped — a child that
 * exits with a failure status is reported as NPK_EIO (the machine is closed all the same). */
NPUKIT_API npk_status kt_machine_close(kt_machine *m);

NPUKIT_API kt_transport *kt_machine_transport(kt_machine *m);
NPUKIT_API const kt_board *kt_machine_board(const kt_machine *m);
NPUKIT_API unsigned kt_machine_meshes(const kt_machine *m);
/* A control-program engine answers at the board's engine_base. */
NPUKIT_API bool kt_machine_has_engine(const kt_machine *m);
NPUKIT_API kt_machine_kind_t kt_machine_kind_of(const kt_machine *m);
/* "simulator", "line protocol (pipe)", "line protocol (tcp)", "card daemon" */
NPUKIT_API const char *kt_machine_kind(const kt_machine *m);
NPUKIT_API uint64_t kt_machine_ctrl_base(const kt_machine *m, unsigned mesh);
NPUKIT_API uint64_t kt_machine_mem_base(const kt_machine *m, unsigned mesh);

/* Let the machine run `cycles` mesh cycles with no host traffic: the simulator steps its clock,
 * a line peer is told to advance, a card daemon's card runs on its own while the host sleeps. */
NPUKIT_API void kt_machine_step(kt_machine *m, uint64_t cycles);
/* kt_machine_step as a kt_options.pause hook (user: the machine). */
NPUKIT_API void kt_machine_pause(void *m, uint64_t cycles);
/* The machine's clock when it reports one (the simulator; `kt serve` behind either protocol). */
NPUKIT_API bool kt_machine_cycle(kt_machine *m, uint64_t *cycle);
/* The machine's model fault into buf (the simulator's text, or what a served machine reports);
 * false when none. */
NPUKIT_API bool kt_machine_fault(kt_machine *m, char *buf, size_t len);

/* What the open went on without (a card daemon that refused the run at the ship clocks: the
 * work runs at the card's current clocks), for the caller to tell its user; NULL when nothing. */
NPUKIT_API const char *kt_machine_note(const kt_machine *m);

/* What is behind the machine, for callers that need more than the transport (NULL otherwise). */
struct ktsim_card;
struct kt_line;
struct kt_daemon;
struct ktsim_card *kt_machine_sim(kt_machine *m);
struct kt_line *kt_machine_line(kt_machine *m);
struct kt_daemon *kt_machine_daemon(kt_machine *m);

#ifdef __cplusplus
}
#endif
#endif
