/* SPDX-License-Identifier: MIT */
/* rksim's second front end: the mainline `rocket` accel driver's interface (rocket_uapi.h)
 * over the same simulated cores, memory and hazards as the rknpu front end.
 *
 * What the model does, per request (facts A.2):
 *   - every open is a file (mainline rocket_drv.c rocket_open), with its own GEM handles, its
 *     own IOMMU domain and one scheduler entity over every core's scheduler (rocket_job.c
 *     rocket_job_open). A file's jobs run in submission order, each job's tasks in order on
 *     one core, which the kernel picks: while the file's last job runs, the same core (the
 *     entity's queue); once it has ended, the least-loaded core (drm_sched: an idle one, the
 *     lowest numbered first; with every core busy, the one that frees first). So N files
 *     drive N cores, and one file one core at a time. "Runs" and "ended" are on the model's
 *     timeline: a job lasts its modelled time from its start, and the timeline advances to a
 *     job's end when user space waits for it (PREP_BO), so jobs submitted without a wait
 *     between them overlap as on the NPU, whatever the host's own speed;
 *   - CREATE_BO: a buffer at its own page-aligned 32-bit IOVA (the rknpu front end's
 *     allocator), coherent (no CPU-cache model: rocket's PREP_BO / FINI_BO do the cache
 *     maintenance), mapped in the creating file's domain only: another file's handle names
 *     nothing (GEM_CLOSE EINVAL, PREP_BO / FINI_BO / SUBMIT ENOENT) and a job's DMA to another
 *     file's buffer faults (each file's domain is a 4 GiB IOVA space of its own, as the
 *     kernel's: two files hand out the same addresses); GEM_CLOSE releases it, and closing the
 *     file its buffers;
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
/* Close a file: its handles close with it (a CPU view still mapped stays until unmapped). */
void rksim_rocket_close(rksim *sim, int file);
/* One request on a file: DRM_IOCTL_VERSION, GEM_CLOSE or a rocket request, with the DRM core's
 * struct-size rule. 0 or a negative errno. mmap of a CREATE_BO offset is rksim_mmap(). */
int rksim_rocket_ioctl(rksim *sim, int file, unsigned long request, void *arg);
/* The core the file's last job ran on (the kernel's choice; 0 before its first). */
unsigned rksim_rocket_core(const rksim *sim, int file);

#ifdef __cplusplus
}
#endif
#endif
