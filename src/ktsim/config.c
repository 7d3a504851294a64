/* SPDX-License-Identifier: MIT */
/* A machine's configuration before there is a machine: the reference defaults, and the board
 * description copied in and out. The preset parser (preset.c) starts from these and the simulator
 * (sim.c) is built from the result; neither needs the other. */
#include <stdio.h>
#include <string.h>

#include "npukit/kt_board.h"
#include "npukit/ktsim.h"
#include "timing.h"

void ktsim_config_default(ktsim_config *c)
{
    memset(c, 0, sizeof *c);
    c->flit_width = KT_FLIT_WIDTH;
    c->pos_width = KT_POS_WIDTH;
    c->grid_lo = 1;
    c->grid_hi = 1;
    ksim_machine_defaults(c); /* FIFO depths, host costs, crossings: rows with sources */
    c->mem_port[0] = (kt_coord){0, 1};
    c->n_mem_ports = 1;
    /* The board (map, DRAM, STAGE_FLITS, clock, mover): the simulation bench's (kt_board.h). */
    kt_board b;
    kt_board_default(&b);
    ktsim_config_set_board(c, &b);
    c->station_bus = true;
    c->skip_quiet = true;
    c->engine = true;
    ksim_timing_defaults(c);
}

void ktsim_config_set_board(ktsim_config *c, const kt_board *b)
{
    snprintf(c->name, sizeof c->name, "%s", b->name);
    c->gen = b->bitstream_current ? KTSIM_GEN_CURRENT : KTSIM_GEN_PRESTROBE;
    c->stage_flits = b->stage_flits;
    c->ctrl_base = b->ctrl_base;
    c->mem_base = b->mem_base;
    c->engine_base = b->engine_base;
    c->dram_size = b->dram_size;
    c->clock_mhz = b->clock_mhz;
    c->mover = b->mover;
}

void ktsim_config_board(const ktsim_config *c, kt_board *b)
{
    kt_board_default(b);
    snprintf(b->name, sizeof b->name, "%s", c->name);
    b->bitstream_current = c->gen == KTSIM_GEN_CURRENT;
    b->stage_flits = c->stage_flits;
    b->ctrl_base = c->ctrl_base;
    b->mem_base = c->mem_base;
    b->engine_base = c->engine_base;
    b->dram_size = c->dram_size;
    b->clock_mhz = c->clock_mhz;
    b->mover = c->mover;
    b->cpu_rv64 = c->cpu_rv64;
}
