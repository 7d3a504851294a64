/* SPDX-License-Identifier: MIT */
/* Shared plumbing of the `npukit kt` subcommands. */
#include "kt_cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ktsim/ktsim_card.h"

const cli_opt *kt_cli_rows(kt_cli_opts *o)
{
    const cli_opt rows[KT_CLI_ROWS + 1] = {
        {.name = "--sim",
         .kind = CLI_STR,
         .dest = &o->m.preset,
         .meta = "PRESET",
         .help = "the simulated mesh: a preset name (data/kt) or a .mesh file (default: default); "
                 "with --card, "
                 "the board's description (address map, STAGE_FLITS, DRAM size)"},
        {.name = "--prestrobe",
         .kind = CLI_FLAG,
         .dest = &o->m.prestrobe,
         .help = "simulate the bitstream before the staging write-strobe fix"},
        {.name = "--card",
         .kind = CLI_STR,
         .dest = &o->m.card,
         .meta = "SPEC",
         .help = "a machine outside the process: pipe:'CMD ARGS' or tcp:HOST:PORT (line protocol), "
                 "daemon[:HOST:PORT] (card daemon, default 127.0.0.1:47155)"},
        {.name = "--ctrl-base",
         .kind = CLI_U64_HEX,
         .dest = &o->m.ctrl_base,
         .max = UINT64_MAX,
         .given = &o->m.ctrl_given,
         .meta = "ADDR",
         .help = "mesh 0's control window (default: the preset's)"},
        {.name = "--mem-base",
         .kind = CLI_U64_HEX,
         .dest = &o->m.mem_base,
         .max = UINT64_MAX,
         .given = &o->m.mem_given,
         .meta = "ADDR",
         .help = "mesh 0's host memory window (default: the preset's)"},
        {.name = "--timeout-ms",
         .kind = CLI_UINT,
         .dest = &o->m.timeout_ms,
         .min = 1,
         .max = 3600000,
         .meta = "MS",
         .help = "--card: how long to wait for each reply (default 10000)"},
        {.name = "--backdoor",
         .kind = CLI_FLAG,
         .dest = &o->m.backdoor,
         .help =
             "--card pipe:/tcp:: DRAM blocks through the BR/BW backdoor where the peer offers it"},
        {.name = "--trace",
         .kind = CLI_CUSTOM,
         .parse = cli_parse_trace,
         .meta = "FILE",
         .help = "write a Chrome/Perfetto trace (as NPUKIT_TRACE=FILE): the simulator's units, "
                 "mover and engine on its simulated timeline, the host's transactions and waits"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &o->json, .help = "machine-readable output"},
        CLI_END,
    };
    memcpy(o->rows, rows, sizeof rows);
    return o->rows;
}

const cli_opt *kt_cli_discovery_rows(kt_cli_opts *o)
{
    const cli_opt rows[2] = {
        {.name = "--reply-budget",
         .kind = CLI_U32,
         .dest = &o->reply_budget,
         .min = 1,
         .max = 1u << 24,
         .meta = "N",
         .help = "mailbox reads to wait for one CU_CTRL reply while enumerating (default 256)"},
        CLI_END,
    };
    memcpy(o->discovery_rows, rows, sizeof rows);
    return o->discovery_rows;
}

const cli_opt *kt_cli_wait_rows(kt_cli_opts *o)
{
    const cli_opt rows[2] = {
        {.name = "--poll-us",
         .kind = CLI_U32,
         .dest = &o->poll_us,
         .min = 1,
         .max = 60000000,
         .meta = "US",
         .help = "poll at this fixed interval while waiting (default: adaptive — the expected work "
                 "first, then intervals that grow; simulated time at the preset's clock_mhz)"},
        CLI_END,
    };
    memcpy(o->wait_rows, rows, sizeof rows);
    return o->wait_rows;
}

/* One command per process: its span is process state. It starts where the machine's clock
 * stood when the command opened it (a served machine may have counted since power-on), and
 * again at kt_cli_span_begin. */
