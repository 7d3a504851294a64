/* SPDX-License-Identifier: MIT */
/* The RK NPU timing model: a modelled hardware duration for jobs, tasks and operations. It is
 * a MODEL built from published figures, not a measurement. Every number it uses is a field of
 * the SoC row it is given (rk_soc.h: clock, job floor, task cost, DMA rate, MAC efficiencies,
 * each with its source; NULL: the default row), so the planner's estimates and the simulator's
 * hw_elapse_time come from one place. The MAC peak per cycle is the precision row's
 * macs_per_cycle (rk_types.h). */
#ifndef NPUKIT_RK_TIMING_H
#define NPUKIT_RK_TIMING_H

#include <stdint.h>

#include "npukit/rk_soc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The row's NPU clock in Hz. */
double npk_rk_time_clock_hz(const npk_rk_soc *soc);
/* The row's per-job floor (us): every SUBMIT pays it once. */
double npk_rk_time_job_floor_us(const npk_rk_soc *soc);
/* The row's cost of each further task chained into a job (us): the PC fetch of its body. */
double npk_rk_time_task_step_us(const npk_rk_soc *soc);
/* Achieved fraction of the MAC peak for a matmul input precision (0 for any other value). */
double npk_rk_time_mac_efficiency(const npk_rk_soc *soc, int in_prec);

/* Modelled duration of one SDP task (us): the DPU_RDMA streams the feature and the operand in
 * while the WDMA streams the output out, each at the row's DMA rate; reads and writes use the
 * bus's separate channels, so the slower stream decides. Checked against the spec's per-channel
 * path ("Per-channel-scaled fp16 matmul": ~40-110 us flat across N = 64..2048 at M = 64, submit
 * floor included): M=64, N=2048 fp16 reads 260 KiB, 31 us + the 54 us floor on RK3588. */
double npk_rk_time_sdp_us(const npk_rk_soc *soc, double read_bytes, double write_bytes);

/* Modelled duration of one matmul operation (us): the MAC array's time plus the DMA's, at the
 * row's clock or at clock_hz (a clock the simulator was set to; the DMA rate does not follow
 * the NPU clock). The two are not overlapped: at a fraction of the MAC peak "the bottleneck is
 * DMA and dispatch, not MACs" (greg, facts G), so an operation that streams its weights for
 * few rows pays the stream. */
double npk_rk_time_matmul_us(const npk_rk_soc *soc, int in_prec, uint64_t m, uint64_t k, uint64_t n,
                             double in_bytes, double out_bytes);
double npk_rk_time_matmul_us_at(const npk_rk_soc *soc, double clock_hz, int in_prec, uint64_t m,
                                uint64_t k, uint64_t n, double in_bytes, double out_bytes);

/* One task submitted alone (the job floor, the task, its operation) for a synthesized
 * mp x kp x np matmul of input `in` and output `out`: what a plan's task costs. */
double npk_rk_time_task_us(const npk_rk_soc *soc, int in_prec, int out_prec, uint32_t mp,
                           uint32_t kp, uint32_t np);
double npk_rk_time_task_us_at(const npk_rk_soc *soc, double clock_hz, int in_prec, int out_prec,
                              uint32_t mp, uint32_t kp, uint32_t np);
/* The same task without the job floor: what it adds to a job that already pays the floor
 * (chained forms charge the floor once per job of up to --chain tasks). */
double npk_rk_time_task_body_us(const npk_rk_soc *soc, int in_prec, int out_prec, uint32_t mp,
                                uint32_t kp, uint32_t np);

#ifdef __cplusplus
}
#endif
#endif
