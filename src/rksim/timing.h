/* SPDX-License-Identifier: MIT */
/* rksim's timing model is the hardware layer's (npukit/rk_timing.h), under the simulator's
 * names. */
#ifndef NPUKIT_RKSIM_TIMING_H
#define NPUKIT_RKSIM_TIMING_H

#include "npukit/rk_timing.h"

#define RKSIM_T_JOB_FLOOR_US NPK_RK_T_JOB_FLOOR_US
#define RKSIM_T_TASK_US NPK_RK_T_TASK_US
#define RKSIM_T_CLOCK_HZ NPK_RK_T_CLOCK_HZ
#define RKSIM_T_DMA_BYTES_PER_S NPK_RK_T_DMA_BYTES_PER_S
#define rksim_time_sdp_us npk_rk_time_sdp_us
#define rksim_time_matmul_us npk_rk_time_matmul_us
#define rksim_time_matmul_us_at npk_rk_time_matmul_us_at
#define rksim_time_mac_efficiency npk_rk_time_mac_efficiency

#endif
