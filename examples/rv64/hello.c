/* SPDX-License-Identifier: MIT */
/* hello: the console and the exit word. Prints a greeting and what it read from stdin, and
 * exits with the number of stdin bytes plus 0x100. */
#include <stdio.h>

#include "rt.h"

int main(void)
{
    printf("hello from the RV64 complex\n");
    int n = 0, c;
    char line[65];
    while ((c = rt_getc()) >= 0 && n < 64)
        line[n++] = (char)c;
    line[n] = '\0';
    printf("stdin: %d bytes: %s\n", n, line);
    return 0x100 + n;
}
