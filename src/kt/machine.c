/* SPDX-License-Identifier: MIT */
/* A KohakuTPU machine from a spec: the simulated card of a preset, or a line-protocol peer or a
 * card daemon outside the process, with the board description that says where its windows are. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "common/trace_json.h"
#include "npukit/kt_open.h"
#include "npukit/kt_remote.h"
#include "npukit/ktsim.h"
#include "ktsim/ktsim_card.h"

struct kt_machine {
    kt_machine_kind_t kind;
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

/* The spec forms: a prefix, the kind, and whether an argument must follow it. */
static const struct {
    const char *prefix;
    kt_machine_kind_t kind;
    bool needs_arg;
} forms[] = {
    {"sim:", KT_MACHINE_SIM, true},       {"sim", KT_MACHINE_SIM, false},
    {"pipe:", KT_MACHINE_PIPE, true},     {"tcp:", KT_MACHINE_TCP, true},
    {"daemon:", KT_MACHINE_DAEMON, true}, {"daemon", KT_MACHINE_DAEMON, false},
};

static const char *const kind_names[] = {"simulator", "line protocol (pipe)", "line protocol (tcp)",
                                         "card daemon"};

/* The form of `spec`: its kind and the argument after the prefix (NULL when none). */
static npk_status parse_spec(const char *spec, kt_machine_kind_t *kind, const char **arg)
{
    if (!spec || !*spec) {
        *kind = KT_MACHINE_SIM;
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
        *kind = forms[i].kind;
        *arg = forms[i].needs_arg ? spec + n : NULL;
        return NPK_OK;
    }
    return npk_fail(NPK_EINVAL,
                    "machine spec '%s': use pipe:'COMMAND ARGS', tcp:HOST:PORT, daemon[:HOST:PORT] "
                    "or sim[:PRESET]",
                    spec);
}

static npk_status open_remote(kt_machine *m, const char *arg, const kt_open_opts *o)
{
    kt_remote_opts ro = {o->timeout_ms};
    switch (m->kind) {
    case KT_MACHINE_PIPE: return kt_line_spawn(arg, &ro, &m->line, &m->remote);
    case KT_MACHINE_TCP: return kt_line_connect(arg, &ro, &m->line, &m->remote);
    default: return kt_daemon_connect(arg, &ro, &m->daemon, &m->remote);
    }
}

/* Leases on every mesh's control window and a run at full clocks, as the card daemon expects of
 * a client that runs work. A daemon without clock control refuses the run: the work still runs,
 * at whatever clocks the card has. */
static npk_status daemon_session(kt_machine *m)
{
    for (unsigned i = 0; i < m->meshes; i++) {
        npk_status s = kt_daemon_claim(m->daemon, i, kt_machine_ctrl_base(m, i),
                                       KT_BOARD_MESH_WINDOW, &m->lease[i]);
        if (s)
            return s;
        m->leases++;
    }
    if (kt_daemon_run_begin(m->daemon, (1u << m->meshes) - 1, "ship", &m->token) == NPK_OK)
        m->running = true;
    else
        snprintf(m->note, sizeof m->note, "%s; running at the card's current clocks",
                 npk_last_error());
    return NPK_OK;
}

/* Whether the peer's greeting announces a control-program engine: the READY line's
 * `engine=` word is exactly 1, or the hello's "engine" member is true (read as JSON, not as
 * text: "engine=10" or an "engine" inside another member's string announce nothing). */
static bool announces_engine(const kt_machine *m)
{
    if (m->line) {
        const char *w = strstr(kt_line_banner(m->line), " engine=");
        return w && w[8] == '1' && (w[9] == '\0' || w[9] == ' ' || w[9] == '\n' || w[9] == '\r');
    }
    if (!m->daemon)
        return false;
    cJSON *hello = cJSON_Parse(kt_daemon_hello(m->daemon));
    bool engine = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hello, "engine"));
    cJSON_Delete(hello);
    return engine;
}

static npk_status open_sim(kt_machine *m, const char *preset, const kt_open_opts *o)
{
    ktsim_config cfg;
    npk_status s = ktsim_preset_load(preset, &cfg);
    if (s)
        return s;
    if (o->engine && !cfg.engine)
        return npk_fail(NPK_EUNSUPPORTED,
                        "preset %s has no host control-program engine (engine 0): run the "
                        "program from the host instead",
                        preset);
    if (o->prestrobe)
        m->board.bitstream_current = false;
    ktsim_config_set_board(&cfg, &m->board); /* the bases the options override */
    ktsim_card_opts co = {m->meshes, false, o->engine, 0, 0, 0};
    if ((s = ktsim_card_create(&cfg, &co, &m->sim)))
        return s;
    m->t = ktsim_card_transport(m->sim);
    m->engine = o->engine;
    return NPK_OK;
}

