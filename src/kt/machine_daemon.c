/* SPDX-License-Identifier: MIT */
/* The card-daemon backend: a lease on every mesh's control window and a run at the ship clocks,
 * taken at open and given back at close. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "machine_backend.h"

/* Leases on every mesh's control window and a run at full clocks, as the card daemon expects of
 * a client that runs work. A daemon without clock control refuses the run: the work still runs,
 * at whatever clocks the card has. */
static npk_status daemon_session(kt_machine *m)
{
    for (unsigned i = 0; i < m->meshes; i++) {
        npk_status s = kt_daemon_claim(m->daemon, i, kt_board_ctrl_base(&m->board, i),
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

/* The hello's "engine" member is true (read as JSON, not as text: an "engine" inside another
 * member's string announces nothing). */
static bool announces_engine(kt_daemon *d)
{
    cJSON *hello = cJSON_Parse(kt_daemon_hello(d));
    bool engine = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hello, "engine"));
    cJSON_Delete(hello);
    return engine;
}

static npk_status daemon_open(kt_machine *m, const char *spec, const char *arg,
                              const kt_open_opts *o)
{
    kt_remote_opts ro = {o->timeout_ms};
    npk_status s = kt_daemon_connect(arg, &ro, &m->daemon, &m->remote);
    if (s)
        return s;
    m->t = &m->remote;
    m->engine = announces_engine(m->daemon);
    if ((s = kt_machine_need_engine(m, spec, o)))
        return s;
    if (o->backdoor)
        return npk_fail(NPK_EINVAL,
                        "backdoor needs a line-protocol machine (pipe: or tcp:), not '%s'", spec);
    return daemon_session(m);
}

/* A card daemon's card runs on its own clock: let that much time pass. */
static void daemon_step(kt_machine *m, uint64_t cycles)
{
    uint64_t ns = cycles * 1000 / (m->board.clock_mhz ? m->board.clock_mhz : 300);
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

static bool daemon_cycle(kt_machine *m, uint64_t *cycle)
{
    char st[1024];
    if (kt_daemon_status(m->daemon, st, sizeof st) != NPK_OK)
        return false;
    const char *at = strstr(st, "\"cycle\":");
    return at && sscanf(at + 8, "%" SCNu64, cycle) == 1;
}

static bool daemon_fault(kt_machine *m, char *buf, size_t len)
{
    char st[1024];
    if (kt_daemon_status(m->daemon, st, sizeof st) != NPK_OK)
        return false;
    const char *at = strstr(st, "\"fault\":\"");
    if (!at)
        return false;
    at += 9;
    const char *end = strchr(at, '"');
    snprintf(buf, len, "%.*s", end ? (int)(end - at) : 200, at);
    return true;
}

static npk_status daemon_close(kt_machine *m)
{
    if (!m->daemon)
        return NPK_OK;
    if (m->running)
        kt_daemon_run_end(m->daemon, m->token);
    for (unsigned i = 0; i < m->leases; i++)
        kt_daemon_release(m->daemon, m->lease[i]);
    kt_transport_close(&m->remote);
    return NPK_OK;
}

const kt_machine_backend kt_machine_daemon_backend = {
    .kind = KT_MACHINE_DAEMON,
    .name = "card daemon",
    .open = daemon_open,
    .step = daemon_step,
    .cycle = daemon_cycle,
    .fault = daemon_fault,
    .close = daemon_close,
};
