/* SPDX-License-Identifier: MIT */
/* The clock the matmul's host parts (npk_rk_stats: synth, pack, sync, accumulate) are timed
 * on: the wall clock, or with NPUKIT_RK_HOST_CLOCK=thread each part's CPU time on its own
 * thread.
 *
 * Why a thread clock: the parts run on the cores' threads while the other cores' jobs are
 * being computed, by the simulator on the same CPUs or by a busy machine, so their wall time
 * holds every wait for a CPU. On a board the NPU computes and the parts have the host's cores
 * to themselves. Their CPU time is what they cost there, whatever else ran here. It is opt-in
 * because each reading is a system call (a wall-clock reading is not): about 0.5-4 µs on this
 * virtual machine, several per task, a cost a decode-sized call would feel. */
#ifndef NPUKIT_RK_PART_CLOCK_H
#define NPUKIT_RK_PART_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Now, in nanoseconds, on the parts' clock (differences only mean something within one
 * thread when it is the thread clock). */
uint64_t npk_rk_part_now(void);
/* Whether the parts' clock is the wall clock (their spans can then go on the trace). */
bool npk_rk_part_clock_wall(void);

#endif
