/* SPDX-License-Identifier: MIT */
/* rksim timing model: a modelled hardware duration for each job, reported as hw_elapse_time.
 * It is a MODEL built from published figures, not a measurement; every constant names its
 * source in the fact sheet (facts G unless noted). */
#ifndef NPUKIT_RKSIM_TIMING_H
#define NPUKIT_RKSIM_TIMING_H

#include <stdint.h>

/* Per-job floor: the mainline-rocket submit floor, 51-54 us by default (greg perf, facts G). */
#define RKSIM_T_JOB_FLOOR_US 54.0
/* Per chained task: the PC fetch of the next body. Chained S=6 int8 streaming reached 19.9
 * GB/s against 8.6 GB/s single (facts G), i.e. the per-task cost is small against the floor;
 * modelled as one regcmd fetch of 112 entries at the DMA rate plus a few microseconds. */
#define RKSIM_T_TASK_US 3.0
/* NPU clock: 1 GHz maximum (greg perf/clock.md, facts G). */
#define RKSIM_T_CLOCK_HZ 1.0e9
/* MACs per cycle per core: the precision row's macs_per_cycle (its sources are there). */
/* Achieved fraction of the MAC peak: ~15% (greg perf/not-mac-bound.md, facts G: ~460 GOP/s
 * against the ~3 TFLOPS fp16 peak; "the bottleneck is DMA and dispatch"). */
#define RKSIM_T_MAC_EFFICIENCY 0.15
/* DMA bandwidth of one core: 8.6 GB/s, ork's single-submit M=1 int8 weight streaming. */
#define RKSIM_T_DMA_BYTES_PER_S 8.6e9

/* Modelled duration of one SDP task (us): the DPU_RDMA streams the feature and the operand in
 * while the WDMA streams the output out, each at the DMA rate above; reads and writes use the
 * bus's separate channels, so the slower stream decides. Checked against the spec's per-channel
 * path ("Per-channel-scaled fp16 matmul": ~40-110 us flat across N = 64..2048 at M = 64, submit
 * floor included): M=64, N=2048 fp16 reads 260 KiB, 31 us + the 54 us floor. */
double rksim_time_sdp_us(double read_bytes, double write_bytes);

/* Modelled duration of one matmul operation (us): the slower of the MAC array and the DMA. */
double rksim_time_matmul_us(int in_prec, uint64_t m, uint64_t k, uint64_t n, double in_bytes,
                            double out_bytes);

#endif
