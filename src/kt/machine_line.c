/* SPDX-License-Identifier: MIT */
/* The line-protocol backends: a peer (a Verilated card harness, `npukit kt serve`) over the
 * stdin/stdout of a child (pipe:) or over TCP (tcp:). Both rows share everything but the open. */
#include <stdio.h>
#include <string.h>

#include "machine_backend.h"

/* Whether the peer's READY line announces a control-program engine: its `engine=` word is
 * exactly 1 ("engine=10" announces nothing). */
static bool announces_engine(kt_line *l)
{
    const char *w = strstr(kt_line_banner(l), " engine=");
    return w && w[8] == '1' && (w[9] == '\0' || w[9] == ' ' || w[9] == '\n' || w[9] == '\r');
}

/* What both rows do once the peer answers: the engine, and the DRAM backdoor where asked. */
static npk_status line_opened(kt_machine *m, const char *spec, const kt_open_opts *o)
{
    m->t = &m->remote;
    m->engine = announces_engine(m->line);
    npk_status s = kt_machine_need_engine(m, spec, o);
    for (unsigned i = 0; !s && o->backdoor && i < m->meshes; i++)
        s = kt_line_use_backdoor(m->line, i, kt_board_mem_base(&m->board, i), m->board.dram_size);
    return s;
}

static npk_status pipe_open(kt_machine *m, const char *spec, const char *arg, const kt_open_opts *o)
{
    kt_remote_opts ro = {o->timeout_ms};
    npk_status s = kt_line_spawn(arg, &ro, &m->line, &m->remote);
    return s ? s : line_opened(m, spec, o);
}

static npk_status tcp_open(kt_machine *m, const char *spec, const char *arg, const kt_open_opts *o)
{
    kt_remote_opts ro = {o->timeout_ms};
    npk_status s = kt_line_connect(arg, &ro, &m->line, &m->remote);
    return s ? s : line_opened(m, spec, o);
}

/* A peer that cannot advance answers E: time passes anyway. */
static void line_step(kt_machine *m, uint64_t cycles) { kt_line_advance(m->line, cycles); }

/* The S reply's `cycle=` (or the harness's `sys=`). */
static bool line_cycle(kt_machine *m, uint64_t *cycle)
{
    char st[1024];
    return kt_line_status(m->line, st, sizeof st) == NPK_OK && kt_line_status_cycle(st, cycle);
}

static bool line_fault(kt_machine *m, char *buf, size_t len)
{
    char st[1024];
    if (kt_line_status(m->line, st, sizeof st) != NPK_OK || !strstr(st, " fault=1"))
        return false;
    snprintf(buf, len, "the machine reports a model fault (S: %s)", st);
    return true;
}

/* The child is reaped: one that exits with a failure status is reported. */
static npk_status line_close(kt_machine *m)
{
    if (!m->line)
        return NPK_OK;
    npk_status s = kt_line_finish(m->line);
    kt_transport_close(&m->remote);
    return s;
}

const kt_machine_backend kt_machine_pipe_backend = {
    .kind = KT_MACHINE_PIPE,
    .name = "line protocol (pipe)",
    .open = pipe_open,
    .step = line_step,
    .cycle = line_cycle,
    .fault = line_fault,
    .close = line_close,
};

const kt_machine_backend kt_machine_tcp_backend = {
    .kind = KT_MACHINE_TCP,
    .name = "line protocol (tcp)",
    .open = tcp_open,
    .step = line_step,
    .cycle = line_cycle,
    .fault = line_fault,
    .close = line_close,
};
