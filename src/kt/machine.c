/* SPDX-License-Identifier: MIT */
/* A KohakuTPU machine from a spec: the simulated card of a preset, or a line-protocol peer or a
 * card daemon outside the process, with the board description that says where its windows are.
 * What each kind does is its backend row (machine_backend.h); here the spec picks the row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_json.h"
#include "machine_backend.h"

/* The spec forms: a prefix, its backend, and whether an argument must follow it. */
static const struct {
    const char *prefix;
    const kt_machine_backend *be;
    bool needs_arg;
} forms[] = {
    {"sim:", &kt_machine_sim_backend, true},       {"sim", &kt_machine_sim_backend, false},
    {"pipe:", &kt_machine_pipe_backend, true},     {"tcp:", &kt_machine_tcp_backend, true},
    {"daemon:", &kt_machine_daemon_backend, true}, {"daemon", &kt_machine_daemon_backend, false},
};

/* The form of `spec`: its backend and the argument after the prefix (NULL when none). */
static npk_status parse_spec(const char *spec, const kt_machine_backend **be, const char **arg)
{
    if (!spec || !*spec) {
        *be = &kt_machine_sim_backend;
        *arg = NULL;
        return NPK_OK;
    }
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        size_t n = strlen(forms[i].prefix);
        if (strncmp(spec, forms[i].prefix, n) || (!forms[i].needs_arg && spec[n]))
            continue;
        if (forms[i].needs_arg && !spec[n])
            return npk_fail(NPK_EINVAL, "machine spec '%s': nothing after '%s'", spec,
                            forms[i].prefix);
        *be = forms[i].be;
        *arg = forms[i].needs_arg ? spec + n : NULL;
        return NPK_OK;
    }
    return npk_fail(NPK_EINVAL,
                    "machine spec '%s': use pipe:'COMMAND ARGS', tcp:HOST:PORT, daemon[:HOST:PORT] "
                    "or sim[:PRESET]",
                    spec);
}

static npk_status open_machine(kt_machine *m, const char *spec, const char *arg,
                               const kt_open_opts *o)
{
    const char *preset = o->board ? o->board : "default";
    if (m->be->is_preset) {
        if (arg && o->board && strcmp(arg, o->board))
            return npk_fail(NPK_EINVAL,
                            "machine spec '%s': the simulator is its preset's board; board '%s' "
                            "names another",
                            spec, o->board);
        preset = arg ? arg : preset;
    } else if (o->prestrobe) {
        return npk_fail(NPK_EINVAL,
                        "machine spec '%s': prestrobe applies to the simulator only "
                        "(a card's board preset says its generation)",
                        spec);
    }
    if (o->meshes > KT_BOARD_MAX_MESHES)
        return npk_fail(NPK_ELIMIT, "meshes=%u exceeds %d", o->meshes, KT_BOARD_MAX_MESHES);
    npk_status s = kt_board_load(preset, &m->board);
    if (s)
        return s;
    if (o->ctrl_base_set)
        m->board.ctrl_base = o->ctrl_base;
    if (o->mem_base_set)
        m->board.mem_base = o->mem_base;
    return m->be->open(m, spec, arg, o);
}

npk_status kt_open_spec(const char *spec, const kt_open_opts *opts, kt_machine **out)
{
    static const kt_open_opts none;
    const kt_open_opts *o = opts ? opts : &none;
    *out = NULL;
    const kt_machine_backend *be = NULL;
    const char *arg = NULL;
    npk_status s = parse_spec(spec, &be, &arg);
    if (s)
        return s;
    kt_machine *m = calloc(1, sizeof *m);
    if (!m)
        return npk_fail(NPK_ENOMEM, "kt_open_spec: out of memory");
    m->be = be;
    m->meshes = o->meshes ? o->meshes : 1;
    /* NPUKIT_TRACE is opened (and leaves the environment) before a pipe: child is started, so
     * the child never writes into the same file */
    npk_trace_on();
    s = open_machine(m, spec ? spec : "", arg, o);
    if (s) {
        /* keep the first error: closing may report the child's exit too */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", npk_last_error());
        kt_machine_close(m);
        return npk_fail(s, "%s", msg);
    }
    m->t->trace_window = kt_machine_ctrl_base(m, 0) + 1; /* a trace names its registers */
    *out = m;
    return NPK_OK;
}

npk_status kt_machine_close(kt_machine *m)
{
    if (!m)
        return NPK_OK;
    npk_status s = m->be->close(m);
    free(m);
    return s;
}

kt_transport *kt_machine_transport(kt_machine *m) { return m->t; }
const kt_board *kt_machine_board(const kt_machine *m) { return &m->board; }
unsigned kt_machine_meshes(const kt_machine *m) { return m->meshes; }
bool kt_machine_has_engine(const kt_machine *m) { return m->engine; }
kt_machine_kind_t kt_machine_kind_of(const kt_machine *m) { return m->be->kind; }
const char *kt_machine_kind(const kt_machine *m) { return m->be->name; }
const char *kt_machine_note(const kt_machine *m) { return m->note[0] ? m->note : NULL; }
struct ktsim_card *kt_machine_sim(kt_machine *m) { return m->sim; }
struct kt_line *kt_machine_line(kt_machine *m) { return m->line; }
struct kt_daemon *kt_machine_daemon(kt_machine *m) { return m->daemon; }

uint64_t kt_machine_ctrl_base(const kt_machine *m, unsigned mesh)
{
    return kt_board_ctrl_base(&m->board, mesh);
}

uint64_t kt_machine_mem_base(const kt_machine *m, unsigned mesh)
{
    return kt_board_mem_base(&m->board, mesh);
}

void kt_machine_step(kt_machine *m, uint64_t cycles) { m->be->step(m, cycles); }

void kt_machine_pause(void *m, uint64_t cycles) { kt_machine_step(m, cycles); }

bool kt_machine_cycle(kt_machine *m, uint64_t *cycle) { return m->be->cycle(m, cycle); }

bool kt_machine_fault(kt_machine *m, char *buf, size_t len) { return m->be->fault(m, buf, len); }