static struct {
    uint64_t start, end;
    bool start_known, ended, end_known;
} span = {0, 0, false, false, false};

int kt_cli_machine_open(kt_machine **m, const kt_machine_opts *o, unsigned meshes, bool engine)
{
    /* --sim names the simulator's preset, or with --card the board's */
    char spec[4096];
    if (!o->card)
        snprintf(spec, sizeof spec, "sim:%s", o->preset ? o->preset : "default");
    kt_open_opts oo = {.board = o->card ? o->preset : NULL,
                       .meshes = meshes,
                       .engine = engine,
                       .prestrobe = o->prestrobe && !o->card,
                       .backdoor = o->backdoor,
                       .ctrl_base_set = o->ctrl_given,
                       .mem_base_set = o->mem_given,
                       .ctrl_base = o->ctrl_base,
                       .mem_base = o->mem_base,
                       .timeout_ms = o->timeout_ms};
    if (kt_open_spec(o->card ? o->card : spec, &oo, m) != NPK_OK)
        return cli_lib_error(o->card ? "kt: --card" : "kt");
    if (kt_machine_note(*m))
        fprintf(stderr, "npukit kt: note: %s\n", kt_machine_note(*m));
    span.start_known = kt_machine_cycle(*m, &span.start);
    return 0;
}

int kt_cli_machine_close(kt_machine **m)
{
    npk_status s = kt_machine_close(*m);
    *m = NULL;
    return s ? cli_lib_error("kt: --card") : 0;
}

/* The simulated machine's settings (mesh 0's), or NULL outside the process. */
static const ktsim_config *sim_config(kt_machine *m)
{
    ktsim_card *sim = kt_machine_sim(m);
    return sim ? ktsim_get_config(ktsim_card_mesh(sim, 0)) : NULL;
}

const ktsim_config *kt_cli_sim_config(kt_machine *m, const kt_machine_opts *o, ktsim_config *buf)
{
    const ktsim_config *sim = sim_config(m);
    if (sim)
        return sim;
    if (ktsim_preset_load(o->preset ? o->preset : "default", buf) != NPK_OK)
        ktsim_config_default(buf); /* the board loaded it at open: only the defaults' rows */
    return buf;
}

/* --poll-us in mesh cycles at the preset's clock (0: not given). */
static uint64_t poll_cycles(const kt_machine *m, const kt_cli_opts *o)
{
    unsigned mhz = kt_machine_board(m)->clock_mhz;
    return (uint64_t)o->poll_us * (mhz ? mhz : 300);
}

void kt_cli_pace(kt_dev *d, kt_machine *m, const kt_cli_opts *o)
{
    d->opt.pause = kt_machine_pause;
    d->opt.pause_user = m;
    d->opt.poll_cycles = poll_cycles(m, o);
}

bool kt_cli_idler_init(kt_cli_idler *i, kt_machine *m, const kt_cli_opts *o)
{
    i->m = m;
    i->cycles = poll_cycles(m, o);
    return i->cycles != 0;
}

void kt_cli_idle(void *idler)
{
    kt_cli_idler *i = idler;
    kt_machine_step(i->m, i->cycles);
}

void kt_cli_print_waits(const kt_wait_stats *w)
{
    printf("waits: %" PRIu64 " status reads found what they waited for, %" PRIu64
           " came too early (polls); %" PRIu64 " pauses, %" PRIu64 " cycles\n",
           w->checks, w->polls, w->pauses, w->paused_cycles);
}

void kt_cli_json_waits(cJSON *doc, const kt_wait_stats *w)
{
    json_u64(doc, "polls", w->polls);
    cJSON *waits = json_obj(doc, "waits");
    json_u64(waits, "checks", w->checks);
    json_u64(waits, "polls", w->polls);
    json_u64(waits, "pauses", w->pauses);
    json_u64(waits, "paused_cycles", w->paused_cycles);
}