static npk_status open_machine(kt_machine *m, const char *spec, const char *arg,
                               const kt_open_opts *o)
{
    const char *preset = o->board ? o->board : "default";
    if (m->kind == KT_MACHINE_SIM) {
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
    if (m->kind == KT_MACHINE_SIM)
        return open_sim(m, preset, o);
    if ((s = open_remote(m, arg, o)))
        return s;
    m->t = &m->remote;
    m->engine = announces_engine(m);
    if (o->engine && !m->engine)
        return npk_fail(NPK_EUNSUPPORTED,
                        "the machine at '%s' announces no control-program engine (a card has "
                        "none): run the program from the host instead",
                        spec);
    if (o->backdoor && !m->line)
        return npk_fail(NPK_EINVAL,
                        "backdoor needs a line-protocol machine (pipe: or tcp:), "
                        "not '%s'",
                        spec);
    for (unsigned i = 0; o->backdoor && i < m->meshes; i++)
        if ((s = kt_line_use_backdoor(m->line, i, kt_machine_mem_base(m, i), m->board.dram_size)))
            return s;
    return m->daemon ? daemon_session(m) : NPK_OK;
}

npk_status kt_open_spec(const char *spec, const kt_open_opts *opts, kt_machine **out)
{
    static const kt_open_opts none;
    const kt_open_opts *o = opts ? opts : &none;
    *out = NULL;
    kt_machine_kind_t kind = KT_MACHINE_SIM;
    const char *arg = NULL;
    npk_status s = parse_spec(spec, &kind, &arg);
    if (s)
        return s;
    kt_machine *m = calloc(1, sizeof *m);
    if (!m)
        return npk_fail(NPK_ENOMEM, "kt_open_spec: out of memory");
    m->kind = kind;
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
    npk_status s = NPK_OK;
    if (m->sim)
        ktsim_card_destroy(m->sim);
    if (m->daemon) {
        if (m->running)
            kt_daemon_run_end(m->daemon, m->token);
        for (unsigned i = 0; i < m->leases; i++)
            kt_daemon_release(m->daemon, m->lease[i]);
    }
    if (m->line)
        s = kt_line_finish(m->line);
    if (m->line || m->daemon)
        kt_transport_close(&m->remote);
    free(m);
    return s;
}

kt_transport *kt_machine_transport(kt_machine *m) { return m->t; }
const kt_board *kt_machine_board(const kt_machine *m) { return &m->board; }
unsigned kt_machine_meshes(const kt_machine *m) { return m->meshes; }
bool kt_machine_has_engine(const kt_machine *m) { return m->engine; }
kt_machine_kind_t kt_machine_kind_of(const kt_machine *m) { return m->kind; }
const char *kt_machine_kind(const kt_machine *m) { return kind_names[m->kind]; }
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

void kt_machine_step(kt_machine *m, uint64_t cycles)
{
    if (m->sim) {
        ktsim_card_step(m->sim, cycles);
    } else if (m->line) {
        /* a peer that cannot advance answers E: time passes anyway */
        kt_line_advance(m->line, cycles);
    } else {
        /* A card daemon's card runs on its own clock: let that much time pass. */
        uint64_t ns = cycles * 1000 / (m->board.clock_mhz ? m->board.clock_mhz : 300);
        struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}

void kt_machine_pause(void *m, uint64_t cycles) { kt_machine_step(m, cycles); }

/* A served machine's status: the line protocol's S, or the daemon's status op. */
static bool remote_status(kt_machine *m, char *buf, size_t len)
{
    if (m->line)
        return kt_line_status(m->line, buf, len) == NPK_OK;
    return m->daemon && kt_daemon_status(m->daemon, buf, len) == NPK_OK;
}

bool kt_machine_cycle(kt_machine *m, uint64_t *cycle)
{
    if (m->sim) {
        *cycle = ktsim_card_cycle(m->sim);
        return true;
    }
    char st[1024];
    if (!remote_status(m, st, sizeof st))
        return false;
    if (m->line) /* `cycle=` or the harness's `sys=` */
        return kt_line_status_cycle(st, cycle);
    const char *at = strstr(st, "\"cycle\":");
    return at && sscanf(at + 8, "%" SCNu64, cycle) == 1;
}

bool kt_machine_fault(kt_machine *m, char *buf, size_t len)
{
    if (m->sim) {
        const char *f = ktsim_card_fault(m->sim);
        if (f)
            snprintf(buf, len, "%s", f);
        return f != NULL;
    }
    char st[1024];
    if (!remote_status(m, st, sizeof st))
        return false;
    if (m->line && strstr(st, " fault=1")) {
        snprintf(buf, len, "the machine reports a model fault (S: %s)", st);
        return true;
    }
    const char *at = m->daemon ? strstr(st, "\"fault\":\"") : NULL;
    if (at) {
        at += 9;
        const char *end = strchr(at, '"');
        snprintf(buf, len, "%.*s", end ? (int)(end - at) : 200, at);
        return true;
    }
    return false;
}
