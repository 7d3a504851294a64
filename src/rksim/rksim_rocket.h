/* SPDX-License-Identifier: MIT */
/* rksim's second front end: the mainline `rocket` accel driver's interface (rocket_uapi.h)
 * over the same simulated cores, memory and hazards as the rknpu front end.
 *
 * What the model does, per request (facts A.2):
 *   - every open is a file, one scheduler entity: its jobs run in submission order, each job's
 *     tasks in order on one core. The kernel's scheduler picks that core; the model binds a
 *     file to one core for its life (the first file core 0, the next core 1, ...), which is
 *     what driving N cores through N files amounts to;
 *   - CREATE_BO: a buffer at its own page-aligned 32-bit IOVA (the rknpu front end's
 *     allocator), coherent (no CPU-cache model: rocket's PREP_BO / FINI_BO do the cache
 *     maintenance); GEM_CLOSE releases it. Handles are shared by the files of one simulator;
 *   - SUBMIT executes each task as its own PC kick (TASK_NUMBER 1, INTERRUPT_MASK 0x300: the
 *     program's trailer does not chain tasks), then returns; a job that wedges or faults is
 *     ended by the kernel's 500 ms timeout (scaled like the rknpu timeouts), which resets the
 *     core and drops the job's remaining tasks. User space only sees its buffers' fences
 *     signal: like the kernel, the model reports no job error through the interface;
 *   - a task the model cannot run (a register combination it refuses to guess about) is
 *     answered as the likeliest outcome on the hardware, a job that never completes: SUBMIT
 *     returns 0 and the fences signal at the job timeout (EOPNOTSUPP, which rocket never
 *     returns, is not answered); rksim_last_report() says "unsupported" and names the register;
 *   - PREP_BO waits for the fences of the jobs using the buffer until the ABSOLUTE
 *     CLOCK_MONOTONIC time timeout_ns: 0 once idle, EBUSY when busy and the time has already
 *     passed, ETIMEDOUT when it passes while waiting; FINI_BO checks the handle;
 *   - a program whose op-enable is 0x0D (no DPU_RDMA block) runs as on rknpu; whether it
 *     hangs on a board under rocket is an open question (facts J.5, docs/rk-simulator.md).
 */
#ifndef NPUKIT_RKSIM_ROCKET_H
#define NPUKIT_RKSIM_ROCKET_H

#include "npukit/rksim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Open a file of the rocket interface: its id (>= 0) or a negative errno. */
int rksim_rocket_open(rksim *sim);
/* Close a file (its buffers stay: handles are shared). */
void rksim_rocket_close(rksim *sim, int file);
/* One request on a file: DRM_IOCTL_VERSION, GEM_CLOSE or a rocket request, with the DRM core's
 * struct-size rule. 0 or a negative errno. mmap of a CREATE_BO offset is rksim_mmap(). */
int rksim_rocket_ioctl(rksim *sim, int file, unsigned long request, void *arg);
/* The core a file's jobs run on. */
unsigned rksim_rocket_core(const rksim *sim, int file);

#ifdef __cplusplus
}
#endif
#endif
