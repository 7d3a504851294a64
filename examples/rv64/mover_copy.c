/* SPDX-License-Identifier: MIT */
/* mover_copy: a move commanded through the control region, with the ordering a producer owes a
 * consumer on another mesh: the writes, then the mover idle, then the ring.
 *
 * The program first has the mover GENERATE a source block in card memory (its Philox pattern,
 * keyed by SEED; the host put nothing there), then COPY it to the destination. Both are
 * commanded one register per store through the mover window at 0x80, which reaches mover
 * registers 0x00-0x3F only: COPY, GENERATE and XFORM can be configured from here, FILL's
 * immediate (0x40) and GATHER's pitch (0x50) cannot. After each move it polls the mover status
 * at 0x20 until busy drops, and only then rings mesh RING_MESH through the interlink window
 * (0xD0): the interlink's arbiter does not order a ring behind a queued write, so the poll is
 * the fence. With no interlink on the machine the ring goes nowhere (0x28 reads zero).
 *
 * The moves-completed count at 0x20 runs on across programs, so the program compares its
 * growth with the two moves it made; the console line reports it ("2 moves done").
 *
 * Exit word: 0 when both moves completed without a fault and the count grew by exactly 2;
 * EXIT_GENERATE (0x100) or EXIT_COPY (0x200) + the fault code when that move faulted;
 * EXIT_COUNT (0x300) + the growth when the count grew by another number. */
#include <stdio.h>

#include "rt.h"

enum { WORDS = 64, MOVES = 2, RING_MESH = 1, RING_TAG = 0x5C };
static const uint64_t SRC = 0x40000, DST = 0x80000, SEED = 0x243F6A8885A308D3ull;

/* Mover register words (control-registers §3). */
enum {
    MV_CTRL = 0x00,
    MV_HDR = 0x10,
    MV_DIM = 0x18,
    MV_AXIS = 0x20,
    MV_WINDOW = 0x28,
    MV_SEED = 0x38
};
enum { MODE_COPY = 0, MODE_GENERATE = 3, WIDTH_32 = 2, WORD_BYTES = 32 };
/* Failure exit words; success is 0. */
enum { EXIT_GENERATE = 0x100, EXIT_COPY = 0x200, EXIT_COUNT = 0x300 };

static void mv(unsigned reg, uint64_t value) { rt_write(KT_RV64_R_MOVER_CFG + reg, value); }

/* One walker: a single dimension of `words` contiguous 32-byte words at `base`, no bound axes.
 * HDR commits at once; DIM stages dimension 0, AXIS commits it; both windows are written since
 * they persist from move to move. */
static void walker(unsigned sel, uint64_t base, unsigned words)
{
    mv(MV_HDR, sel | base << 4 | 1ull << 44); /* ndim 1 */
    mv(MV_DIM, sel | 0u << 1 | (uint64_t)words << 4 | (uint64_t)WORD_BYTES << 20);
    mv(MV_AXIS, 0);               /* no bound axis */
    mv(MV_WINDOW, sel | 0u << 1); /* axis 0: extent 0, off */
    mv(MV_WINDOW, sel | 1u << 1); /* axis 1: off */
}

static void go(unsigned mode) { mv(MV_CTRL, mode | WIDTH_32 << 3 | 1u << 16); }

/* Poll 0x20 until the mover is idle; its fault code, 0 for none. */
static unsigned wait_idle(void)
{
    uint64_t st;
    while ((st = rt_read(KT_RV64_R_MOVER)) & KT_RV64_MOVER_BUSY)
        ;
    return (unsigned)(st >> KT_RV64_MOVER_FAULT_SHIFT) & 0xf;
}

static uint64_t moves_done(void) { return rt_read(KT_RV64_R_MOVER) & KT_RV64_MOVER_DONE_MASK; }

int main(void)
{
    uint64_t before = moves_done();
    walker(0, DST, WORDS); /* GENERATE reads nothing; the source walker is still written */
    walker(1, SRC, WORDS);
    mv(MV_SEED, SEED);
    go(MODE_GENERATE);
    unsigned fault = wait_idle();
    if (fault) {
        printf("mover_copy: GENERATE faulted, code %u\n", fault);
        return EXIT_GENERATE + (int)fault;
    }
    walker(0, SRC, WORDS);
    walker(1, DST, WORDS);
    go(MODE_COPY);
    fault = wait_idle(); /* the fence: every write of the copy has its response */
    if (fault) {
        printf("mover_copy: COPY faulted, code %u\n", fault);
        return EXIT_COPY + (int)fault;
    }
    rt_write(KT_RV64_R_ILINK_RING, RING_MESH | RING_TAG << 8);
    unsigned done = (unsigned)((moves_done() - before) & KT_RV64_MOVER_DONE_MASK);
    printf("mover_copy: generated %u words at 0x%llx (seed 0x%llx), copied them to 0x%llx, "
           "%u moves done, then rang mesh %u (tag 0x%x)\n",
           WORDS, (unsigned long long)SRC, (unsigned long long)SEED, (unsigned long long)DST, done,
           RING_MESH, RING_TAG);
    return done == MOVES ? 0 : EXIT_COUNT + (int)done;
}
