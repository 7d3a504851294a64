/* Shared plumbing of `npukit kt move`, `kt link`, `kt prog` and `kt saxpy --engine`. */
#include "kt_card_cli.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npukit/kt_interlink_hw.h"

const cli_opt *kt_card_cli_rows(kt_card_cli *c)
{
    const cli_opt rows[2] = {
        {.name = "--meshes", .kind = CLI_UINT, .dest = &c->meshes, .min = 1,
         .max = KT_IL_MAX_MESHES, .given = &c->meshes_given, .meta = "K",
         .help = "meshes on the simulated card"},
        CLI_END,
    };
    memcpy(c->rows, rows, sizeof rows);
    return c->rows;
}

int kt_card_cli_open(kt_card_cli *c)
{
    ktsim_card_opts o = {c->meshes ? c->meshes : 1, false, c->engine, 0, 0, 0};
    if (ktsim_card_open_preset(c->o.preset ? c->o.preset : "default", c->o.prestrobe, &o, &c->card) != NPK_OK)
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
    kt_cli_print_traffic(&c->t->count, ktsim_card_cycle(c->card), c->o.json);
}

bool kt_card_cli_report_fault(const kt_card_cli *c, const char *cmd)
{
    const char *f = ktsim_card_fault(c->card);
    if (f)
        fprintf(stderr, "npukit %s: simulator: %s\n", cmd, f);
    return f != NULL;
}
