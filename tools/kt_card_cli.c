/* SPDX-License-Identifier: MIT */
/* Shared plumbing of `npukit kt move`, `kt link`, `kt prog` and `kt saxpy --engine`. */
#include "kt_card_cli.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kt/hw/kt_interlink_hw.h"

const cli_opt *kt_card_cli_rows(kt_card_cli *c)
{
    const cli_opt rows[2] = {
        {.name = "--meshes",
         .kind = CLI_UINT,
         .dest = &c->meshes,
         .min = 1,
         .max = KT_IL_MAX_MESHES,
         .given = &c->meshes_given,
         .meta = "K",
         .help = "meshes on the simulated card"},
        CLI_END,
    };
    memcpy(c->rows, rows, sizeof rows);
    return c->rows;
}

int kt_card_cli_open(kt_card_cli *c)
{
    if (kt_cli_machine_open(&c->m, &c->o.m, c->meshes, c->engine))
        return 1;
    c->t = kt_machine_transport(c->m);
    return 0;
}

int kt_card_cli_close(kt_card_cli *c) { return kt_cli_machine_close(&c->m); }

void kt_card_cli_print_counts(kt_card_cli *c) { kt_cli_print_traffic(c->m, &c->t->count); }

void kt_card_cli_json_counts(cJSON *doc, kt_card_cli *c)
{
    kt_cli_json_traffic(doc, c->m, &c->t->count);
}

bool kt_card_cli_report_fault(kt_card_cli *c, const char *cmd)
{
    char f[512];
    bool got = kt_machine_fault(c->m, f, sizeof f);
    if (got)
        fprintf(stderr, "npukit %s: %s: %s\n", cmd, kt_machine_sim(c->m) ? "simulator" : "machine",
                f);
    return got;
}
