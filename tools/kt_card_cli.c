/* Shared plumbing of `npukit kt move` and `npukit kt saxpy --engine`. */
#include "kt_card_cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int kt_card_cli_option(kt_card_cli *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--sim")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        c->preset = v;
        return 1;
    }
    if (!strcmp(a, "--prestrobe")) {
        c->prestrobe = true;
        return 1;
    }
    if (!strcmp(a, "--json")) {
        c->json = true;
        return 1;
    }
    if (!strcmp(a, "--meshes")) {
        const char *v = cli_value(argc, argv, i);
        int k;
        if (!v || !cli_int("--meshes", v, 1, 4, &k))
            return -1;
        c->meshes = (unsigned)k;
        return 1;
    }
    return 0;
}

int kt_card_cli_open(kt_card_cli *c)
{
    ktsim_card_opts o = {c->meshes ? c->meshes : 1, false, c->engine, 0, 0, 0};
    if (ktsim_card_open_preset(c->preset ? c->preset : "default", c->prestrobe, &o, &c->card) != NPK_OK)
        return cli_lib_error("kt");
    c->t = ktsim_card_transport(c->card);
    return 0;
}

void kt_card_cli_close(kt_card_cli *c)
{
    ktsim_card_destroy(c->card);
    c->card = NULL;
}

void kt_card_cli_print_counts(const kt_card_cli *c)
{
    const kt_counters *k = &c->t->count;
    uint64_t bytes = k->bytes_read + k->bytes_written;
    if (c->json) {
        printf("\"transactions\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"transport\": {\"transactions\": %" PRIu64
               ", \"bytes\": %" PRIu64 ", \"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"block_reads\": %" PRIu64
               ", \"block_writes\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64
               ", \"cycles\": %" PRIu64 "}",
               kt_counters_transactions(k), bytes, kt_counters_transactions(k), bytes, k->reads, k->writes,
               k->block_reads, k->block_writes, k->bytes_read, k->bytes_written, ktsim_card_cycle(c->card));
    } else {
        char line[256];
        kt_counters_format(k, line, sizeof line);
        printf("transport: %s; %" PRIu64 " mesh cycles\n", line, ktsim_card_cycle(c->card));
    }
}

bool kt_card_cli_report_fault(const kt_card_cli *c, const char *cmd)
{
    const char *f = ktsim_card_fault(c->card);
    if (f)
        fprintf(stderr, "npukit %s: simulator: %s\n", cmd, f);
    return f != NULL;
}