void kt_cli_span_begin(kt_machine *m)
{
    kt_counters_reset(kt_machine_transport(m));
    span.start_known = kt_machine_cycle(m, &span.start);
    span.ended = false;
}

void kt_cli_span_end(kt_machine *m)
{
    span.end_known = kt_machine_cycle(m, &span.end);
    span.ended = true;
}

/* The span's cycles, when the machine reports its clock. */
static bool span_cycles(kt_machine *m, uint64_t *cycles)
{
    uint64_t now = 0;
    bool clock = span.ended ? span.end_known : kt_machine_cycle(m, &now);
    if (span.ended)
        now = span.end;
    *cycles = clock && span.start_known ? now - span.start : 0;
    return clock && span.start_known;
}

void kt_cli_print_traffic(kt_machine *m, const kt_counters *k)
{
    uint64_t cycles;
    bool clock = span_cycles(m, &cycles);
    char line[256];
    kt_counters_format(k, line, sizeof line);
    if (sim_config(m))
        printf("transport: %s; %" PRIu64 " mesh cycles\n", line, cycles);
    else if (clock)
        printf("transport (%s): %s; %" PRIu64 " mesh cycles\n", kt_machine_kind(m), line, cycles);
    else
        printf("transport (%s): %s\n", kt_machine_kind(m), line);
}

void kt_cli_json_traffic(cJSON *doc, kt_machine *m, const kt_counters *k)
{
    uint64_t cycles, bytes = k->bytes_read + k->bytes_written;
    bool clock = span_cycles(m, &cycles);
    json_u64(doc, "transactions", kt_counters_transactions(k));
    json_u64(doc, "bytes", bytes);
    cJSON *t = json_obj(doc, "transport");
    json_u64(t, "transactions", kt_counters_transactions(k));
    json_u64(t, "bytes", bytes);
    json_u64(t, "reads", k->reads);
    json_u64(t, "writes", k->writes);
    json_u64(t, "block_reads", k->block_reads);
    json_u64(t, "block_writes", k->block_writes);
    json_u64(t, "bytes_read", k->bytes_read);
    json_u64(t, "bytes_written", k->bytes_written);
    if (clock) {
        json_u64(t, "cycles", cycles);
        json_u64(t, "span_start_cycle", span.start);
    } else {
        json_null(t, "cycles");
        json_null(t, "span_start_cycle");
    }
    const ktsim_config *sim = sim_config(m);
    if (sim) /* the preset's charge per host access; a real machine has its own clock */
        json_u64(t, "host_access_cycles", sim->host_access_cycles);
    else
        json_null(t, "host_access_cycles");
    json_str(t, "machine", kt_machine_kind(m));
}

void kt_cli_print_timing(kt_machine *m)
{
    const ktsim_config *sim = sim_config(m);
    if (!sim)
        return;
    printf("unit timing (cycles):");
    for (unsigned i = 0; i < sim->n_timing; i++) {
        const ktsim_unit_timing *t = &sim->timing[i];
        /* the keys are the unit type's own */
        const ktsim_unit_key *keys = ktsim_unit_timing_keys(t->kind);
        printf("%s %s", i ? ";" : "", t->kind);
        for (unsigned k = 0; keys && keys[k].name; k++)
            printf("%s %s %u", k ? "," : "", keys[k].name, t->value[k]);
    }
    printf("\n");
}

void kt_cli_json_timing(cJSON *doc, kt_machine *m)
{
    const ktsim_config *sim = sim_config(m);
    if (!sim) {
        json_null(doc, "unit_timing");
        return;
    }
    cJSON *all = json_obj(doc, "unit_timing");
    for (unsigned i = 0; i < sim->n_timing; i++) {
        const ktsim_unit_timing *t = &sim->timing[i];
        cJSON *row = json_obj(all, t->kind);
        const ktsim_unit_key *keys = ktsim_unit_timing_keys(t->kind);
        for (unsigned k = 0; keys && keys[k].name; k++)
            json_u64(row, keys[k].name, t->value[k]);
    }
}

