/* SPDX-License-Identifier: MIT */
/* hello: the console and stdin. Prints a greeting, then how many bytes it read from stdin and
 * the bytes themselves (at most 64, all the queue holds).
 *
 * Exit word: 0. What it read is reported on the console, not in the exit word, which
 * `npukit kt rv64 run` turns into its exit status: a non-zero word reads as a failure. */
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
    return 0;
}
