/* SPDX-License-Identifier: MIT */
/* The KohakuTPU part of `npukit demo`: each step is a kt command line run as written, with a
 * title saying what it shows and what the control plane costs in transport transactions. */
#include <stdio.h>

#include "cmds.h"

typedef struct demo_step {
    const char *title;
    int (*run)(int argc, char **argv);
    char *argv[8]; /* NULL-terminated; argv[0] is the subcommand */
} demo_step;

static const demo_step steps[] = {
    {"enumerate the default simulated mesh over the mailbox", kt_enum_main, {"enum"}},
    {"saxpy (n=1000) staged, dispatched with credit, checked in DRAM",
     kt_saxpy_main,
     {"saxpy", "-n", "1000"}},
    {"the same on a pre-strobe bitstream (same driver, same sequence)",
     kt_saxpy_main,
     {"saxpy", "-n", "1000", "--prestrobe"}},
    {"memory mover, a 64-word copy through AUX_CFG, checked in DRAM",
     kt_move_main,
     {"move", "copy", "--words", "64"}},
    {"generate into mesh 2 of a three-mesh card: over the interlink, doorbell after the data",
     kt_move_main,
     {"move", "generate", "--dst-mesh", "2", "--words", "32"}},
    {"the saxpy (n=1000) as one host control program in the engine",
     kt_saxpy_main,
     {"saxpy", "-n", "1000", "--engine", "--wait-cycles", "500"}},
};

int demo_kt(void)
{
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        printf("%s== KohakuTPU: %s\n", i ? "\n" : "", steps[i].title);
        char *argv[8];
        int argc = 0;
        while (steps[i].argv[argc]) {
            argv[argc] = steps[i].argv[argc];
            argc++;
        }
        argv[argc] = NULL;
        int rc = steps[i].run(argc, argv);
        if (rc)
            return rc;
    }
    return 0;
}
