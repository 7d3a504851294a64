/* The mover / interlink / engine part of the KohakuTPU demo: a checked copy, a move across the
 * interlink with its doorbell rung after the data, and the saxpy as one engine program. */
#include <stdio.h>

int kt_move_main(int argc, char **argv);
int kt_saxpy_main(int argc, char **argv);

int demo_kt_mover(void)
{
    printf("\n== KohakuTPU: memory mover, a 64-word copy through AUX_CFG, checked in DRAM\n");
    char *copy_argv[] = {"move", "copy", "--words", "64", NULL};
    int rc = kt_move_main(4, copy_argv);
    if (rc)
        return rc;
    printf("\n== KohakuTPU: generate into mesh 2 of a three-mesh card: over the interlink, doorbell after the data\n");
    char *far_argv[] = {"move", "generate", "--dst-mesh", "2", "--words", "32", NULL};
    if ((rc = kt_move_main(6, far_argv)))
        return rc;
    printf("\n== KohakuTPU: the saxpy (n=1000) as one host control program in the engine\n");
    char *eng_argv[] = {"saxpy", "-n", "1000", "--engine", "--wait-cycles", "500", NULL};
    return kt_saxpy_main(6, eng_argv);
}
