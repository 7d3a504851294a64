/* SPDX-License-Identifier: MIT */
/* The machine a `npukit kt` command drives: the simulated card of a preset, or a machine outside
 * the process named by --card (a Verilated card harness or `kt serve` over a pipe or TCP, a card
 * daemon). Either way the preset describes the board — its address map, STAGE_FLITS (which the
 * hardware does not report) and DRAM size — and --ctrl-base / --mem-base override its bases. */
#ifndef NPUKIT_TOOLS_KT_MACHINE_H
#define NPUKIT_TOOLS_KT_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_remote.h"
#include "npukit/ktsim.h"
#include "npukit/ktsim_card.h"

/* What names and shapes the machine (filled by the common kt options). */
typedef struct kt_machine_opts {
    const char *preset; /* --sim (NULL: "default") */
    bool prestrobe;     /* --prestrobe (the simulator only) */
    const char
        *card; /* --card pipe:CMD | tcp:HOST:PORT | daemon[:HOST:PORT] (NULL: the simulator) */
    uint64_t ctrl_base, mem_base;
    bool ctrl_given, mem_given;
    unsigned timeout_ms; /* --timeout-ms, per reply (0: the transport's default) */
    bool backdoor;       /* --backdoor: DRAM blocks through BR/BW where the line peer offers them */
} kt_machine_opts;

typedef struct kt_machine {
    ktsim_config cfg; /* the board description (the preset, bases overridden) */
    unsigned meshes;
    bool engine;         /* a control-program engine answers at cfg.engine_base */
    kt_transport *t;     /* what the driver uses */
    ktsim_card *sim;     /* the simulator, or NULL */
    kt_transport remote; /* the --card transport */
    kt_line *line;
    kt_daemon *daemon;
    uint64_t lease[4], token;
    unsigned leases;
    bool running;
} kt_machine;

/* Open the machine with `meshes` meshes (0: 1) and, when `engine`, the control-program engine (a
 * remote machine must announce one). Prints the error and returns 1; 0 on success. */
int kt_machine_open(kt_machine *m, const kt_machine_opts *o, unsigned meshes, bool engine);
/* Close it; a --card child that exits with a failure status is reported (returns 1). */
int kt_machine_close(kt_machine *m);

uint64_t kt_machine_ctrl_base(const kt_machine *m, unsigned mesh);
uint64_t kt_machine_mem_base(const kt_machine *m, unsigned mesh);
/* Let the machine run `cycles` cycles with no host traffic (a card daemon's card runs anyway). */
void kt_machine_step(kt_machine *m, uint64_t cycles);
/* kt_machine_step for kt_options.pause (the user is the machine). */
void kt_machine_pause(void *m, uint64_t cycles);
/* The machine's clock when it reports one (the simulator; `kt serve` behind either protocol). */
bool kt_machine_cycle(kt_machine *m, uint64_t *cycle);
/* The machine's model fault into buf (the simulator's text, or what a served machine reports);
 * false when none. */
bool kt_machine_fault(kt_machine *m, char *buf, size_t len);
/* "simulator", "line protocol (pipe)", "line protocol (tcp)", "card daemon" */
const char *kt_machine_kind(const kt_machine *m);

#endif
