/* The KohakuTPU part of `npukit demo`: enumerate the default preset's mesh, run a saxpy on it,
 * and show what the control plane cost in transport transactions. */
#include <stdio.h>

int kt_enum_main(int argc, char **argv);
int kt_saxpy_main(int argc, char **argv);
int demo_kt_mover(void); /* kt_demo_mover.c */

int demo_kt(void)
{
    printf("== KohakuTPU: enumerate the default simulated mesh over the mailbox\n");
    char *enum_argv[] = {"enum", NULL};
    int rc = kt_enum_main(1, enum_argv);
    if (rc)
        return rc;
    printf("\n== KohakuTPU: saxpy (n=1000) staged, dispatched with credit, checked in DRAM\n");
    char *saxpy_argv[] = {"saxpy", "-n", "1000", NULL};
    rc = kt_saxpy_main(3, saxpy_argv);
    if (rc)
        return rc;
    printf("\n== KohakuTPU: the same on a pre-strobe bitstream (same driver, same sequence)\n");
    char *pre_argv[] = {"saxpy", "-n", "1000", "--prestrobe", NULL};
    if ((rc = kt_saxpy_main(4, pre_argv)))
        return rc;
    return demo_kt_mover();
}
