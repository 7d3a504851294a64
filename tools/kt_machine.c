/* SPDX-License-Identifier: MIT */
/* The machine behind every `npukit kt` command: the simulated card, or --card. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "kt_machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "common/trace_json.h"

enum { MESH_WINDOW = 0x10000, MESH_STRIDE = 0x10000 };

typedef enum card_kind { CARD_PIPE, CARD_TCP, CARD_DAEMON } card_kind;

/* The --card forms: a prefix and whether an argument must follow it. */
static const struct {
    const char *prefix;
    card_kind kind;
    bool needs_arg;
} card_forms[] = {
    {"pipe:", CARD_PIPE, true},
    {"tcp:", CARD_TCP, true},
    {"daemon:", CARD_DAEMON, true},
    {"daemon", CARD_DAEMON, false},
};

static npk_status open_remote(kt_machine *m, const kt_machine_opts *o)
{
    kt_remote_opts ro = {o->timeout_ms};
    for (size_t i = 0; i < sizeof card_forms / sizeof card_forms[0]; i++) {
        size_t n = strlen(card_forms[i].prefix);
        if (strncmp(o->card, card_forms[i].prefix, n) || (!card_forms[i].needs_arg && o->card[n]))
            continue;
        const char *arg = o->card + n;
        if (card_forms[i].needs_arg && !*arg)
            break;
        switch (card_forms[i].kind) {
        case CARD_PIPE: return kt_line_spawn(arg, &ro, &m->line, &m->remote);
        case CARD_TCP: return kt_line_connect(arg, &ro, &m->line, &m->remote);
        case CARD_DAEMON:
            return kt_daemon_connect(card_forms[i].needs_arg ? arg : NULL, &ro, &m->daemon,
                                     &m->remote);
        }
    }
    return npk_fail(NPK_EINVAL,
                    "--card '%s': use pipe:'COMMAND ARGS', tcp:HOST:PORT or daemon[:HOST:PORT]",
                    o->card);
}

/* Leases on every mesh's control window and a run at full clocks, as the card daemon expects of
 * a client that runs work. A daemon without clock control refuses the run: the work still runs,
 * at whatever clocks the card has. */
static npk_status daemon_session(kt_machine *m)
{
    for (unsigned i = 0; i < m->meshes; i++) {
        npk_status s =
            kt_daemon_claim(m->daemon, i, kt_machine_ctrl_base(m, i), MESH_WINDOW, &m->lease[i]);
        if (s)
            return s;
        m->leases++;
    }
    if (kt_daemon_run_begin(m->daemon, (1u << m->meshes) - 1, "ship", &m->token) == NPK_OK)
        m->running = true;
    else
        fprintf(stderr, "npukit kt: note: %s; running at the card's current clocks\n",
                npk_last_error());
    return NPK_OK;
}

static bool announces_engine(const kt_machine *m)
{
    if (m->line)
        return strstr(kt_line_banner(m->line), " engine=1") != NULL;
    return m->daemon && strstr(kt_daemon_hello(m->daemon), "\"engine\":true") != NULL;
}

