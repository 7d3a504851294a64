/* `npukit demo`: a short tour of what npukit does, on the simulators. */
#include <stdio.h>

int demo_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("npukit demo\n");
    return 0;
}
