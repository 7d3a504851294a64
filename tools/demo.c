/* SPDX-License-Identifier: MIT */
/* `npukit demo`: a short tour of what npukit does, on the simulators. Each accelerator's
 * part lives in its own file (demo_rk.c, demo_kt.c). */
#include <stdio.h>

#include "cli.h"

int demo_rk(void);
int demo_kt(void);

int demo_main(int argc, char **argv)
{
    const cli_opt *tables[] = {NULL};
    cli_spec spec = {.cmd = "demo",
                     .synopsis = "",
                     .about = "a short tour of both accelerators on their simulators",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    printf("npukit demo: both accelerators, on their simulators\n\n");
    rc = demo_rk();
    if (rc == 0)
        rc = demo_kt();
    return rc;
}
