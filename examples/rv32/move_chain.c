/* SPDX-License-Identifier: MIT */
/* A move chain from the RV32 control processor: FILL 64 words at A with the kick's argument,
 * COPY A to B, COPY B to C — three descriptors built in the scratchpad and issued with one
 * store to MVGO each, back to back: each store waits for the move before it, so the chain runs
 * in program order with no polling in between. Then the node word is read until idle and the
 * program reports through it: the halt word (ECALL's a0) is 0 when every move ended without a
 * fault, 0x100 + the mover's fault code, or 0x200 + the occupant's. The host checks C. */
#include "rt.h"

#define A 0x100000u
#define B 0x140000u
#define C 0x180000u
#define WORDS 64u

static rv32_desc chain[3];

int main(void)
{
    uint32_t pattern = rv32_ctl(KT_RV32_CTL_ARG);
    rv32_desc_fill(&chain[0], A, WORDS, pattern);
    rv32_desc_copy(&chain[1], B, A, WORDS);
    rv32_desc_copy(&chain[2], C, B, WORDS);
    for (unsigned i = 0; i < 3; i++)
        rv32_mvgo(&chain[i]);
    uint32_t node = rv32_node_wait_idle();
    if (rv32_node_mover_fault(node))
        return (int)(0x100 + rv32_node_mover_fault(node));
    if (rv32_node_occ_fault(node))
        return (int)(0x200 + rv32_node_occ_fault(node));
    return 0;
}
