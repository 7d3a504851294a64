/* `npukit demo`: a short tour of what npukit does, on the simulators. Each accelerator's
 * part lives in its own file (demo_rk.c, demo_kt.c). */
#include <stdio.h>

int demo_rk(void);
int demo_kt(void);

int demo_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("npukit demo: both accelerators, on their simulators\n\n");
    int rc = demo_rk();
    if (rc == 0)
        rc = demo_kt();
    return rc;
}
