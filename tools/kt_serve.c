/* `npukit kt serve`: the simulated card (meshes, movers, interlink, engine) behind the line
 * protocol of the Verilated card harness or the card daemon's JSON frames, so that clients of
 * either drive the simulator unchanged. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "npukit/kt_remote.h"
#include "npukit/kt_serve.h"

static void step(void *ctx, uint64_t cycles) { ktsim_card_step(ctx, cycles); }
static uint64_t cycle(void *ctx) { return ktsim_card_cycle(ctx); }
static const char *fault(void *ctx) { return ktsim_card_fault(ctx); }

static npk_status dram_read(void *ctx, unsigned ch, uint64_t off, void *buf, size_t len)
{
    ktsim *m = ktsim_card_mesh(ctx, ch);
    return m ? ktsim_dram_read(m, off, buf, len) : npk_fail(NPK_EINVAL, "no mesh %u", ch);
}

static npk_status dram_write(void *ctx, unsigned ch, uint64_t off, const void *buf, size_t len)
{
    ktsim *m = ktsim_card_mesh(ctx, ch);
    return m ? ktsim_dram_write(m, off, buf, len) : npk_fail(NPK_EINVAL, "no mesh %u", ch);
}

static void log_line(const char *line) { fprintf(stderr, "npukit kt serve: %s\n", line); }

static const char usage[] =
    "usage: npukit kt serve [--protocol line|daemon] [--listen HOST:PORT | --stdio] [--any-address]\n"
    "                       [--sim PRESET] [--prestrobe] [--meshes K]\n"
    "  line protocol: --stdio by default (as the Verilated card harness); daemon: 127.0.0.1:47155\n";

int kt_serve_main(int argc, char **argv)
{
    kt_card_cli c = {0};
    const char *protocol = "line", *listen_at = NULL;
    bool use_stdio = false, any = false;
    for (int i = 1; i < argc; i++) {
        int r = kt_card_cli_option(&c, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r)
            continue;
        if (!strcmp(argv[i], "--protocol")) {
            if (!(protocol = cli_value(argc, argv, &i)))
                return 2;
            if (strcmp(protocol, "line") && strcmp(protocol, "daemon")) {
                fprintf(stderr, "npukit kt serve: --protocol %s: line or daemon\n", protocol);
                return 2;
            }
        } else if (!strcmp(argv[i], "--listen")) {
            if (!(listen_at = cli_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(argv[i], "--stdio")) {
            use_stdio = true;
        } else if (!strcmp(argv[i], "--any-address")) {
            any = true;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "npukit kt serve: unknown option '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
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
    c.engine = true; /* the whole card: a client may run engine programs */
    if (kt_card_cli_open(&c))
        return 1;
    kt_serve_target tg = {c.t, ktsim_get_config(ktsim_card_mesh(c.card, 0))->name, ktsim_card_meshes(c.card),
                          c.card, step, cycle, fault, dram_read, dram_write};
    int fd = -1;
    unsigned port = 0;
    if (listen_at) {
        if (kt_listen_tcp(listen_at, any, &fd, &port)) {
            kt_card_cli_close(&c);
            return cli_lib_error("kt serve");
        }
        /* Clients (and tests) learn an ephemeral port from this line. */
        char host[256];
        snprintf(host, sizeof host, "%.*s", (int)(strrchr(listen_at, ':') - listen_at), listen_at);
        printf("listening on %s:%u (%s protocol, machine %s, %u mesh%s)\n", host, port, protocol, tg.name, tg.meshes,
               tg.meshes > 1 ? "es" : "");
        fflush(stdout);
    }
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
