/* SPDX-License-Identifier: MIT */
/* The machine backends: each kind of machine kt_open_spec opens (the simulator in this process,
 * a line-protocol peer over a pipe or TCP, a card daemon) is one row of functions, as the RK
 * device backends are (src/rk/device_backend.h). machine.c parses the spec, loads the board and
 * calls the row; it knows no kind by name. */
#ifndef NPUKIT_KT_MACHINE_BACKEND_H
#define NPUKIT_KT_MACHINE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_open.h"
#include "npukit/kt_remote.h"
#include "ktsim/ktsim_card.h"

typedef struct kt_machine_backend kt_machine_backend;

struct kt_machine {
    const kt_machine_backend *be;
    kt_board board; /* the preset's board, bases overridden by the options */
    unsigned meshes;
    bool engine;         /* a control-program engine answers at board.engine_base */
    kt_transport *t;     /* what the driver uses */
    ktsim_card *sim;     /* the simulator, or NULL */
    kt_transport remote; /* a remote machine's transport */
    kt_line *line;
    kt_daemon *daemon;
    uint64_t lease[KT_BOARD_MAX_MESHES], token;
    unsigned leases;
    bool running;
    char note[256]; /* what the open could not have but went on without */
};

struct kt_machine_backend {
    kt_machine_kind_t kind;
    const char *name; /* kt_machine_kind's words: "simulator", "card daemon", ... */
    /* The machine is its preset (the simulator): the spec's argument names the board, and the
     * bitstream generation is the caller's to choose (prestrobe). Otherwise the board preset
     * only describes a machine outside the process. */
    bool is_preset;
    /* Open what is behind the machine: the board (m->board) is loaded and its bases overridden;
     * arg is the spec's text after its prefix (NULL when none). Sets m->t and m->engine, and
     * refuses the options it cannot honour (engine, backdoor), naming the spec. */
    npk_status (*open)(kt_machine *m, const char *spec, const char *arg, const kt_open_opts *o);
    /* Let `cycles` mesh cycles pass with no host traffic. */
    void (*step)(kt_machine *m, uint64_t cycles);
    /* The machine's clock, when it reports one. */
    bool (*cycle)(kt_machine *m, uint64_t *cycle);
    /* Its model fault into buf; false when none. */
    bool (*fault)(kt_machine *m, char *buf, size_t len);
    /* Release what open took (also after a failed open); the machine itself is freed after. */
    npk_status (*close)(kt_machine *m);
};

extern const kt_machine_backend kt_machine_sim_backend; /* machine_sim.c */
extern const kt_machine_backend kt_machine_pipe_backend,
    kt_machine_tcp_backend;                                /* machine_line.c */
extern const kt_machine_backend kt_machine_daemon_backend; /* machine_daemon.c */

/* Shared by the remote rows: refuse an engine the peer does not announce. (Inline, so that the
 * rows need nothing of machine.c, which needs them.) */
static inline npk_status kt_machine_need_engine(const kt_machine *m, const char *spec,
                                                const kt_open_opts *o)
{
    if (o->engine && !m->engine)
        return npk_fail(NPK_EUNSUPPORTED,
                        "the machine at '%s' announces no control-program engine (a card has "
                        "none): run the program from the host instead",
                        spec);
    return NPK_OK;
}

#endif
