/* Shared plumbing of `npukit kt move`, `kt link`, `kt prog` and `kt saxpy --engine`. */
#include "kt_card_cli.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

int kt_card_cli_option(kt_card_cli *c, int argc, char **argv, int *i)
{
    int r = kt_cli_opts_parse(&c->o, argc, argv, i);
    if (r)
        return r;
    if (!strcmp(argv[*i], "--meshes")) {
        const char *v = cli_value(argc, argv, i);
        int k;
        if (!v || !cli_int("--meshes", v, 1, 4, &k))
            return -1;
        c->meshes = (unsigned)k;
        c->meshes_given = true;
        return 1;
    }
    return 0;
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