int kt_machine_open(kt_machine *m, const kt_machine_opts *o, unsigned meshes, bool engine)
{
    memset(m, 0, sizeof *m);
    m->meshes = meshes ? meshes : 1;
    /* NPUKIT_TRACE is opened (and leaves the environment) before a --card child is started, so
     * the child never writes into the same file */
    npk_trace_on();
    if (ktsim_preset_load(o->preset ? o->preset : "default", &m->cfg) != NPK_OK)
        return cli_lib_error("kt");
    if (o->ctrl_given)
        m->cfg.ctrl_base = o->ctrl_base;
    if (o->mem_given)
        m->cfg.mem_base = o->mem_base;
    if (!o->card) {
        if (engine && !m->cfg.engine) {
            npk_fail(NPK_EUNSUPPORTED,
                     "preset %s has no host control-program engine (engine 0): run the program "
                     "from the host instead",
                     m->cfg.name);
            return cli_lib_error("kt");
        }
        if (o->prestrobe)
            m->cfg.gen = KTSIM_GEN_PRESTROBE;
        ktsim_card_opts co = {m->meshes, false, engine, 0, 0, 0};
        if (ktsim_card_create(&m->cfg, &co, &m->sim) != NPK_OK)
            return cli_lib_error("kt");
        m->t = ktsim_card_transport(m->sim);
        m->engine = engine;
        m->t->trace_window = kt_machine_ctrl_base(m, 0) + 1; /* a trace names its registers */
        return 0;
    }
    if (open_remote(m, o) != NPK_OK)
        return cli_lib_error("kt: --card");
    m->t = &m->remote;
    m->engine = announces_engine(m);
    m->t->trace_window = kt_machine_ctrl_base(m, 0) + 1;
    npk_status s = NPK_OK;
    if (engine && !m->engine)
        s = npk_fail(NPK_EUNSUPPORTED,
                     "the machine at --card %s announces no control-program engine (a card has "
                     "none): run the "
                     "program from the host instead",
                     o->card);
    for (unsigned i = 0; !s && o->backdoor && m->line && i < m->meshes; i++)
        s = kt_line_use_backdoor(m->line, i, kt_machine_mem_base(m, i), m->cfg.dram_size);
    if (!s && o->backdoor && !m->line)
        s = npk_fail(NPK_EINVAL, "--backdoor needs a line-protocol --card (pipe: or tcp:)");
    if (!s && m->daemon)
        s = daemon_session(m);
    if (s) {
        int rc = cli_lib_error("kt: --card");
        kt_machine_close(m);
        return rc;
    }
    return 0;
}

int kt_machine_close(kt_machine *m)
{
    int rc = 0;
    if (m->sim)
        ktsim_card_destroy(m->sim);
    if (m->daemon) {
        if (m->running)
            kt_daemon_run_end(m->daemon, m->token);
        for (unsigned i = 0; i < m->leases; i++)
            kt_daemon_release(m->daemon, m->lease[i]);
    }
    if (m->line && kt_line_finish(m->line))
        rc = cli_lib_error("kt: --card");
    if (m->t == &m->remote)
        kt_transport_close(&m->remote);
    memset(m, 0, sizeof *m);
    return rc;
}

uint64_t kt_machine_ctrl_base(const kt_machine *m, unsigned mesh)
{
    return m->sim ? ktsim_card_ctrl_base(m->sim, mesh)
                  : m->cfg.ctrl_base + (uint64_t)mesh * MESH_STRIDE;
}

/* The card map (ktsim_card.h): mesh m's DRAM at (m + 1) << 40 | m << 36 from mesh 0's base. */
uint64_t kt_machine_mem_base(const kt_machine *m, unsigned mesh)
{
    return m->sim ? ktsim_card_mem_base(m->sim, mesh)
                  : m->cfg.mem_base + ((uint64_t)mesh << 40) + ((uint64_t)mesh << 36);
}

void kt_machine_step(kt_machine *m, uint64_t cycles)
{
    if (m->sim) {
        ktsim_card_step(m->sim, cycles);
    } else if (m->line) {
        kt_line_advance(m->line,
                        cycles); /* a peer that cannot advance answers E: time passes anyway */
    } else {
        /* A card daemon's card runs on its own clock: let that much time pass. */
        uint64_t ns = cycles * 1000 / (m->cfg.clock_mhz ? m->cfg.clock_mhz : 300);
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
    if (m->line)
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

const char *kt_machine_kind(const kt_machine *m)
{
    if (m->sim)
        return "simulator";
    if (m->daemon)
        return "card daemon";
    return !strcmp(m->remote.name, "line(tcp)") ? "line protocol (tcp)" : "line protocol (pipe)";
}
