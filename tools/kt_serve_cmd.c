/* SPDX-License-Identifier: MIT */
/* `npukit kt serve`: the simulated card (meshes, movers, interlink, engine) behind the line
 * protocol of the Verilated card harness or the card daemon's JSON frames, so that clients of
 * either drive the simulator unchanged. */
#define _POSIX_C_SOURCE 200809L /* sigaction, pipe */
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common/trace_json.h"
#include "kt_card_cli.h"
#include "npukit/kt_remote.h"
#include "npukit/kt_serve.h"

/* The hooks over the machine the options name: the simulated card, or (as a bridge from one
 * protocol to the other) a --card machine, whose clock and faults are asked of it. */
static void step(void *ctx, uint64_t cycles) { kt_machine_step(ctx, cycles); }

static uint64_t cycle(void *ctx)
{
    uint64_t c = 0;
    kt_machine_cycle(ctx, &c);
    return c;
}

static const char *fault(void *ctx)
{
    static char text[512];
    return kt_machine_fault(ctx, text, sizeof text) ? text : NULL;
}

/* The backdoor's contract (kt_serve.h): outside the populated DRAM is its own refusal, never
 * "reads as zeros"; a never-written word reads as zeros. */
static npk_status dram_read(void *ctx, unsigned ch, uint64_t off, void *buf, size_t len)
{
    ktsim *m = ktsim_card_mesh(kt_machine_sim(ctx), ch);
    if (!m)
        return npk_fail(NPK_EINVAL, "no mesh %u", ch);
    uint64_t size = ktsim_get_config(m)->dram_size;
    if (off > size || len > size - off)
        return npk_fail(NPK_ELIMIT,
                        "DRAM bytes 0x%" PRIx64 "+%zu of channel %u are outside its 0x%" PRIx64
                        " bytes",
                        off, len, ch, size);
    memset(buf, 0, len);
    return ktsim_dram_read(m, off, buf, len);
}

static npk_status dram_write(void *ctx, unsigned ch, uint64_t off, const void *buf, size_t len)
{
    ktsim *m = ktsim_card_mesh(kt_machine_sim(ctx), ch);
    return m ? ktsim_dram_write(m, off, buf, len) : npk_fail(NPK_EINVAL, "no mesh %u", ch);
}

/* What hello reports as the backend: the simulator, or what a bridge forwards to (a card
 * daemon's own backend, as its hello said). */
static const char *backend_of(kt_machine *m, char *buf, size_t len)
{
    if (kt_machine_sim(m))
        return "ktsim";
    const char *name = kt_machine_transport(m)->name;
    snprintf(buf, len, "%s", name ? name : "remote");
    if (kt_machine_daemon(m)) {
        cJSON *h = cJSON_Parse(kt_daemon_hello(kt_machine_daemon(m)));
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(h, "backend");
        if (cJSON_IsString(b))
            snprintf(buf, len, "%s", b->valuestring);
        cJSON_Delete(h);
    }
    return buf;
}

/* A server runs until it is told to stop, usually by a signal: SIGINT, SIGTERM or SIGHUP. So that
 * it still leaves a whole trace file (NPUKIT_TRACE or --trace), each of those signals is handed
 * (through a pipe: all a handler may safely do) to a thread of its own, which finishes the file
 * in an ordinary context (a handler could not take the trace's lock) and then lets the signal
 * end the process as it would have. A handler, not a blocked mask, because threads a library
 * started before main (a BLAS pool) would take a blocked signal's default action first. */
static int stop_pipe[2] = {-1, -1};

static void on_stop_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    if (write(stop_pipe[1], &b, 1) < 0) { /* nothing more a handler can do */
    }
    errno = saved;
}

static void *stop_waiter(void *unused)
{
    (void)unused;
    unsigned char sig;
    ssize_t n;
    while ((n = read(stop_pipe[0], &sig, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1)
        return NULL;
    (void)npk_trace_close(); /* writes after this are dropped: the file stays whole */
    signal(sig, SIG_DFL);
    raise(sig);
    return NULL;
}

/* Catch the stop signals (after the machine is open; a pipe: child gets the defaults back at
 * exec anyway). One ignored when the server started (nohup, a background job) stays ignored. */
static void take_stop_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    pthread_t th;
    if (pipe(stop_pipe) || pthread_create(&th, NULL, stop_waiter, NULL))
        return; /* without the waiter: the signals' default actions, as before */
    pthread_detach(th);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction now, act;
        if (sigaction(sigs[i], NULL, &now) || now.sa_handler == SIG_IGN)
            continue;
        memset(&act, 0, sizeof act);
        act.sa_handler = on_stop_signal;
        act.sa_flags = SA_RESTART;
        sigemptyset(&act.sa_mask);
        sigaction(sigs[i], &act, NULL);
    }
}

/* --idle-seconds S: decimal seconds (upstream's daemon takes a float), kept in whole ms. */
static int parse_seconds(const char *text, unsigned *ms)
{
    char *end;
    errno = 0;
    double s = strtod(text, &end);
    if (errno || end == text || *end || !(s >= 0.001 && s <= 86400)) {
        fprintf(stderr, "npukit kt serve: --idle-seconds '%s': a number of seconds 0.001..86400\n",
                text);
        return 2;
    }
    *ms = (unsigned)(s * 1000 + 0.5);
    return 0;
}

static void log_line(const char *line) { fprintf(stderr, "npukit kt serve: %s\n", line); }

