/* SPDX-License-Identifier: MIT */
/* Over-dispatch: 24 saxpy instructions to one unit whose instruction FIFO holds 8, without
 * keeping credit (raw mailbox stores), then wait for every completion. The surplus instructions
 * back up into the mesh in front of the unit, where they block the memory responses the unit
 * needs to finish: the mesh deadlocks and the program waits forever. */
#include "rt.h"

enum { SENT = 24, CHUNK = 64 };

int main(void)
{
    for (unsigned i = 0; i < SENT; i++) {
        while (rt_read(KT_RV64_M_STAT) & KT_RV64_MSTAT_OFFERED)
            ;
        rt_write(KT_RV64_M_DST, (1u << 8) | 1u);
        rt_write(KT_RV64_M_ARG1, 0x200000 + i * CHUNK * 4);
        rt_write(KT_RV64_M_ARG2, 0x100000 + i * CHUNK * 4);
        rt_write(KT_RV64_M_ARG3, (1ull << 56) | ((uint64_t)CHUNK << 32) | 0x40000000u);
        rt_write(KT_RV64_M_GO, 1);
    }
    rt_puts("dispatched\n");
    unsigned done = 0;
    while (done < SENT)
        if (rt_read(KT_RV64_M_STAT) & KT_RV64_MSTAT_QUEUED) {
            rt_write(KT_RV64_M_HEAD, 0);
            done++;
        }
    return 0;
}
