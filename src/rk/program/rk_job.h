/* SPDX-License-Identifier: MIT */
/* A job: tasks of any operations chained in one task buffer, submitted once (facts B.3). */
#ifndef NPUKIT_RK_JOB_H
#define NPUKIT_RK_JOB_H

#include <stdint.h>

#include "npukit/status.h"
#include "rk_op_synth.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a task buffer for a job of `count` tasks: the rknpu_task records from offset 0, then
 * one program slot per task (the largest body of any operation plus the trailer) from a 64-byte
 * boundary (PC_SOURCE_ADDR needs 16). */
uint64_t npk_rk_job_bytes(uint32_t count);
/* Offset of task i's program in such a buffer. */
uint64_t npk_rk_job_program_offset(uint32_t count, uint32_t i);
/* Bytes of the task buffer of these tasks: npk_rk_job_bytes(count) unless a task's body is
 * longer than the fixed slot (an SDP task with a LUT), which takes a longer slot. */
uint64_t npk_rk_job_bytes_of(const npk_rk_job_task *tasks, uint32_t count);

/* Synthesize the job into a task buffer (host view `host`, NPU address `iova`, `size` bytes):
 * the task records (each with its operation's op-enable and interrupt mask, rk/hw/rk_ops.def), the
 * programs, and the trailers chaining each to the next. A task behind another
 * is held to its operation's fusion rule (e.g. npk_rk_sdp_chain_check) unless it is unchecked.
 * An operation without a driver row is refused by name. */
npk_status npk_rk_job_write(void *host, uint32_t iova, uint64_t size, const npk_rk_job_task *tasks,
                            uint32_t count);

#ifdef __cplusplus
}
#endif
#endif
