/* SPDX-License-Identifier: MIT */
/* The RK NPU timing model: a modelled hardware duration for jobs, tasks and operations. It is
 * a MODEL built from published figures, not a measurement; every constant names its source in
 * the fact sheet (facts G unless noted). The simulator reports it as hw_elapse_time and the
 * planner compares plans with it. */
#ifndef NPUKIT_RK_TIMING_H
#define NPUKIT_RK_TIMING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per-job floor: the mainline-rocket submit floor, 51-54 us by default (greg perf, facts G). */
#define NPK_RK_T_JOB_FLOOR_US 54.0
/* Per chained task: the PC fetch of the next body. Chained S=6 int8 streaming reached 19.9
 * GB/s against 8.6 GB/s single (facts G), i.e. the per-task cost is small against the floor;
 * modelled as one regcmd fetch of 112 entries at the DMA rate plus a few microseconds. */
#define NPK_RK_T_TASK_US 3.0
/* NPU clock: 600 MHz, the clock of the published multi-core figures the efficiencies below are
 * fitted to (greg raised it from the 200 MHz boot clock; 1 GHz is the maximum; facts G). */
#define NPK_RK_T_CLOCK_HZ 600.0e6
/* MACs per cycle per core: the precision row's macs_per_cycle (its sources are there). */
/* Achieved fraction of the MAC peak per input precision: fitted so that the plans the runtime
 * runs for 512x3840x4096 on 3 cores at 600 MHz give greg's 461 (fp16), 386 (int8) and 413
 * (int4) GOP/s (facts G: "the bottleneck is DMA and dispatch, not MACs"); see
 * tests/test_rk_timing_calibration.c for every published figure against the model. */
double npk_rk_time_mac_efficiency(int in_prec);
/* DMA bandwidth of one core: 8.6 GB/s, ork's single-submit M=1 int8 weight streaming. */
#define NPK_RK_T_DMA_BYTES_PER_S 8.6e9

/* Modelled duration of one SDP task (us): the DPU_RDMA streams the feature and the operand in
 * while the WDMA streams the output out, each at the DMA rate above; reads and writes use the
 * bus's separate channels, so the slower stream decides. Checked against the spec's per-channel
 * path ("Per-channel-scaled fp16 matmul": ~40-110 us flat across N = 64..2048 at M = 64, submit
 * floor included): M=64, N=2048 fp16 reads 260 KiB, 31 us + the 54 us floor. */
double npk_rk_time_sdp_us(double read_bytes, double write_bytes);

/* Modelled duration of one matmul operation (us): the MAC array's time plus the DMA's, at
 * the model's clock or at clock_hz (the DMA rate does not follow the NPU clock). The two are
 * not overlapped: at a fraction of the MAC peak "the bottleneck is DMA and dispatch, not MACs"
 * (greg, facts G), so an operation that streams its weights for few rows pays the stream. */
double npk_rk_time_matmul_us(int in_prec, uint64_t m, uint64_t k, uint64_t n, double in_bytes,
                             double out_bytes);
double npk_rk_time_matmul_us_at(double clock_hz, int in_prec, uint64_t m, uint64_t k, uint64_t n,
                                double in_bytes, double out_bytes);

/* One task submitted alone (the job floor, the task, its operation at the model's clock) for a
 * synthesized mp x kp x np matmul of input `in` and output `out`: what a plan's task costs. */
double npk_rk_time_task_us(int in_prec, int out_prec, uint32_t mp, uint32_t kp, uint32_t np);
double npk_rk_time_task_us_at(double clock_hz, int in_prec, int out_prec, uint32_t mp, uint32_t kp,
                              uint32_t np);
/* The same task without the job floor: what it adds to a job that already pays the floor
 * (chained forms charge the floor once per job of up to --chain tasks). */
double npk_rk_time_task_body_us(int in_prec, int out_prec, uint32_t mp, uint32_t kp, uint32_t np);

#ifdef __cplusplus
}
#endif
#endif
