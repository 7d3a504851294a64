/* Shared plumbing of the `npukit kt` subcommands. */
#include "kt_cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const cli_opt *kt_cli_rows(kt_cli_opts *o)
{
    const cli_opt rows[KT_CLI_ROWS + 1] = {
        {.name = "--sim", .kind = CLI_STR, .dest = &o->preset, .meta = "PRESET",
         .help = "the simulated mesh: a preset name (data/kt) or a .mesh file (default: default)"},
        {.name = "--prestrobe", .kind = CLI_FLAG, .dest = &o->prestrobe,
         .help = "simulate the bitstream before the staging write-strobe fix"},
        {.name = "--json", .kind = CLI_FLAG, .dest = &o->json, .help = "machine-readable output"},
        CLI_END,
    };
    memcpy(o->rows, rows, sizeof rows);
    return o->rows;
}

void kt_cli_print_traffic(const kt_counters *k, uint64_t cycles, bool json)
{
    uint64_t bytes = k->bytes_read + k->bytes_written;
    if (json) {
        printf("\"transactions\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"transport\": {\"transactions\": %" PRIu64
               ", \"bytes\": %" PRIu64 ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"block_reads\": %" PRIu64
               ", \"block_writes\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64
               ", \"cycles\": %" PRIu64 "}",
               kt_counters_transactions(k), bytes, kt_counters_transactions(k), bytes, k->reads, k->writes,
               k->block_reads, k->block_writes, k->bytes_read, k->bytes_written, cycles);
    } else {
        char line[256];
        kt_counters_format(k, line, sizeof line);
        printf("transport: %s; %" PRIu64 " mesh cycles\n", line, cycles);
    }
}

int kt_cli_start(kt_cli *c, const char *cmd, const char *about, int argc, char **argv)
{
    const cli_opt *tables[] = {kt_cli_rows(&c->o), NULL};
    cli_spec spec = {.cmd = cmd, .synopsis = "[options]", .about = about, .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    rc = kt_cli_open(c);
    return rc ? rc : -1;
}

int kt_cli_open(kt_cli *c)
{
    ktsim_config cfg;
    if (ktsim_preset_load(c->o.preset ? c->o.preset : "default", &cfg) != NPK_OK)
        return cli_lib_error("kt");
    if (c->o.prestrobe)
        cfg.gen = KTSIM_GEN_PRESTROBE;
    if (ktsim_create(&cfg, &c->sim) != NPK_OK)
        return cli_lib_error("kt");
    kt_options opt = {0};
    opt.stage_flits = cfg.stage_flits;
    if (kt_open(&c->dev, ktsim_transport(c->sim), cfg.ctrl_base, &opt) != NPK_OK) {
        int rc = cli_lib_error("kt: opening the control window");
        kt_cli_close(c);
        return rc;
    }
    return 0;
}

void kt_cli_close(kt_cli *c)
{
    ktsim_destroy(c->sim);
    c->sim = NULL;
}

void kt_cli_print_counts(const kt_cli *c)
{
    kt_cli_print_traffic(&ktsim_transport(c->sim)->count, ktsim_cycle(c->sim), c->o.json);
}
