/* SPDX-License-Identifier: MIT */
/* rksim's timing model is the hardware layer's (npukit/rk_timing.h), read from the SoC row the
 * simulator models, at the clock it runs at (the row's until RKNPU_SET_FREQ changes it): the
 * planner's estimates and the simulator's hw_elapse_time come from the same row. */
#ifndef NPUKIT_RKSIM_TIMING_H
#define NPUKIT_RKSIM_TIMING_H

#include "rk/hw/rk_timing.h"

#endif