int kt_cli_start(kt_cli *c, const char *cmd, const char *about, int argc, char **argv)
{
    const cli_opt verbose[] = {
        {.name = "--verbose",
         .kind = CLI_FLAG,
         .dest = &c->o.verbose,
         .help = "also read each unit's CU_STATUS, CU_COUNTERS and CU_DBG (decoded per CU_TYPE)"},
        CLI_END,
    };
    const cli_opt *tables[] = {kt_cli_rows(&c->o), kt_cli_discovery_rows(&c->o), verbose, NULL};
    cli_spec spec = {.cmd = cmd, .synopsis = "[options]", .about = about, .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    rc = kt_cli_open(c);
    return rc ? rc : -1;
}

int kt_cli_open(kt_cli *c)
{
    if (kt_cli_machine_open(&c->m, &c->o.m, 1, c->engine))
        return 1;
    const kt_board *b = kt_machine_board(c->m);
    kt_options opt = {0};
    opt.stage_flits = b->stage_flits;
    opt.reply_budget = c->o.reply_budget;
    opt.bitstream_current = b->bitstream_current; /* the board says which */
    if (kt_open(&c->dev, kt_machine_transport(c->m), kt_machine_ctrl_base(c->m, 0), &opt) !=
        NPK_OK) {
        int rc = cli_lib_error("kt: opening the control window");
        kt_cli_close(c);
        return rc;
    }
    return 0;
}

int kt_cli_close(kt_cli *c) { return kt_cli_machine_close(&c->m); }

void kt_cli_print_counts(kt_cli *c)
{
    kt_cli_print_traffic(c->m, &kt_machine_transport(c->m)->count);
}

void kt_cli_json_counts(cJSON *doc, kt_cli *c)
{
    kt_cli_json_traffic(doc, c->m, &kt_machine_transport(c->m)->count);
}

int kt_cli_unit_detail(kt_cli *c, const kt_unit *u, size_t n, cJSON *doc)
{
    cJSON *arr = doc ? json_arr(doc, "unit_detail") : NULL;
    if (!doc)
        printf("\nunits (coord type: CU_STATUS; CU_COUNTERS; CU_DBG)\n");
    for (size_t i = 0; i < n; i++) {
        uint64_t v[3];
        static const uint8_t index[3] = {KT_CU_STATUS, KT_CU_COUNTERS, KT_CU_DBG};
        for (int k = 0; k < 3; k++) {
            bool present = false;
            if (kt_ctrl_read(&c->dev, u[i].at, index[k], &v[k], &present) || !present) {
                if (!present)
                    npk_fail(NPK_EIO, "unit (%u,%u) did not answer CU_CTRL index %u", u[i].at.x,
                             u[i].at.y, index[k]);
                return cli_lib_error("kt");
            }
        }
        kt_cu_status st = kt_cu_status_decode(v[0]);
        kt_cu_counters k = kt_cu_counters_decode(v[1]);
        char dbg[160];
        kt_cu_dbg_describe(u[i].caps.type, v[2], dbg, sizeof dbg);
        if (doc) {
            cJSON *o = json_item(arr);
            json_u64(o, "x", u[i].at.x);
            json_u64(o, "y", u[i].at.y);
            json_str(o, "type", u[i].type_text);
            json_bool(o, "busy", st.busy);
            json_u64(o, "inst_space", st.inst_space);
            json_u64(o, "retired", k.retired);
            json_u64(o, "busy_cycles", k.busy_cycles);
            json_u64(o, "dbg", v[2]);
            json_str(o, "dbg_decoded", dbg);
        } else {
            printf("(%u,%u) %s: %s, inst_space %u; retired %u, busy_cycles %u; %s\n", u[i].at.x,
                   u[i].at.y, u[i].type_text, st.busy ? "busy" : "idle", st.inst_space, k.retired,
                   k.busy_cycles, dbg);
        }
    }
    return 0;
}
