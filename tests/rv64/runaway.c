/* SPDX-License-Identifier: MIT */
/* A program that never exits: prints once, then spins. The host's timeout must stop it. */
#include "rt.h"

int main(void)
{
    rt_puts("spinning\n");
    volatile uint64_t n = 0;
    for (;;)
        n++;
}
