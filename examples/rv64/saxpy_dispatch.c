/* SPDX-License-Identifier: MIT */
/* A saxpy dispatcher: y = a*x + y over 1024 floats in card memory, cut into 64-element saxpy
 * instructions dispatched through the mailbox to the two saxpy units, keeping each unit's
 * credit from its inst_depth (the hardware keeps none), collecting completions from M_HEAD and
 * checking the queue's overflow bit. The host stages nothing; it only provides x and y in card
 * memory (with `npukit kt rv64 run`: --dram-in, and --dram-out to read y back).
 *
 * Exit word: 0 when every instruction completed without a fault; else the number that
 * completed with SIG_FAULT, plus 1000 when the queue overflowed (completions were lost). */
#include <stdio.h>

#include "rt.h"

enum { N = 1024, CHUNK = 64, INSTS = N / CHUNK, INST_DEPTH = 8, SX_OP = 0x01 };
static const uint64_t X_ADDR = 0x100000, Y_ADDR = 0x200000;
static const uint32_t A_BITS = 0x40000000u; /* 2.0f */

int main(void)
{
    rt_node units[2];
    rt_node_init(&units[0], 1, 1, INST_DEPTH);
    rt_node_init(&units[1], 2, 1, INST_DEPTH);
    unsigned sent = 0, done = 0, faults = 0;
    uint64_t word;
    while (done < INSTS) {
        if (sent < INSTS) {
            rt_node *u = &units[sent % 2];
            uint64_t off = (uint64_t)sent * CHUNK * 4;
            /* [255:248] op, [247:224] n, [223:192] a, [191:128] x, [127:64] y */
            uint64_t a3 = ((uint64_t)SX_OP << 56) | ((uint64_t)CHUNK << 32) | A_BITS;
            if (rt_dispatch(u, 0, Y_ADDR + off, X_ADDR + off, a3)) {
                sent++;
                continue;
            }
        }
        if (rt_complete(units, 2, &word)) {
            done++;
            if (KT_RV64_CQ_CODE(word) == 0x04) /* SIG_FAULT */
                faults++;
        }
    }
    bool lost = rt_mbox_overflowed();
    printf("saxpy: %u instructions dispatched, %u completed, %u faults%s\n", sent, done, faults,
           lost ? ", completions LOST (queue overflow)" : "");
    return faults + (lost ? 1000 : 0);
}