int kt_serve_main(int argc, char **argv)
{
    kt_card_cli c = {0};
    static const char *const protocols[] = {"line", "daemon", NULL};
    int proto = 0;
    const char *listen_at = NULL;
    bool use_stdio = false, any = false, allow_shutdown = false;
    unsigned frame_ms = 0, idle_ms = 0, governor_ms = 0;
    const char *idle_seconds = NULL;
    const cli_opt own[] = {
        {.name = "--protocol",
         .kind = CLI_CHOICE,
         .dest = &proto,
         .choices = protocols,
         .help =
             "the Verilated card harness's line protocol (default) or the card daemon's frames"},
        {.name = "--listen",
         .kind = CLI_STR,
         .dest = &listen_at,
         .meta = "HOST:PORT",
         .help = "serve on a TCP socket (daemon default 127.0.0.1:47155)"},
        {.name = "--stdio",
         .kind = CLI_FLAG,
         .dest = &use_stdio,
         .help = "serve on stdin/stdout (the line protocol's default)"},
        {.name = "--any-address",
         .kind = CLI_FLAG,
         .dest = &any,
         .help = "allow --listen on an address other than loopback (no authentication)"},
        {.name = "--allow-shutdown",
         .kind = CLI_FLAG,
         .dest = &allow_shutdown,
         .help = "let a daemon client's `shutdown` op end the server (refused otherwise)"},
        {.name = "--frame-timeout-ms",
         .kind = CLI_UINT,
         .dest = &frame_ms,
         .meta = "MS",
         .min = 1,
         .max = 86400000,
         .help = "a request from its first byte to its last, and a reply until the client took it "
                 "(default 10000)"},
        {.name = "--idle-timeout-ms",
         .kind = CLI_UINT,
         .dest = &idle_ms,
         .meta = "MS",
         .min = 1,
         .max = 86400000,
         .help = "a connection with no request in flight is closed (default 60000 line, 300000 "
                 "daemon)"},
        {.name = "--idle-seconds",
         .kind = CLI_STR,
         .dest = &idle_seconds,
         .meta = "S",
         .help = "the daemon's clock governor: a mesh no run holds drops to the idle profile "
                 "after S seconds, 0.001..86400 (default 10, as the card daemon's)"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_card_cli_rows(&c), kt_cli_rows(&c.o), NULL};
    cli_spec spec = {
        .cmd = "kt serve",
        .synopsis = "[--protocol line|daemon] [--listen HOST:PORT | --stdio] [options]",
        .about = "the simulated card behind the line protocol of the Verilated card harness or "
                 "the card daemon's JSON frames",
        .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (idle_seconds && parse_seconds(idle_seconds, &governor_ms))
        return 2;
    const char *protocol = protocols[proto];
    if (use_stdio && listen_at) {
        fprintf(stderr, "npukit kt serve: --stdio and --listen exclude each other\n");
        return 2;
    }
    bool line = !strcmp(protocol, "line");
    char def[32];
    if (!use_stdio && !listen_at) {
        if (line)
            use_stdio = true;
        else {
            snprintf(def, sizeof def, "127.0.0.1:%d", KT_DAEMON_PORT);
            listen_at = def;
        }
    }
    /* The whole simulated card: a client may run engine programs, where the preset's top has an
     * engine (a bad preset name is reported when the machine opens). */
    ktsim_config preset;
    c.engine = !c.o.m.card &&
               ktsim_preset_load(c.o.m.preset ? c.o.m.preset : "default", &preset) == NPK_OK &&
               preset.engine;
    npk_clear_error();
    if (kt_card_cli_open(&c))
        return 1;
    bool sim = kt_machine_sim(c.m) != NULL; /* the DRAM backdoor reaches the simulator's only */
    char backend[64];
    kt_serve_target tg = {.t = c.t,
                          .name = kt_machine_board(c.m)->name,
                          .meshes = kt_machine_meshes(c.m),
                          .ctx = c.m,
                          .advance = step,
                          .cycle = cycle,
                          .fault = fault,
                          .dram_read = sim ? dram_read : NULL,
                          .dram_write = sim ? dram_write : NULL,
                          .dram_bytes = kt_machine_board(c.m)->dram_size,
                          .engine = kt_machine_has_engine(c.m),
                          .backend = backend_of(c.m, backend, sizeof backend),
                          .frame_ms = frame_ms,
                          .idle_ms = idle_ms,
                          .governor_idle_ms = governor_ms,
                          .allow_shutdown = allow_shutdown};
    int fd = -1;
    unsigned port = 0;
    if (listen_at) {
        npk_status ls = kt_listen_tcp(listen_at, any, &fd, &port);
        if (ls) {
            kt_card_cli_close(&c);
            int rc = cli_lib_error("kt serve");
            /* A malformed HOST:PORT (a port past 65535) is a usage error, as other bad option
             * values are; an address already in use is not. */
            return ls == NPK_EINVAL || ls == NPK_EPARSE ? 2 : rc;
        }
        /* Clients (and tests) learn an ephemeral port from this line. */
        char host[256];
        snprintf(host, sizeof host, "%.*s", (int)(strrchr(listen_at, ':') - listen_at), listen_at);
        printf("listening on %s:%u (%s protocol, machine %s, %u mesh%s)\n", host, port, protocol,
               tg.name, tg.meshes, tg.meshes > 1 ? "es" : "");
        fflush(stdout);
    }
    take_stop_signals();
    npk_status s;
    if (line)
        s = fd >= 0 ? kt_serve_line_listen(&tg, fd) : kt_serve_line_session(&tg, 0, 1);
    else
        s = kt_serve_daemon(&tg, fd, 0, 1, log_line);
    if (fd >= 0)
        close(fd);
    kt_card_cli_close(&c);
    return s ? cli_lib_error("kt serve") : 0;
}
